// What the simulated kubelet does next with one pod, and when: a pure function of the pod and the clock.
import type { PodView } from './pod-view.ts';
import { isRebootPod, REBOOT_POD_RUN_SECONDS } from './reboot-pod.ts';

export type PodDecision =
  | { kind: 'none'; reason: string }
  | { kind: 'start'; at: number; ready: boolean; reason: string }
  | { kind: 'setReady'; at: number; ready: boolean; reason: string }
  | { kind: 'succeed'; at: number; reason: string }
  /** A host process ended: its exit code decides the pod's phase. */
  | { kind: 'exit'; at: number; exitCode: number; message?: string; reason: string }
  /** A deleted pod's host process still runs: SIGTERM now, SIGKILL after the grace. */
  | { kind: 'stop'; at: number; graceSeconds: number; reason: string }
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
  /** The pod runs as a host process (host-process.ts): where that process is. Absent for simulated pods. */
  host?: HostFacts;
}

export type HostFacts =
  | { state: 'not-started' }
  | { state: 'running' }
  | { state: 'stopping' }
  | { state: 'exited'; finishedMs: number; exitCode: number; message?: string };

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
    if (facts.host) return decideDeletedHostPod(pod, facts, facts.host);
    const since = facts.terminatingSinceMs ?? facts.firstSeenMs;
    const secs = terminationSeconds(pod, facts, timing);
    return { kind: 'delete', at: since + secs * 1000, reason: `stopping takes ${secs}s` };
  }
  if (pod.phase === 'Succeeded' || pod.phase === 'Failed') return { kind: 'none', reason: `pod is ${pod.phase}` };
  const wantReady = !facts.neverReady;
  if (pod.phase !== 'Running') {
    return { kind: 'start', at: facts.firstSeenMs + timing.podStartDelayMs, ready: wantReady, reason: 'pending pod bound to this node' };
  }
  if (facts.host && pod.phase === 'Running') {
    const host = facts.host;
    if (host.state === 'exited') return { kind: 'exit', at: host.finishedMs, exitCode: host.exitCode, ...(host.message ? { message: host.message } : {}), reason: `host process exited ${host.exitCode}` };
    if (host.state === 'not-started') return { kind: 'exit', at: facts.firstSeenMs, exitCode: 128, message: 'the host process is gone (the simulated kubelet restarted)', reason: 'host process lost' };
  }
  if (pod.ready !== wantReady) {
    return { kind: 'setReady', at: facts.firstSeenMs, ready: wantReady, reason: wantReady ? 'readiness restored' : 'pod selected as never ready' };
  }
  if (pod.job && !pod.mirror && !facts.host) {
    // kmaint's reboot pod is never run: it "returns" at once and the node reboots (reboot.ts).
    const run = pod.runSeconds ?? (isRebootPod(pod.labels) ? REBOOT_POD_RUN_SECONDS : timing.defaultJobRunSeconds);
    const at = (pod.startTimeMs ?? facts.firstSeenMs) + run * 1000;
    // A non-zero exit code asked for by the pod's env (a validation Job that fails, issue 44): the pod Fails.
    if (pod.exitCode !== undefined && pod.exitCode !== 0) return { kind: 'exit', at, exitCode: pod.exitCode, reason: `job pod runs ${run}s and exits ${pod.exitCode}` };
    return { kind: 'succeed', at: (pod.startTimeMs ?? facts.firstSeenMs) + run * 1000, reason: `job pod runs ${run}s` };
  }
  return { kind: 'none', reason: 'running as wanted' };
}

/** A deleted pod run as a host process: stop the process (its grace from the deleter), then the final delete. */
function decideDeletedHostPod(pod: PodView, facts: PodFacts, host: HostFacts): PodDecision {
  const since = facts.terminatingSinceMs ?? facts.firstSeenMs;
  if (host.state === 'running') return { kind: 'stop', at: since, graceSeconds: pod.deletionGraceSeconds ?? pod.terminationGraceSeconds, reason: 'deleted: stopping the host process' };
  if (host.state === 'stopping') return { kind: 'none', reason: 'waiting for the host process to exit' };
  // Its phase first, so the Job controller counts a success as one (a deleted pod that is not Succeeded is a failure).
  if (host.state === 'exited' && pod.phase === 'Running') return { kind: 'exit', at: host.finishedMs, exitCode: host.exitCode, ...(host.message ? { message: host.message } : {}), reason: `host process exited ${host.exitCode}` };
  return { kind: 'delete', at: host.state === 'exited' ? Math.max(since, host.finishedMs) : since, reason: 'host process stopped' };
}
