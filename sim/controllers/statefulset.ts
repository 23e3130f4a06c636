// The StatefulSet controller's decisions: pods <name>-<ordinal>, recreated under the same name once the old one is
// gone; with OrderedReady (the default) one step at a time, lowest ordinal first, waiting for Running and Ready.
import type { V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import { refOf, type ControllerAction } from './actions.ts';
import { podFromTemplate, templateHash } from './pod-template.ts';
import { controllerRef, isControlledBy, isFinished, isReady, isRunningAndReady, isTerminating } from './pod-facts.ts';
import { statusDiffers } from './replicaset.ts';

export const LABEL_POD_NAME = 'statefulset.kubernetes.io/pod-name';
export const LABEL_POD_INDEX = 'apps.kubernetes.io/pod-index';
export const LABEL_REVISION_HASH = 'controller-revision-hash';

export function ordinalOf(setName: string, pod: V1Pod): number | undefined {
  const name = pod.metadata?.name ?? '';
  const m = /^(.*)-(\d+)$/.exec(name);
  return m && m[1] === setName ? Number(m[2]) : undefined;
}

export function planStatefulSet(set: V1StatefulSet, pods: readonly V1Pod[]): ControllerAction[] {
  if (set.metadata?.deletionTimestamp) return [];
  const name = set.metadata?.name ?? '';
  const namespace = set.metadata?.namespace ?? '';
  const want = set.spec?.replicas ?? 1;
  const ordered = (set.spec?.podManagementPolicy ?? 'OrderedReady') === 'OrderedReady';
  const revision = `${name}-${templateHash(set.spec?.template)}`;
  const byOrdinal = new Map<number, V1Pod>();
  for (const p of pods) {
    const ord = isControlledBy(p, set.metadata?.uid) ? ordinalOf(name, p) : undefined;
    if (ord !== undefined) byOrdinal.set(ord, p);
  }
  const actions: ControllerAction[] = [];
  const why = (what: string): string => `statefulset ${namespace}/${name}: ${what}`;

  for (let ord = 0; ord < want; ord++) {
    const pod = byOrdinal.get(ord);
    const podName = `${name}-${ord}`;
    if (!pod) {
      actions.push({
        kind: 'createPod',
        pod: withIdentity(
          podFromTemplate(set.spec?.template, {
            namespace,
            name: podName,
            owner: controllerRef('apps/v1', 'StatefulSet', set),
            extraLabels: { [LABEL_POD_NAME]: podName, [LABEL_POD_INDEX]: String(ord), [LABEL_REVISION_HASH]: revision },
          }),
          podName,
          set.spec?.serviceName,
        ),
        reason: why(`ordinal ${ord} missing`),
      });
      if (ordered) break;
      continue;
    }
    // A finished pod is deleted and recreated under its name next round (statefulset: "failed pod").
    if (isFinished(pod) && !isTerminating(pod)) {
      actions.push({ kind: 'deletePod', pod: refOf(pod), reason: why(`${podName} is ${pod.status?.phase ?? ''}`) });
      if (ordered) break;
      continue;
    }
    if (ordered && (isTerminating(pod) || !isRunningAndReady(pod))) break;
  }
  // Condemned ordinals go highest first; with OrderedReady only when every lower pod is healthy, one at a time.
  const condemned = [...byOrdinal.entries()].filter(([ord, p]) => ord >= want && !isTerminating(p)).sort(([a], [b]) => b - a);
  const healthyBelow = [...byOrdinal.entries()].filter(([ord]) => ord < want).every(([, p]) => isRunningAndReady(p) && !isTerminating(p));
  for (const [, pod] of ordered ? (healthyBelow ? condemned.slice(0, 1) : []) : condemned) {
    actions.push({ kind: 'deletePod', pod: refOf(pod), reason: why(`scaling down to ${want}`) });
  }

  const live = [...byOrdinal.values()].filter((p) => !isTerminating(p));
  const ready = live.filter(isReady).length;
  const status = {
    replicas: live.length,
    readyReplicas: ready,
    availableReplicas: ready,
    currentReplicas: live.length,
    updatedReplicas: live.length,
    currentRevision: revision,
    updateRevision: revision,
    observedGeneration: set.metadata?.generation ?? 0,
  };
  if (statusDiffers(set.status, status)) actions.push({ kind: 'patchStatus', resource: 'statefulsets', target: refOf(set), status, reason: 'replica counts changed' });
  return actions;
}

/** The stable network identity: hostname = pod name, subdomain = the governing service. */
function withIdentity(pod: V1Pod, podName: string, serviceName: string | undefined): V1Pod {
  return { ...pod, spec: { ...pod.spec, containers: pod.spec?.containers ?? [], hostname: podName, ...(serviceName ? { subdomain: serviceName } : {}) } };
}
