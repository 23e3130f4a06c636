import { describe, expect, it } from 'vitest';
import { decidePod, terminationSeconds, type PodFacts, type PodTiming } from './pod-decision.ts';
import type { PodView } from './pod-view.ts';

const T0 = 1_700_000_000_000;
const timing: PodTiming = { podStartDelayMs: 500, defaultJobRunSeconds: 5 };

function aPod(over: Partial<PodView> = {}): PodView {
  return {
    uid: 'u1',
    namespace: 'web',
    name: 'frontend-1',
    resourceVersion: '10',
    nodeName: 'node-001',
    labels: { app: 'frontend' },
    phase: 'Pending',
    ready: false,
    scheduled: true,
    deleting: false,
    terminationGraceSeconds: 30,
    mirror: false,
    job: false,
    containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
    initContainers: [],
    ...over,
  };
}

const facts = (over: Partial<PodFacts> = {}): PodFacts => ({ firstSeenMs: T0, deleteIssued: false, neverReady: false, ...over });

describe('decidePod', () => {
  it.each([
    ['a pending pod starts Ready after the start delay', aPod(), facts(), { kind: 'start', at: T0 + 500, ready: true }],
    ['a never-ready pending pod starts not Ready', aPod(), facts({ neverReady: true }), { kind: 'start', at: T0 + 500, ready: false }],
    ['a running Ready pod is left alone', aPod({ phase: 'Running', ready: true }), facts(), { kind: 'none' }],
    ['a running Ready pod selected never-ready turns NotReady now', aPod({ phase: 'Running', ready: true }), facts({ neverReady: true }), { kind: 'setReady', at: T0, ready: false }],
    ['a running NotReady pod no longer selected turns Ready', aPod({ phase: 'Running', ready: false }), facts(), { kind: 'setReady', at: T0, ready: true }],
    ['a job pod succeeds its run time after it started', aPod({ phase: 'Running', ready: true, job: true, runSeconds: 60, startTimeMs: T0 + 1000 }), facts(), { kind: 'succeed', at: T0 + 61_000 }],
    ['a job pod without a run time uses the default', aPod({ phase: 'Running', ready: true, job: true }), facts(), { kind: 'succeed', at: T0 + 5000 }],
    ['a job pod whose env asks for exit code 3 fails at the end of its run (a failing validation Job)', aPod({ phase: 'Running', ready: true, job: true, runSeconds: 2, exitCode: 3, startTimeMs: T0 }), facts(), { kind: 'exit', at: T0 + 2000, exitCode: 3 }],
    ['a job pod whose env asks for exit code 0 succeeds', aPod({ phase: 'Running', ready: true, job: true, runSeconds: 2, exitCode: 0, startTimeMs: T0 }), facts(), { kind: 'succeed', at: T0 + 2000 }],
    ['a mirror pod is never finished as a job', aPod({ phase: 'Running', ready: true, mirror: true, job: true }), facts(), { kind: 'none' }],
    ['a succeeded pod is left alone', aPod({ phase: 'Succeeded' }), facts(), { kind: 'none' }],
    ['a deleted pod stops after its whole grace period', aPod({ phase: 'Running', deleting: true, deletionGraceSeconds: 30 }), facts({ terminatingSinceMs: T0 + 100 }), { kind: 'delete', at: T0 + 100 + 30_000 }],
    ['the annotation shortens the stop', aPod({ phase: 'Running', deleting: true, deletionGraceSeconds: 30, terminationSeconds: 2 }), facts({ terminatingSinceMs: T0 }), { kind: 'delete', at: T0 + 2000 }],
    ['a scenario override beats the annotation', aPod({ phase: 'Running', deleting: true, deletionGraceSeconds: 30, terminationSeconds: 2 }), facts({ terminatingSinceMs: T0, terminationOverrideSeconds: 10 }), { kind: 'delete', at: T0 + 10_000 }],
    ['the grace the deleter granted caps the stop', aPod({ phase: 'Running', deleting: true, deletionGraceSeconds: 5 }), facts({ terminatingSinceMs: T0, terminationOverrideSeconds: 600 }), { kind: 'delete', at: T0 + 5000 }],
    ['a deleted pending pod is stopped too', aPod({ deleting: true, deletionGraceSeconds: 0 }), facts({ terminatingSinceMs: T0 }), { kind: 'delete', at: T0 }],
    ['a deleted terminal pod is deleted at once', aPod({ phase: 'Succeeded', deleting: true, deletionGraceSeconds: 30 }), facts(), { kind: 'delete', at: T0 }],
    ['a pod already deleted (lingering on finalizers) gets no second delete', aPod({ phase: 'Running', deleting: true }), facts({ deleteIssued: true }), { kind: 'none' }],
  ] as const)('%s', (_rule, pod, f, expected) => {
    expect(decidePod(pod, f, timing)).toMatchObject(expected);
  });
});

describe('decidePod for a pod run as a host process', () => {
  const running = aPod({ phase: 'Running', ready: true, job: true, startTimeMs: T0 });
  it.each([
    ['a pending host pod starts as any pod', aPod({ job: true }), facts({ host: { state: 'not-started' } }), { kind: 'start', at: T0 + 500, ready: true }],
    ['a running process is left alone: no simulated run time', running, facts({ host: { state: 'running' } }), { kind: 'none', reason: 'running as wanted' }],
    ['an exit 0 is reported when the process ended', running, facts({ host: { state: 'exited', finishedMs: T0 + 7000, exitCode: 0 } }), { kind: 'exit', at: T0 + 7000, exitCode: 0 }],
    ['a failing exit code is reported', running, facts({ host: { state: 'exited', finishedMs: T0 + 7000, exitCode: 2 } }), { kind: 'exit', at: T0 + 7000, exitCode: 2 }],
    [
      'a running pod whose process this kubelet never started (it restarted) fails',
      running,
      facts({ host: { state: 'not-started' } }),
      { kind: 'exit', at: T0, exitCode: 128, message: 'the host process is gone (the simulated kubelet restarted)' },
    ],
    ['a deleted pod stops its process at once, with the grace the deleter granted', aPod({ phase: 'Running', deleting: true, deletionGraceSeconds: 20 }), facts({ terminatingSinceMs: T0 + 100, host: { state: 'running' } }), { kind: 'stop', at: T0 + 100, graceSeconds: 20 }],
    ['a stopping process is waited for', aPod({ phase: 'Running', deleting: true }), facts({ terminatingSinceMs: T0, host: { state: 'stopping' } }), { kind: 'none' }],
    ['a stopped process is reported first, so a success counts as one', aPod({ phase: 'Running', deleting: true }), facts({ terminatingSinceMs: T0, host: { state: 'exited', finishedMs: T0 + 900, exitCode: 0 } }), { kind: 'exit', at: T0 + 900, exitCode: 0 }],
    ['then the reported pod is deleted', aPod({ phase: 'Failed', deleting: true }), facts({ terminatingSinceMs: T0, host: { state: 'exited', finishedMs: T0 + 900, exitCode: 143 } }), { kind: 'delete', at: T0 }],
    ['a deleted pod that never started is deleted at once', aPod({ deleting: true }), facts({ terminatingSinceMs: T0, host: { state: 'not-started' } }), { kind: 'delete', at: T0 }],
  ] as const)('%s', (_rule, pod, f, expected) => {
    expect(decidePod(pod, f, timing)).toMatchObject(expected);
  });
});

describe('terminationSeconds', () => {
  it.each([
    ['spec grace when nothing else is said', aPod({ terminationGraceSeconds: 12 }), {}, 12],
    ['the default stop time, capped by grace', aPod({ terminationGraceSeconds: 12 }), { defaultTerminationSeconds: 3 }, 3],
    ['deletion grace over spec grace', aPod({ terminationGraceSeconds: 12, deletionGraceSeconds: 1 }), { defaultTerminationSeconds: 3 }, 1],
  ] as const)('%s', (_rule, pod, extra, seconds) => {
    expect(terminationSeconds(pod, facts(), { ...timing, ...extra })).toBe(seconds);
  });
});
