// The demo: an embedded cluster on an accelerated clock, two requestors, and kmaint's scheduler, drainer and
// cleanup passes run in a loop until every request is done; then the summary and the invariant check.
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type V1Node } from '@kubernetes/client-node';
import { API_VERSION, CONFIG_KIND, CONFIG_NAME, CONFIG_PLURAL, DEFAULT_NAMESPACE, GROUP, NODE_MAINTENANCE_PLURAL, VERSION, type NodeMaintenance } from '../../shared/api/index.ts';
import { KubeClient } from '../../shared/kube/index.ts';
import type { PassSummary } from '../../shared/pass/index.ts';
import { buildSchedulingState } from '../../shared/scheduling/index.ts';
import { acceleratedClock } from '../clock.ts';
import { startEmbeddedCluster, type EmbeddedCluster } from '../embedded.ts';
import { silentLogger, type SimLogger } from '../kubelet/logger.ts';
import { TimelineRecorder, type Timeline } from '../report/index.ts';
import { checkDemoInvariants, DemoObserver, type DemoEvent, type InvariantReport, type RequestRow } from './observer.ts';
import { RequestorAgents, type RequestorEvent } from './requestor-agents.ts';
import { RebootWatch, checkRebootInvariants, type NodeEvent, type RebootReport } from './reboot-watch.ts';
import { runDemoRounds } from './rounds.ts';
import { DEMO_SCENARIOS, limitsText, type DemoLimits, type DemoScenarioName } from './scenarios.ts';

export { DEMO_LIMITS } from './scenarios.ts';
const NODES = { apiVersion: 'v1', resource: 'nodes' };
const MAINTENANCES = { apiVersion: API_VERSION, resource: NODE_MAINTENANCE_PLURAL };
/** A replacement pod runs and turns Ready this long after binding (image pull, readiness probe): budgets wait on it. */
const POD_START_MS = 15_000;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export interface DemoOptions {
  /** @default 'upgrade' */
  scenario?: DemoScenarioName;
  /** @default 60 (a simulated minute per second) */
  speed?: number;
  /** @default 1 */
  seed?: number;
  /** @default the demo profile's 24 */
  nodes?: number;
  /** Leave the cluster running: the result carries it, the caller stops it. @default false */
  keep?: boolean;
  /** Give up after this much wall time. @default 120000 */
  wallLimitMs?: number;
  onEvent?: (e: DemoOutput) => void;
  /** After every observation, for live views. */
  onView?: (v: DemoView) => void;
  logger?: SimLogger;
}

export type DemoOutput = { kind: 'setup'; atMs: number; message: string } | DemoEvent | RequestorEvent | NodeEvent;

export interface DemoView {
  simMs: number;
  wallMs: number;
  speed: number;
  nodes: number;
  limits: DemoLimits;
  rows: RequestRow[];
  inProgress: number;
  unavailable: number;
  evictions: number;
  budgetWaits: number;
}

export interface DemoSummary {
  scenario: DemoScenarioName;
  nodes: number;
  zones: number;
  podsAtStart: number;
  /** Nodes whose request reached Ready, by requestor. */
  maintained: Record<string, number>;
  simMs: number;
  wallMs: number;
  speed: number;
  evictions: number;
  /** Evictions the API server refused (429: a budget moved between the drainer's read and its request). */
  refusedEvictions: number;
  /** Pods a drain had to leave for later because a PodDisruptionBudget allowed no disruption, by budget. */
  budgetWaits: { pods: number; byBudget: Record<string, number> };
  /** Requests that waited for maxParallelOperations or maxUnavailable before admission, and the longest wait. */
  limitWaits: { requests: number; longestMs: number };
  passes: number;
  /** Every request the sim API server answered, by verb, and by client. */
  apiByVerb: Record<string, number>;
  apiByUser: Record<string, number>;
  peakInProgress: number;
  peakUnavailable: number;
  limits: DemoLimits;
  preCordoned: string | undefined;
  /** The reboot scenario's nodes: phases, boot IDs, the most down at once. */
  reboots?: RebootReport;
  invariants: InvariantReport;
}

export interface DemoResult {
  summary: DemoSummary;
  /** Every node through the phases observed, and the unavailable count over time (for `--report`). */
  timeline: Timeline;
  /** Only with `keep`: the running cluster. */
  cluster?: EmbeddedCluster;
}

/** Users of the demo's own clients, so the request log attributes every request. */
export const DEMO_USERS = { kmaint: 'kmaint', requestors: 'requestors', observer: 'demo-observer' } as const;

export async function runDemo(opts: DemoOptions = {}): Promise<DemoResult> {
  const scenario = DEMO_SCENARIOS[opts.scenario ?? 'upgrade'];
  const limits = scenario.limits;
  const speed = opts.speed ?? 60;
  const seed = opts.seed ?? 1;
  const emit = opts.onEvent ?? (() => undefined);
  const log = opts.logger ?? silentLogger;
  const clock = acceleratedClock(speed);
  // Polls LIST the whole cluster: at most one every ~50 ms of real time whatever the speed.
  const pollMs = Math.max(1000, 50 * speed);
  const idleMs = Math.max(5000, 50 * speed);
  const wallStart = Date.now();
  const wallLimit = wallStart + (opts.wallLimitMs ?? 120_000);

  const sim = await startEmbeddedCluster({ clock, seed, ...(opts.nodes !== undefined ? { nodes: opts.nodes } : {}), pollIntervalMs: pollMs, podStartDelayMs: POD_START_MS, ...(scenario.rebootSeconds !== undefined ? { rebootSeconds: scenario.rebootSeconds } : {}), namespaces: [DEFAULT_NAMESPACE], logger: log });
  try {
    const simStart = clock.nowMs();
    const zones = new Set(sim.cluster.nodes.map((n) => n.metadata?.labels?.['topology.kubernetes.io/zone'] ?? '')).size;
    emit({ kind: 'setup', atMs: 0, message: `cluster up: ${sim.cluster.nodes.length} nodes in ${zones} zones, ${sim.podsReady} pods running (${((Date.now() - wallStart) / 1000).toFixed(1)} s wall)` });

    const admin = sim.kubeConfig;
    const custom = admin.makeApiClient(CustomObjectsApi);
    const core = admin.makeApiClient(CoreV1Api);
    await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: DEFAULT_NAMESPACE,
      plural: CONFIG_PLURAL,
      body: { apiVersion: API_VERSION, kind: CONFIG_KIND, metadata: { name: CONFIG_NAME, namespace: DEFAULT_NAMESPACE }, spec: { ...limits, ...scenario.config.spec } },
    });
    emit({ kind: 'setup', atMs: 0, message: `MaintenanceOperatorConfig ${DEFAULT_NAMESPACE}/${CONFIG_NAME}: ${[limitsText(limits), scenario.config.text].filter((t) => t !== '').join(', ')}` });

    // From the generated cluster, not the live pods: the choices are a pure function of the seed (issue 42).
    const plan = scenario.plan(sim.cluster);
    if (plan.preCordoned) {
      await core.patchNode({ name: plan.preCordoned, body: { spec: { unschedulable: true } } }, mergePatch);
      emit({ kind: 'setup', atMs: 0, message: `${plan.preCordoned} was cordoned by an admin before any request: kmaint must leave it cordoned` });
    }
    const initialNodes = (await core.listNode()).items;
    const initial = new Map(initialNodes.map((n) => [n.metadata?.name ?? '', n.spec?.unschedulable === true]));
    // The reboot scenario sees every Node and request write as stored (a reboot is down for seconds, between two looks).
    const reboots = scenario.rebootSeconds !== undefined ? watchReboots(sim, initialNodes, () => clock.nowMs() - simStart, emit) : undefined;

    const observerClient = new KubeClient(sim.apiserver.kubeConfig({ user: DEMO_USERS.observer }));
    const agents = new RequestorAgents(sim.apiserver.kubeConfig({ user: DEMO_USERS.requestors }), clock, sim.kubelet, plan.requests, (e) => emit({ ...e, atMs: e.atMs - simStart }));
    await agents.createAll();
    const byRequestor = new Map<string, number>();
    for (const r of plan.requests) byRequestor.set(r.spec.requestorID, (byRequestor.get(r.spec.requestorID) ?? 0) + 1);
    emit({ kind: 'setup', atMs: 0, message: `requests created: ${[...byRequestor].map(([who, n]) => `${n} by ${who}`).join(', ')}` });

    const client = new KubeClient(sim.apiserver.kubeConfig({ user: DEMO_USERS.kmaint }), { sleep: (ms, signal) => clock.sleep(ms, signal) });
    const passOpts = { client, namespace: DEFAULT_NAMESPACE, now: () => clock.now(), holder: 'kmaint-demo' };
    const observer = new DemoObserver();
    const recorder = new TimelineRecorder();
    let evictions = 0;
    let passes = 0;
    const count = (s: PassSummary): void => {
      passes++;
      evictions += s.actions['evictPod'] ?? 0;
      for (const e of s.errors) log.warn({ fn: s.fn, error: e }, 'demo: pass error');
    };
    const observe = async (): Promise<{ done: boolean }> => {
      const [maintenances, nodes] = await Promise.all([observerClient.listMaintenances(), observerClient.listNodes()]);
      const atMs = clock.nowMs() - simStart;
      for (const e of observer.observe(maintenances, nodes, atMs)) {
        // A request first seen before any pass wrote its phase was 'new' from then on.
        const seen = e.kind === 'phase' && e.from === '' ? observer.firstSeenMs(e.key) : undefined;
        if (seen !== undefined && seen < e.atMs) recorder.phase(e.key, e.node, 'new', seen);
        recordTransition(recorder, e);
        emit(e);
      }
      await agents.tick(maintenances);
      const state = buildSchedulingState({ nodes, maintenances });
      recorder.counts(atMs, new Set([...state.nodesUnavailable, ...state.nodesUnderMaintenance]).size, state.nodesUnderMaintenance.size);
      opts.onView?.({
        simMs: atMs,
        wallMs: Date.now() - wallStart,
        speed,
        nodes: nodes.length,
        limits,
        rows: observer.view(),
        inProgress: state.nodesUnderMaintenance.size,
        unavailable: new Set([...state.nodesUnavailable, ...state.nodesUnderMaintenance]).size,
        evictions,
        budgetWaits: observer.budgetWaits().pods,
      });
      return { done: agents.done() && maintenances.length === 0 };
    };

    const { finished } = await runDemoRounds({ passOpts, observe, onPass: count, sleep: (ms, signal) => clock.sleep(ms, signal), idleMs, wallLimit });
    reboots?.stop();
    const rebootReport = reboots?.watch.report();

    const final = new Map((await core.listNode()).items.map((n) => [n.metadata?.name ?? '', n.spec?.unschedulable === true]));
    const rows = observer.view();
    const maintained: Record<string, number> = {};
    for (const r of rows) if (r.readyMs !== undefined) maintained[r.requestor] = (maintained[r.requestor] ?? 0) + 1;
    const waited = rows.filter((r) => r.admittedMs !== undefined && r.admittedMs > r.firstSeenMs);
    const counts = sim.apiserver.requestCounts();
    const apiByVerb: Record<string, number> = {};
    for (const [key, n] of Object.entries(counts.byVerb)) {
      const verb = key.split(' ')[0] ?? key;
      apiByVerb[verb] = (apiByVerb[verb] ?? 0) + n;
    }
    const apiByUser: Record<string, number> = {};
    for (const e of sim.apiserver.requests()) apiByUser[e.user] = (apiByUser[e.user] ?? 0) + 1;
    const invariants = checkDemoInvariants({
      peakInProgress: observer.peakInProgress,
      maxParallelOperations: limits.maxParallelOperations,
      initialUnschedulable: initial,
      finalUnschedulable: final,
      unfinished: finished ? [] : [...new Set([...agents.unfinished(), ...rows.filter((r) => r.releasedMs === undefined).map((r) => r.key)])].sort(),
    });
    const rebootViolations = rebootReport ? checkRebootInvariants(rebootReport, limits.maxParallelOperations) : [];
    const summary: DemoSummary = {
      scenario: scenario.name,
      nodes: sim.cluster.nodes.length,
      zones,
      podsAtStart: sim.podsReady,
      maintained,
      simMs: clock.nowMs() - simStart,
      wallMs: Date.now() - wallStart,
      speed,
      evictions,
      refusedEvictions: sim.apiserver.requests({ verb: 'create', resource: 'pods/eviction' }).filter((e) => e.code === 429).length,
      budgetWaits: observer.budgetWaits(),
      limitWaits: { requests: waited.length, longestMs: Math.max(0, ...waited.map((r) => (r.admittedMs ?? 0) - r.firstSeenMs)) },
      passes,
      apiByVerb,
      apiByUser,
      peakInProgress: observer.peakInProgress,
      peakUnavailable: observer.peakUnavailable,
      limits,
      preCordoned: plan.preCordoned,
      ...(rebootReport ? { reboots: rebootReport } : {}),
      invariants: { held: invariants.held && rebootViolations.length === 0, violations: [...invariants.violations, ...rebootViolations] },
    };
    const timeline = recorder.timeline({ maxParallelOperations: limits.maxParallelOperations, maxUnavailable: limits.maxUnavailable ?? null }, summary.simMs);
    if (opts.keep) return { summary, timeline, cluster: sim };
    await sim.stop();
    return { summary, timeline };
  } catch (err) {
    await sim.stop();
    throw err;
  }
}

/** The observer's transitions as timeline spans: phases as seen ('' is 'new'), deletion, release. */
function recordTransition(recorder: TimelineRecorder, e: DemoEvent): void {
  if (e.kind === 'phase') recorder.phase(e.key, e.node, e.to || 'new', e.atMs);
  else if (e.kind === 'deleting') recorder.phase(e.key, e.node, 'deleting', e.atMs);
  else if (e.kind === 'released') recorder.released(e.key, e.atMs);
}

/** Follows every Node and NodeMaintenance write in the sim's store; node events go out as they happen. */
function watchReboots(sim: EmbeddedCluster, initialNodes: readonly V1Node[], atMs: () => number, emit: (e: DemoOutput) => void): { watch: RebootWatch; stop: () => void } {
  const watch = new RebootWatch(initialNodes);
  const stops = [
    sim.apiserver.local.watch(NODES, (_type, obj) => {
      for (const e of watch.node(obj as V1Node, atMs())) emit(e);
    }),
    sim.apiserver.local.watch(MAINTENANCES, (type, obj) => {
      if (type !== 'DELETED') watch.maintenance(obj as unknown as NodeMaintenance);
    }),
  ];
  return { watch, stop: () => stops.forEach((s) => s()) };
}
