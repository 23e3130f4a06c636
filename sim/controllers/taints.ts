// Taints and tolerations as the scheduler and the DaemonSet controller read them (v1helper.TolerationsTolerateTaint).
import type { V1Node, V1Taint, V1Toleration } from '@kubernetes/client-node';

export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';

export function toleratesTaint(toleration: V1Toleration, taint: V1Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
      // An empty key tolerates every key only with Exists (validation forbids it with Equal).
      return Boolean(toleration.key) && (toleration.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

export function tolerated(tolerations: readonly V1Toleration[] | undefined, taint: V1Taint): boolean {
  return (tolerations ?? []).some((t) => toleratesTaint(t, taint));
}

/** What a cordoned node asks of a pod (the NodeUnschedulable plugin's check). */
export const UNSCHEDULABLE_TAINT: V1Taint = { key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' };

/**
 * The node's taints plus not-ready:NoSchedule while its Ready condition is not True, which the node
 * lifecycle controller would add; the sim runs no node lifecycle controller.
 */
export function effectiveTaints(node: V1Node): V1Taint[] {
  const taints = [...(node.spec?.taints ?? [])];
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready !== undefined && ready.status !== 'True' && !taints.some((t) => t.key === TAINT_NOT_READY && t.effect === 'NoSchedule')) {
    taints.push({ key: TAINT_NOT_READY, effect: 'NoSchedule' });
  }
  return taints;
}

/** The first taint with one of `effects` that no toleration tolerates. */
export function firstUntolerated(taints: readonly V1Taint[], tolerations: readonly V1Toleration[] | undefined, effects: readonly string[]): V1Taint | undefined {
  return taints.find((t) => effects.includes(t.effect) && !tolerated(tolerations, t));
}
