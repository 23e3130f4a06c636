// simulate(): a rolling maintenance of a snapshot's nodes, replayed on a fresh sim at full speed. kmaint's real
// scheduler, drainer and cleanup passes run on a manual clock that jumps from one due event to the next; the
// cluster around them (kubelet, controllers) reacts in-process; a requestor deletes each request once Ready.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { API_VERSION, NODE_MAINTENANCE_KIND, maintenanceKey, type DrainSpec, type MaintenanceOperatorConfigSpec, type NodeMaintenance } from '../../shared/api/index.ts';
import { loadLimits } from '../../shared/config/index.ts';
import { selectPodsForDrain } from '../../shared/drain/index.ts';
import { KubeClient } from '../../shared/kube/index.ts';
import { PASS_FUNCTIONS, runPass } from '../../shared/pass/index.ts';
import { RUN_BACKOFF, runRounds, type BackoffSettings } from '../../shared/runtime/index.ts';
import { matchesLabels, parseLabelSelector } from '../../shared/selectors/index.ts';
import { maintenancePhase, readyCondition } from '../../shared/scheduling/index.ts';
import { DEFAULT_NAMESPACES, startSimApiServer, type JsonObject, type ResourceRef } from '../apiserver/index.ts';
import { manualClock } from '../clock.ts';
import { CRDS_DIR } from '../embedded.ts';
import { createRng, deriveSeed } from '../generator/prng.ts';
import { WhatIfCluster } from './cluster.ts';
import { EventQueue } from './event-queue.ts';
import { idealMakespan, limitScopes } from './ideal.ts';
import { InProcessTransport } from './in-process-transport.ts';
import { DEFAULT_VALIDATION_TIMEOUT_SECONDS, loadValidationSettings } from '../../shared/validation/index.ts';
import { WhatIfValidationJobs } from './validation-jobs.ts';
import { requestDevices, WhatIfObserver } from './observer.ts';
import { PassTally, summarise, type WhatIfReport } from './report.ts';
import { deviceRequestManifest, devicesByNode, holdersOn, longestHolderGrace } from './device-requests.ts';
import { seedSnapshot } from './seed.ts';
import type { ClusterSnapshot } from './snapshot-schema.ts';

const NODES: ResourceRef = { apiVersion: 'v1', resource: 'nodes' };
const MAINTENANCES: ResourceRef = { apiVersion: API_VERSION, resource: 'nodemaintenances' };

export const WHATIF_REQUESTOR = 'whatif.kmaint.io';
export const WHATIF_NAMESPACE = 'default';
/** What `kubectl drain --ignore-daemonsets --delete-emptydir-data --force` evicts, with no timeout. */
export const WHATIF_DRAIN_SPEC: DrainSpec = { force: true, deleteEmptyDir: true, podSelector: '', timeoutSeconds: 0 };
const DAY_MS = 24 * 3600_000;
/**
 * A pass's duration when the caller does not say: a small cluster's passes under a busy control plane (the testbed
 * scenario of test/whatif-testbed.test.ts measured 6-167 ms a pass by function, 110-300 ms for passes that write, at
 * load 11-16 on 2 cores; see README.md).
 */
export const DEFAULT_PASS_MS = 100;

export interface SimulateOptions {
  /** The cluster; a function is called once and its result dropped after loading (150,000 pods are ~100 MB). */
  snapshot: ClusterSnapshot | (() => ClusterSnapshot);
  /** The MaintenanceOperatorConfig spec to plan with; @default the snapshot's (kmaint's defaults without one). */
  config?: MaintenanceOperatorConfigSpec;
  /** Which nodes get a (node) request: all, or those a label selector picks. @default none (then `devices` must be given) */
  nodes?: { all: true } | { selector: string };
  /**
   * Devices (`driver/pool/device`) to maintain one by one (issue 45): one device request per node listing its devices
   * (kmaint.io/devices), each device published by a ResourceSlice of the snapshot. @default none
   */
  devices?: readonly string[];
  /** How long the requestor keeps a node after its request is Ready, then deletes it. @default 0 */
  holdMs?: number;
  /** Simulated ms from a replacement pod's binding to Running and Ready. @default 10000 */
  podStartMs?: number;
  /** @default 'whatif.kmaint.io' */
  requestorID?: string;
  /** kmaint's API calls in-process (fast) or over loopback HTTP through client-node. @default 'local' */
  transport?: 'local' | 'http';
  /** Stop after this much simulated time. @default 7 days */
  maxSimMs?: number;
  /** Node label naming a node's pool for the peaks when the config defines no pools. @default 'kmaint.io/pool' */
  poolLabel?: string;
  /** Budgets listed in the report, longest total wait first. @default 5 */
  topBudgets?: number;
  /** The round loop's waits; @default `kmaint run`'s (RUN_BACKOFF). */
  cadence?: Partial<Pick<BackoffSettings, 'intervalMs' | 'maxIntervalMs'>>;
  /**
   * Simulated ms each pass takes (reading, planning, writing): a pass sees the cluster and acts at its end, and a
   * round lasts as long as its passes. A pass skipped because nothing it reads changed is charged too. @default 100
   */
  passMs?: number;
  /** Seeds the names of replacement pods. @default 1 */
  seed?: number;
  onProgress?: (p: { simMs: number; released: number; total: number; wallMs: number }) => void;
}

/** A what-if that cannot start: the message is one line for the user. */
export class WhatIfError extends Error {
  override name = 'WhatIfError';
}

function chooseNodes(nodes: readonly V1Node[], choice: NonNullable<SimulateOptions['nodes']>): string[] {
  const names = nodes.map((n) => n.metadata?.name ?? '').sort();
  if ('all' in choice) return names;
  const parsed = parseLabelSelector(choice.selector);
  if (!parsed.ok) throw new WhatIfError(`--nodes: ${parsed.error}`);
  const chosen = nodes.filter((n) => matchesLabels(parsed.selector, n.metadata?.labels)).map((n) => n.metadata?.name ?? '');
  if (chosen.length === 0) throw new WhatIfError(`--nodes ${JSON.stringify(choice.selector)} selects none of the ${names.length} nodes`);
  return chosen.sort();
}

/** For each node, the longest grace period of the pods a drain of it evicts (what kmaint would select). */
function drainablePodsByNode(snapshot: ClusterSnapshot): Map<string, number> {
  const byNode = new Map<string, V1Pod[]>();
  for (const p of snapshot.pods) {
    if (!p.nodeName) continue;
    const pod: V1Pod = {
      metadata: {
        namespace: p.namespace,
        name: p.name,
        labels: p.labels,
        ...(p.mirror ? { annotations: { 'kubernetes.io/config.mirror': 'whatif' } } : {}),
        ...(p.owner ? { ownerReferences: [{ ...p.owner, controller: true }] } : {}),
      },
      spec: { containers: [], terminationGracePeriodSeconds: p.terminationGracePeriodSeconds, volumes: p.emptyDirVolumes.map((name) => ({ name, emptyDir: {} })) },
      status: { phase: p.phase },
    };
    const onNode = byNode.get(p.nodeName);
    if (onNode) onNode.push(pod);
    else byNode.set(p.nodeName, [pod]);
  }
  const longest = new Map<string, number>();
  for (const [node, pods] of byNode) {
    const evict = selectPodsForDrain(pods, WHATIF_DRAIN_SPEC).evict;
    longest.set(node, Math.max(0, ...evict.map((p) => p.spec?.terminationGracePeriodSeconds ?? 0)));
  }
  return longest;
}

function hasWindows(spec: MaintenanceOperatorConfigSpec | undefined): boolean {
  return (spec?.windows?.length ?? 0) > 0 || (spec?.pools ?? []).some((p) => (p.windows?.length ?? 0) > 0);
}

/** spec.validation.timeoutSeconds in ms (its default when absent or unreadable: the Jobs then never come). */
function validationTimeoutMs(spec: unknown): number {
  const loaded = loadValidationSettings({ spec });
  return (loaded.kind === 'on' ? loaded.settings.timeoutSeconds : DEFAULT_VALIDATION_TIMEOUT_SECONDS) * 1000;
}

export async function simulate(opts: SimulateOptions): Promise<WhatIfReport> {
  const passMs = opts.passMs ?? DEFAULT_PASS_MS;
  if (!(passMs >= 0)) throw new WhatIfError(`pass time must be 0 or more ms, got ${passMs}`);
  const wallStart = Date.now();
  let snapshot: ClusterSnapshot | undefined = typeof opts.snapshot === 'function' ? opts.snapshot() : opts.snapshot;
  const about = { source: snapshot.source, nodes: snapshot.nodes.length, pods: snapshot.pods.length, budgets: snapshot.podDisruptionBudgets.length };
  const holdMs = opts.holdMs ?? 0;
  const podStartMs = opts.podStartMs ?? 10_000;
  const spec = opts.config ?? snapshot.config?.spec;
  const namespace = snapshot.config?.namespace ?? 'kmaint';
  const t0 = Date.parse(snapshot.takenAt);
  const clock = manualClock(new Date(Number.isNaN(t0) ? 0 : t0));
  const start = clock.nowMs();
  const rng = createRng(deriveSeed(opts.seed ?? 1, 'whatif-names'));
  const api = await startSimApiServer({ crds: [CRDS_DIR], clock, random: () => rng.next(), watchHistorySize: 1000, requestLogLimit: 1000, namespaces: DEFAULT_NAMESPACES });
  const queue = new EventQueue();
  const cluster = new WhatIfCluster(api, queue, { podStartMs, now: () => clock.nowMs() });
  try {
    const stored: JsonObject[] = [];
    const seeded = seedSnapshot(api, snapshot, { namespace, spec }, start, (pod) => stored.push(pod));
    const drainable = drainablePodsByNode(snapshot);
    snapshot = undefined;
    cluster.start(seeded.controllers, seeded.templates, stored.splice(0));
    cluster.settle();
    cluster.settleBudgets();
    const nodes = api.local.list(NODES) as unknown as V1Node[];
    const chosen = opts.nodes ? chooseNodes(nodes, opts.nodes) : [];
    const byDevices = (opts.devices ?? []).length > 0 ? devicesByNode(api.local, opts.devices ?? []) : { ok: true as const, byNode: new Map<string, string[]>() };
    if (!byDevices.ok) throw new WhatIfError(`--devices: ${byDevices.problem}`);
    const deviceNodes = [...byDevices.byNode.keys()];
    if (chosen.length === 0 && deviceNodes.length === 0) throw new WhatIfError('nothing to maintain: give the nodes (--all-nodes, --nodes) or the devices (--devices)');
    const loaded = loadLimits(spec ? { metadata: { name: 'default' }, spec } : undefined, nodes.length);
    const pools = loaded.config.admission?.pools ?? [];
    const poolLabel = opts.poolLabel ?? 'kmaint.io/pool';
    const labels = new Map(nodes.map((n) => [n.metadata?.name ?? '', n.metadata?.labels ?? {}]));
    const poolOf = (node: string): string => {
      const l = labels.get(node) ?? {};
      if (pools.length > 0) return pools.find((p) => matchesLabels(p.selector, l))?.name ?? '(no pool)';
      return l[poolLabel] ?? '(none)';
    };

    // The floor: each chosen node's slowest pod to evict, plus the hold.
    const durationMs = new Map<string, number>();
    for (const node of chosen) durationMs.set(node, (drainable.get(node) ?? 0) * 1000 + holdMs);
    // A device request's floor: its holders' longest grace period, plus the hold (a node with both keeps the longer).
    for (const [node, devices] of byDevices.byNode) durationMs.set(node, Math.max(durationMs.get(node) ?? 0, longestHolderGrace(api.local, node, devices) * 1000 + holdMs));
    const unavailableAtStart = new Set(nodes.filter((n) => n.spec?.unschedulable === true || n.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True').map((n) => n.metadata?.name ?? ''));

    const observer = new WhatIfObserver(
      () => clock.nowMs() - start,
      poolOf,
      (pod) => cluster.disruption.budgetsOf(pod),
      (nm: NodeMaintenance) =>
        queue.at(clock.nowMs() + holdMs, () => {
          try {
            api.local.delete(MAINTENANCES, nm.metadata.namespace ?? '', nm.metadata.name);
          } catch {
            // Already gone: nothing for the requestor to do.
          }
        }),
      (node, devices) => holdersOn(api.local, node, devices),
    );
    observer.seedNodes(nodes);
    cluster.nodeInMaintenance = (node) => observer.inMaintenance(node);
    const validationJobs = new WhatIfValidationJobs(api.local, api.context, queue, () => clock.nowMs(), podStartMs, validationTimeoutMs(spec), () => cluster.versions.objects++);
    const unsubscribe = api.context.store.subscribe((e) => {
      observer.onStoreEvent(e);
      validationJobs.onStoreEvent(e);
    });
    cluster.onPodChange((r, previous, gone) => observer.onPod(r, previous, gone));

    const requestorID = opts.requestorID ?? WHATIF_REQUESTOR;
    for (const node of chosen) {
      api.local.create(MAINTENANCES, WHATIF_NAMESPACE, {
        apiVersion: API_VERSION,
        kind: NODE_MAINTENANCE_KIND,
        metadata: { name: `whatif-${node}`, namespace: WHATIF_NAMESPACE },
        spec: { requestorID, nodeName: node, cordon: true, drainSpec: { ...WHATIF_DRAIN_SPEC } },
      });
    }
    for (const [node, devices] of byDevices.byNode) api.local.create(MAINTENANCES, WHATIF_NAMESPACE, deviceRequestManifest(WHATIF_NAMESPACE, node, devices, requestorID, WHATIF_DRAIN_SPEC));

    const kubeConfig = api.kubeConfig({ user: 'kmaint' });
    // Event names end in a count, not a random number, so that the same what-if names the same events.
    let events = 0;
    const local = { random: () => ((events++ % 0xffff) + 0.5) / 0xffff };
    const client = (opts.transport ?? 'local') === 'local' ? new KubeClient(new InProcessTransport(api.local, api.context), local) : new KubeClient(kubeConfig);
    // Without time-driven rules (windows, garbage collection of old Ready requests) a pass is a pure function of
    // what it reads: one that changed nothing last time, over inputs that have not changed since, would change
    // nothing again. Such passes are skipped, not run; the cadence goes on as if they had run.
    const skipQuiet = !hasWindows(spec) && holdMs < loaded.config.maxNodeMaintenanceTimeSeconds * 1000;
    const lastRun = new Map<string, { drain: number; objects: number; progressed: boolean }>();
    const unchanged = (fn: string): boolean => {
      const last = lastRun.get(fn);
      if (!skipQuiet || !last || last.progressed) return false;
      const v = cluster.versions;
      return last.objects === v.objects && (fn !== 'drainer' || last.drain === v.drain);
    };
    const maxSimMs = opts.maxSimMs ?? 7 * DAY_MS;
    // Lets `ms` of simulated time pass, running what falls due on the way at its own time; returns how much ran.
    const elapse = async (ms: number): Promise<number> => {
      const until = clock.nowMs() + ms;
      let ran = 0;
      while (queue.nextAt() <= until) {
        const at = queue.nextAt();
        if (at > clock.nowMs()) await clock.advance(at - clock.nowMs());
        ran += queue.runDue(clock.nowMs());
        cluster.settle();
      }
      if (until > clock.nowMs()) await clock.advance(until - clock.nowMs());
      return ran;
    };
    let timeLimited = false;
    // The wait between rounds: as elapse, but it ends where the last request is released or the time limit falls.
    const between = async (ms: number): Promise<void> => {
      const until = clock.nowMs() + ms;
      while (!observer.done) {
        const next = Math.min(queue.nextAt(), until);
        if (next - start > maxSimMs) {
          timeLimited = true;
          return;
        }
        if (next > clock.nowMs()) await clock.advance(next - clock.nowMs());
        if (queue.runDue(clock.nowMs()) > 0) cluster.settle();
        if (clock.nowMs() >= until) return;
      }
    };
    let skipped = 0;
    const loadMs = Date.now() - wallStart;
    const tally = new PassTally();
    let ran = 0;
    let happened = 0;
    // kmaint's cadence is `kmaint run all`'s (the runtime's round loop with its defaults); a run that goes idle is
    // taken to be started again at once by its schedule, so the rounds go on while requests are open.
    const { rounds, stopped } = await runRounds<'done' | 'time-limit' | 'stuck'>({
      round: async () => {
        let progressed = false;
        ran = 0;
        happened = 0;
        for (const fn of PASS_FUNCTIONS) {
          // The pass runs for passMs; the cluster moves on meanwhile, and what it reads and writes is taken at the end.
          happened += await elapse(passMs);
          // The disruption controller has caught up with the pods by the time the drainer reads the budgets.
          if (fn === 'drainer') cluster.settleBudgets();
          if (unchanged(fn)) {
            skipped++;
            continue;
          }
          ran++;
          const before = { ...cluster.versions };
          const s = await runPass(fn, { client, namespace, now: () => clock.now(), holder: 'kmaint-whatif', env: {} });
          tally.add(s);
          const acted = Object.keys(s.actions).length > 0;
          lastRun.set(fn, { ...before, progressed: acted });
          progressed ||= acted;
          cluster.settle();
        }
        return { remains: true, progressed, failed: false, heldOnly: false };
      },
      backoff: { ...RUN_BACKOFF, ...opts.cadence },
      sleep: (ms) => between(ms),
      untilIdle: false,
      beforeRound: () => (observer.done ? 'done' : timeLimited || clock.nowMs() - start > maxSimMs ? 'time-limit' : undefined),
      afterRound: (_o, n) => {
        if (n % 500 === 0) opts.onProgress?.({ simMs: clock.nowMs() - start, released: observer.released, total: chosen.length, wallMs: Date.now() - wallStart });
        // No pass ran, nothing happened meanwhile and nothing is due: no pass, no pod, no requestor will move again.
        return ran === 0 && happened === 0 && queue.size === 0 ? 'stuck' : undefined;
      },
    });
    unsubscribe();
    // Its rounds never fail and never go idle (see round): anything else is a defect here, said as one.
    if (stopped === 'idle' || stopped === 'failed') throw new WhatIfError(`the what-if round loop ended as ${stopped}, which its rounds never report`);

    const admitted = observer.admitted.map((k) => observer.requests.get(k)?.node ?? '');
    const admittedSet = new Set(admitted);
    const order = [...new Set([...admitted, ...chosen.filter((n) => !admittedSet.has(n)), ...deviceNodes.filter((n) => !admittedSet.has(n))])];
    const ideal = idealMakespan({ order, durationMs, scopes: limitScopes(loaded.config, nodes), unavailableAtStart });
    const open = (api.local.list(MAINTENANCES) as unknown as NodeMaintenance[]).map((nm) => {
      const { devices } = requestDevices(nm);
      return {
        request: maintenanceKey(nm),
        node: nm.spec.nodeName,
        phase: maintenancePhase(nm) || '(new)',
        message: readyCondition(nm)?.message ?? '',
        ...(devices !== undefined ? { devices, ...(devices.length > 0 ? { holders: holdersOn(api.local, nm.spec.nodeName, devices) } : {}) } : {}),
      };
    });
    return summarise({
      snapshot: about,
      chosen,
      deviceRequests: { requests: byDevices.byNode.size, devices: (opts.devices ?? []).length },
      loaded,
      observer,
      cluster: cluster.counts(),
      ideal,
      stopped,
      simMs: clock.nowMs() - start,
      wallMs: Date.now() - wallStart,
      loadMs,
      rounds,
      skipped,
      passes: tally,
      open,
      settings: { holdMs, podStartMs, passMs, transport: opts.transport ?? 'local' },
      topBudgets: opts.topBudgets ?? 5,
    });
  } finally {
    cluster.stop();
    await api.stop();
  }
}
