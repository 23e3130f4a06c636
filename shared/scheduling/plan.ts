// The scheduler pass's plan: initialise new requests as Pending, admit what the limits allow, explain the rest.
import { EVENT_REASON_CONDITION_CHANGED, Phase, PHASE_UNINITIALIZED, maintenanceKey, maintenancePhase, maintenanceRef, withReadyCondition } from '#api';
import type { Action, NodeMaintenance } from '#api';
import { DEFAULT_GANG_RESERVE_AFTER_SECONDS } from '#config';
import { admitRanked, type AdmissionResult, type GangAdmission } from './admit.ts';
import { finishedAdmissionMessage, notAdmittedWhy, writeAdmissionRecord } from './admission-record.ts';
import { findGangs } from './gangs.ts';
import { completingGangsFirst } from './gang-membership.ts';
import { SchedulingInvariantError } from './errors.ts';
import { computeBudget, type SchedulingLimits, type ValidBudget } from './limits.ts';
import type { PoolOverlap } from './pools.ts';
import { notBeforeRefusal } from './gates.ts';
import { firstPerNode, rankCandidates, type NodeWinners } from './rank.ts';
import { resolveScopes, type Scopes } from './scopes.ts';
import { compareStrings, type SchedulingState } from './state.ts';
import { waitingMessage, waitReason } from './wait-reasons.ts';

export interface SchedulingPlan {
  actions: Action[];
  /** Keys (namespace/name) admitted this pass, best first. */
  admitted: string[];
  /** Every unscheduled request not admitted, by key, with why it waits (the condition message minus 'waiting: '). */
  waiting: Array<{ key: string; why: string }>;
  /** Nothing to schedule and nothing to write. */
  idle: boolean;
  /** Some candidate waits on a limit, a closed window or an invalid value: work remains that only time or a freed slot can unblock. */
  blocked: boolean;
  /** Nodes selected by more than one pool (each belongs to the first), for the config report; [] without pools. */
  poolOverlaps: PoolOverlap[];
}

interface Wait {
  maintenance: NodeMaintenance;
  why: string;
  /** Waits on a limit, a window or an invalid config (as opposed to its Node). */
  onLimit: boolean;
}


/** Upstream's ConditionChanged event: type Normal, message = the new phase. */
function phaseEvent(nm: NodeMaintenance, phase: string): Action {
  return {
    kind: 'emitEvent',
    target: {
      kind: 'NodeMaintenance',
      namespace: nm.metadata.namespace ?? '',
      name: nm.metadata.name,
      ...(nm.metadata.uid !== undefined ? { uid: nm.metadata.uid } : {}),
    },
    type: 'Normal',
    eventReason: EVENT_REASON_CONDITION_CHANGED,
    message: phase,
    reason: `phase changed to ${phase}`,
  };
}

/**
 * Requests whose Node is missing or taken wait on the Node, those whose kmaint.io/not-before has not come (or cannot be
 * read) on it, before the one-per-Node pick so they never hold their Node against one that may start; the rest are candidates.
 */
function splitByNode(state: SchedulingState, now: Date): { candidates: NodeMaintenance[]; waits: Wait[] } {
  const candidates: NodeMaintenance[] = [];
  const waits: Wait[] = [];
  for (const nm of state.unscheduled) {
    const node = nm.spec.nodeName;
    const holder = state.inProgressByNode.get(node)?.[0];
    const notYet = notBeforeRefusal(nm, now);
    if (!state.nodes.has(node)) waits.push({ maintenance: nm, why: waitReason.nodeNotFound(node), onLimit: false });
    // Only time or a fix frees it: blocked, like a closed window. Before the holder, so the text stays until that time.
    else if (notYet !== undefined) waits.push({ maintenance: nm, why: notYet, onLimit: true });
    else if (holder !== undefined) waits.push({ maintenance: nm, why: waitReason.nodeTaken(node, maintenanceKey(holder)), onLimit: false });
    else candidates.push(nm);
  }
  // A phase written into status, never admitted by kmaint (issue 40): back to Pending, a candidate again next pass.
  for (const nm of state.notAdmitted) waits.push({ maintenance: nm, why: notAdmittedWhy(maintenancePhase(nm), nm.spec.nodeName), onLimit: false });
  return { candidates, waits };
}

/**
 * kmaint's records that a pass must complete: an admission recorded on the Node whose status write did not land
 * (Scheduled now, no second slot: the record already holds it), and an older kmaint's admission known only by its cordon
 * record (the admission record written, so it outlives that cordon record).
 */
function completeRecords(state: SchedulingState, now: Date): Action[] {
  const actions: Action[] = [];
  for (const nm of state.toFinish) {
    const from = maintenancePhase(nm);
    const message = finishedAdmissionMessage(nm.spec.nodeName);
    const status = withReadyCondition(nm, { status: 'False', reason: Phase.Scheduled, message }, now);
    if (status === undefined) continue;
    actions.push({ kind: 'writeStatus', target: maintenanceRef(nm), status, phaseFrom: from, phaseTo: Phase.Scheduled, reason: message });
    if (from === PHASE_UNINITIALIZED) actions.push(phaseEvent(nm, Phase.Pending));
    actions.push(phaseEvent(nm, Phase.Scheduled));
  }
  for (const nm of state.legacy) {
    const node = state.nodes.get(nm.spec.nodeName);
    if (node !== undefined) actions.push(writeAdmissionRecord(nm, node, maintenanceRef(nm), 'admitted by an earlier kmaint (its cordon record names it): record the admission'));
  }
  return actions;
}

/**
 * The gangs of this snapshot (issue 21); a member waiting on its own Node keeps its gang from starting. `admitted`: keys
 * admitted by this pass, so a member whose Node's winner starts now reads as the next pass will see it (in progress).
 */
function gangAdmission(state: SchedulingState, limits: SchedulingLimits, now: Date, waits: readonly Wait[], losers: NodeWinners['losers'], admitted: ReadonlySet<string>): GangAdmission {
  const memberWaits = new Map(waits.map((w) => [maintenanceKey(w.maintenance), w.why]));
  for (const { maintenance, winner } of losers) {
    const node = maintenance.spec.nodeName;
    memberWaits.set(maintenanceKey(maintenance), admitted.has(maintenanceKey(winner)) ? waitReason.nodeTaken(node, maintenanceKey(winner)) : waitReason.nodeRanksFirst(node, maintenanceKey(winner)));
  }
  const rules = limits.admission;
  return {
    gangs: findGangs(state, rules?.gangNodeLabel, memberWaits),
    reserveAfterSeconds: rules?.gangReserveAfterSeconds ?? DEFAULT_GANG_RESERVE_AFTER_SECONDS,
    now,
  };
}

/**
 * The walk, and when a gang member lost its Node to a request admitted by it, the walk again with that member's text
 * as the next pass will read it. Only the text changes (the gang cannot start either way), so the admissions are the same.
 */
function admitWithGangs(state: SchedulingState, limits: SchedulingLimits, now: Date, budget: ValidBudget, scopes: Scopes, waits: readonly Wait[], nodeWinners: NodeWinners): AdmissionResult {
  const { winners, losers } = nodeWinners;
  const first = admitRanked(state, budget, winners, scopes, gangAdmission(state, limits, now, waits, losers, new Set()));
  const admitted = new Set(first.admitted.map((a) => maintenanceKey(a.maintenance)));
  const gangs = gangAdmission(state, limits, now, waits, losers, admitted);
  const stale = losers.some(({ maintenance, winner }) => admitted.has(maintenanceKey(winner)) && gangs.gangs.byKey.has(maintenanceKey(maintenance)));
  return stale ? admitRanked(state, budget, winners, scopes, gangs) : first;
}

export function planScheduling(state: SchedulingState, limits: SchedulingLimits, now: Date): SchedulingPlan {
  const budget = computeBudget(state, limits);
  const scopes = resolveScopes(state, limits.admission, now);
  const { candidates, waits } = splitByNode(state, now);
  const ranked = completingGangsFirst(rankCandidates(state, candidates, now), state.maintenances, state.nodes, limits.admission?.gangNodeLabel);
  const admitted: string[] = [];
  const actions: Action[] = completeRecords(state, now);

  // Closed as a whole (foreign CRDs) before any limit: requests in flight go on, nothing new starts.
  if (limits.closed !== undefined) {
    for (const nm of ranked) waits.push({ maintenance: nm, why: limits.closed, onLimit: true });
  } else if (budget.kind === 'invalid') {
    for (const nm of ranked) waits.push({ maintenance: nm, why: waitReason.configInvalid(budget.problem), onLimit: true });
  } else {
    const nodeWinners = firstPerNode(ranked);
    const { losers } = nodeWinners;
    const result = admitWithGangs(state, limits, now, budget, scopes, waits, nodeWinners);
    const whyOf = (nm: NodeMaintenance): string => {
      const why = result.why.get(maintenanceKey(nm));
      // admitRanked gives every skipped winner a reason; a missing one is a bug, never an empty message.
      if (why === undefined) throw new SchedulingInvariantError([`${maintenanceKey(nm)} was skipped without a wait reason`]);
      return why;
    };
    for (const nm of result.skipped) waits.push({ maintenance: nm, why: whyOf(nm), onLimit: true });
    const admittedKeys = new Set(result.admitted.map((a) => maintenanceKey(a.maintenance)));
    for (const { maintenance, winner } of losers) {
      // Winner admitted: the next pass sees it in progress and says the same. Winner waiting: the runner-up
      // waits on the same gate (same Node, same scopes); naming the winner would change the text whenever the ranking does.
      if (admittedKeys.has(maintenanceKey(winner))) {
        waits.push({ maintenance, why: waitReason.nodeTaken(maintenance.spec.nodeName, maintenanceKey(winner)), onLimit: false });
      } else {
        waits.push({ maintenance, why: whyOf(winner), onLimit: true });
      }
    }

    for (const { maintenance: nm, message } of result.admitted) {
      const from = maintenancePhase(nm);
      const status = withReadyCondition(nm, { status: 'False', reason: Phase.Scheduled, message }, now);
      admitted.push(maintenanceKey(nm));
      if (status === undefined) continue;
      const node = state.nodes.get(nm.spec.nodeName);
      // kmaint's record first, in the request's unit: the status that says Scheduled is written only once it landed.
      if (node !== undefined) actions.push(writeAdmissionRecord(nm, node, maintenanceRef(nm), message));
      actions.push({ kind: 'writeStatus', target: maintenanceRef(nm), status, phaseFrom: from, phaseTo: Phase.Scheduled, reason: message });
      // A new request passes through Pending in the same write; each phase passed gets its event.
      if (from === PHASE_UNINITIALIZED) actions.push(phaseEvent(nm, Phase.Pending));
      actions.push(phaseEvent(nm, Phase.Scheduled));
    }
  }

  waits.sort((a, b) => compareStrings(maintenanceKey(a.maintenance), maintenanceKey(b.maintenance)));
  for (const { maintenance: nm, why } of waits) {
    const message = waitingMessage(why);
    const status = withReadyCondition(nm, { status: 'False', reason: Phase.Pending, message }, now);
    if (status === undefined) continue;
    const from = maintenancePhase(nm);
    if (from === Phase.Pending) {
      actions.push({ kind: 'writeStatus', target: maintenanceRef(nm), status, reason: `wait reason changed, ${message}` });
    } else {
      const what = from === PHASE_UNINITIALIZED ? 'new request' : `phase ${from} not admitted by kmaint`;
      actions.push({ kind: 'writeStatus', target: maintenanceRef(nm), status, phaseFrom: from, phaseTo: Phase.Pending, reason: `${what}, ${message}` });
      actions.push(phaseEvent(nm, Phase.Pending));
    }
  }

  return {
    actions,
    admitted,
    waiting: waits.map((w) => ({ key: maintenanceKey(w.maintenance), why: w.why })),
    idle: candidates.length === 0 && actions.length === 0 && !waits.some((w) => w.onLimit),
    blocked: waits.some((w) => w.onLimit),
    poolOverlaps: [...scopes.overlaps],
  };
}
