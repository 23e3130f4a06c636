// Runs within a time budget: when passes start and stop, the backoff between them, and the chain started afterwards.
import { describe, expect, it } from 'vitest';
import { loadConfig, type PassFunction } from '../pass/index.ts';
import { runWithinBudget, type BudgetRunOptions } from './lambda-run.ts';
import { fakeTime, scriptedPasses } from './test-builders.ts';

const CHAIN_ON = { enabled: true, depth: 0, maxDepth: 3 };

function budgetRun(budgetMs: number, passMs: number, script: Parameters<typeof scriptedPasses>[2], opts: Partial<BudgetRunOptions> = {}) {
  const time = fakeTime(budgetMs);
  const runner = scriptedPasses(time, passMs, script);
  const started: Array<[PassFunction, number]> = [];
  const run = runWithinBudget({
    fn: 'drainer',
    runPass: runner,
    remainingMs: time.remaining,
    clock: time.now,
    sleep: time.sleep,
    safetyMarginMs: 10_000,
    intervalMs: 1000,
    maxIntervalMs: 4000,
    chain: CHAIN_ON,
    startChain: (target, depth) => {
      started.push([target, depth]);
      return Promise.resolve();
    },
    ...opts,
  });
  return { run, time, runner, started };
}

describe('runWithinBudget', () => {
  it('backs off up to 10 s while another live holder has the lease, and takes over when it is given back', async () => {
    const held = { workRemains: true, outcome: 'lease-held' as const, leaseHolder: 'other' };
    const script = [held, held, held, held, held, held, { workRemains: true, actions: { markReady: 1 }, becameReady: 1 }, { workRemains: false }];
    const { run, time, runner, started } = budgetRun(120_000, 1000, script);
    const r = await run;
    // maxIntervalMs is 4 s here; a held pass backs off to the 10 s default instead.
    expect([r.stopped, runner.calls.length, time.slept, r.becameReady, started]).toEqual(['idle', 8, [1000, 2000, 4000, 8000, 10_000, 10_000, 1000], 1, [['cleanup', 1]]]);
  });

  it('stops before a pass as long as the longest so far could run into the safety margin', async () => {
    // 30 s budget, 4 s passes, 10 s margin: passes at t=0, 5, 11; after the third, 15 s remain and the
    // next wait (4 s) would leave 11 s < 10 s margin + 4 s pass, so it stops with 15 s left.
    const { run, time, runner } = budgetRun(30_000, 4000, [{ workRemains: true }]);
    const r = await run;
    expect([r.stopped, runner.calls.length, time.slept, r.remainingMs, r.durationMs]).toEqual(['time-budget', 3, [1000, 2000], 15_000, 15_000]);
    expect(r.remainingMs).toBeGreaterThanOrEqual(10_000);
  });

  it.each([
    ['no pass starts when the budget is already inside the margin', 9_999, 0, 'time-budget'],
    ['exactly the margin left still allows the first pass', 10_000, 1, 'time-budget'],
  ] as const)('%s', async (_rule, budget, passes, stopped) => {
    const { run, runner } = budgetRun(budget, 0, [{ workRemains: true }]);
    const r = await run;
    expect([r.stopped, runner.calls.length]).toEqual([stopped, passes]);
  });

  it('stops as soon as a pass leaves nothing to do', async () => {
    const { run, runner, time } = budgetRun(60_000, 100, [{ workRemains: true }, { workRemains: true, actions: { cordonNode: 1 } }, { workRemains: false }]);
    const r = await run;
    expect([r.stopped, runner.calls.length, time.slept, r.workRemains, r.actions]).toEqual(['idle', 3, [1000, 1000], false, { cordonNode: 1 }]);
  });

  it('resets the backoff after a pass that changed something and doubles it up to the maximum otherwise', async () => {
    const script = [{ workRemains: true }, { workRemains: true }, { workRemains: true }, { workRemains: true }, { workRemains: true, actions: { evictPod: 1 } }, { workRemains: true }, { workRemains: false }];
    const { run, time } = budgetRun(600_000, 0, script);
    await run;
    expect(time.slept).toEqual([1000, 2000, 4000, 4000, 1000, 2000]);
  });

  it('stops after maxPasses', async () => {
    const { run, runner } = budgetRun(600_000, 0, [{ workRemains: true }], { maxPasses: 2 });
    expect([(await run).stopped, runner.calls.length]).toEqual(['max-passes', 2]);
  });

  it('stops when every write of a pass failed instead of spinning', async () => {
    const { run, runner } = budgetRun(600_000, 0, [{ workRemains: true, planned: 2, errors: ['a: HTTP 403', 'b: HTTP 403'] }]);
    const r = await run;
    expect([r.stopped, runner.calls.length, r.errors]).toEqual(['failed', 1, 2]);
  });

  it('sums what the passes did and starts the chain the decision names', async () => {
    const { run, started } = budgetRun(600_000, 0, [{ workRemains: true, becameReady: 1, released: 1, conflicts: 1, apiErrors: 2 }, { workRemains: false, becameReady: 2 }]);
    const r = await run;
    expect([r.becameReady, r.released, r.conflicts, r.apiErrors]).toEqual([3, 1, 1, 2]);
    expect(r.chain).toEqual({ kind: 'invoke', target: 'cleanup', depth: 1, reason: 'drainer made 3 Ready' });
    expect(started).toEqual([['cleanup', 1]]);
  });

  it('chains even when the budget ran out: what was done is done', async () => {
    const { run, started } = budgetRun(30_000, 4000, [{ workRemains: true, becameReady: 1 }]);
    expect((await run).stopped).toBe('time-budget');
    expect(started).toEqual([['cleanup', 1]]);
  });

  it('reports a failed chain start without failing the run', async () => {
    const { run } = budgetRun(60_000, 0, [{ becameReady: 1 }], { startChain: () => Promise.reject(new Error('AccessDeniedException: not authorized')) });
    const r = await run;
    expect([r.stopped, r.chain]).toEqual(['idle', { kind: 'failed', target: 'cleanup', depth: 1, reason: 'drainer made 1 Ready', error: 'AccessDeniedException: not authorized' }]);
  });

  it('hands each pass a fresh round (the snapshot of the pass before forgotten), carrying no leases when none are given', async () => {
    const time = fakeTime(600_000);
    const scripted = scriptedPasses(time, 0, [{ workRemains: true }, { workRemains: false }]);
    const seen: Array<[boolean, unknown]> = [];
    const r = await runWithinBudget({
      fn: 'drainer',
      runPass: (fn, signal, round) => {
        seen.push([round?.current() === undefined, round?.leases]);
        round?.remember({ nodes: new Map(), nodeList: [], maintenances: [], malformed: [], rawConfig: undefined }, loadConfig({ rawConfig: undefined }, 0, 'kmaint'));
        return scripted(fn, signal);
      },
      remainingMs: time.remaining,
      clock: time.now,
      sleep: time.sleep,
      chain: CHAIN_ON,
    });
    expect([r.stopped, seen]).toEqual(['idle', [[true, undefined], [true, undefined]]]);
  });

  it('starts nothing on a dry run', async () => {
    const { run, started } = budgetRun(60_000, 0, [{ outcome: 'dry-run', becameReady: 1 }], { dryRun: true });
    expect((await run).chain).toEqual({ kind: 'none', reason: 'a dry run starts nothing' });
    expect(started).toEqual([]);
  });
});
