// What the simulated kubelet does next with one pod, and when: a pure function of the pod and the clock.
import type { PodView } from './pod-view.ts';

export type PodDecision =
  | { kind: 'none'; reason: string }
  | { kind: 'start'; at: number; ready: boolean; reason: string }
  | { kind: 'setReady'; at: number; ready: boolean; reason: string }
  | { kind: 'succeed'; at: number; reason: string }
  | { kind: 'delete'; at: number; reason: string };

export interface PodFacts {
  /** When this kubelet first saw the pod bound to its node. */
  firstSeenMs: number;
  /** When this kubelet first saw the pod with a deletionTimestamp. */
  terminatingSinceMs?: number;
  /** We already deleted this pod (it may linger on finalizers). */
  deleteIssued: boolean;
  /** A neverReady selector matches the pod. */
  neverReady: boolean;
  /** A setTerminationDelay selector matches: seconds to stop, still capped by the grace period. */
  terminationOverrideSeconds?: number;
}

export interface PodTiming {
  podStartDelayMs: number;
  /** Run time of Job pods without the run-seconds annotation. */
  defaultJobRunSeconds: number;
  /** Stop time of pods without an override or annotation; undefined means the whole grace period. */
  defaultTerminationSeconds?: number;
}

/**
 * Seconds from the first sight of a terminating pod to its final delete: the override (scenario,
 * then annotation, then default) capped by the grace the deleter granted, as a kubelet kills
 * what has not stopped when the grace period ends.
 */
export function terminationSeconds(pod: PodView, facts: PodFacts, timing: PodTiming): number {
  const grace = pod.deletionGraceSeconds ?? pod.terminationGraceSeconds;
  const wanted = facts.terminationOverrideSeconds ?? pod.terminationSeconds ?? timing.defaultTerminationSeconds ?? grace;
  return Math.max(0, Math.min(grace, wanted));
}

export function decidePod(pod: PodView, facts: PodFacts, timing: PodTiming): PodDecision {
  if (pod.deleting) {
    if (facts.deleteIssued) return { kind: 'none', reason: 'delete already issued, waiting for finalizers' };
    if (pod.phase === 'Succeeded' || pod.phase === 'Failed') return { kind: 'delete', at: facts.firstSeenMs, reason: 'terminal pod deleted' };
    const since = facts.terminatingSinceMs ?? facts.firstSeenMs;
    const secs = terminationSeconds(pod, facts, timing);
    return { kind: 'delete', at: since + secs * 1000, reason: `stopping takes ${secs}s` };
  }
  if (pod.phase === 'Succeeded' || pod.phase === 'Failed') return { kind: 'none', reason: `pod is ${pod.phase}` };
  const wantReady = !facts.neverReady;
  if (pod.phase !== 'Running') {
    return { kind: 'start', at: facts.firstSeenMs + timing.podStartDelayMs, ready: wantReady, reason: 'pending pod bound to this node' };
  }
  if (pod.ready !== wantReady) {
    return { kind: 'setReady', at: facts.firstSeenMs, ready: wantReady, reason: wantReady ? 'readiness restored' : 'pod selected as never ready' };
  }
  if (pod.job && !pod.mirror) {
    const run = pod.runSeconds ?? timing.defaultJobRunSeconds;
    return { kind: 'succeed', at: (pod.startTimeMs ?? facts.firstSeenMs) + run * 1000, reason: `job pod runs ${run}s` };
  }
  return { kind: 'none', reason: 'running as wanted' };
}
