// waitForPodCompletion: which pods on the node still hold the maintenance back, as upstream's podcompletion decides.
import type { V1Pod } from '@kubernetes/client-node';
import { matchesLabels, parseLabelSelector } from '#selectors';
import { podKey } from './pod-facts.ts';

export type PodCompletionResult = { ok: true; waitingFor: string[] } | { ok: false; error: string };

/**
 * Pods on the node matching the selector in ANY phase (a Succeeded pod that still exists keeps blocking, as
 * upstream), as sorted "namespace/name". The empty selector matches every pod, DaemonSet and kmaint pods included,
 * so such a wait ends only by its timeout. An invalid selector is an error for the caller to report; it must not
 * read as "nothing left to wait for".
 */
export function podsBlockingCompletion(pods: readonly V1Pod[], selectorText: string | undefined): PodCompletionResult {
  const parsed = parseLabelSelector(selectorText ?? '');
  if (!parsed.ok) return { ok: false, error: `waitForPodCompletion.podSelector: ${parsed.error}` };
  const waitingFor = pods
    .filter((pod) => matchesLabels(parsed.selector, pod.metadata?.labels))
    .map(podKey)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { ok: true, waitingFor };
}
