// The admission walk (upstream step 6) with upstream's flaw fixed: a request skipped for the availability
// budget does not use up a slot, so a lower-ranked request on an already-unavailable Node can still start.
// Each request passes the ordered GATES (windows, cluster limits, pool and zone limits) or waits on the first that refuses;
// a gang's requests pass them together or all wait (issue 21).
import { maintenanceKey, rfc3339Seconds, WaitingOn, type NodeMaintenance } from '#api';
import { judgeGang } from './gang-trial.ts';
import { gangSize, NO_GANGS, type Gang, type Gangs } from './gangs.ts';
import { firstRefusal, recordAdmission, refusalWaitsOn, startTally, type Tally } from './gates.ts';
import type { ValidBudget } from './limits.ts';
import { NO_SCOPES, type Scopes } from './scopes.ts';
import type { SchedulingState } from './state.ts';
import { admittedMessage, waitReason } from './wait-reasons.ts';

export interface Admission {
  maintenance: NodeMaintenance;
  /** The Ready condition message, e.g. 'admitted: slot 2 of 3, unavailable 4 of 5'. */
  message: string;
}

export interface AdmissionResult {
  /** In walk (rank) order. */
  admitted: Admission[];
  /** Walked but not admitted, in walk order. */
  skipped: NodeMaintenance[];
  slotsLeft: number;
  canBecomeUnavailableLeft: number;
  /**
   * Why each skipped request waits, by key: the first gate refusing it on the counts after the whole walk, so
   * the next pass, which sees this pass's admissions in progress, says the same.
   */
  why: ReadonlyMap<string, string>;
  /** What each skipped request waits on, by key (kmaint.io/Waiting): the gate of its `why`. */
  waitsOn: ReadonlyMap<string, WaitingOn>;
}

/** Gangs for the walk (issue 21); without them every request is a single, exactly as before. */
export interface GangAdmission {
  gangs: Gangs;
  /** A gang waiting this long holds freed slots when it fits once the requests in progress finish. */
  reserveAfterSeconds: number;
  now: Date;
  /**
   * The gangs as the next pass reads them once this walk's admissions are in progress (by key), or undefined when they
   * read as `gangs` do. Only a gang's problems can differ (a member whose Node's request is admitted now waits on it
   * then), never who belongs or what is admitted: the walk runs once and its skipped gangs' texts are written from these.
   */
  gangsAfter?: (admitted: ReadonlySet<string>) => Gangs | undefined;
}

const NO_GANG_ADMISSION: GangAdmission = { gangs: NO_GANGS, reserveAfterSeconds: Number.POSITIVE_INFINITY, now: new Date(0) };

interface Skip {
  maintenance: NodeMaintenance;
  whyThen: string;
  /** The gate of `whyThen`. */
  onThen: WaitingOn;
  /** A text that does not depend on the counts (a gang's problem, a reservation); kept as it is after the walk. */
  fixed?: boolean;
  gang?: Gang;
}

interface Walk {
  state: SchedulingState;
  budget: ValidBudget;
  tally: Tally;
  admitted: Admission[];
  skipped: Skip[];
  /** The gang holding freed slots: nothing ranked after it starts this pass. */
  holder?: Gang;
}

function admitOne(walk: Walk, maintenance: NodeMaintenance, gang?: Gang): void {
  const { state, budget, tally } = walk;
  const node = maintenance.spec.nodeName;
  const nodeAlreadyUnavailable = state.nodesUnavailable.has(node);
  recordAdmission(tally, node);
  const unavailable = budget.unavailable + tally.newlyUnavailable;
  const gangText = gang === undefined ? {} : { gang: { name: gang.name, size: gangSize(gang) } };
  walk.admitted.push({
    maintenance,
    message: admittedMessage({ slot: budget.inProgress + tally.admitted, maxParallelOperations: budget.maxParallelOperations, nodeAlreadyUnavailable, unavailable, maxUnavailable: budget.maxUnavailable, ...gangText }),
  });
}

/** Why a gang that fits once counts free up waits; a partly admitted one says it completes first. */
function gangWaitText(gang: Gang, why: string): string {
  const size = gangSize(gang);
  return gang.admitted.length > 0 ? waitReason.gangCompletes(gang.name, size, gang.admitted.length, why) : waitReason.gangWaits(gang.name, size, why);
}

/** A gang at the rank of its best member: all its winners admitted now, or all skipped with one reason. */
function walkGang(walk: Walk, gang: Gang, winners: readonly NodeMaintenance[], options: GangAdmission): void {
  const size = gangSize(gang);
  const skipAll = (whyThen: string, fixed: boolean): void => {
    for (const maintenance of winners) walk.skipped.push({ maintenance, whyThen, onThen: WaitingOn.Gang, fixed, gang });
  };
  if (gang.problems.length > 0 || winners.length !== gang.members.length) {
    skipAll(gangCannotStartText(gang), true);
    return;
  }
  const verdict = judgeGang(walk.tally, winners);
  if (verdict.kind === 'fits') {
    for (const maintenance of winners) admitOne(walk, maintenance, gang);
  } else if (verdict.kind === 'never-fits') {
    skipAll(waitReason.gangNeverFits(gang.name, size, verdict.why), true);
  } else {
    skipAll(gangWaitText(gang, verdict.why), false);
    const waitedMs = options.now.getTime() - gang.waitingSince;
    // A partly admitted gang holds at once: its admitted members wait at Scheduled (the drainer) until it is whole.
    const holds = gang.admitted.length > 0 || waitedMs >= options.reserveAfterSeconds * 1000;
    if (verdict.reservable && walk.holder === undefined && holds) walk.holder = gang;
  }
}

/** A gang that cannot start whatever the counts: its problems, or a member waiting on its Node. */
function gangCannotStartText(gang: Gang): string {
  return waitReason.gangCannotStart(gang.name, gangSize(gang), gang.problems.join('; ') || 'a request of the gang waits on its node');
}

/**
 * Why a skipped request waits, judged on the counts after the walk (the next pass sees this pass's admissions in
 * progress). `after`: the gangs as the next pass reads them (GangAdmission.gangsAfter); a gang with problems there
 * cannot start, whatever this walk judged it on.
 */
function finalWhy(walk: Walk, skip: Skip, after: Gangs | undefined): { text: string; on: WaitingOn } {
  const then = { text: skip.whyThen, on: skip.onThen };
  const gangAfter = skip.gang === undefined ? undefined : after?.byKey.get(maintenanceKey(skip.maintenance));
  if (gangAfter !== undefined && gangAfter.problems.length > 0) return { text: gangCannotStartText(gangAfter), on: WaitingOn.Gang };
  if (skip.fixed === true) return then;
  if (skip.gang !== undefined) {
    const verdict = judgeGang(walk.tally, skip.gang.members);
    return verdict.kind === 'waits' ? { text: gangWaitText(skip.gang, verdict.why), on: WaitingOn.Gang } : then;
  }
  // Counts only tighten during the walk, so a request refused then is refused now; its earlier reason is the fallback.
  const now = firstRefusal(walk.tally, skip.maintenance.spec.nodeName);
  return now === undefined ? then : { text: now.text, on: refusalWaitsOn(now) };
}

/**
 * Walks every winner, best first, through the gates. A slot is spent only on admission. A request on a Node
 * that is already unavailable takes a slot but no availability budget (in the cluster, its pool or its zone);
 * one on an available Node also needs availability budget in each, otherwise it is skipped and the walk goes on.
 * A gang is walked at its best member's rank and admitted whole or skipped whole; a gang that has waited
 * `reserveAfterSeconds` and fits once the requests in progress finish holds freed slots (nothing after it starts).
 * Without `scopes` only the cluster's two limits apply, exactly as upstream.
 */
export function admitRanked(state: SchedulingState, budget: ValidBudget, winners: readonly NodeMaintenance[], scopes: Scopes = NO_SCOPES, options: GangAdmission = NO_GANG_ADMISSION): AdmissionResult {
  // The pass's clock for the gates that read it (the release delay); the request's own not-before is decided before the walk.
  const walk: Walk = { state, budget, tally: startTally(state, budget, scopes, options === NO_GANG_ADMISSION ? undefined : options.now), admitted: [], skipped: [] };
  const walked = new Set<Gang>();
  for (const maintenance of winners) {
    const gang = options.gangs.byKey.get(maintenanceKey(maintenance));
    if (gang !== undefined && walked.has(gang)) continue;
    if (walk.holder !== undefined) {
      const held = gang === undefined ? [maintenance] : winners.filter((w) => options.gangs.byKey.get(maintenanceKey(w)) === gang);
      const whyThen = waitReason.gangHoldsSlots(walk.holder.name, rfc3339Seconds(new Date(walk.holder.waitingSince)));
      for (const nm of held) walk.skipped.push({ maintenance: nm, whyThen, onThen: WaitingOn.Gang, fixed: true });
      if (gang !== undefined) walked.add(gang);
      continue;
    }
    if (gang !== undefined) {
      walked.add(gang);
      walkGang(walk, gang, winners.filter((w) => options.gangs.byKey.get(maintenanceKey(w)) === gang), options);
      continue;
    }
    const refusal = firstRefusal(walk.tally, maintenance.spec.nodeName);
    if (refusal === undefined) admitOne(walk, maintenance);
    else walk.skipped.push({ maintenance, whyThen: refusal.text, onThen: refusalWaitsOn(refusal) });
  }
  const after = walk.skipped.some((skip) => skip.gang !== undefined) ? options.gangsAfter?.(new Set(walk.admitted.map((a) => maintenanceKey(a.maintenance)))) : undefined;
  const final = new Map(walk.skipped.map((skip) => [maintenanceKey(skip.maintenance), finalWhy(walk, skip, after)]));
  return {
    admitted: walk.admitted,
    skipped: walk.skipped.map((s) => s.maintenance),
    slotsLeft: budget.availableSlots - walk.tally.admitted,
    canBecomeUnavailableLeft: budget.canBecomeUnavailable - walk.tally.newlyUnavailable,
    why: new Map([...final].map(([key, w]) => [key, w.text])),
    waitsOn: new Map([...final].map(([key, w]) => [key, w.on])),
  };
}

/**
 * Why a candidate that was not admitted waits on the cluster's own limits, judged on the state after this
 * pass's admissions (so the next pass, which sees them in progress, says the same). With a slot left, a
 * request still waiting on them must be on an available Node with the availability budget spent. The plan
 * reads `AdmissionResult.why`, which also covers windows, pools and zones; the texts are the same.
 */
export function limitWaitReason(state: SchedulingState, budget: ValidBudget, result: AdmissionResult): string {
  const inProgressAfter = budget.inProgress + result.admitted.length;
  if (result.slotsLeft === 0) return waitReason.maxParallelOperations(budget.maxParallelOperations, inProgressAfter);
  const admittedNodes = new Set(result.admitted.map((a) => a.maintenance.spec.nodeName));
  let cordonedOrNotReady = 0;
  for (const node of state.nodesUnavailable) {
    if (!state.nodesUnderMaintenance.has(node) && !admittedNodes.has(node)) cordonedOrNotReady += 1;
  }
  return waitReason.maxUnavailable(budget.maxUnavailable, inProgressAfter, cordonedOrNotReady);
}
