// Issue 44 point 1 in what-if: a simulate() whose config has spec.validation completes — cleanup's validation Job gets
// its pod, which ends as its env says (validation-jobs.ts) — and the report shows the validating stage and its wait.
// Fixture sim/whatif/fixtures/small-cluster.json, worker-a only: its drain ends (Ready, deleted by the requestor) at
// 30 s; passes take no simulated time, pods start 10 s after binding.
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { readSnapshotFile, simulate } from './index.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/small-cluster.json', import.meta.url));

function validation(exitCode: number): Record<string, unknown> {
  const env = [{ name: 'KMAINT_SIM_RUN_SECONDS', value: '30' }, { name: 'KMAINT_SIM_EXIT_CODE', value: String(exitCode) }];
  return { maxParallelOperations: 2, maxUnavailable: 2, validation: { job: { image: 'dcgm', command: ['dcgmi', 'diag', '-r', '3'], env }, timeoutSeconds: 600 } };
}

async function run(exitCode: number): ReturnType<typeof simulate> {
  return simulate({ snapshot: readSnapshotFile(FIXTURE), config: validation(exitCode) as never, nodes: { selector: 'kubernetes.io/hostname=worker-a' }, podStartMs: 10_000, passMs: 0 });
}

it('runs the validation Job and waits for it before the uncordon: Validating from 30 s to 70.5 s, passed', async () => {
  const r = await run(0);
  // The Job at 30 s; its pod starts at 40 s and exits 0 at 70 s; the next cleanup pass (the cadence's 500 ms) releases.
  expect([r.outcome, r.makespanMs, r.admissionOrder]).toEqual(['done', 70_500, [{ node: 'worker-a', request: 'default/whatif-worker-a', admittedMs: 0, readyMs: 30_000, releasedMs: 70_500 }]]);
  expect(r.validations).toEqual([{ node: 'worker-a', request: 'default/whatif-worker-a', startMs: 30_000, waitMs: 40_500, outcome: 'Passed', stayedCordoned: false }]);
  expect(r.timeline.lanes[0]?.spans.filter((s) => s.startMs >= 30_000)).toEqual([
    { request: 'default/whatif-worker-a', phase: 'Ready', startMs: 30_000, endMs: 30_000 },
    { request: 'default/whatif-worker-a', phase: 'deleting', startMs: 30_000, endMs: 30_000 },
    { request: 'default/whatif-worker-a', phase: 'Validating', startMs: 30_000, endMs: 70_500 },
    { request: 'default/whatif-worker-a', phase: 'deleting', startMs: 70_500, endMs: 70_500 },
  ]);
  expect([r.passes.actions['createValidationJob'], r.passes.actions['deleteValidationJob'], r.passes.actions['uncordonNode'], r.passes.errors]).toEqual([1, 1, 1, []]);
});

it('a validation that fails keeps the node cordoned past the release, to the end of the run', async () => {
  const r = await run(1);
  expect(r.validations).toEqual([{ node: 'worker-a', request: 'default/whatif-worker-a', startMs: 30_000, waitMs: 40_500, outcome: 'Failed', stayedCordoned: true }]);
  expect([r.outcome, r.makespanMs, r.simulatedMs, r.passes.actions['uncordonNode'], r.passes.errors]).toEqual(['done', 70_500, 70_500, undefined, []]);
  expect(r.timeline.lanes[0]?.spans.filter((s) => s.startMs >= 30_000 && s.phase !== 'Ready' && s.phase !== 'deleting')).toEqual([
    { request: 'default/whatif-worker-a', phase: 'Validating', startMs: 30_000, endMs: 70_500 },
    { request: 'default/whatif-worker-a', phase: 'ValidationFailed: stayed cordoned', startMs: 70_500, endMs: 70_500 },
  ]);
});

it('a Job that outlasts spec.validation.timeoutSeconds times out at the timeout, not when its pod ends', async () => {
  const config = validation(0) as { validation: { timeoutSeconds: number } };
  config.validation.timeoutSeconds = 20;
  const r = await simulate({ snapshot: readSnapshotFile(FIXTURE), config: config as never, nodes: { selector: 'kubernetes.io/hostname=worker-a' }, podStartMs: 10_000, passMs: 0 });
  // Timed out at 50 s (a pass is due then, though nothing changed); the next round (500 ms on) releases: not at 70.5 s.
  expect(r.validations).toEqual([{ node: 'worker-a', request: 'default/whatif-worker-a', startMs: 30_000, waitMs: 20_500, outcome: 'TimedOut', stayedCordoned: true }]);
  expect([r.outcome, r.makespanMs, r.passes.actions['uncordonNode']]).toEqual(['done', 50_500, undefined]);
});
