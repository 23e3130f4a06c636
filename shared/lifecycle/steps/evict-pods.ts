// Step Draining: behind the podSelector check and the Slurm gate, finished pods deleted, the rest evicted within their
// budgets (or force-deleted after the timeout), status.drain kept, and the refusals and blocks told once.
import { shortList } from '../../text/index.ts';
import type { V1Pod } from '@kubernetes/client-node';
import {
  ANNOTATION_DRAIN_START,
  DEFAULTS,
  EVENT_REASON_DRAIN_REFUSED,
  EVENT_REASON_DRAIN_TIMEOUT,
  EVENT_REASON_EVICTION_BLOCKED,
  EVENT_REASON_INVALID_MAINTENANCE,
  Phase,
  podRef,
  rfc3339Seconds,
  WaitingOn,
} from '../../api/index.ts';
import type { Action, DrainSpec, DrainStatus } from '../../api/index.ts';
import { computeDrainStatus, reapForceDeletes, selectPodsForDrain, unmatchedDraMessage, type DrainSelection, type ForcedDeletes } from '../../drain/index.ts';
import { planSlurmGateWithWait, type SlurmContext, type SlurmWrite } from '../../slurm/index.ts';
import { secondsSince, shownMessage, warningEvent, type StepContext, type StepResult } from './step.ts';

/** What the drainer (and `kmaint explain`) say of a request whose drainSpec.podSelector cannot be read. */
export function unreadableSelectorMessage(podSelectorProblem: string): string {
  return `${podSelectorProblem}; nothing is evicted until it is fixed`;
}

/** The writes gathered before the evictions: the Slurm gate's, then the drain window's. */
interface GateWrites {
  annotations: Record<string, string | null>;
  warnings: Action[];
  slurm: SlurmWrite[];
}

/** Draining -> Ready once no pod is left to remove; hold while any is, or while the selector or Slurm stops the drain. */
export function drain(ctx: StepContext): StepResult {
  const spec = ctx.nm.spec.drainSpec;
  const selection = spec ? selectPodsForDrain(ctx.pods, spec, { ...(ctx.dra ? { dra: ctx.dra } : {}), ...(ctx.ownPods ? { ownPods: ctx.ownPods } : {}) }) : undefined;
  if (selection?.podSelectorProblem !== undefined) {
    // Never guess with a selector we cannot read: no pod is judged or removed, no drain window starts and no Slurm
    // node is drained for it; stay here, lead with the field, say once that nothing is evicted, warn once per message.
    const { podSelectorProblem } = selection;
    const message = [unreadableSelectorMessage(podSelectorProblem), ...selection.problems.filter((p) => p !== podSelectorProblem)].join('; ');
    const warnings = message !== shownMessage(ctx.nm) ? [warningEvent(ctx.eventTarget, EVENT_REASON_INVALID_MAINTENANCE, message, 'unreadable drainSpec.podSelector')] : [];
    return { kind: 'hold', message, inFlight: true, warnings };
  }
  const writes: GateWrites = { annotations: {}, warnings: [], slurm: [] };
  if (ctx.slurm) {
    const held = gateOnSlurm(ctx, ctx.slurm, writes);
    if (held) return held;
  }
  if (!spec || !selection) {
    const { drain: _none, ...status } = ctx.status;
    return { kind: 'advance', to: Phase.Ready, ...writes, status };
  }
  return evictWithinBudgets(ctx, spec, selection, writes);
}

/** Slurm first: no pod leaves the node before its Slurm nodes are Drained (or Slurm can be read at all). */
function gateOnSlurm(ctx: StepContext, slurm: SlurmContext, writes: GateWrites): StepResult | undefined {
  const gate = planSlurmGateWithWait(ctx.nm, ctx.node, ctx.pods, slurm, ctx.now);
  Object.assign(writes.annotations, gate.annotations);
  writes.slurm.push(...gate.writes);
  // Once per new wait message; a warning that lets the drain go on, once as the drain starts.
  const previous = shownMessage(ctx.nm);
  if (gate.warning && (gate.hold ? gate.message !== previous : !previous.startsWith('draining:'))) {
    writes.warnings.push(warningEvent(ctx.eventTarget, gate.warning.eventReason, gate.warning.message, 'Slurm drain'));
  }
  return gate.hold ? { kind: 'hold', message: gate.message, inFlight: true, ...(gate.wait ? { wait: gate.wait } : {}), ...writes } : undefined;
}

/** One drain round's outcome, for the message and events of a drain still under way. */
interface DrainRound {
  selection: DrainSelection;
  drain: DrainStatus;
  remaining: number;
  blocked: string[];
  refusals: string[];
  forced: ForcedDeletes | undefined;
  timedOut: boolean;
  timeout: number;
}

function evictWithinBudgets(ctx: StepContext, spec: DrainSpec, selection: DrainSelection, writes: GateWrites): StepResult {
  const { nm, ref, now } = ctx;
  let drainStart = nm.metadata.annotations?.[ANNOTATION_DRAIN_START];
  const newWindow = secondsSince(drainStart, now) === undefined;
  if (newWindow) {
    drainStart = rfc3339Seconds(now);
    writes.annotations[ANNOTATION_DRAIN_START] = drainStart;
  }
  const timeout = spec.timeoutSeconds ?? DEFAULTS.drainTimeoutSeconds;
  const elapsed = secondsSince(drainStart, now) ?? 0;
  const timedOut = timeout > 0 && elapsed >= timeout;
  const podActions: Action[] = selection.deleteFinished.map((p) => ({ kind: 'deletePod', pod: podRef(p), maintenance: ref, reason: 'finished pod removed without a budget check' }));
  const blocked: string[] = [];
  const refusals = selection.refused.map((r) => r.message);
  // forceRetryOnError (reap requests only): after the timeout, delete instead of evicting; see shared/reaper.
  const forced = timedOut ? reapForceDeletes(nm, selection.evict, ref, timeout, ctx.kmaintNamespace) : undefined;
  if (forced) podActions.push(...forced.actions);
  const toEvict: readonly V1Pod[] = forced ? [] : selection.evict;
  for (const p of toEvict) {
    const d = ctx.ledger.decide(p);
    if (d.kind === 'blocked') blocked.push(d.message ?? '');
    else if (d.kind === 'refused') refusals.push(d.message ?? '');
    else podActions.push({ kind: 'evictPod', pod: podRef(p), maintenance: ref, reason: d.budget ? `drain (budget ${d.budget} allows it)` : 'drain' });
  }
  // A new drain window (first entry, or a timed-out one restarting) recomputes status.drain, as upstream's new drain does.
  const drain = computeDrainStatus(selection, newWindow || timedOut ? undefined : ctx.status.drain);
  const status = { ...ctx.status, drain };
  const remaining = drain.waitForEviction?.length ?? 0;
  if (remaining === 0 && refusals.length === 0 && blocked.length === 0 && selection.problems.length === 0) {
    // Drained, yet the filters matched nothing while pods here hold DRA devices: Ready says so (a silent wrong answer otherwise).
    const note = selection.draUnmatched ? { note: unmatchedDraMessage(selection.draUnmatched) } : {};
    return { kind: 'advance', to: Phase.Ready, ...writes, podActions, status, ...note };
  }
  const message = reportProgress(ctx, { selection, drain, remaining, blocked, refusals, forced, timedOut, timeout }, writes);
  return { kind: 'hold', message, inFlight: true, ...writes, podActions, status, ...(blocked.length > 0 ? { on: WaitingOn.Budget } : {}) };
}

/** The message of a drain still under way; a timeout, refusals and budget blocks added to `writes` as warnings. */
function reportProgress(ctx: StepContext, round: DrainRound, writes: GateWrites): string {
  const { blocked, refusals, remaining } = round;
  const parts = [`draining: ${remaining} of ${round.drain.evictionPods} pods left`];
  if (blocked.length > 0) parts.push(shortList(blocked, 2));
  if (refusals.length > 0) parts.push(`refused: ${shortList(refusals, 2)}`);
  for (const problem of round.selection.problems) parts.push(problem);
  if (round.forced) parts.push(round.forced.message);
  const message = parts.join('; ');
  if (round.timedOut) {
    // As upstream: report the timeout, then start a fresh window instead of giving up.
    writes.annotations[ANNOTATION_DRAIN_START] = rfc3339Seconds(ctx.now);
    const timedOut = `drain did not finish within ${round.timeout} s (${remaining} pods left); retrying with a new window`;
    writes.warnings.push(warningEvent(ctx.eventTarget, EVENT_REASON_DRAIN_TIMEOUT, timedOut, 'drain timeout'));
  }
  if (message !== shownMessage(ctx.nm)) {
    if (refusals.length > 0) writes.warnings.push(warningEvent(ctx.eventTarget, EVENT_REASON_DRAIN_REFUSED, shortList(refusals, 5), 'drain refused pods'));
    if (blocked.length > 0) writes.warnings.push(warningEvent(ctx.eventTarget, EVENT_REASON_EVICTION_BLOCKED, shortList(blocked, 5), 'eviction blocked by a budget'));
  }
  return message;
}
