// The Deployment controller's decisions: one ReplicaSet per template hash at the wanted scale, older ones scaled
// to zero at once (the sim does no surge or rolling pace), and the summed status.
import type { V1Deployment, V1ReplicaSet } from '@kubernetes/client-node';
import { refOf, type ControllerAction } from './actions.ts';
import { stableJson, templateHash } from './pod-template.ts';
import { compareStrings, controllerRef, isControlledBy } from './pod-facts.ts';
import { statusDiffers } from './replicaset.ts';

export const LABEL_POD_TEMPLATE_HASH = 'pod-template-hash';
export const ANNOTATION_REVISION = 'deployment.kubernetes.io/revision';

/** deploymentutil.EqualIgnoreHash: the ReplicaSet's template is the Deployment's, but for the hash label. */
function sameTemplate(rs: V1ReplicaSet, d: V1Deployment): boolean {
  const template = rs.spec?.template;
  const labels = { ...template?.metadata?.labels };
  delete labels[LABEL_POD_TEMPLATE_HASH];
  const stripped = { ...template, metadata: { ...template?.metadata, labels } };
  const want = d.spec?.template;
  return stableJson(stripped) === stableJson({ ...want, metadata: { ...want?.metadata, labels: { ...want?.metadata?.labels } } });
}

function revisionOf(rs: V1ReplicaSet): number {
  const n = Number(rs.metadata?.annotations?.[ANNOTATION_REVISION] ?? 0);
  return Number.isSafeInteger(n) ? n : 0;
}

export function planDeployment(d: V1Deployment, replicaSets: readonly V1ReplicaSet[]): ControllerAction[] {
  if (d.metadata?.deletionTimestamp) return [];
  const name = d.metadata?.name ?? '';
  const namespace = d.metadata?.namespace ?? '';
  const want = d.spec?.paused ? undefined : (d.spec?.replicas ?? 1);
  const hash = templateHash(d.spec?.template, d.status?.collisionCount ?? 0);
  const owned = replicaSets
    .filter((rs) => isControlledBy(rs, d.metadata?.uid))
    .sort((a, b) => compareStrings(a.metadata?.name ?? '', b.metadata?.name ?? ''));
  const current = owned.find((rs) => sameTemplate(rs, d));
  const actions: ControllerAction[] = [];
  if (want === undefined) return actions;

  if (!current) {
    const revision = Math.max(0, ...owned.map(revisionOf)) + 1;
    const labels = { ...d.spec?.template.metadata?.labels, [LABEL_POD_TEMPLATE_HASH]: hash };
    const replicaSet: V1ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        namespace,
        name: `${name}-${hash}`,
        labels,
        annotations: {
          [ANNOTATION_REVISION]: String(revision),
          'deployment.kubernetes.io/desired-replicas': String(want),
          'deployment.kubernetes.io/max-replicas': String(want),
        },
        ownerReferences: [controllerRef('apps/v1', 'Deployment', d)],
      },
      spec: {
        replicas: want,
        selector: {
          ...d.spec?.selector,
          matchLabels: { ...d.spec?.selector.matchLabels, [LABEL_POD_TEMPLATE_HASH]: hash },
        },
        template: { ...d.spec?.template, metadata: { ...d.spec?.template.metadata, labels } },
      },
    };
    actions.push({ kind: 'createReplicaSet', replicaSet, reason: `deployment ${namespace}/${name} has no ReplicaSet for template ${hash}` });
  } else if ((current.spec?.replicas ?? 1) !== want) {
    actions.push({ kind: 'scaleReplicaSet', replicaSet: refOf(current), replicas: want, reason: `deployment ${namespace}/${name} wants ${want} replicas` });
  }
  for (const old of owned) {
    if (old !== current && (old.spec?.replicas ?? 1) > 0) {
      actions.push({ kind: 'scaleReplicaSet', replicaSet: refOf(old), replicas: 0, reason: `deployment ${namespace}/${name} replaced template ${old.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH] ?? '?'}` });
    }
  }
  const sum = (f: (rs: V1ReplicaSet) => number | undefined): number => owned.reduce((n, rs) => n + (f(rs) ?? 0), 0);
  const available = sum((rs) => rs.status?.availableReplicas);
  const status = {
    replicas: sum((rs) => rs.status?.replicas),
    updatedReplicas: current?.status?.replicas ?? 0,
    readyReplicas: sum((rs) => rs.status?.readyReplicas),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, want - available),
    terminatingReplicas: sum((rs) => rs.status?.terminatingReplicas),
    observedGeneration: d.metadata?.generation ?? 0,
  };
  if (statusDiffers(d.status, status)) actions.push({ kind: 'patchStatus', resource: 'deployments', target: refOf(d), status, reason: 'replica counts changed' });
  return actions;
}
