// Plain facts about pods and owned objects that every simulated controller asks, named as client-go names them.
import type { V1ObjectMeta, V1OwnerReference, V1Pod } from '@kubernetes/client-node';

export function podKey(pod: V1Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

/** Go's byte-wise string order, never locale-dependent: the last tie-break of every sort. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The owner reference marked controller: true (metav1.GetControllerOf). */
export function controllerOf(object: { metadata?: V1ObjectMeta }): V1OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((o) => o.controller === true);
}

/** Controlled by the object with this uid. */
export function isControlledBy(object: { metadata?: V1ObjectMeta }, uid: string | undefined): boolean {
  return uid !== undefined && controllerOf(object)?.uid === uid;
}

export function isTerminating(object: { metadata?: V1ObjectMeta }): boolean {
  return object.metadata?.deletionTimestamp !== undefined && object.metadata.deletionTimestamp !== null;
}

export function isFinished(pod: V1Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** controller.IsPodActive: neither finished nor being deleted. */
export function isActive(pod: V1Pod): boolean {
  return !isFinished(pod) && !isTerminating(pod);
}

/** podutil.IsPodReady: the Ready condition is True. */
export function isReady(pod: V1Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

export function isRunningAndReady(pod: V1Pod): boolean {
  return pod.status?.phase === 'Running' && isReady(pod);
}

/** An owner reference naming `owner` as the controller, as every workload controller writes it. */
export function controllerRef(apiVersion: string, kind: string, owner: { metadata?: V1ObjectMeta }): V1OwnerReference {
  return { apiVersion, kind, name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true };
}

export function timeMs(value: Date | string | undefined | null): number {
  if (value === undefined || value === null) return 0;
  return value instanceof Date ? value.getTime() : Date.parse(value);
}
