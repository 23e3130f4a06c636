// Candidate order: small rankers in priority order ending in a total order, then one request per Node.
import { maintenanceKey, type NodeMaintenance } from '#api';
import { deadlineAtRisk, rankingDeadline } from './deadline-risk.ts';
import { compareStrings, type SchedulingState } from './state.ts';

/** Upstream LeastPendingRankerMaxWeight: beyond 100 other pending requests, requestors tie on this ranker. */
export const FEWER_PENDING_CAP = 100;

/** Negative when `a` goes first. `now` is the pass's clock (whether a deadline is at risk). */
export type Ranker = (a: NodeMaintenance, b: NodeMaintenance, state: SchedulingState, now: Date) => number;

function compareNumbers(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A missing or unparsable creationTimestamp sorts first, as Go's zero time does upstream. */
function createdAt(nm: NodeMaintenance): number {
  const t = nm.metadata.creationTimestamp === undefined ? Number.NaN : Date.parse(nm.metadata.creationTimestamp);
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
}

/** A believed kmaint.io/deadline in ms; none (absent, unreadable, or before the request's creation: reported) sorts after every deadline. */
function deadlineOf(nm: NodeMaintenance): number {
  const deadline = rankingDeadline(nm);
  return deadline.kind === 'valid' ? deadline.at.getTime() : Number.POSITIVE_INFINITY;
}

/** Other unscheduled requests of the same requestor, capped as upstream. */
function otherPending(nm: NodeMaintenance, state: SchedulingState): number {
  const mine = state.unscheduledByRequestor.get(nm.spec.requestorID) ?? 0;
  return Math.min(FEWER_PENDING_CAP, Math.max(0, mine - 1));
}

export const RANKERS: ReadonlyArray<{ name: string; compare: Ranker }> = [
  // A deadline within its expected drain time plus a margin (deadline-risk.ts) cannot wait for a rollout to finish:
  // requestor stickiness alone would let a continuous rollout starve a retirement (issue 30). Among them, nearest first.
  {
    name: 'deadline-at-risk',
    compare: (a, b, _s, now) => {
      const [ra, rb] = [deadlineAtRisk(a, now), deadlineAtRisk(b, now)];
      return ra && rb ? compareNumbers(deadlineOf(a), deadlineOf(b)) : compareNumbers(Number(rb), Number(ra));
    },
  },
  // Finishing a rollout that has started beats starting a new one: fewer requestors are left half done (upstream +1000).
  {
    name: 'requestor-in-progress',
    compare: (a, b, s) => compareNumbers(Number(s.requestorsInProgress.has(b.spec.requestorID)), Number(s.requestorsInProgress.has(a.spec.requestorID))),
  },
  // A promised time beats fairness: nearest kmaint.io/deadline first, requests without one after every request with one.
  { name: 'nearest-deadline', compare: (a, b) => compareNumbers(deadlineOf(a), deadlineOf(b)) },
  // A requestor with few requests left finishes soon, so its requests free their slots for everyone sooner (upstream 100 − n).
  { name: 'fewer-pending', compare: (a, b, s) => compareNumbers(otherPending(a, s), otherPending(b, s)) },
  // First come, first served.
  { name: 'older-first', compare: (a, b) => compareNumbers(createdAt(a), createdAt(b)) },
  // The rest only make the order total, so a tie never depends on list order (upstream CompareRanked).
  { name: 'node-name', compare: (a, b) => compareStrings(a.spec.nodeName, b.spec.nodeName) },
  { name: 'requestor-id', compare: (a, b) => compareStrings(a.spec.requestorID, b.spec.requestorID) },
  { name: 'namespace-name', compare: (a, b) => compareStrings(maintenanceKey(a), maintenanceKey(b)) },
];

/** The candidates best first at `now`; a new array, the input is left alone. */
export function rankCandidates(state: SchedulingState, candidates: readonly NodeMaintenance[], now: Date): NodeMaintenance[] {
  return [...candidates].sort((a, b) => {
    for (const ranker of RANKERS) {
      const order = ranker.compare(a, b, state, now);
      if (order !== 0) return order;
    }
    return 0;
  });
}

export interface NodeWinners {
  /** The best-ranked request of each Node, in rank order. */
  winners: NodeMaintenance[];
  /** Every other request, with the winner of its Node. */
  losers: Array<{ maintenance: NodeMaintenance; winner: NodeMaintenance }>;
}

/** One request per Node: the best-ranked wins (upstream CompactIdenticalNodes). */
export function firstPerNode(ranked: readonly NodeMaintenance[]): NodeWinners {
  const byNode = new Map<string, NodeMaintenance>();
  const result: NodeWinners = { winners: [], losers: [] };
  for (const nm of ranked) {
    const winner = byNode.get(nm.spec.nodeName);
    if (winner === undefined) {
      byNode.set(nm.spec.nodeName, nm);
      result.winners.push(nm);
    } else {
      result.losers.push({ maintenance: nm, winner });
    }
  }
  return result;
}
