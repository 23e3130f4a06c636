// Plain facts about one pod that the drain rules ask for, named the way kubectl drain's filters name them.
import type { V1OwnerReference, V1Pod } from '@kubernetes/client-node';

/** Annotation the kubelet puts on the API-server copy of a static pod (corev1.MirrorPodAnnotationKey). */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/** "namespace/name", the form every status list and message uses. */
export function podKey(pod: V1Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

/** Go's string order on podKey: the total order every pod list ends in. */
export function comparePodKeys(a: V1Pod, b: V1Pod): number {
  const [x, y] = [podKey(a), podKey(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

export function isFinished(pod: V1Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

export function isMirrorPod(pod: V1Pod): boolean {
  const annotations = pod.metadata?.annotations;
  return annotations !== undefined && Object.hasOwn(annotations, MIRROR_POD_ANNOTATION);
}

export function isTerminating(pod: V1Pod): boolean {
  return pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
}

/** The owner reference marked controller: true (metav1.GetControllerOf), if any. */
export function controllerOf(pod: V1Pod): V1OwnerReference | undefined {
  return pod.metadata?.ownerReferences?.find((owner) => owner.controller === true);
}

/** kubectl drain's "local storage": any emptyDir volume, whatever its medium. */
export function hasEmptyDir(pod: V1Pod): boolean {
  return (pod.spec?.volumes ?? []).some((volume) => volume.emptyDir !== undefined && volume.emptyDir !== null);
}

/** Resource names in resources.requests of regular containers; init containers and limits do not count upstream. */
export function requestedResourceNames(pod: V1Pod): string[] {
  return (pod.spec?.containers ?? []).flatMap((container) => Object.keys(container.resources?.requests ?? {}));
}
