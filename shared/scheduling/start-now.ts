// Which waiting requests could start now on their own account (issue 40): only these may hold a node, for the scheduler's
// one-per-node pick, for `kmaint explain` and for the reaper. A request that cannot start (its own not-before, a window
// closed on its node, a gang that cannot start) holds nothing, however it ranks: otherwise one request, with a deadline
// its requestor set itself, would keep every other request off its node for as long as it exists.
import { maintenanceKey, WaitingOn, type NodeMaintenance } from '#api';
import { DEFAULT_GANG_INCOMPLETE_ADMIT_AFTER_SECONDS } from '#config';
import { judgeGang } from './gang-trial.ts';
import { findGangs, type Gang, type Gangs, type IncompleteGangRule } from './gangs.ts';
import { completingGangsFirst } from './gang-membership.ts';
import { GATES, notBeforeRefusal, startTally, type Tally } from './gates.ts';
import { deviceRequestRefusal } from '../devices/index.ts';
import { computeBudget, type SchedulingLimits } from './limits.ts';
import { firstPerNode, rankCandidates, type NodeWinners } from './rank.ts';
import { resolveScopes } from './scopes.ts';
import type { SchedulingState } from './state.ts';
import { waitReason } from './wait-reasons.ts';

/** A request that waits before the pick: on its Node (missing, or another request in progress there) or its own not-before. */
export interface NodeWait {
  maintenance: NodeMaintenance;
  why: string;
  /** What it waits on (kmaint.io/Waiting). */
  on: WaitingOn;
  /** Waits on time or a fix (not-before), as opposed to its Node. */
  onLimit: boolean;
}

export interface StartNow {
  /** Requests with their Node free and their own time come, best first (partly admitted gangs' first). */
  readonly ranked: readonly NodeMaintenance[];
  /** Every other unscheduled request, with why it waits. */
  readonly nodeWaits: readonly NodeWait[];
  /** Of `ranked`, those that cannot start now on their own account, by namespace/name: they hold nothing. */
  readonly cannotStart: ReadonlySet<string>;
  /** The one-per-Node pick among the requests that can start: each Node's winner is the request it serves next. */
  readonly pick: NodeWinners;
  /** The gangs as the pick found them (members waiting on their own Node not counted). */
  readonly gangs: Gangs;
  /** Node -> the request it serves next (the pick's winner there); a Node without one is absent. */
  readonly nextByNode: ReadonlyMap<string, NodeMaintenance>;
  /** Node -> the best-ranked of `ranked` there, whether or not it can start. */
  readonly firstByNode: ReadonlyMap<string, NodeMaintenance>;
  /** Position in `ranked`. */
  readonly rankOf: ReadonlyMap<NodeMaintenance, number>;
}

/**
 * Requests whose Node is missing or taken wait on the Node, those whose kmaint.io/not-before has not come (or cannot be
 * read) on it; the rest are candidates.
 */
function splitByNode(state: SchedulingState, now: Date): { candidates: NodeMaintenance[]; nodeWaits: NodeWait[] } {
  const candidates: NodeMaintenance[] = [];
  const nodeWaits: NodeWait[] = [];
  for (const nm of state.unscheduled) {
    const node = nm.spec.nodeName;
    const holder = state.inProgressByNode.get(node)?.[0];
    const notYet = notBeforeRefusal(nm, now);
    // A device request whose devices cannot be taken out of service alone (issue 45): like not-before, only a fix frees it.
    const deviceRefused = deviceRequestRefusal(nm, state.devices);
    if (!state.nodes.has(node)) nodeWaits.push({ maintenance: nm, why: waitReason.nodeNotFound(node), on: WaitingOn.Node, onLimit: false });
    // Only time or a fix frees it: blocked, like a closed window. Before the holder, so the text stays until that time.
    else if (notYet !== undefined) nodeWaits.push({ maintenance: nm, why: notYet, on: WaitingOn.NotBefore, onLimit: true });
    else if (deviceRefused !== undefined) nodeWaits.push({ maintenance: nm, why: deviceRefused, on: WaitingOn.Device, onLimit: true });
    else if (holder !== undefined) nodeWaits.push({ maintenance: nm, why: waitReason.nodeTaken(node, maintenanceKey(holder)), on: WaitingOn.Node, onLimit: false });
    else candidates.push(nm);
  }
  return { candidates, nodeWaits };
}

/** The rule for node-label gangs that stay incomplete, from the config. */
export function incompleteGangRule(limits: SchedulingLimits, now: Date): IncompleteGangRule {
  return { now, admitAfterSeconds: limits.admission?.gangIncompleteAdmitAfterSeconds ?? DEFAULT_GANG_INCOMPLETE_ADMIT_AFTER_SECONDS };
}

/** A gate that refuses whatever the counts (a window, a value that cannot be used): the Node admits nothing now. */
function refusedWhateverTheCounts(tally: Tally | undefined, node: string): boolean {
  return tally !== undefined && GATES.some((gate) => gate.whateverTheCounts === true && gate.refuse(tally, node) !== undefined);
}

/** Whether a gang cannot start whatever the others do: a problem, a member on a Node admitting nothing now, or too large for a limit. */
function gangCannotStart(gang: Gang, rankOf: ReadonlyMap<NodeMaintenance, number>, tally: Tally | undefined): boolean {
  if (gang.problems.length > 0) return true;
  if (gang.members.some((nm) => refusedWhateverTheCounts(tally, nm.spec.nodeName))) return true;
  // In rank order, as the walk tries them (a member not among the candidates waits on its Node: a problem above).
  const members = [...gang.members].sort((a, b) => (rankOf.get(a) ?? 0) - (rankOf.get(b) ?? 0));
  return tally !== undefined && judgeGang(tally, members).kind === 'never-fits';
}

/**
 * Takes out, one round at a time, the gangs a member of which loses its Node to a request that starts whatever else is
 * taken out (a single, or a gang none of whose members lose): taking a gang out frees its other Nodes for the requests
 * behind it, which may make another gang whole. When every losing gang loses only to other losing gangs (they block
 * each other), all of them are taken out. Ends within one round per gang.
 */
function takeOutLosingGangs(ranked: readonly NodeMaintenance[], gangs: Gangs, out: Set<string>): NodeWinners {
  const gangOf = (nm: NodeMaintenance): Gang | undefined => gangs.byKey.get(maintenanceKey(nm));
  for (;;) {
    const pick = firstPerNode(ranked.filter((nm) => !out.has(maintenanceKey(nm))));
    const losing = new Set(pick.losers.flatMap(({ maintenance }) => gangOf(maintenance) ?? []));
    if (losing.size === 0) return pick;
    const firm = pick.losers.filter(({ maintenance, winner }) => gangOf(maintenance) !== undefined && !losing.has(gangOf(winner) as Gang));
    const taken = firm.length > 0 ? new Set(firm.map(({ maintenance }) => gangOf(maintenance) as Gang)) : losing;
    for (const gang of taken) for (const nm of gang.members) out.add(maintenanceKey(nm));
  }
}

/**
 * Which unscheduled requests could start now on their own account, and which request each Node serves next. Pure.
 * Gangs are judged on the counts before any admission (a gang too large for a limit never starts); a request waiting
 * only on counts (maxParallelOperations, maxUnavailable, pools, zones) can start and keeps its Node as before.
 */
export function startableNow(state: SchedulingState, limits: SchedulingLimits, now: Date): StartNow {
  const { candidates, nodeWaits } = splitByNode(state, now);
  const label = limits.admission?.gangNodeLabel;
  const ranked = completingGangsFirst(rankCandidates(state, candidates, now), state.maintenances, state.nodes, label, state.kmaintNamespace);
  const gangs = findGangs(state, label, new Map(nodeWaits.map((w) => [maintenanceKey(w.maintenance), w.why])), incompleteGangRule(limits, now));
  const budget = limits.closed === undefined ? computeBudget(state, limits) : undefined;
  const tally = budget?.kind === 'valid' ? startTally(state, budget, resolveScopes(state, limits.admission, now), now) : undefined;
  const rankOf = new Map(ranked.map((nm, i) => [nm, i]));
  const out = new Set<string>();
  const judged = new Map<Gang, boolean>();
  for (const nm of ranked) {
    const gang = gangs.byKey.get(maintenanceKey(nm));
    const cannot = gang === undefined ? refusedWhateverTheCounts(tally, nm.spec.nodeName) : (judged.get(gang) ?? gangCannotStart(gang, rankOf, tally));
    if (gang !== undefined) judged.set(gang, cannot);
    if (cannot) out.add(maintenanceKey(nm));
  }
  const pick = takeOutLosingGangs(ranked, gangs, out);
  const firstByNode = new Map<string, NodeMaintenance>();
  for (const nm of ranked) if (!firstByNode.has(nm.spec.nodeName)) firstByNode.set(nm.spec.nodeName, nm);
  const nextByNode = new Map(pick.winners.map((nm) => [nm.spec.nodeName, nm]));
  return { ranked, nodeWaits, cannotStart: out, pick, gangs, nextByNode, firstByNode, rankOf };
}

/** namespace/name of every unscheduled request that may hold its Node now (the reaper's view of "a live request"). */
export function requestsHoldingNodes(state: SchedulingState, limits: SchedulingLimits, now: Date): ReadonlySet<string> {
  const { ranked, cannotStart } = startableNow(state, limits, now);
  return new Set(ranked.map(maintenanceKey).filter((key) => !cannotStart.has(key)));
}

/** The request `node` serves next among those that can start now, or undefined when none can. */
export function nextOnNode(start: StartNow, node: string): NodeMaintenance | undefined {
  return start.nextByNode.get(node);
}
