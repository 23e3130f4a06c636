// The simulated kubelet's reboot pods (issue 43): recognised by kmaint's label, "run" for one second, never executed.
import { describe, expect, it } from 'vitest';
import { decidePod, type PodTiming } from './pod-decision.ts';
import type { PodView } from './pod-view.ts';
import { nextBootId } from './reboot.ts';
import { isRebootPod } from './reboot-pod.ts';

const T0 = 1_700_000_000_000;
const timing: PodTiming = { podStartDelayMs: 500, defaultJobRunSeconds: 5 };

function aJobPod(labels: Record<string, string>): PodView {
  return {
    uid: 'u1',
    namespace: 'kmaint',
    name: 'kmaint-reboot-x-abcde',
    resourceVersion: '10',
    nodeName: 'node-001',
    labels,
    phase: 'Running',
    ready: true,
    scheduled: false,
    startTimeMs: T0,
    deleting: false,
    terminationGraceSeconds: 0,
    mirror: false,
    job: true,
    containers: [{ name: 'reboot', image: 'docker.io/library/debian:bookworm-slim' }],
    initContainers: [],
  };
}

describe('reboot pods', () => {
  it.each<{ rule: string; labels: Record<string, string>; expected: boolean }>([
    { rule: "kmaint's label: a reboot pod", labels: { 'kmaint.io/reboot': 'true' }, expected: true },
    { rule: 'another value is not', labels: { 'kmaint.io/reboot': 'yes' }, expected: false },
    { rule: 'no label is not', labels: {}, expected: false },
  ])('isRebootPod: $rule', ({ labels, expected }) => {
    expect(isRebootPod(labels)).toBe(expected);
  });

  it('a reboot pod "returns" after 1 s (its node then reboots); another Job pod runs the default 5 s', () => {
    const facts = { firstSeenMs: T0, deleteIssued: false, neverReady: false };
    expect(decidePod(aJobPod({ 'kmaint.io/reboot': 'true' }), facts, timing)).toEqual({ kind: 'succeed', at: T0 + 1000, reason: 'job pod runs 1s' });
    expect(decidePod(aJobPod({}), facts, timing)).toEqual({ kind: 'succeed', at: T0 + 5000, reason: 'job pod runs 5s' });
  });

  it('nextBootId: a new ID derived from the old one, the same every run (a seeded cluster reboots to the same IDs)', () => {
    expect(nextBootId('17971211-d88f-be44-1c16-771d4862b74a')).toBe('690cb678-c39f-cdbe-1572-83a5083d9483');
  });
});
