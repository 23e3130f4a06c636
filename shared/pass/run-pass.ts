// One pass of one function: take the lease, read a snapshot, plan purely, apply, give the lease back, summarise.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { describeAction, FINALIZER } from '../api/index.ts';
import type { Action } from '../api/index.ts';
import { loadConfig } from '../config/index.ts';
import type { KubeClient } from '../kube/index.ts';
import { loadHandshakeConfig, planHandshake } from '../handshake/index.ts';
import { needsMedik8sLeases, planCleanup, planDrainer, PHASES_NEEDING_PODS } from '../lifecycle/index.ts';
import { applySlurmWrites, describeSlurmWrite, readSlurm, recordedSlurmNodes, type SlurmRestClient, type SlurmWrite } from '../slurm/index.ts';
import { buildSchedulingState, planScheduling, waitingMessage } from '../scheduling/index.ts';
import { applyActions, type ApplyResult } from './apply.ts';
import { planConfigReport } from './config-report.ts';
import { planMalformedReleases, planMalformedReports } from './malformed.ts';
import { acquirePassLease, releasePassLease } from './lease.ts';
import { readBase, readDrainPods, readMedik8sLeases, type BaseSnapshot } from './snapshot.ts';
import type { PassRound } from './round.ts';
import type { InstanceProviders } from '../reaper/index.ts';
import { measurePass, type PassMetricsInput } from '../metrics/index.ts';
import { planReaperPass, reaperMode, reaperModeOf, reaperProblems, reaperProviders, terminate, type ReaperPassPlan } from './reaper-pass.ts';
import { emptyPassSummary } from './summary.ts';
import type { PassFunction, PassSummary, PassWait } from './summary.ts';

export interface PassLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export interface PassOptions {
  client: KubeClient;
  /** Namespace of the MaintenanceOperatorConfig and the pass leases. */
  namespace: string;
  now: () => Date;
  logger?: PassLogger;
  /** Plan and report, write nothing. */
  dryRun?: boolean;
  /** Identity written into the lease. @default "<hostname>-<pid>-<random>" */
  holder?: string;
  /** @default 120 */
  leaseSeconds?: number;
  /** Instance providers of the reaper, by providerID prefix. @default aws (AWS SDK clients made on first use) */
  reaperProviders?: InstanceProviders;
  /** Where spec.slurm.tokenEnv is read; simulations pass {} so they never reach a real slurmrestd. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Concurrent object units while applying. @default 16 */
  concurrency?: number;
  signal?: AbortSignal;
  /**
   * The round this pass belongs to (runUntilIdle): its snapshot is reused while nothing was written, and the run's
   * leases are taken only when the pass has something to write. Absent: the pass reads its own snapshot and takes and
   * gives back its own lease.
   */
  round?: PassRound;
}

interface Planned {
  actions: Action[];
  inFlight: boolean;
  waiting: number;
  waits?: PassWait[];
  admitted: number;
  becameReady: number;
  released: number;
  collected: number;
  awaitingCleanup: number;
  configProblems: string[];
  maintenances: ReadonlyMap<string, import('../api/index.ts').NodeMaintenance>;
  /** The reaper pass only: its terminations, carried out before the writes that follow them. */
  reaper?: ReaperPassPlan;
  /** Actions repeating what an earlier pass reported (no progress, so no reason to run another pass). */
  repeated?: number;
  /** Drainer and cleanup with spec.slurm: drains and undrains for slurmrestd, sent after the Kubernetes writes. */
  slurm?: { writes: SlurmWrite[]; client?: SlurmRestClient };
}

async function planFor(fn: PassFunction, opts: PassOptions, now: Date): Promise<Planned> {
  const base: BaseSnapshot = opts.round?.current() ?? (await readBase(opts.client, opts.namespace));
  opts.round?.remember(base);
  const loaded = loadConfig(base.config, base.nodeList.length);
  const maintenances = new Map(base.maintenances.map((nm) => [`${nm.metadata.namespace ?? ''}/${nm.metadata.name}`, nm]));
  const awaitingCleanup = base.maintenances.filter(
    (nm) => nm.metadata.deletionTimestamp && (nm.metadata.finalizers ?? []).includes(FINALIZER) && (nm.spec.additionalRequestors ?? []).length === 0,
  ).length;
  // Reaper problems go on the config's Valid condition with the others; the scheduler and the reaper write the same one.
  const reaperIssues = fn === 'scheduler' || fn === 'reaper' ? reaperProblems(base.config) : [];
  const empty = { inFlight: false, waiting: 0, admitted: 0, becameReady: 0, released: 0, collected: 0, awaitingCleanup, configProblems: [...loaded.problems, ...(loaded.config.admission?.scopedProblems ?? []), ...reaperIssues], maintenances };
  if (fn === 'scheduler') {
    const state = buildSchedulingState({ nodes: base.nodeList, maintenances: base.maintenances });
    const { admission } = loaded.config;
    const limits = { maxParallelOperations: loaded.config.maxParallelOperations, maxUnavailable: loaded.config.maxUnavailable, problems: loaded.problems };
    const plan = planScheduling(state, admission === undefined ? limits : { ...limits, admission }, now);
    const report = planConfigReport(base.config, loaded.problems, now, { scopedProblems: [...(admission?.scopedProblems ?? []), ...reaperIssues], poolOverlaps: plan.poolOverlaps });
    const waits = plan.waiting.map(({ key, why }) => ({ request: key, node: maintenances.get(key)?.spec.nodeName ?? '', reason: waitingMessage(why) }));
    // The node-annotation handshake: after the scheduling writes, so a Node says Draining only once its request's admission is written.
    const handshake = planHandshake({ nodes: base.nodeList, maintenances: base.maintenances, admittedThisPass: new Set(plan.admitted) }, loadHandshakeConfig(base.config, opts.namespace));
    // Requests that bypassed validation: the scheduler, which explains every request it does not admit, says why.
    const malformed = planMalformedReports(base.malformed, now);
    return { ...empty, actions: [...report, ...plan.actions, ...handshake.actions, ...malformed.actions], waiting: plan.waiting.length, waits, admitted: plan.admitted.length, repeated: malformed.repeated };
  }
  if (fn === 'reaper') {
    const reaper = planReaperPass(base, opts.namespace, reaperProviders(opts.reaperProviders), now);
    const report = planConfigReport(base.config, loaded.problems, now, { scopedProblems: [...(loaded.config.admission?.scopedProblems ?? []), ...reaperIssues] });
    return { ...empty, actions: [...report, ...reaper.actions], reaper };
  }
  if (fn === 'drainer') {
    const { podsByNode, pdbs, budgetPods } = await readDrainPods(opts.client, base);
    const medik8s = await readMedik8sLeases(opts.client, needsMedik8sLeases(base.maintenances, 'drainer'));
    if (opts.round && medik8s.kind !== 'absent') opts.round.medik8sSeen = true;
    const needsSlurm = base.maintenances.some((nm) => !nm.metadata.deletionTimestamp && PHASES_NEEDING_PODS.has(nm.status?.conditions?.find((c) => c.type === 'Ready')?.reason ?? ''));
    const slurm = await readSlurm({ config: base.config, needed: needsSlurm, readSecretKey: (name, key) => opts.client.getSecretKey(opts.namespace, name, key), ...(opts.env ? { env: opts.env } : {}), ...(opts.signal ? { signal: opts.signal } : {}) });
    const plan = planDrainer({ nodes: base.nodes, maintenances: base.maintenances, podsByNode, pdbs, budgetPods, medik8s, ...(slurm.context ? { slurm: slurm.context } : {}) }, now);
    return { ...empty, actions: plan.actions, inFlight: plan.inFlight > 0, becameReady: plan.becameReady, slurm: { writes: plan.slurm, ...(slurm.client ? { client: slurm.client } : {}) } };
  }
  const medik8s = await readMedik8sLeases(opts.client, needsMedik8sLeases(base.maintenances, 'cleanup'));
  if (opts.round && medik8s.kind !== 'absent') opts.round.medik8sSeen = true;
  const needsSlurm = base.maintenances.some((nm) => nm.metadata.deletionTimestamp !== undefined && recordedSlurmNodes(nm).length > 0);
  const slurm = await readSlurm({ config: base.config, needed: needsSlurm, readSecretKey: (name, key) => opts.client.getSecretKey(opts.namespace, name, key), ...(opts.env ? { env: opts.env } : {}), ...(opts.signal ? { signal: opts.signal } : {}) });
  const plan = planCleanup({ nodes: base.nodes, maintenances: base.maintenances, medik8s, ...(slurm.context ? { slurm: slurm.context } : {}) }, { maxNodeMaintenanceTimeSeconds: loaded.config.maxNodeMaintenanceTimeSeconds }, now);
  // Requests that bypassed validation and are being deleted: released by the cordon record, never left hanging.
  const malformed = planMalformedReleases(base.malformed, base.nodeList);
  return { ...empty, actions: [...plan.actions, ...malformed.actions], released: plan.released + malformed.released, collected: plan.collected, slurm: { writes: plan.slurm, ...(slurm.client ? { client: slurm.client } : {}) } };
}

/**
 * Whether a cleanup pass could act on `base`: something being deleted (its medik8s lease and Slurm drains are read only
 * then), or the plan without them collects a stale request or releases one whose node is gone.
 */
function cleanupHasWork(base: BaseSnapshot, now: Date): boolean {
  if ([...base.maintenances, ...base.malformed.map((m) => m.nm)].some((nm) => nm.metadata.deletionTimestamp !== undefined)) return true;
  const { maxNodeMaintenanceTimeSeconds } = loadConfig(base.config, base.nodeList.length).config;
  return planCleanup({ nodes: base.nodes, maintenances: base.maintenances }, { maxNodeMaintenanceTimeSeconds }, now).actions.length > 0;
}

/** Runs exactly one pass of `fn`. Write failures are counted, never thrown; read failures throw. */
export async function runPass(fn: PassFunction, opts: PassOptions): Promise<PassSummary> {
  const started = Date.now();
  const passId = randomBytes(4).toString('hex');
  const before = { ...opts.client.counts.byVerb };
  const errorsBefore = opts.client.counts.errors;
  const errorsByVerbBefore = { ...opts.client.counts.errorsByVerb };
  let measured: Omit<PassMetricsInput, 'apiErrors'> | undefined;
  const retriesBefore = opts.client.counts.retries;
  const summary = emptyPassSummary(fn, passId, opts.dryRun ? 'dry-run' : 'applied');
  const finish = (): PassSummary => {
    summary.durationMs = Date.now() - started;
    for (const [k, v] of Object.entries(opts.client.counts.byVerb)) {
      const d = v - (before[k] ?? 0);
      if (d > 0) summary.requests[k] = d;
    }
    summary.apiErrors = opts.client.counts.errors - errorsBefore;
    const apiErrors: Record<string, number> = {};
    for (const [k, v] of Object.entries(opts.client.counts.errorsByVerb)) if (v - (errorsByVerbBefore[k] ?? 0) > 0) apiErrors[k] = v - (errorsByVerbBefore[k] ?? 0);
    if (measured) summary.metrics = measurePass({ ...measured, apiErrors });
    summary.retries = opts.client.counts.retries - retriesBefore;
    opts.logger?.info({ summary: { ...summary, plan: undefined, waits: undefined } }, `${fn} pass ${summary.outcome}`);
    return summary;
  };

  // A disabled reaper costs one GET of the config (none when the round already read it): no lease, no lists, no writes;
  // its dryRun writes events only.
  const roundBase = opts.round?.last();
  const reaper = fn === 'reaper' ? (roundBase ? reaperModeOf(roundBase.config) : await reaperMode(opts.client, opts.namespace)) : undefined;
  if (reaper === 'disabled') return finish();
  // Cleanup with nothing deleting, nothing collectable and no node gone in this round's snapshot reads nothing more: the
  // passes before it in the round only admit and drain, which never gives cleanup work (a deletion shows next round).
  if (fn === 'cleanup' && roundBase && !cleanupHasWork(roundBase, opts.now())) return finish();
  const holder = opts.holder ?? `${hostname()}-${process.pid}-${passId}`;
  let lease: import('@kubernetes/client-node').V1Lease | undefined;
  const takeLease = async (): Promise<boolean> => {
    const got = opts.round?.leases
      ? await opts.round.leases.take(fn)
      : await acquirePassLease(opts.client, { namespace: opts.namespace, fn, holder, durationSeconds: opts.leaseSeconds ?? 120, now: opts.now() });
    if (got.kind === 'acquired') {
      // A lease the run keeps is given back by the run, not by this pass.
      if (!opts.round?.leases) lease = got.lease;
      return true;
    }
    summary.outcome = 'lease-held';
    summary.leaseHolder = got.kind === 'held' ? got.holder : got.message;
    summary.workRemains = true;
    return false;
  };
  const leased = !opts.dryRun && reaper !== 'dry-run';
  // Without a run's leases, or with this function's already held: lease first, as a pass always did.
  const leaseFirst = leased && (!opts.round?.leases || opts.round.leases.holds(fn));
  if (leaseFirst && !(await takeLease())) return finish();
  try {
    let now = opts.now();
    let planned = await planFor(fn, opts, now);
    const writes = (p: Planned): boolean => p.actions.length > 0 || (p.slurm?.writes.length ?? 0) > 0 || (p.reaper?.terminations.length ?? 0) > 0;
    if (leased && !leaseFirst && writes(planned)) {
      // Planned without the lease: take it, then decide again on a snapshot read under it (another run may have acted).
      if (!(await takeLease())) return finish();
      opts.round?.wrote();
      now = opts.now();
      planned = await planFor(fn, opts, now);
    }
    summary.planned = planned.actions.length + (planned.reaper?.terminations.length ?? 0);
    const slurmWrites = planned.slurm?.writes ?? [];
    summary.planned += slurmWrites.length;
    summary.plan = [...planned.actions.map(describeAction), ...(planned.reaper?.lines ?? []), ...slurmWrites.map(describeSlurmWrite)];
    summary.waiting = planned.waiting;
    summary.admitted = planned.admitted;
    summary.becameReady = planned.becameReady;
    summary.released = planned.released;
    summary.collected = planned.collected;
    summary.awaitingCleanup = planned.awaitingCleanup;
    summary.configProblems = planned.configProblems;
    const read = [...planned.maintenances.values()];
    if (opts.dryRun) {
      measured = { maintenances: read, actions: planned.actions, evictions: 0, evictionsRefused: 0, now };
      if (planned.waits) summary.waits = planned.waits;
      summary.workRemains = planned.actions.length > 0 || slurmWrites.length > 0 || planned.inFlight;
      return finish();
    }
    // Terminations first: a reap request is deleted only once its instance is terminated.
    const terminated = planned.reaper ? await terminate(planned.reaper.terminations, reaperProviders(opts.reaperProviders), now, opts.signal) : undefined;
    const actions = terminated ? [...planned.actions, ...terminated.actions] : planned.actions;
    const result: ApplyResult = await applyActions(actions, {
      client: opts.client,
      maintenances: planned.maintenances,
      now,
      component: `kmaint-${fn}`,
      namespace: opts.namespace,
      concurrency: opts.concurrency ?? 16,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    // Slurm drains were recorded on their requests in an earlier pass; undrains hold the finalizer until confirmed.
    const slurmResult = await applySlurmWrites(planned.slurm?.client, slurmWrites);
    summary.actions = { ...result.applied, ...slurmResult.applied };
    measured = { maintenances: read, actions, stoppedUnits: result.stopped, evictions: result.applied['evictPod'] ?? 0, evictionsRefused: result.blocked.length, now };
    summary.conflicts = result.conflicts;
    summary.blocked = result.blocked.length;
    summary.errors = [...(terminated?.errors ?? []), ...result.errors.map((e) => `${e.action}: ${e.error}`), ...slurmResult.errors.map((e) => `${e.action}: ${e.error}`)];
    const applied = Object.values(result.applied).reduce((a, b) => a + b, 0) - (planned.repeated ?? 0);
    summary.workRemains = planned.inFlight || slurmWrites.length > 0 || result.conflicts > 0 || result.errors.length > 0 || result.blocked.length > 0 || (applied > 0 && fn !== 'cleanup' && fn !== 'reaper') || planned.released > 0 || (planned.reaper?.requested ?? 0) > 0;
    // The lease goes back before the summary, so the summary (and its metrics) count that request too.
    if (actions.length > 0 || slurmWrites.length > 0) opts.round?.wrote();
    const held = lease;
    lease = undefined;
    if (held) await releasePassLease(opts.client, held).catch(() => undefined);
    return finish();
  } finally {
    if (lease) await releasePassLease(opts.client, lease).catch(() => undefined);
  }
}
