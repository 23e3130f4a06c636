// The ReplicaSet controller's decisions: keep `replicas` active pods, delete the least valuable extras, report status.
import type { V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { refOf, type ControllerAction } from './actions.ts';
import { podFromTemplate } from './pod-template.ts';
import { compareStrings, controllerRef, isActive, isControlledBy, isReady, podKey, timeMs } from './pod-facts.ts';

const PHASE_RANK: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

/**
 * controller.ActivePods order, cheapest to lose first: not yet on a node, then Pending < Unknown < Running,
 * then not ready, then the newest; namespace/name last.
 */
export function deletionOrder(a: V1Pod, b: V1Pod): number {
  const assigned = (p: V1Pod): number => (p.spec?.nodeName ? 1 : 0);
  const phase = (p: V1Pod): number => PHASE_RANK[p.status?.phase ?? 'Pending'] ?? 0;
  const ready = (p: V1Pod): number => (isReady(p) ? 1 : 0);
  return (
    assigned(a) - assigned(b) ||
    phase(a) - phase(b) ||
    ready(a) - ready(b) ||
    timeMs(b.metadata?.creationTimestamp) - timeMs(a.metadata?.creationTimestamp) ||
    compareStrings(podKey(a), podKey(b))
  );
}

/** Pods controlled by `rs` (by owner uid; the sim does no adoption of orphans). */
export function podsOf(owner: { metadata?: { uid?: string } }, pods: readonly V1Pod[]): V1Pod[] {
  return pods.filter((p) => isControlledBy(p, owner.metadata?.uid));
}

export function planReplicaSet(rs: V1ReplicaSet, pods: readonly V1Pod[]): ControllerAction[] {
  if (rs.metadata?.deletionTimestamp) return [];
  const name = rs.metadata?.name ?? '';
  const namespace = rs.metadata?.namespace ?? '';
  const want = rs.spec?.replicas ?? 1;
  const owned = podsOf(rs, pods);
  const active = owned.filter(isActive);
  const actions: ControllerAction[] = [];
  if (active.length < want) {
    const owner = controllerRef('apps/v1', 'ReplicaSet', rs);
    for (let i = active.length; i < want; i++) {
      actions.push({
        kind: 'createPod',
        pod: podFromTemplate(rs.spec?.template, { namespace, generateName: `${name}-`, owner }),
        reason: `replicaset ${namespace}/${name} has ${active.length} of ${want} active pods`,
      });
    }
  } else if (active.length > want) {
    for (const pod of [...active].sort(deletionOrder).slice(0, active.length - want)) {
      actions.push({ kind: 'deletePod', pod: refOf(pod), reason: `replicaset ${namespace}/${name} has ${active.length} active pods, wants ${want}` });
    }
  }
  const ready = active.filter(isReady).length;
  const status = {
    replicas: active.length,
    fullyLabeledReplicas: active.length,
    readyReplicas: ready,
    availableReplicas: ready,
    terminatingReplicas: owned.filter((p) => p.metadata?.deletionTimestamp).length,
    observedGeneration: rs.metadata?.generation ?? 0,
  };
  if (statusDiffers(rs.status, status)) actions.push({ kind: 'patchStatus', resource: 'replicasets', target: refOf(rs), status, reason: 'replica counts changed' });
  return actions;
}

/** True when some field of `want` differs from `current` (missing numbers count as 0). */
export function statusDiffers(current: object | undefined, want: Readonly<Record<string, unknown>>): boolean {
  const cur = (current ?? {}) as Record<string, unknown>;
  return Object.entries(want).some(([k, v]) => {
    const c = cur[k];
    if (typeof v === 'number') return (typeof c === 'number' ? c : 0) !== v;
    return JSON.stringify(c ?? null) !== JSON.stringify(v ?? null);
  });
}
