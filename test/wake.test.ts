// Issue 11 on the testbed: `runUntilIdle` with `wake: 'watch'` waits for a change instead of polling once a second. A
// drain whose pod takes 4 s to stop is noticed as soon as the pod is gone, with a handful of requests, and holds each
// pass lease once for the whole run; refused the `watch` verb (infra/base grants none; infra/wake-watch does), the run polls and still finishes.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../shared/kube/index.ts';
import { runUntilIdle, type RunSummary } from '../shared/runtime/index.ts';
import { kmaintKubeConfig, kubectl } from './support/cluster.ts';
import { admin, createNM, generalNodes, getNM, KMAINT_NS, phaseOf, removeAllNMs, setConfig } from './support/kmaint.ts';

const ns = `wk-${randomBytes(3).toString('hex')}`;
const STOP_SECONDS = 4;
/** The opt-in grant infra/wake-watch ships for `--wake watch`. */
const WATCH_GRANT = ['-k', 'infra/wake-watch'];

let nodes: string[] = [];

/** A pod on `node` that takes STOP_SECONDS to stop once evicted. */
async function slowPod(name: string, node: string): Promise<void> {
  await admin().core.createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name, labels: { drain: 'yes' }, annotations: { 'kmaint.io/sim-termination-seconds': String(STOP_SECONDS) } },
      spec: { nodeName: node, terminationGracePeriodSeconds: 30, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m' } } }] },
    },
  });
}

async function drainOnce(name: string, on: string): Promise<{ run: RunSummary; client: KubeClient; tookMs: number }> {
  await slowPod(`${name}-pod`, on);
  await createNM(ns, name, { requestorID: 'wake.example.com', nodeName: on, drainSpec: { force: true, podSelector: 'drain=yes' } });
  const client = new KubeClient(kmaintKubeConfig());
  const started = Date.now();
  const run = await runUntilIdle({ client, namespace: KMAINT_NS, now: () => new Date(), functions: ['scheduler', 'drainer', 'cleanup', 'reaper'], timeoutMs: 60_000, wake: 'watch' });
  return { run, client, tookMs: Date.now() - started };
}

/** Rounds (4 passes each) that applied nothing and were followed by another round: each one a wait. */
function idleWaits(run: RunSummary): number {
  let waits = 0;
  for (let r = 0; r < run.rounds - 1; r++) {
    if (run.passes.slice(r * 4, r * 4 + 4).every((p) => Object.keys(p.actions).length === 0)) waits++;
  }
  return waits;
}

beforeAll(async () => {
  nodes = await generalNodes();
  await kubectl(['create', 'namespace', ns]);
  await setConfig(undefined);
});

afterAll(async () => {
  await kubectl(['delete', ...WATCH_GRANT, '--ignore-not-found']);
  await removeAllNMs(ns);
  await kubectl(['delete', 'namespace', ns, '--wait=false']);
});

describe('runUntilIdle waking on change (wake: watch)', () => {
  it('with the watch verb: waits on WATCHes while the pod stops, Ready once it has stopped, one lease take and give-back per function', async () => {
    expect((await kubectl(['apply', ...WATCH_GRANT])).code).toBe(0);
    const { run, client, tookMs } = await drainOnce('watched', nodes[0] ?? '');
    expect(run.stopped).toBe('idle');
    expect(phaseOf(await getNM(ns, 'watched'))).toBe('Ready');
    const byVerb = client.counts.byVerb;
    // Waited by watch at least once (the pod takes 4 s to stop), never refused.
    expect(byVerb['watch nodemaintenances'] ?? 0).toBeGreaterThan(0);
    expect(run.passes.flatMap((p) => p.errors)).toEqual([]);
    // Each function that wrote took its lease once (GET + create or update) and gave it back once: no take per pass.
    const leaseWrites = (byVerb['update leases'] ?? 0) + (byVerb['create leases'] ?? 0);
    expect([byVerb['get leases'], leaseWrites]).toEqual([2, 4]);
    // Every round that made no progress and was not the last waited by WATCH, not by a timer: one wait, one watch each.
    expect(idleWaits(run)).toBe(byVerb['watch nodemaintenances']);
    // Ready no sooner than the pod took to stop. How much later (issue 4's "within 2 s more") is a speed, not a behaviour:
    // at load 15 it was 2.4 s (issue 18). It is measured by `npm run bench:peers` (the kmaint-watch system's makespan
    // overhead, docs/benchmarks.md) and printed here.
    expect(tookMs).toBeGreaterThanOrEqual(STOP_SECONDS * 1000);
    process.stderr.write(`[wake] Ready ${((tookMs - STOP_SECONDS * 1000) / 1000).toFixed(1)} s after the pod's ${STOP_SECONDS} s stop\n`);
  });

  it('refused the watch verb: one refused WATCH, then polls, and still reaches Ready', async () => {
    await kubectl(['delete', ...WATCH_GRANT, '--ignore-not-found']);
    // The first request holds the only slot (maxParallelOperations 1) until it is gone.
    await removeAllNMs(ns);
    const { run, client } = await drainOnce('polled', nodes[1] ?? '');
    expect(run.stopped).toBe('idle');
    expect(phaseOf(await getNM(ns, 'polled'))).toBe('Ready');
    expect(run.passes.flatMap((p) => p.errors)).toEqual([]);
    // One WATCH tried and refused, then no more.
    expect(client.counts.byVerb['watch nodemaintenances']).toBe(1);
    // Polled: more waits than the one refused WATCH.
    expect(idleWaits(run)).toBeGreaterThan(1);
  });
});
