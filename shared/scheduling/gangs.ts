// Gangs (issue 21): requests that start together or not at all, grouped by the kmaint.io/gang label on the request
// or by a node label named in the config (an NVLink clique), with whatever keeps a gang from starting at all.
import { shortList } from '../text/index.ts';
import { ANNOTATION_GANG_SIZE, isBeingDeleted, maintenanceKey } from '#api';
import type { NodeMaintenance } from '#api';
import { gangIdentityOf, isAdmittedUnfinished, type GangIdentity } from './gang-membership.ts';
import type { SchedulingState } from './state.ts';
import { compareStrings } from './state.ts';

export interface Gang {
  /** The request label's value, or `<gangNodeLabel>=<value>` for a gang by node label. */
  readonly name: string;
  /** Its unscheduled requests, by namespace/name. */
  readonly members: readonly NodeMaintenance[];
  /** Why the gang cannot start whatever the limits: missing or deleted members, members that wait on their node. */
  readonly problems: readonly string[];
  /** The oldest member's creation, ms since the epoch (what the reservation rule counts from); -Infinity when unknown. */
  readonly waitingSince: number;
  /**
   * Requests of the gang already admitted and not finished (issue 30): a status write failed for the others in the pass
   * that admitted it. Such a gang completes first: its members rank first and, when they do not fit, hold freed slots.
   */
  readonly admitted: readonly NodeMaintenance[];
  /**
   * A node-label gang incomplete for longer than gangIncompleteAdmitAfterSeconds (issue 40): the nodes of its clique that
   * no request names, no longer a problem; it starts as the requests that exist, and each says so in an event.
   */
  readonly incomplete?: { readonly nodes: readonly string[]; readonly afterSeconds: number };
}

/** Requests in the gang's messages: the ones waiting plus the ones a partial admission already started. */
export function gangSize(gang: Gang): number {
  return gang.members.length + gang.admitted.length;
}

export interface Gangs {
  /** namespace/name of an unscheduled request -> its gang. */
  readonly byKey: ReadonlyMap<string, Gang>;
}

export const NO_GANGS: Gangs = { byKey: new Map() };

/** A request's gang name as messages show it (gang-membership.ts decides who belongs); undefined: a single. */
export function gangNameOf(nm: NodeMaintenance, state: SchedulingState, gangNodeLabel: string | undefined): string | undefined {
  return gangIdentityOf(nm, state.nodes.get(nm.spec.nodeName), gangNodeLabel, state.kmaintNamespace)?.name;
}

function createdMs(nm: NodeMaintenance): number {
  const t = Date.parse(nm.metadata.creationTimestamp ?? '');
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
}

/** Members counted by kmaint.io/gang-size: a request label's gang declares its size on its requests. */
function sizeProblems(name: string, live: readonly NodeMaintenance[]): string[] {
  const sizes = [...new Set(live.map((nm) => nm.metadata.annotations?.[ANNOTATION_GANG_SIZE]).filter((s): s is string => s !== undefined))].sort(compareStrings);
  if (sizes.length === 0) return [];
  if (sizes.length > 1) return [`its requests disagree on ${ANNOTATION_GANG_SIZE} (${sizes.join(', ')})`];
  const size = Number(sizes[0]);
  if (!/^[1-9][0-9]*$/.test(sizes[0] ?? '')) return [`${ANNOTATION_GANG_SIZE} "${sizes[0] ?? ''}" is not a positive integer`];
  if (live.length < size) return [`${size - live.length} of its ${size} requests missing (${ANNOTATION_GANG_SIZE} ${size}, ${live.length} found)`];
  if (live.length > size) return [`${live.length} requests carry gang ${name}, more than ${ANNOTATION_GANG_SIZE} ${size}`];
  return [];
}

/** When a node-label gang stops waiting for the nodes no request names (issue 40); absent: it waits for them forever. */
export interface IncompleteGangRule {
  readonly now: Date;
  /** Counted from the gang's oldest waiting request's creationTimestamp (Gang.waitingSince). */
  readonly admitAfterSeconds: number;
}

/** Nodes of a node-label gang that no request of its requestor (in its namespace) names: incomplete until each has one. */
function nodesWithoutRequest(state: SchedulingState, gang: NonNullable<GangIdentity['byNodeLabel']>): string[] {
  const ours = state.maintenances.filter((nm) => (nm.metadata.namespace ?? '') === gang.namespace && nm.spec.requestorID === gang.requestorID);
  const requested = new Set(ours.map((nm) => nm.spec.nodeName));
  const missing: string[] = [];
  for (const [node, obj] of state.nodes) {
    if (obj.metadata?.labels?.[gang.label] === gang.value && !requested.has(node)) missing.push(node);
  }
  return missing.sort(compareStrings);
}

/** The clique's nodes without a request: a problem, or once the gang has been incomplete long enough, only a note. */
function missingNodes(state: SchedulingState, identity: GangIdentity, waitingSince: number, rule: IncompleteGangRule | undefined): { problems: string[]; incomplete?: Gang['incomplete'] } {
  const nodes = identity.byNodeLabel === undefined ? [] : nodesWithoutRequest(state, identity.byNodeLabel);
  if (nodes.length === 0) return { problems: [] };
  if (rule !== undefined && rule.now.getTime() - waitingSince >= rule.admitAfterSeconds * 1000) return { problems: [], incomplete: { nodes, afterSeconds: rule.admitAfterSeconds } };
  return { problems: nodes.map((node) => `node ${node} of the gang has no request`) };
}

/**
 * Groups the unscheduled requests into gangs. `memberWaits` holds why a request waits on its own Node (missing,
 * held, or another request for it ranks first): such a member keeps its whole gang from starting. `incompleteRule`:
 * when a node-label gang stops waiting for the clique's nodes without a request (absent: never).
 */
export function findGangs(state: SchedulingState, gangNodeLabel: string | undefined, memberWaits: ReadonlyMap<string, string>, incompleteRule?: IncompleteGangRule): Gangs {
  const grouped = new Map<string, { identity: GangIdentity; all: NodeMaintenance[] }>();
  for (const nm of state.maintenances) {
    const identity = gangIdentityOf(nm, state.nodes.get(nm.spec.nodeName), gangNodeLabel, state.kmaintNamespace);
    if (identity === undefined) continue;
    const group = grouped.get(identity.key) ?? { identity, all: [] };
    group.all.push(nm);
    grouped.set(identity.key, group);
  }
  const byKey = new Map<string, Gang>();
  for (const { identity, all } of grouped.values()) {
    const { name } = identity;
    // Members: every live request kmaint has not admitted by its record (issue 40), a phase written into status included.
    const members = all.filter((nm) => !isBeingDeleted(nm) && !state.admitted.has(maintenanceKey(nm))).sort((a, b) => compareStrings(maintenanceKey(a), maintenanceKey(b)));
    if (members.length === 0) continue;
    const notStarted = (nm: NodeMaintenance): boolean => !state.admitted.has(maintenanceKey(nm));
    const waitingSince = members.reduce((oldest, nm) => Math.min(oldest, createdMs(nm)), Number.POSITIVE_INFINITY);
    const missing = missingNodes(state, identity, waitingSince, incompleteRule);
    const problems = [
      ...all.filter((nm) => isBeingDeleted(nm) && notStarted(nm)).map((nm) => `request ${maintenanceKey(nm)} was deleted before the gang started`),
      ...missing.problems,
      ...sizeProblems(name, all.filter((nm) => !isBeingDeleted(nm))),
      ...members.flatMap((nm) => {
        const why = memberWaits.get(maintenanceKey(nm));
        return why === undefined ? [] : [`request ${maintenanceKey(nm)} waits: ${why}`];
      }),
    ];
    const admitted = all.filter((nm) => isAdmittedUnfinished(nm, state.nodes.get(nm.spec.nodeName))).sort((a, b) => compareStrings(maintenanceKey(a), maintenanceKey(b)));
    const gang: Gang = { name, members, problems: problems.length > 0 ? [shortList(problems, 3, '; ')] : [], waitingSince, admitted, ...(missing.incomplete !== undefined ? { incomplete: missing.incomplete } : {}) };
    for (const nm of members) byKey.set(maintenanceKey(nm), gang);
  }
  return { byKey };
}
