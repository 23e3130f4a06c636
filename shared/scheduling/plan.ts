// The scheduler pass's plan: initialise new requests as Pending, admit what the limits allow, explain the rest.
import { EVENT_REASON_CONDITION_CHANGED, EVENT_REASON_GANG_ADMITTED_INCOMPLETE, Phase, PHASE_UNINITIALIZED, WaitingOn, maintenanceKey, maintenancePhase, maintenanceRef, rfc3339Seconds, withReadyCondition } from '#api';
import type { Action, NodeMaintenance } from '#api';
import { DEFAULT_GANG_RESERVE_AFTER_SECONDS } from '#config';
import { admitRanked, type AdmissionResult, type GangAdmission } from './admit.ts';
import { finishedAdmissionMessage, notAdmittedWhy, writeAdmissionRecord } from './admission-record.ts';
import { findGangs, gangSize, type Gangs } from './gangs.ts';
import { SchedulingInvariantError } from './errors.ts';
import { computeBudget, type SchedulingLimits, type ValidBudget } from './limits.ts';
import type { PoolOverlap } from './pools.ts';
import type { NodeWinners } from './rank.ts';
import { incompleteGangRule, nextOnNode, startableNow, type StartNow } from './start-now.ts';
import { resolveScopes, type Scopes } from './scopes.ts';
import { compareStrings, type SchedulingState } from './state.ts';
import { gangAdmittedIncompleteMessage, waitingMessage, waitReason } from './wait-reasons.ts';

export interface SchedulingPlan {
  actions: Action[];
  /** Keys (namespace/name) admitted this pass, best first. */
  admitted: string[];
  /** Every unscheduled request not admitted, by key, with why it waits (the condition message minus 'waiting: '). */
  waiting: Array<{ key: string; why: string }>;
  /** What each of `waiting` waits on, by key (the reason of its kmaint.io/Waiting condition). */
  waitingOn: ReadonlyMap<string, WaitingOn>;
  /** Nothing to schedule and nothing to write. */
  idle: boolean;
  /** Some candidate waits on a limit, a closed window or an invalid value: work remains that only time or a freed slot can unblock. */
  blocked: boolean;
  /** Nodes selected by more than one pool (each belongs to the first), for the config report; [] without pools. */
  poolOverlaps: PoolOverlap[];
  /** Keys of the requests waiting because admission is closed as a whole (`limits.closed`: kmaint's CRDs not in force). */
  closed: string[];
}

interface Wait {
  maintenance: NodeMaintenance;
  why: string;
  on: WaitingOn;
  /** Waits on a limit, a window or an invalid config (as opposed to its Node). */
  onLimit: boolean;
}


function eventTarget(nm: NodeMaintenance): Extract<Action, { kind: 'emitEvent' }>['target'] {
  return { kind: 'NodeMaintenance', namespace: nm.metadata.namespace ?? '', name: nm.metadata.name, ...(nm.metadata.uid !== undefined ? { uid: nm.metadata.uid } : {}) };
}

/** Upstream's ConditionChanged event: type Normal, message = the new phase. */
function phaseEvent(nm: NodeMaintenance, phase: string): Action {
  return {
    kind: 'emitEvent',
    target: eventTarget(nm),
    type: 'Normal',
    eventReason: EVENT_REASON_CONDITION_CHANGED,
    message: phase,
    reason: `phase changed to ${phase}`,
  };
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

/** Why a member of a gang that cannot start waits on its Node: another request there admitted now, or ranked before it. */
function memberNodeWait(member: NodeMaintenance, start: StartNow, admitted: ReadonlySet<string>): string | undefined {
  const node = member.spec.nodeName;
  const next = nextOnNode(start, node);
  if (next !== undefined && admitted.has(maintenanceKey(next))) return waitReason.nodeTaken(node, maintenanceKey(next));
  // As before issue 40: the best-ranked request for its Node, among every request that could be picked.
  const first = start.firstByNode.get(node);
  return first === undefined || first === member ? undefined : waitReason.nodeRanksFirst(node, maintenanceKey(first));
}

/**
 * The gangs of this snapshot (issue 21) for the walk. A gang that can start has every member picked for its Node; a
 * member of one that cannot keeps its gang out with its Node's text. `admitted`: keys admitted by this pass, so a member
 * whose Node's winner starts now reads as the next pass will see it (in progress).
 */
function gangAdmission(state: SchedulingState, limits: SchedulingLimits, now: Date, start: StartNow, admitted: ReadonlySet<string>): GangAdmission {
  const memberWaits = new Map(start.nodeWaits.map((w) => [maintenanceKey(w.maintenance), w.why]));
  for (const nm of start.ranked) {
    if (!start.cannotStart.has(maintenanceKey(nm)) || !start.gangs.byKey.has(maintenanceKey(nm))) continue;
    const why = memberNodeWait(nm, start, admitted);
    if (why !== undefined) memberWaits.set(maintenanceKey(nm), why);
  }
  const rules = limits.admission;
  return {
    gangs: findGangs(state, rules?.gangNodeLabel, memberWaits, incompleteGangRule(limits, now)),
    reserveAfterSeconds: rules?.gangReserveAfterSeconds ?? DEFAULT_GANG_RESERVE_AFTER_SECONDS,
    now,
  };
}

/**
 * The walk, once: each Node's pick among the requests that can start, and (for their wait texts only) every request that
 * cannot, which no gate admits. A member of a gang that cannot start whose Node's request the walk admits waits on that
 * request in the next pass: the gang's text is written from the gangs as that pass reads them (gangsAfter), from the
 * admitted set this walk computed; the admissions do not depend on it (such a gang cannot start either way).
 */
function admitWithGangs(state: SchedulingState, limits: SchedulingLimits, now: Date, budget: ValidBudget, scopes: Scopes, start: StartNow): AdmissionResult {
  const picked = new Set(start.pick.winners);
  const walked = start.ranked.filter((nm) => picked.has(nm) || start.cannotStart.has(maintenanceKey(nm)));
  const gangsAfter = (admitted: ReadonlySet<string>): Gangs | undefined => {
    const stale = start.ranked.some((nm) => {
      const next = nextOnNode(start, nm.spec.nodeName);
      return start.cannotStart.has(maintenanceKey(nm)) && start.gangs.byKey.has(maintenanceKey(nm)) && next !== undefined && admitted.has(maintenanceKey(next));
    });
    return stale ? gangAdmission(state, limits, now, start, admitted).gangs : undefined;
  };
  return admitRanked(state, budget, walked, scopes, { ...gangAdmission(state, limits, now, start, new Set()), gangsAfter });
}

/**
 * The runners-up of each Node: the pick's, and a request that cannot start whose Node's pick ranks before it or is
 * admitted now (the next pass sees it in progress). One that ranks before its Node's pick keeps its own wait text.
 */
function runnersUp(start: StartNow, admittedKeys: ReadonlySet<string>): NodeWinners['losers'] {
  const excluded = start.ranked.flatMap((maintenance) => {
    const winner = nextOnNode(start, maintenance.spec.nodeName);
    if (winner === undefined || !start.cannotStart.has(maintenanceKey(maintenance))) return [];
    const before = (start.rankOf.get(winner) ?? 0) < (start.rankOf.get(maintenance) ?? 0);
    return before || admittedKeys.has(maintenanceKey(winner)) ? [{ maintenance, winner }] : [];
  });
  return [...start.pick.losers, ...excluded];
}

/** A Warning on each request of a node-label gang admitted without requests on all its clique's nodes (issue 40). */
function incompleteGangEvents(admitted: readonly NodeMaintenance[], gangs: Gangs): Action[] {
  return admitted.flatMap((nm): Action[] => {
    const gang = gangs.byKey.get(maintenanceKey(nm));
    if (gang?.incomplete === undefined) return [];
    const message = gangAdmittedIncompleteMessage(gang.name, gangSize(gang), gang.incomplete.nodes, rfc3339Seconds(new Date(gang.waitingSince)), gang.incomplete.afterSeconds);
    return [{ kind: 'emitEvent', target: eventTarget(nm), type: 'Warning', eventReason: EVENT_REASON_GANG_ADMITTED_INCOMPLETE, message, reason: 'gang admitted incomplete' }];
  });
}

export function planScheduling(state: SchedulingState, limits: SchedulingLimits, now: Date): SchedulingPlan {
  const budget = computeBudget(state, limits);
  const scopes = resolveScopes(state, limits.admission, now);
  // Issue 40: only requests that can start now on their own account hold their Node (start-now.ts).
  const start = startableNow(state, limits, now);
  const waits: Wait[] = [...start.nodeWaits];
  // A phase written into status, never admitted by kmaint (issue 40): back to Pending, a candidate again next pass.
  for (const nm of state.notAdmitted) waits.push({ maintenance: nm, why: notAdmittedWhy(maintenancePhase(nm), nm.spec.nodeName), on: WaitingOn.NotAdmitted, onLimit: false });
  const ranked = start.ranked;
  const admitted: string[] = [];
  const actions: Action[] = completeRecords(state, now);

  // Closed as a whole (foreign CRDs) before any limit: requests in flight go on, nothing new starts.
  if (limits.closed !== undefined) {
    for (const nm of ranked) waits.push({ maintenance: nm, why: limits.closed, on: WaitingOn.Closed, onLimit: true });
  } else if (budget.kind === 'invalid') {
    for (const nm of ranked) waits.push({ maintenance: nm, why: waitReason.configInvalid(budget.problem), on: WaitingOn.Config, onLimit: true });
  } else {
    const result = admitWithGangs(state, limits, now, budget, scopes, start);
    const admittedKeys = new Set(result.admitted.map((a) => maintenanceKey(a.maintenance)));
    const losers = runnersUp(start, admittedKeys);
    const losing = new Set(losers.map((l) => l.maintenance));
    const whyOf = (nm: NodeMaintenance): { why: string; on: WaitingOn } => {
      const why = result.why.get(maintenanceKey(nm));
      const on = result.waitsOn.get(maintenanceKey(nm));
      // admitRanked gives every skipped winner a reason and its gate; a missing one is a bug, never an empty message.
      if (why === undefined || on === undefined) throw new SchedulingInvariantError([`${maintenanceKey(nm)} was skipped without a wait reason`]);
      return { why, on };
    };
    for (const nm of result.skipped) if (!losing.has(nm)) waits.push({ maintenance: nm, ...whyOf(nm), onLimit: true });
    for (const { maintenance, winner } of losers) {
      // Winner admitted: the next pass sees it in progress and says the same. Winner waiting: the runner-up
      // waits on the same gate (same Node, same scopes); naming the winner would change the text whenever the ranking does.
      if (admittedKeys.has(maintenanceKey(winner))) {
        waits.push({ maintenance, why: waitReason.nodeTaken(maintenance.spec.nodeName, maintenanceKey(winner)), on: WaitingOn.Node, onLimit: false });
      } else {
        waits.push({ maintenance, ...whyOf(winner), onLimit: true });
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
    actions.push(...incompleteGangEvents(result.admitted.map((a) => a.maintenance), start.gangs));
  }

  waits.sort((a, b) => compareStrings(maintenanceKey(a.maintenance), maintenanceKey(b.maintenance)));
  for (const { maintenance: nm, why, on } of waits) {
    const message = waitingMessage(why);
    const status = withReadyCondition(nm, { status: 'False', reason: Phase.Pending, message }, now, on);
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
    waitingOn: new Map(waits.map((w) => [maintenanceKey(w.maintenance), w.on])),
    idle: ranked.length === 0 && actions.length === 0 && !waits.some((w) => w.onLimit),
    blocked: waits.some((w) => w.onLimit),
    poolOverlaps: [...scopes.overlaps],
    closed: limits.closed === undefined ? [] : ranked.map(maintenanceKey),
  };
}
