// SimControllers: what kube-controller-manager and kube-scheduler do for maintenance, as one polling loop on the
// sim clock. Each round reads one snapshot, runs the pure planners in order, and applies what they ask.
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import type { SimClock } from '../clock.ts';
import { silentLogger, type SimLogger } from '../kubelet/logger.ts';
import type { ControllerAction, ControllerActionKind } from './actions.ts';
import { ControllerApplier, emptyTally, type ApplyTally } from './apply.ts';
import { planDaemonSet } from './daemonset.ts';
import { planDeployment } from './deployment.ts';
import { buildScaleIndex, planPdb } from './disruption.ts';
import { planJob } from './job.ts';
import { controllerOf } from './pod-facts.ts';
import { planReplicaSet } from './replicaset.ts';
import { planScheduling } from './scheduler.ts';
import { SnapshotReader, type ClusterSnapshot, type SnapshotPart } from './snapshot.ts';
import { planStatefulSet } from './statefulset.ts';

export const CONTROLLER_NAMES = ['deployment', 'replicaset', 'statefulset', 'daemonset', 'job', 'scheduler', 'disruption'] as const;
export type ControllerName = (typeof CONTROLLER_NAMES)[number];

/** Pause after a round at least this many times its snapshot read took (accelerated clocks). */
const BUSY_FACTOR = 2;

/** What each controller reads. */
const READS: Readonly<Record<ControllerName, readonly SnapshotPart[]>> = {
  deployment: ['deployments', 'replicaSets'],
  replicaset: ['replicaSets', 'pods'],
  statefulset: ['statefulSets', 'pods'],
  daemonset: ['daemonSets', 'nodes', 'pods'],
  job: ['jobs', 'pods'],
  scheduler: ['nodes', 'pods'],
  disruption: ['pdbs', 'pods', 'replicaSets', 'deployments', 'statefulSets'],
};

export interface SimControllersOptions {
  kubeConfig: KubeConfig;
  clock: SimClock;
  /** Simulated ms between the end of one round and the start of the next. @default 1000 */
  intervalMs?: number;
  /** Which controllers run. @default all of CONTROLLER_NAMES */
  controllers?: readonly ControllerName[];
  /** Seeds the names of generated pods. @default 1 */
  seed?: number;
  /** Writes in flight. @default 16 */
  concurrency?: number;
  /** LIST page size. @default 500 */
  pageSize?: number;
  logger?: SimLogger;
}

export interface RoundResult extends Omit<ApplyTally, 'created'> {
  planned: number;
}

export interface SimControllersStats {
  rounds: number;
  failedRounds: number;
  applied: Partial<Record<ControllerActionKind, number>>;
  conflicts: number;
  errors: number;
}

export class SimControllers {
  private readonly enabled: ReadonlySet<ControllerName>;
  private readonly parts: ReadonlySet<SnapshotPart>;
  private readonly reader: SnapshotReader;
  private readonly applier: ControllerApplier;
  private readonly log: SimLogger;
  private readonly totals: SimControllersStats = { rounds: 0, failedRounds: 0, applied: {}, conflicts: 0, errors: 0 };
  private loop: Promise<void> | undefined;
  /** Real ms the last round spent reading its snapshot. */
  private lastReadMs = 0;
  private readonly abort = new AbortController();

  constructor(private readonly opts: SimControllersOptions) {
    const names = opts.controllers ?? CONTROLLER_NAMES;
    for (const n of names) if (!CONTROLLER_NAMES.includes(n)) throw new RangeError(`unknown controller "${String(n)}": expected one of ${CONTROLLER_NAMES.join(', ')}`);
    this.enabled = new Set(names);
    this.parts = new Set(names.flatMap((n) => READS[n]));
    this.reader = new SnapshotReader(opts.kubeConfig, opts.pageSize ?? 500);
    this.applier = new ControllerApplier(opts.kubeConfig, opts.seed ?? 1, opts.concurrency ?? 16, () => opts.clock.now());
    this.log = opts.logger ?? silentLogger;
  }

  /** One round: read, plan workloads and apply, schedule (new pods included), then PodDisruptionBudget status. */
  async reconcileOnce(): Promise<RoundResult> {
    const began = performance.now();
    const snap = await this.reader.read(this.parts);
    this.lastReadMs = performance.now() - began;
    const now = this.opts.clock.now();
    const tally = emptyTally();
    const workload = this.planWorkloads(snap, now);
    await this.applier.apply(workload, tally);
    let planned = workload.length;
    if (this.enabled.has('scheduler')) {
      const bindings = planScheduling(snap.nodes, [...snap.pods, ...tally.created]);
      planned += bindings.length;
      await this.applier.apply(bindings, tally);
    }
    if (this.enabled.has('disruption')) {
      const index = buildScaleIndex(snap);
      // Pods created this round count already (expectedPods of integer budgets), as informers would show them.
      const pods = [...snap.pods, ...tally.created];
      const statuses = snap.pdbs.flatMap((pdb) => planPdb(pdb, pods, index, now));
      planned += statuses.length;
      await this.applier.apply(statuses, tally);
    }
    const { created: _created, ...rest } = tally;
    this.record(rest);
    return { ...rest, planned };
  }

  private planWorkloads(snap: ClusterSnapshot, now: Date): ControllerAction[] {
    const byOwner = new Map<string, V1Pod[]>();
    for (const pod of snap.pods) {
      const uid = controllerOf(pod)?.uid;
      if (uid) byOwner.set(uid, [...(byOwner.get(uid) ?? []), pod]);
    }
    const owned = (o: { metadata?: { uid?: string } }): V1Pod[] => byOwner.get(o.metadata?.uid ?? '') ?? [];
    const actions: ControllerAction[] = [];
    if (this.enabled.has('deployment')) {
      for (const d of snap.deployments) actions.push(...planDeployment(d, snap.replicaSets.filter((rs) => rs.metadata?.namespace === d.metadata?.namespace)));
    }
    if (this.enabled.has('replicaset')) for (const rs of snap.replicaSets) actions.push(...planReplicaSet(rs, owned(rs)));
    if (this.enabled.has('statefulset')) for (const s of snap.statefulSets) actions.push(...planStatefulSet(s, owned(s)));
    if (this.enabled.has('daemonset')) for (const ds of snap.daemonSets) actions.push(...planDaemonSet(ds, snap.nodes, owned(ds)));
    if (this.enabled.has('job')) for (const j of snap.jobs) actions.push(...planJob(j, owned(j), now));
    return actions;
  }

  private record(r: Omit<ApplyTally, 'created'>): void {
    this.totals.rounds++;
    for (const [k, v] of Object.entries(r.applied) as Array<[ControllerActionKind, number]>) this.totals.applied[k] = (this.totals.applied[k] ?? 0) + v;
    this.totals.conflicts += r.conflicts;
    this.totals.errors += r.errors.length;
    for (const e of r.errors) this.log.warn({ error: e }, 'simulated controllers: write failed');
  }

  /** Runs rounds in the background every intervalMs of simulated time until stop(). */
  start(): void {
    if (this.loop) throw new Error('SimControllers.start: already started');
    const signal = this.abort.signal;
    this.loop = (async () => {
      while (!signal.aborted) {
        try {
          await this.reconcileOnce();
        } catch (err) {
          if (signal.aborted) return;
          this.totals.failedRounds++;
          this.log.warn({ err }, 'simulated controllers: round failed');
        }
        // On an accelerated clock a slow read (a busy machine) stretches the pause, so polling never takes more
        // than about a third of the process: kmaint's passes and the kubelet share the same event loop.
        const busySimMs = this.lastReadMs * this.opts.clock.speed * BUSY_FACTOR;
        try {
          await this.opts.clock.sleep(Math.max(this.opts.intervalMs ?? 1000, busySimMs), signal);
        } catch {
          return;
        }
      }
    })();
  }

  /** Stops the loop and waits for the round in flight. */
  async stop(): Promise<void> {
    this.abort.abort(new Error('simulated controllers stopped'));
    await this.loop;
  }

  stats(): SimControllersStats {
    return { ...this.totals, applied: { ...this.totals.applied } };
  }
}
