// Parts 1–3 of the lifecycle benchmark on one large control plane: initialising requests to Pending, the
// steady-state scheduler pass, and which pods a drainer pass reads. Each timed pass runs in its own process.
import { generateCluster } from '../sim/generator/index.ts';
import { SimKubelet } from '../sim/kubelet/index.ts';
import { startControlPlane } from '../testbed/start.ts';
import { kubeConfigFrom } from '../testbed/testbed.ts';
import { countByVerb, peakInFlight, timedRequests, type TimedRequest } from './audit-timing.ts';
import type { PassMeasurement } from './child-pass.ts';
import { createRequests, deleteRequests, installKmaint, listRequests, phaseOf, planRequests, setConfig } from './cluster-setup.ts';
import { appliedWrites, counts, machineLoad, mb, ms, passInChild, print, type PassRuntime } from './figures.ts';

export interface LargeOptions {
  dir: string;
  nodes: number;
  requests: number;
  requestors: number;
  /** maxParallelOperations of the steady-state passes. */
  parallel: number;
  /** Admit-then-idle cycles of the steady-state measurement. */
  cycles: number;
  /** Which of parts 1 (init), 2 (steady) and 3 (drainer) to measure; the setup is shared. @default all three */
  parts?: ReadonlySet<'init' | 'steady' | 'drainer'>;
  log: (line: string) => void;
}

const NS = 'bench';
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete']);

function isObjectWrite(r: TimedRequest): boolean {
  return WRITE_VERBS.has(r.verb) && r.resource !== 'leases';
}

/** Timed pass in a child process, with the kmaint user's requests from the audit log around it. */
async function measuredPass(cp: Awaited<ReturnType<typeof startControlPlane>>, fn: 'scheduler' | 'drainer', runtime: PassRuntime = 'tsx'): Promise<{ m: PassMeasurement; audit: TimedRequest[]; load: string }> {
  await cp.audit.sync();
  const mark = cp.audit.mark();
  const load = machineLoad([cp.dir]);
  const m = await passInChild(cp.kubeconfigFor('kmaint'), fn, runtime);
  await cp.audit.sync();
  return { m, audit: timedRequests(cp.audit.path, mark, 'kmaint'), load };
}

function printPass(label: string, m: PassMeasurement, audit: TimedRequest[], load: string): void {
  const writes = audit.filter(isObjectWrite);
  print(`  ${label}`);
  print(`    (${load})`);
  print(`    wall ${ms(m.wallMs)} (pass process CPU ${ms(m.cpuMs)}); RSS ${mb(m.rssBeforeBytes)} before, ${mb(m.rssAfterBytes)} after, peak ${mb(m.peakRssBytes)}; heap used after ${mb(m.heapUsedAfterBytes)}`);
  print(`    admitted ${m.summary.admitted}, waiting ${m.summary.waiting}; planned: ${counts(m.plannedByKind)}`);
  print(`    applied: ${counts(m.summary.actions)}; conflicts ${m.summary.conflicts}, errors ${m.summary.errors.length}`);
  print(`    KubeClient.counts: ${counts(m.summary.requests)}`);
  print(`    audit (user kmaint): ${counts(countByVerb(audit))}`);
  const reads = new Map<string, number>();
  for (const r of audit.filter((r) => r.verb === 'list' || r.verb === 'get')) reads.set(`${r.verb.toUpperCase()} ${r.resource}`, (reads.get(`${r.verb.toUpperCase()} ${r.resource}`) ?? 0) + 1);
  print(`    reads: ${[...reads].map(([k, n]) => (k.startsWith('LIST') && k !== 'LIST pods' ? `${k} (${n} page${n === 1 ? '' : 's'})` : `${k} ×${n}`)).join(', ')}`);
  const snapshotReads = audit.filter((r) => r.verb === 'list' || (r.verb === 'get' && r.resource !== 'leases'));
  if (snapshotReads.length > 0) {
    const start = audit.reduce((t, r) => Math.min(t, r.receivedMs), Infinity);
    const readsDone = snapshotReads.reduce((t, r) => Math.max(t, r.completedMs), 0);
    const phases = [`reads ${ms(readsDone - start)} (lease to last LIST page answered)`];
    if (writes.length > 0) {
      const first = writes.reduce((t, w) => Math.min(t, w.receivedMs), Infinity);
      const last = writes.reduce((t, w) => Math.max(t, w.completedMs), 0);
      const latency = writes.map((w) => w.completedMs - w.receivedMs).sort((x, y) => x - y);
      phases.push(`plan ${ms(first - readsDone)}`, `writes ${ms(last - first)} (${((writes.length / (last - first)) * 1000).toFixed(0)}/s; API server time per write p50 ${ms(latency[Math.floor(latency.length / 2)] ?? 0)})`);
    }
    print(`    phases from the audit log: ${phases.join(', ')}`);
  }
  if (writes.length > 0) {
    const perObject = new Map<string, number>();
    for (const w of writes.filter((w) => w.resource === 'nodemaintenances/status')) perObject.set(w.name, (perObject.get(w.name) ?? 0) + 1);
    const maxPerObject = [...perObject.values()].reduce((a, b) => Math.max(a, b), 0);
    print(`    object writes ${writes.length} (${((writes.length / m.wallMs) * 1000).toFixed(0)}/s over the pass), peak ${peakInFlight(writes)} in flight at the API server; status writes per written object: max ${maxPerObject}`);
  }
}

export async function benchLargeCluster(opts: LargeOptions): Promise<void> {
  const cp = await startControlPlane({ dir: opts.dir, log: opts.log });
  let kubelet: SimKubelet | undefined;
  try {
    const admin = kubeConfigFrom(cp.kubeconfigPath);
    const cluster = generateCluster({ profile: 'large', seed: 1, nodes: opts.nodes });
    const nodeNames = cluster.nodes.map((n) => n.metadata?.name ?? '');
    // Lease every 40 s and node status every 5 min (a kubelet's nodeStatusReportFrequency): background load of a
    // real fleet without drowning a small machine. No workloads: the scheduler reads no pods.
    kubelet = new SimKubelet({ kubeConfig: kubeConfigFrom(cp.kubeconfigFor('kmaint-sim-kubelet')), nodes: cluster.nodes, heartbeatIntervalMs: 40_000, nodeStatusIntervalMs: 300_000 });
    let t = Date.now();
    await kubelet.start();
    print(`setup: ${opts.nodes} nodes registered and Ready by SimKubelet in ${ms(Date.now() - t)}`);
    await installKmaint(cp.kubeconfigPath, [NS]);
    await setConfig(admin, { maxParallelOperations: 0 });
    const plans = planRequests({ namespace: NS, nodes: nodeNames, requests: opts.requests, requestors: opts.requestors });
    t = Date.now();
    await createRequests(admin, plans, 64);
    print(`setup: ${plans.length} NodeMaintenance objects from ${opts.requestors} requestors created (admin, 64 in flight) in ${ms(Date.now() - t)}`);

    const parts = opts.parts ?? new Set(['init', 'steady', 'drainer']);
    if (parts.has('init')) await initPart(cp, admin, plans.length);
    if (parts.has('steady')) await steadyPart(cp, admin, opts, plans.length);
    if (parts.has('drainer')) await drainerPart(cp, admin);
  } finally {
    await kubelet?.stop().catch(() => undefined);
    await cp.stop();
  }
}

type ControlPlane = Awaited<ReturnType<typeof startControlPlane>>;
type Admin = ReturnType<typeof kubeConfigFrom>;

async function initPart(cp: ControlPlane, admin: Admin, requests: number): Promise<void> {
  print();
  print(`1. Initialising ${requests} new requests to Pending (maxParallelOperations: 0, one scheduler pass)`);
  const init = await measuredPass(cp, 'scheduler');
  printPass('init pass', init.m, init.audit, init.load);
  const statusWrites = init.m.summary.actions['writeStatus'] ?? 0;
  print(`    => ${statusWrites} status writes in ${ms(init.m.wallMs)}: ${((statusWrites / init.m.wallMs) * 1000).toFixed(0)} status writes/s, ${((appliedWrites(init.m) / init.m.wallMs) * 1000).toFixed(0)} writes/s with events`);
  const phases = new Map<string, number>();
  for (const nm of await listRequests(admin, NS)) phases.set(phaseOf(nm) || '(none)', (phases.get(phaseOf(nm) || '(none)') ?? 0) + 1);
  print(`    phases after: ${counts(Object.fromEntries(phases))}`);
}

/** Part 2; without part 1 before it, its first pass also initialises every request (not one of the timed cycles). */
async function steadyPart(cp: ControlPlane, admin: Admin, opts: LargeOptions, requests: number): Promise<void> {
  print();
  print(`2. Steady-state scheduler pass: ${opts.nodes} nodes, ${requests} Pending requests from ${opts.requestors} requestors, maxParallelOperations ${opts.parallel}`);
  await setConfig(admin, { maxParallelOperations: opts.parallel });
  const first = await measuredPass(cp, 'scheduler');
  printPass(`first pass after raising maxParallelOperations 0 -> ${opts.parallel} (every waiting request's reason changes once)`, first.m, first.audit, first.load);
  // The last cycle loads kmaint bundled into plain JS: the same pass without tsx's loader thread in its RSS.
  for (let cycle = 1; cycle <= opts.cycles + 1; cycle++) {
    const runtime: PassRuntime = cycle <= opts.cycles ? 'tsx' : 'bundle';
    // Stand-in for requests finishing: the admitted ones (no finalizer yet) go away, their slots are free again.
    const scheduled = (await listRequests(admin, NS)).filter((nm) => phaseOf(nm) === 'Scheduled').map((nm) => `${NS}/${nm.metadata.name}`);
    await deleteRequests(admin, scheduled, 32);
    const admit = await measuredPass(cp, 'scheduler', runtime);
    printPass(`cycle ${cycle} (${runtime}): ${scheduled.length} admitted requests finished and deleted; pass that admits`, admit.m, admit.audit, admit.load);
    const idle = await measuredPass(cp, 'scheduler', runtime);
    printPass(`cycle ${cycle} (${runtime}): next pass (admits nothing)`, idle.m, idle.audit, idle.load);
  }
}

async function drainerPart(cp: ControlPlane, admin: Admin): Promise<void> {
  print();
  print('3. Drainer pass: which pods it reads');
  const inPodPhases = (await listRequests(admin, NS)).filter((nm) => ['Scheduled', 'Cordon', 'WaitForPodCompletion', 'Draining'].includes(phaseOf(nm)));
  const drain = await measuredPass(cp, 'drainer');
  printPass(`drainer pass over ${inPodPhases.length} requests in Scheduled..Draining`, drain.m, drain.audit, drain.load);
  const podLists = drain.audit.filter((r) => r.verb === 'list' && r.resource === 'pods');
  const narrowed = podLists.filter((r) => r.uri.includes('fieldSelector=spec.nodeName%3D'));
  const listedNodes = new Set(narrowed.map((r) => decodeURIComponent(/fieldSelector=spec\.nodeName%3D([^&]+)/.exec(r.uri)?.[1] ?? '')));
  const wanted = new Set(inPodPhases.map((nm) => nm.spec.nodeName));
  print(`    list pods requests: ${podLists.length}; with fieldSelector=spec.nodeName%3D…: ${narrowed.length}; distinct nodes listed ${listedNodes.size} (nodes of requests being drained: ${wanted.size}, same set: ${[...wanted].every((n) => listedNodes.has(n)) && listedNodes.size === wanted.size})`);
  print(`    example URI: ${narrowed[0]?.uri ?? '(none)'}`);
}
