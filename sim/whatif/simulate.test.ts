// simulate() on the committed fixture (sim/whatif/fixtures/small-cluster.json): a manual clock makes every run the
// same, so admission order, makespans and budget waits are exact. Worked out by hand in the comments, with passes that
// take no time (passMs 0) unless a test says otherwise.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readSnapshotFile, simulate, WhatIfError, type ClusterSnapshot, type WhatIfReport } from './index.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/small-cluster.json', import.meta.url));
const PLAN = { maxParallelOperations: 2, maxUnavailable: 2 };
/** Passes take no simulated time: the hand-worked timelines below count pods and budgets only. */
const INSTANT = { passMs: 0 };

function withPdb(snapshot: ClusterSnapshot, name: string, change: Partial<ClusterSnapshot['podDisruptionBudgets'][number]>): ClusterSnapshot {
  return { ...snapshot, podDisruptionBudgets: snapshot.podDisruptionBudgets.map((b) => (b.name === name ? { ...b, ...change } : b)) };
}

/** The parts of a report that must not depend on how kmaint reached the API server. */
function outcomeOf(r: WhatIfReport): unknown {
  const { wallMs: _wall, loadMs: _load, passes, settings: _settings, ...rest } = r;
  return { ...rest, actions: passes.actions, rounds: passes.rounds };
}

describe('kmaint simulate on the fixture', () => {
  it('predicts the makespan, the admission order and the budget waits exactly (manual clock)', async () => {
    const r = await simulate({ snapshot: readSnapshotFile(FIXTURE), config: PLAN, nodes: { all: true }, podStartMs: 10_000, ...INSTANT });
    expect(r.outcome).toBe('done');
    // cp-1 has nothing to evict (a mirror pod) and is released at once, so worker-a and worker-b start at 0.
    // worker-a: frontend (30 s) and api (20 s) go at once: Ready at 30 s. worker-c takes its slot at 30 s.
    // worker-b: db-0 (60 s) goes at once, frontend-b waits for frontend-a's replacement (Ready at 10 s): Ready at 60.5 s.
    // worker-c: db-1 waits for db-0's replacement (recreated at 60 s, Ready at 70 s), then 60 s: Ready at 130 s.
    // worker-d: db-2 waits for db-1's replacement (Ready at 140 s), then 60 s: Ready and released at 201 s.
    expect(r.admissionOrder).toEqual([
      { node: 'cp-1', request: 'default/whatif-cp-1', admittedMs: 0, readyMs: 0, releasedMs: 0 },
      { node: 'worker-a', request: 'default/whatif-worker-a', admittedMs: 0, readyMs: 30_000, releasedMs: 30_000 },
      { node: 'worker-b', request: 'default/whatif-worker-b', admittedMs: 0, readyMs: 60_500, releasedMs: 60_500 },
      { node: 'worker-c', request: 'default/whatif-worker-c', admittedMs: 30_000, readyMs: 130_000, releasedMs: 130_000 },
      { node: 'worker-d', request: 'default/whatif-worker-d', admittedMs: 60_500, readyMs: 201_000, releasedMs: 201_000 },
    ]);
    expect(r.makespanMs).toBe(201_000);
    // Slowest pod per node (0, 30, 60, 60, 60 s) on two slots in that order: a 0-30, b 0-60, c 30-90, d 60-120.
    expect(r.idealMakespanMs).toBe(120_000);
    expect(r.budgetWaits).toEqual([
      { budget: 'data/db', pods: 2, totalWaitMs: 120_000, longestWaitMs: 80_000 },
      { budget: 'web/frontend', pods: 2, totalWaitMs: 20_500, longestWaitMs: 10_500 },
    ]);
    expect(r.limitWaits).toEqual({ requests: 2, longestMs: 60_500, meanMs: 45_250 });
    expect(r.peakUnavailableByPool).toEqual([
      { pool: 'control-plane', peak: 1 },
      { pool: 'general', peak: 2 },
    ]);
    expect(r.peakInProgress).toBe(2);
    expect(r.evictions).toBe(14);
    expect(r.activity).toEqual({ replacementsCreated: 13, podsBound: 13, podsStarted: 11, podsStopped: 14, unschedulable: 0 });
    expect(r.passes.actions).toMatchObject({ cordonNode: 5, uncordonNode: 5, evictPod: 14 });
    expect(r.passes.errors).toEqual([]);
    expect(r.unfinished).toEqual([]);
  });

  it('predicts the same through client-node over loopback HTTP as in-process', async () => {
    const snapshot = readSnapshotFile(FIXTURE);
    const local = await simulate({ snapshot, config: PLAN, nodes: { all: true }, transport: 'local' });
    const http = await simulate({ snapshot, config: PLAN, nodes: { all: true }, transport: 'http' });
    expect(outcomeOf(http)).toEqual(outcomeOf(local));
  });

  it("uses the snapshot's config without --config (maxParallelOperations 1: one node at a time)", async () => {
    const r = await simulate({ snapshot: readSnapshotFile(FIXTURE), nodes: { selector: 'kmaint.io/pool=general' }, ...INSTANT });
    expect(r.limits).toEqual({ maxParallelOperations: 1, maxUnavailable: 'unlimited', problems: [] });
    expect(r.admissionOrder.map((a) => a.node)).toEqual(['worker-a', 'worker-b', 'worker-c', 'worker-d']);
    // a: 30 s. b: db-0 60 s from 30 s. c: db-1 waits for db-0's replacement (Ready at 100 s), goes at 100.5 s, gone
    // 60 s later. d: db-2 waits likewise for db-1's (Ready at 171 s), gone at 231 s.
    expect(r.admissionOrder.map((a) => a.admittedMs)).toEqual([0, 30_000, 90_000, 161_000]);
    expect(r.makespanMs).toBe(231_000);
    expect(r.budgetWaits).toEqual([{ budget: 'data/db', pods: 2, totalWaitMs: 20_000, longestWaitMs: 10_500 }]);
    // 30 + 60 + 60 + 60 s, one at a time.
    expect(r.idealMakespanMs).toBe(210_000);
  });

  it('holds each node for --hold before the requestor lets it go', async () => {
    const r = await simulate({ snapshot: readSnapshotFile(FIXTURE), config: PLAN, nodes: { selector: 'kubernetes.io/hostname in (worker-a,worker-d)' }, holdMs: 300_000, ...INSTANT });
    // Ready when the pass after the last pod is gone runs (worker-a's frontend at 30 s, seen at 30.5 s), released
    // 300 s later.
    expect(r.admissionOrder.map((a) => [a.node, a.readyMs, a.releasedMs])).toEqual([
      ['worker-a', 30_500, 330_500],
      ['worker-d', 60_000, 360_000],
    ]);
    expect(r.makespanMs).toBe(360_000);
    expect(r.idealMakespanMs).toBe(360_000);
  });

  it.each([
    // No pass time: admitted, drained and released at once; frontend's 30 s grace is all there is.
    [0, { admittedMs: 0, readyMs: 30_000, releasedMs: 30_000 }],
    // 100 ms a pass, four passes a round: admitted when the first scheduler pass ends (0.1 s); the drainer cordons,
    // then drains in the next round; the drainer pass that finds the pods gone marks it Ready (30.8 s), the cleanup
    // pass after it sees the requestor's deletion and releases it (30.9 s).
    [100, { admittedMs: 100, readyMs: 30_800, releasedMs: 30_900 }],
    [250, { admittedMs: 250, readyMs: 31_500, releasedMs: 31_750 }],
  ])('charges every pass its time (passMs %i)', async (passMs, times) => {
    const r = await simulate({ snapshot: readSnapshotFile(FIXTURE), config: PLAN, nodes: { selector: 'kubernetes.io/hostname=worker-a' }, passMs });
    expect(r.admissionOrder).toEqual([{ node: 'worker-a', request: 'default/whatif-worker-a', ...times }]);
    expect(r.makespanMs).toBe(times.releasedMs);
    expect(r.settings.passMs).toBe(passMs);
    // Admitted by the first scheduler pass: no slot was waited for.
    expect(r.limitWaits).toEqual({ requests: 0, longestMs: 0, meanMs: 0 });
  });

  it('is not stuck when the only change of a round comes while its passes run (passMs 150)', async () => {
    // At 150 ms a pass, a round whose passes were all skipped saw a replacement turn Ready during one of them; that
    // round once counted as "nothing can move again" and the run stopped with the budget waiting on that pod.
    const r = await simulate({ snapshot: readSnapshotFile(FIXTURE), config: PLAN, nodes: { all: true }, passMs: 150 });
    expect(r.outcome).toBe('done');
    expect(r.makespanMs).toBe(203_750);
  });

  it('charges 100 ms a pass by default', async () => {
    const r = await simulate({ snapshot: readSnapshotFile(FIXTURE), config: PLAN, nodes: { selector: 'kubernetes.io/hostname=worker-a' } });
    expect(r.settings.passMs).toBe(100);
    expect(r.makespanMs).toBe(30_900);
  });

  it('refuses a negative pass time', async () => {
    await expect(simulate({ snapshot: readSnapshotFile(FIXTURE), nodes: { all: true }, passMs: -1 })).rejects.toThrow('pass time must be 0 or more ms, got -1');
  });

  it('reports a budget that can never allow the eviction: stuck, with the request and the reason', async () => {
    const snapshot = withPdb(readSnapshotFile(FIXTURE), 'api', { maxUnavailable: 0 });
    const r = await simulate({ snapshot, config: PLAN, nodes: { selector: 'kubernetes.io/hostname=worker-a' } });
    expect(r.outcome).toBe('stuck');
    expect(r.makespanMs).toBeUndefined();
    expect(r.unfinished).toEqual([
      {
        request: 'default/whatif-worker-a',
        node: 'worker-a',
        phase: 'Draining',
        message: expect.stringContaining('pod web/api-5f9b8c7d4f-h2k9w waits for PodDisruptionBudget web/api') as unknown as string,
      },
    ]);
  });

  it.each([
    ['a selector that cannot be parsed', 'kmaint.io/pool in general', '--nodes: '],
    ['a selector that picks no node', 'kmaint.io/pool=gpu', '--nodes "kmaint.io/pool=gpu" selects none of the 5 nodes'],
  ])('refuses %s before creating any request', async (_rule, selector, message) => {
    await expect(simulate({ snapshot: readSnapshotFile(FIXTURE), nodes: { selector } })).rejects.toThrow(WhatIfError);
    await expect(simulate({ snapshot: readSnapshotFile(FIXTURE), nodes: { selector } })).rejects.toThrow(message);
  });

  it('handles gangs (issue 21): the nodes of one clique label are admitted together, the next clique only when both fit', async () => {
    const base = readSnapshotFile(FIXTURE);
    const rack: Record<string, string> = { 'worker-a': 'rack-1', 'worker-b': 'rack-1', 'worker-c': 'rack-2', 'worker-d': 'rack-2' };
    const snapshot = { ...base, nodes: base.nodes.map((n) => (rack[n.name] === undefined ? n : { ...n, labels: { ...n.labels, 'example.com/clique': rack[n.name] ?? '' } })) };
    const r = await simulate({ snapshot, config: { ...PLAN, gangNodeLabel: 'example.com/clique' }, nodes: { all: true }, podStartMs: 10_000, ...INSTANT });
    expect(r.outcome).toBe('done');
    const at = new Map(r.admissionOrder.map((a) => [a.node, a]));
    const admitted = (node: string): number => at.get(node)?.admittedMs ?? -1;
    const released = (node: string): number => at.get(node)?.releasedMs ?? -1;
    expect(admitted('worker-a')).toBe(admitted('worker-b'));
    expect(admitted('worker-c')).toBe(admitted('worker-d'));
    // Two slots: rack-2 needs both, so it starts once the later of rack-1's nodes is released, in the same pass.
    expect(admitted('worker-c')).toBe(Math.max(released('worker-a'), released('worker-b')));
    expect(r.peakInProgress).toBe(2);
    expect(r.unfinished).toEqual([]);
  });
});
