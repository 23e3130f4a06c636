// Every text the scheduler writes into a Ready condition message. Wait reasons count the state *after* this
// pass's admissions, so a second pass over the written result produces the same texts and writes nothing.
import { shortList } from '../text/index.ts';

/** The Ready condition message of a request that waits. */
export function waitingMessage(why: string): string {
  return `waiting: ${why}`;
}

export const waitReason = {
  nodeNotFound: (node: string): string => `node ${node} not found`,
  /** Also used for the runner-up of a Node whose winner was admitted this pass: next pass sees it in progress. */
  nodeTaken: (node: string, holderKey: string): string => `another request for node ${node} is in progress (${holderKey})`,
  /** A runner-up on its Node, as a gang reports its member (issue 21). */
  nodeRanksFirst: (node: string, winnerKey: string): string => `another request for node ${node} ranks first (${winnerKey})`,
  configInvalid: (problem: string): string => `config invalid: ${problem}`,
  maxParallelOperations: (max: number, inProgress: number): string => `maxParallelOperations ${max} reached (${inProgress} in progress)`,
  maxUnavailable: (max: number | 'unlimited', underMaintenance: number, cordonedOrNotReady: number): string =>
    `maxUnavailable ${max} reached (${underMaintenance} under maintenance + ${cordonedOrNotReady} cordoned or not ready)`,
  // kmaint's narrower scopes (issue 7). `limit` reads '1', or '1 (25% of 4 nodes)' for a percentage.
  poolInvalid: (pool: string, problem: string): string => `pool ${pool} admits nothing: ${problem}`,
  poolParallel: (pool: string, limit: string, inProgress: number): string => `pool ${pool}: maxParallelOperations ${limit} reached (${inProgress} in progress)`,
  poolUnavailable: (pool: string, limit: string, underMaintenance: number, cordonedOrNotReady: number): string =>
    `pool ${pool}: maxUnavailable ${limit} reached (${underMaintenance} under maintenance + ${cordonedOrNotReady} cordoned or not ready)`,
  zoneInvalid: (zone: string, problem: string): string => `zone ${zone} admits nothing: ${problem}`,
  zoneUnavailable: (zone: string, limit: string, underMaintenance: number, cordonedOrNotReady: number): string =>
    `zone ${zone}: maxUnavailablePerZone ${limit} reached (${underMaintenance} under maintenance + ${cordonedOrNotReady} cordoned or not ready)`,
  /** `scope` is 'cluster' or 'pool <name>'; the time is the next start in UTC, which stays the same until the window opens. */
  windowClosed: (scope: string, nextOpen: string): string => `window ${scope} next opens at ${nextOpen}`,
  windowNever: (scope: string): string => `window ${scope} never opens`,
  windowInvalid: (scope: string, problem: string): string => `window ${scope} admits nothing: ${problem}`,
  /** The request's own kmaint.io/not-before, in UTC seconds: the same text every pass until then. */
  notBefore: (at: string): string => `not before ${at} (kmaint.io/not-before)`,
  /** `problem` is request-timing's one-line reason; the request admits nothing until its requestor fixes the value. */
  notBeforeInvalid: (problem: string): string => `request admits nothing: ${problem}`,
  // Gangs (issue 21): a gang's requests all carry the same text.
  gangCannotStart: (gang: string, size: number, problem: string): string => `gang ${gang} (${size} requests) cannot start: ${problem}`,
  gangNeverFits: (gang: string, size: number, why: string): string =>
    `gang ${gang} (${size} requests) is larger than a limit and is never partially admitted: with only its own requests in maintenance, ${why}`,
  gangWaits: (gang: string, size: number, why: string): string => `gang ${gang} (${size} requests) starts all at once or not at all: ${why}`,
  /** A gang partly admitted by an earlier pass (a status write failed): it completes before anything else starts (issue 30). */
  gangCompletes: (gang: string, size: number, admitted: number, why: string): string =>
    `gang ${gang} (${size} requests) has ${admitted} admitted and completes before anything else starts: ${why}`,
  /** `since` is the gang's oldest request's creation (RFC 3339), which stays the same while it waits. */
  gangHoldsSlots: (gang: string, since: string): string => `freed slots are held for gang ${gang}, waiting since ${since}`,
} as const;

/**
 * The Ready condition message of an admitted request. `slot` counts requests in progress including this one.
 * `unavailable` is the number of unavailable Nodes including this one when it was available before.
 */
export function admittedMessage(opts: {
  slot: number;
  maxParallelOperations: number;
  nodeAlreadyUnavailable: boolean;
  unavailable: number;
  maxUnavailable: number | 'unlimited';
  /** The gang admitted with it (issue 21). @default none */
  gang?: { name: string; size: number };
}): string {
  const slot = `admitted: slot ${opts.slot} of ${opts.maxParallelOperations}`;
  const gang = opts.gang === undefined ? '' : `, with gang ${opts.gang.name} (${opts.gang.size} requests)`;
  if (opts.nodeAlreadyUnavailable) return `${slot}, node already unavailable${gang}`;
  if (opts.maxUnavailable === 'unlimited') return `${slot}${gang}`;
  return `${slot}, unavailable ${opts.unavailable} of ${opts.maxUnavailable}${gang}`;
}

/**
 * The Warning on each request of a node-label gang admitted without requests on all its clique's nodes (issue 40).
 * `since`: the gang's oldest waiting request's creation (RFC 3339); `nodes`: the clique's nodes that no request names.
 */
export function gangAdmittedIncompleteMessage(gang: string, size: number, nodes: readonly string[], since: string, afterSeconds: number): string {
  return `gang ${gang} admitted as its ${size} request${size === 1 ? '' : 's'}: incomplete since ${since}, longer than gangIncompleteAdmitAfterSeconds ${afterSeconds}; no request for node${nodes.length === 1 ? '' : 's'} ${shortList(nodes, 3)}`;
}
