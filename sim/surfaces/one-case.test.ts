// One scripted maintenance through every surface that drives kmaint's passes — the Lambda handler, `kmaint run`
// (runUntilIdle), the demo's engine (runDemoRounds) and what-if (simulate) — each on its own in-process cluster
// seeded from the same snapshot: two requests, one at a time (maxParallelOperations 1), a bare pod to drain on each
// node, the requestor deleting each request once it is Ready. All four must record the same transitions.
import { afterEach, describe, expect, it } from 'vitest';
import type { Context } from 'aws-lambda';
import { API_VERSION, NODE_MAINTENANCE_KIND, type NodeMaintenance } from '../../shared/api/index.ts';
import { KubeClient } from '../../shared/kube/index.ts';
import { PASS_FUNCTIONS, runPass, type PassFunction } from '../../shared/pass/index.ts';
import { runUntilIdle } from '../../shared/runtime/index.ts';
import { maintenancePhase } from '../../shared/scheduling/index.ts';
import { createPassHandler } from '../../functions/adapter/pass-handler.ts';
import { aLambdaContext, aScheduledEvent, captureLines } from '../../functions/adapter/test-context.ts';
import { DEFAULT_NAMESPACES, startSimApiServer, type SimApiServer } from '../apiserver/index.ts';
import { manualClock } from '../clock.ts';

type ManualClock = ReturnType<typeof manualClock>;
import { runDemoRounds } from '../demo/index.ts';
import { CRDS_DIR } from '../embedded.ts';
import { InProcessTransport } from '../whatif/in-process-transport.ts';
import { seedSnapshot } from '../whatif/seed.ts';
import { simulate, WHATIF_DRAIN_SPEC, WHATIF_NAMESPACE, WHATIF_REQUESTOR } from '../whatif/index.ts';
import type { ClusterSnapshot } from '../whatif/snapshot-schema.ts';

const KMAINT_NS = 'kmaint';
const MAINTENANCES = { apiVersion: API_VERSION, resource: 'nodemaintenances' };
const node = (name: string): ClusterSnapshot['nodes'][number] => ({ name, labels: { 'kubernetes.io/hostname': name, 'kmaint.io/maintain': 'yes' }, unschedulable: false, taints: [], allocatable: { cpu: '4', memory: '8Gi', pods: '110' }, ready: true });
const pod = (name: string, nodeName: string): ClusterSnapshot['pods'][number] => ({
  namespace: 'team',
  name,
  nodeName,
  phase: 'Running',
  ready: true,
  labels: { app: name },
  mirror: false,
  containers: [{ name: 'main', requests: { cpu: '100m' } }],
  terminationGracePeriodSeconds: 0,
  emptyDirVolumes: [],
});
const SNAPSHOT: ClusterSnapshot = {
  apiVersion: 'kmaint.io/v1alpha1',
  kind: 'ClusterSnapshot',
  formatVersion: 1,
  takenAt: '2026-01-05T10:00:00.000Z',
  source: 'one case through every surface',
  nodes: [{ ...node('n1') }, { ...node('n2') }, { ...node('n3'), labels: { 'kubernetes.io/hostname': 'n3' } }],
  pods: [pod('web-1', 'n1'), pod('web-2', 'n2'), pod('web-3', 'n3')],
  podDisruptionBudgets: [],
  config: { namespace: KMAINT_NS, spec: { maxParallelOperations: 1 } },
};
const REQUESTED = ['n1', 'n2'];

/**
 * The transitions every surface must record, in order: both requests seen new; the first admitted (Scheduled) while
 * the second waits (Pending) for the one slot; the first cordoned and drained in one pass (Draining), Ready, deleted by
 * its requestor and released; then the second the same way.
 */
/** What-if's timeline (from its own observer) keeps n1's admission before n2's wait, as before issue 40. */
const EXPECTED_WHATIF = [
  'whatif-n1 new',
  'whatif-n2 new',
  'whatif-n1 Scheduled',
  'whatif-n2 Pending',
  ...['n1', 'n2'].flatMap((n) => [...(n === 'n2' ? [`whatif-${n} Scheduled`] : []), `whatif-${n} Draining`, `whatif-${n} Ready`, `whatif-${n} deleting`, `whatif-${n} released`]),
];

const EXPECTED = [
  'whatif-n1 new',
  'whatif-n2 new',
  // n1's admission writes its Node's record (kmaint.io/admitted, issue 40) before its status: n2's wait, a unit of its
  // own in the same pass, lands first.
  'whatif-n2 Pending',
  'whatif-n1 Scheduled',
  ...['n1', 'n2'].flatMap((n) => [...(n === 'n2' ? [`whatif-${n} Scheduled`] : []), `whatif-${n} Draining`, `whatif-${n} Ready`, `whatif-${n} deleting`, `whatif-${n} released`]),
];

/** What a request is in, as the timeline report names it. */
function phaseOf(nm: NodeMaintenance): string {
  if (nm.metadata.deletionTimestamp) return 'deleting';
  return maintenancePhase(nm) || 'new';
}

interface World {
  server: SimApiServer;
  clock: ManualClock;
  client: KubeClient;
  transitions: string[];
  open: () => number;
}

const worlds: World[] = [];
afterEach(async () => {
  for (const w of worlds.splice(0)) await w.server.stop();
});

/** The snapshot on an in-process cluster, the two requests, and a requestor that deletes each once Ready. */
async function world(): Promise<World> {
  const clock = manualClock(new Date(SNAPSHOT.takenAt));
  const server = await startSimApiServer({ crds: [CRDS_DIR], clock, namespaces: DEFAULT_NAMESPACES });
  seedSnapshot(server, SNAPSHOT, { namespace: KMAINT_NS, spec: SNAPSHOT.config?.spec }, clock.nowMs());
  const transitions: string[] = [];
  const last = new Map<string, string>();
  server.local.watch(MAINTENANCES, (type, obj) => {
    const nm = obj as unknown as NodeMaintenance;
    const phase = type === 'DELETED' ? 'released' : phaseOf(nm);
    if (last.get(nm.metadata.name) === phase) return;
    last.set(nm.metadata.name, phase);
    transitions.push(`${nm.metadata.name} ${phase}`);
    // The requestor's turn, after the write that made it Ready.
    if (phase === 'Ready') queueMicrotask(() => void server.local.delete(MAINTENANCES, WHATIF_NAMESPACE, nm.metadata.name));
  });
  for (const n of REQUESTED) {
    server.local.create(MAINTENANCES, WHATIF_NAMESPACE, {
      apiVersion: API_VERSION,
      kind: NODE_MAINTENANCE_KIND,
      metadata: { name: `whatif-${n}`, namespace: WHATIF_NAMESPACE },
      spec: { requestorID: WHATIF_REQUESTOR, nodeName: n, cordon: true, drainSpec: { ...WHATIF_DRAIN_SPEC } },
    });
  }
  const client = new KubeClient(new InProcessTransport(server.local, server.context));
  const w = { server, clock, client, transitions, open: () => server.local.list(MAINTENANCES).length };
  worlds.push(w);
  return w;
}

/** Simulated time passes as the surface waits. */
const sleepOn = (clock: ManualClock) => (ms: number) => clock.advance(ms);
/** Enough turns for two requests; a surface that needs more has stalled. */
const TURNS = 50;

describe('one scripted case through every surface', () => {
  it('kmaint run (runUntilIdle, as `kmaint run all` started again by its schedule)', async () => {
    const w = await world();
    for (let turn = 0; turn < TURNS && w.open() > 0; turn++) {
      await runUntilIdle({ client: w.client, namespace: KMAINT_NS, now: () => w.clock.now(), functions: PASS_FUNCTIONS, sleep: sleepOn(w.clock), holder: 'surface-run' });
    }
    expect(w.transitions).toEqual(EXPECTED);
  });

  it('the Lambda handler (one invocation per function per schedule tick)', async () => {
    const w = await world();
    const env = { KMAINT_KUBECONFIG: '/nonexistent/kubeconfig', KMAINT_CHAIN: 'off', AWS_REGION: 'eu-west-1', KMAINT_NAMESPACE: KMAINT_NS };
    const logs = captureLines();
    const stops = new Set<string>();
    const handlers = new Map<PassFunction, (event: unknown, context: Context) => Promise<unknown>>(
      PASS_FUNCTIONS.map((fn) => [
        fn,
        createPassHandler(fn, {
          env,
          runPass: (f, o) => runPass(f, { client: w.client, namespace: KMAINT_NS, now: () => w.clock.now(), holder: `surface-lambda-${f}`, logger: o.logger, dryRun: o.dryRun }),
          sleep: sleepOn(w.clock),
          clock: () => w.clock.nowMs(),
          writeMetrics: () => undefined,
          logDestination: logs.destination,
        }),
      ]),
    );
    for (let turn = 0; turn < TURNS && w.open() > 0; turn++) {
      for (const [fn, handler] of handlers) {
        const deadline = w.clock.nowMs() + 60_000;
        const run = (await handler(aScheduledEvent(), aLambdaContext({ remainingMs: () => deadline - w.clock.nowMs(), functionName: `kmaint-${fn}` }))) as { stopped?: string };
        stops.add(run.stopped ?? JSON.stringify(run));
      }
    }
    // Every invocation ran its passes to the end of its work (none was refused or ran out of time).
    expect([[...stops], w.transitions]).toEqual([['idle'], EXPECTED]);
  });

  it("the demo's engine (runDemoRounds)", async () => {
    const w = await world();
    const { finished } = await runDemoRounds({
      passOpts: { client: w.client, namespace: KMAINT_NS, now: () => w.clock.now(), holder: 'surface-demo' },
      observe: () => Promise.resolve({ done: w.open() === 0 }),
      sleep: sleepOn(w.clock),
      idleMs: 1000,
      wallLimit: Number.POSITIVE_INFINITY,
    });
    expect([finished, w.transitions]).toEqual([true, EXPECTED]);
  });

  it('what-if (simulate), read from its timeline', async () => {
    const report = await simulate({ snapshot: SNAPSHOT, nodes: { selector: 'kmaint.io/maintain=yes' } });
    const spans = report.timeline.lanes.flatMap((l) => l.spans).sort((a, b) => a.startMs - b.startMs);
    const transitions = spans.map((s) => `${s.request.split('/')[1] ?? ''} ${s.phase}`);
    const released = report.admissionOrder.filter((a) => a.releasedMs !== undefined).map((a) => `whatif-${a.node} released`);
    expect([report.outcome, report.admissionOrder.map((a) => [a.node, a.releasedMs !== undefined && a.releasedMs >= (a.readyMs ?? Infinity)])]).toEqual([
      'done',
      [
        ['n1', true],
        ['n2', true],
      ],
    ]);
    expect(withReleases(transitions, released)).toEqual(EXPECTED_WHATIF);
  });
});

/** The timeline has spans, not the release: each request's release follows its last span. */
function withReleases(transitions: string[], released: string[]): string[] {
  const out: string[] = [];
  for (const t of transitions) {
    out.push(t);
    const name = t.split(' ')[0] ?? '';
    if (t.endsWith(' deleting')) out.push(...released.filter((r) => r.startsWith(`${name} `)));
  }
  return out;
}
