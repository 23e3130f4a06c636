// One pass of one function: take the lease, read a snapshot, plan purely, apply, give the lease back, summarise.
// What differs between the functions (reads, plan, how a pass starts) is their row in PASSES (passes.ts).
import { errorMessage } from '../errors/index.ts';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { V1Lease, V1Node } from '@kubernetes/client-node';
import { describeAction, FINALIZER, maintenanceKey, orderWrites } from '../api/index.ts';
import type { Action, NodeMaintenance } from '../api/index.ts';
import { WriteFenceError, type RequestCounts } from '../kube/index.ts';
import { measurePass, type PassMetricsInput } from '../metrics/index.ts';
import { applyActions, type ApplyResult } from './apply.ts';
import { acquirePassLease, releasePassLease, renewPassLease, withLeaseAnnotations, type LeaseOutcome } from './lease.ts';
import { leaseFence, type FencedLease, type LeaseFence } from './lease-fence.ts';
import { readScopedBase, type ScopedBase } from './read-named-nodes.ts';
import { fullReadAnnotations, type FullReadRecord } from './choose-node-read.ts';
import type { PassOptions } from './options.ts';
import { PASSES, planPass, type PassPlan } from './passes.ts';
import type { EffectContext } from './pass-effects.ts';
import { loadConfig } from './config.ts';
import { reaperProviders } from './reaper-pass.ts';
import { nodeCountOf, readBase } from './snapshot.ts';
import { judgeCrd, readConfigCrd, type CrdRead } from './crd-schema.ts';
import { emptyPassSummary, type PassFunction, type PassSummary } from './summary.ts';

/** A function's plan with what every pass adds: the requests it read, those awaiting cleanup, the config's problems. */
interface Planned extends PassPlan {
  awaitingCleanup: number;
  configProblems: string[];
  maintenances: ReadonlyMap<string, NodeMaintenance>;
  /** The Nodes the plan was made on (apply.ts reads one again after a 409 on it). */
  nodes: ReadonlyMap<string, V1Node>;
  /** A full node read to record on the function's pass Lease (read-named-nodes.ts). */
  fullRead?: FullReadRecord;
}

/**
 * The config's CRD: read once per run (the round keeps it), or once per pass without a round. A failed read is not
 * kept: the next pass of the run tries again rather than staying closed for the whole run over one transient error.
 */
async function crdFor(opts: PassOptions): Promise<CrdRead> {
  const read = opts.round?.crd ?? (await readConfigCrd(opts.client));
  if (opts.round && read.kind === 'read') opts.round.crd = read;
  return read;
}

/** The pass's base snapshot: the round's while fresh, else read; by the Nodes it names for the drainer and cleanup. */
async function baseFor(fn: PassFunction, opts: PassOptions, lease: V1Lease | undefined): Promise<ScopedBase> {
  const needed = PASSES[fn].nodesNeeded;
  if (needed) return readScopedBase(fn, opts, lease, needed);
  const base = opts.round?.current() ?? (await readBase(opts.client, opts.namespace));
  // The pass's one parse of the config (config.ts): every plan, read and report below takes this value.
  return { base, config: loadConfig(base, nodeCountOf(base), opts.namespace) };
}

async function planFor(fn: PassFunction, opts: PassOptions, now: Date, lease: V1Lease | undefined): Promise<Planned> {
  const { base, config, record } = await baseFor(fn, opts, lease);
  opts.round?.remember(base, config);
  const maintenances = new Map(base.maintenances.map((nm) => [maintenanceKey(nm), nm]));
  const awaitingCleanup = base.maintenances.filter(
    (nm) => nm.metadata.deletionTimestamp && (nm.metadata.finalizers ?? []).includes(FINALIZER) && (nm.spec.additionalRequestors ?? []).length === 0,
  ).length;
  // The functions that write the config's Valid condition check the CRD too, so both report the same problems.
  const crds = PASSES[fn].reportsConfig ? judgeCrd(await crdFor(opts), config.acceptsUpstreamSchema) : undefined;
  // The drainer after the scheduler in one round plans the node conditions for both (pass-common.ts withNodeConditions).
  const drainerFollows = opts.round?.runsAfter(fn, 'drainer') === true;
  const plan = await planPass(fn, opts, base, { config, maintenances, namespace: opts.namespace, now, drainerFollows, ...(crds ? { crds } : {}) });
  const crdProblems = crds?.refusal !== undefined ? [crds.refusal] : [];
  // Reaper, cloud events and Slurm problems go on the config's Valid condition with the others: the functions that write it report them.
  const { problems } = config;
  const configProblems = PASSES[fn].reportsConfig ? [...problems.all, ...crdProblems] : [...problems.limits, ...problems.scoped];
  // The plan's writes in the order they are applied (api/write-order.ts): the plan lines and the applier say the same order.
  const { actions } = orderWrites(plan.actions, plan.writeOrder);
  return { ...plan, actions, awaitingCleanup, configProblems, maintenances, nodes: base.nodes, ...(record ? { fullRead: record } : {}) };
}

/** The client's request counts as a pass starts, to report what the pass itself sent. */
function countsAt(counts: RequestCounts): RequestCounts {
  return { byVerb: { ...counts.byVerb }, errors: counts.errors, errorsByVerb: { ...counts.errorsByVerb }, retries: counts.retries };
}

/** Positive differences of `now` over `before`, by key. */
function grownBy(now: Readonly<Record<string, number>>, before: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(now)) if (v - (before[k] ?? 0) > 0) out[k] = v - (before[k] ?? 0);
  return out;
}

/** What the pass measured for its metrics (all but the API errors, which the summary counts at the end). */
type Measured = Omit<PassMetricsInput, 'apiErrors'>;

/** Completes the summary with the time taken, the requests sent, the metrics, and logs it. */
function finishSummary(fn: PassFunction, opts: PassOptions, summary: PassSummary, started: number, before: RequestCounts, measured: Measured | undefined): PassSummary {
  const counts = opts.client.counts;
  summary.durationMs = Date.now() - started;
  Object.assign(summary.requests, grownBy(counts.byVerb, before.byVerb));
  summary.apiErrors = counts.errors - before.errors;
  if (measured) summary.metrics = measurePass({ ...measured, apiErrors: grownBy(counts.errorsByVerb, before.errorsByVerb) });
  summary.retries = counts.retries - before.retries;
  opts.logger?.info({ summary: { ...summary, plan: undefined, waits: undefined } }, `${fn} pass ${summary.outcome}`);
  return summary;
}

/** Copies the plan's counts and lines into the summary. */
function describePlanned(summary: PassSummary, planned: Planned): void {
  const { report, effects } = planned;
  summary.planned = planned.actions.length + effects.reduce((n, e) => n + e.count, 0);
  summary.plan = [...planned.actions.map(describeAction), ...effects.flatMap((e) => e.lines)];
  summary.waiting = report.waiting ?? 0;
  summary.admitted = report.admitted ?? 0;
  summary.becameReady = report.becameReady ?? 0;
  summary.released = report.released ?? 0;
  summary.collected = report.collected ?? 0;
  summary.awaitingCleanup = planned.awaitingCleanup;
  summary.configProblems = planned.configProblems;
}

/**
 * Carries out the plan: the effects that come first (terminations), the actions with what those returned, then the
 * effects that follow them (Slurm), told which units stopped. Records the outcome in the summary; returns what to measure.
 */
async function applyPlanned(fn: PassFunction, opts: PassOptions, planned: Planned, now: Date, summary: PassSummary, fence: LeaseFence | undefined): Promise<Measured> {
  const ctx: EffectContext = { fn, opts, now, planned: planned.maintenances };
  const before: { actions: Action[]; errors: string[] } = { actions: [], errors: [] };
  /** Whether the pass may still act outside the Kubernetes API (a cloud call, Slurm): the fence's word, as for its writes. */
  const mayAct = async (errors: string[]): Promise<boolean> => {
    try {
      await fence?.check();
      return true;
    } catch (err) {
      if (!(err instanceof WriteFenceError)) throw err;
      if (!errors.includes(err.message)) errors.push(err.message);
      return false;
    }
  };
  for (const effect of planned.effects) {
    if (effect.at !== 'before-actions') continue;
    if (!(await mayAct(before.errors))) break;
    const done = await effect.run(ctx);
    before.actions.push(...done.actions);
    before.errors.push(...done.errors);
  }
  const actions = before.actions.length > 0 ? [...planned.actions, ...before.actions] : planned.actions;
  const result: ApplyResult = await applyActions(actions, {
    client: opts.client,
    maintenances: planned.maintenances,
    nodes: planned.nodes,
    now,
    component: `kmaint-${fn}`,
    namespace: opts.namespace,
    concurrency: opts.concurrency ?? 16,
    // The drainer's reboots by EC2 (spec.reboot.method ec2) go through the same providers as the reaper's terminations.
    instances: reaperProviders(opts.reaperProviders),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (result.refreshed > 0) opts.logger?.info({ refreshed: result.refreshed }, `${fn} pass: node writes refused 409 sent again on a fresh read (only status heartbeats had moved the Node, or the write records a termination done)`);
  const after: { applied: Record<string, number>; errors: string[] } = { applied: {}, errors: [] };
  for (const effect of planned.effects) {
    if (effect.at !== 'after-actions') continue;
    // Writes stopped by the fence (apply.ts reported why): what follows them stops too.
    if (result.fenced !== undefined || !(await mayAct(after.errors))) break;
    const done = await effect.run(ctx, result.stopped);
    Object.assign(after.applied, done.applied);
    after.errors.push(...done.errors);
  }
  summary.actions = { ...result.applied, ...after.applied };
  summary.conflicts = result.conflicts;
  summary.blocked = result.blocked.length;
  summary.errors = [...before.errors, ...result.errors.map((e) => `${e.action}: ${e.error}`), ...after.errors];
  const applied = Object.values(result.applied).reduce((a, b) => a + b, 0) - (planned.report.repeated ?? 0);
  // Work remains when the plan says requests are in flight, when a write must be decided again (conflict, error,
  // eviction refused), or when the function's writes move requests on (PASSES[fn].writesLeaveWork).
  summary.workRemains =
    planned.state === 'in-flight' || result.conflicts > 0 || result.errors.length > 0 || result.blocked.length > 0 || (applied > 0 && PASSES[fn].writesLeaveWork);
  // A termination counts by the deletions it leads to; an outside write after the actions is a write of this pass.
  if (actions.length > 0 || planned.effects.some((e) => e.at === 'after-actions' && e.count > 0)) opts.round?.wrote();
  const read = [...planned.maintenances.values()];
  const offenders = planned.report.repeatOffenders;
  return { maintenances: read, actions, stoppedUnits: result.stopped, evictions: result.applied['evictPod'] ?? 0, evictionsRefused: result.blocked.length, now, ...(offenders !== undefined ? { repeatOffenders: offenders } : {}) };
}

/** The lease annotations recording the plan's full node read, if it made one worth recording. */
const recordOf = (p: Planned): Record<string, string> | undefined => (p.fullRead ? fullReadAnnotations(p.fullRead) : undefined);

/** Whether applying the plan would write anything. */
const writes = (p: Planned): boolean => p.actions.length > 0 || p.effects.some((e) => e.count > 0);

/** Runs exactly one pass of `fn`. Write failures are counted, never thrown; read failures throw. */
export async function runPass(fn: PassFunction, opts: PassOptions): Promise<PassSummary> {
  const started = Date.now();
  const passId = randomBytes(4).toString('hex');
  const before = countsAt(opts.client.counts);
  let measured: Measured | undefined;
  const summary = emptyPassSummary(fn, passId, opts.dryRun ? 'dry-run' : 'applied');
  const finish = (): PassSummary => finishSummary(fn, opts, summary, started, before, measured);

  // How the function starts (its row in PASSES): a disabled reaper, or cleanup with nothing to do in this round's
  // snapshot, ends here; the reaper's dryRun runs without the lease.
  const start = (await PASSES[fn].start?.(opts, opts.round?.last())) ?? 'leased';
  if (start === 'skip') return finish();
  const holder = opts.holder ?? `${hostname()}-${process.pid}-${passId}`;
  let lease: V1Lease | undefined;
  /** When `lease` was taken or last renewed (the pass's clock, ms): its write fence counts from there. */
  let leaseAt = 0;
  const takeLease = async (annotations?: Record<string, string>): Promise<boolean> => {
    const at = opts.now();
    const got = opts.round?.leases
      ? await opts.round.leases.take(fn, annotations)
      : await acquirePassLease(opts.client, { namespace: opts.namespace, fn, holder, durationSeconds: opts.leaseSeconds ?? 120, now: at });
    if (got.kind === 'acquired') {
      // A lease the run keeps is given back by the run, not by this pass.
      if (!opts.round?.leases) {
        lease = got.lease;
        leaseAt = at.getTime();
      }
      return true;
    }
    summary.outcome = 'lease-held';
    summary.leaseHolder = got.kind === 'held' ? got.holder : got.message;
    summary.workRemains = true;
    return false;
  };
  const leased = !opts.dryRun && start !== 'unleased';
  // Without a run's leases, or with this function's already held: lease first, as a pass always did.
  const leaseFirst = leased && (!opts.round?.leases || opts.round.leases.holds(fn));
  if (leaseFirst && !(await takeLease())) return finish();
  try {
    let now = opts.now();
    // The function's lease as this pass holds it, for the record of its last full node read (read-named-nodes.ts).
    const heldLease = (): V1Lease | undefined => lease ?? opts.round?.leases?.leaseOf(fn);
    let planned = await planFor(fn, opts, now, heldLease());
    if (leased && !leaseFirst && writes(planned)) {
      // Planned without the lease: take it, then decide again on a snapshot read under it (another run may have acted).
      if (!(await takeLease(recordOf(planned)))) return finish();
      opts.round?.wrote();
      now = opts.now();
      planned = await planFor(fn, opts, now, heldLease());
    } else if (leased && !leaseFirst && planned.fullRead) {
      // Nothing to write, but a full node read to record: taking the run's lease writes it. Held by another run: not
      // recorded, and this pass's outcome is what it planned (a later pass reads every Node again).
      await opts.round?.leases?.take(fn, recordOf(planned));
    }
    const record = recordOf(planned);
    if (record && lease) lease = withLeaseAnnotations(lease, record);
    else if (record && opts.round?.leases?.holds(fn) === true) opts.round.leases.annotate(fn, record);
    describePlanned(summary, planned);
    if (opts.dryRun) {
      measured = { maintenances: [...planned.maintenances.values()], actions: planned.actions, evictions: 0, evictionsRefused: 0, now };
      if (planned.report.waits) summary.waits = planned.report.waits;
      summary.workRemains = planned.actions.length > 0 || planned.state === 'in-flight';
      return finish();
    }
    // Every write of the plan goes through the lease's fence (lease-fence.ts): none is sent once another pass may act.
    const fence = leased ? leaseFence(fencedLease(fn, opts, { get: () => lease, set: (l, at) => ((lease = l), (leaseAt = at)), at: () => leaseAt }), opts.round?.leases?.durationSeconds ?? opts.leaseSeconds ?? 120, () => opts.now().getTime(), `lease ${opts.namespace}/kmaint-${fn}`) : undefined;
    const unfence = fence ? opts.client.fenceWrites(() => fence.check()) : undefined;
    try {
      measured = await applyPlanned(fn, opts, planned, now, summary, fence);
    } finally {
      unfence?.();
    }
    // The lease goes back before the summary, so the summary (and its metrics) count that request too.
    const held = lease;
    lease = undefined;
    if (held) await giveBack(opts, fn, held);
    return finish();
  } finally {
    opts.round?.leases?.forget(fn);
    if (lease) await giveBack(opts, fn, lease);
  }
}

/**
 * The lease a pass's write fence renews: the run's (HeldLeases, renewed by its take), or the pass's own, renewed here
 * and kept in `own` (a renewal that finds it taken forgets it: the lease is another pass's, not ours to give back).
 */
function fencedLease(fn: PassFunction, opts: PassOptions, own: { get: () => V1Lease | undefined; set: (lease: V1Lease | undefined, at: number) => void; at: () => number }): FencedLease {
  const run = opts.round?.leases;
  if (run) return { renewedAt: () => run.renewedAt(fn), renew: () => run.take(fn) };
  return {
    renewedAt: () => (own.get() !== undefined ? own.at() : undefined),
    renew: async (): Promise<LeaseOutcome> => {
      const held = own.get();
      if (held === undefined) return { kind: 'lost', message: `lease ${opts.namespace}/kmaint-${fn} is no longer held` };
      const at = opts.now();
      const out = await renewPassLease(opts.client, held, at);
      if (out.kind === 'acquired') own.set(out.lease, at.getTime());
      else own.set(undefined, own.at());
      return out;
    },
  };
}

/**
 * Gives the pass lease back. A failure is logged and counted (the client's counts.errors, in the summary's apiErrors),
 * never thrown: the lease then expires on its own, and the next pass of `fn` waits at most its duration.
 */
async function giveBack(opts: PassOptions, fn: PassFunction, lease: V1Lease): Promise<void> {
  try {
    await releasePassLease(opts.client, lease);
  } catch (err) {
    opts.logger?.warn({ err: errorMessage(err) }, `${fn} pass: giving the lease back failed; it expires on its own`);
  }
}
