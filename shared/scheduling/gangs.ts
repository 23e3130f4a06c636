// Gangs (issue 21): requests that start together or not at all, grouped by the kmaint.io/gang label on the request
// or by a node label named in the config (an NVLink clique), with whatever keeps a gang from starting at all.
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
  return gangIdentityOf(nm, state.nodes.get(nm.spec.nodeName), gangNodeLabel)?.name;
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

/** Nodes of a node-label gang that no request of its requestor (in its namespace) names: incomplete until each has one. */
function nodesWithoutRequest(state: SchedulingState, gang: NonNullable<GangIdentity['byNodeLabel']>): string[] {
  const ours = state.maintenances.filter((nm) => (nm.metadata.namespace ?? '') === gang.namespace && nm.spec.requestorID === gang.requestorID);
  const requested = new Set(ours.map((nm) => nm.spec.nodeName));
  const missing: string[] = [];
  for (const [node, obj] of state.nodes) {
    if (obj.metadata?.labels?.[gang.label] === gang.value && !requested.has(node)) missing.push(node);
  }
  return missing.sort(compareStrings).map((node) => `node ${node} of the gang has no request`);
}

function list(items: readonly string[], max = 3): string {
  return items.length <= max ? items.join('; ') : `${items.slice(0, max).join('; ')}; and ${items.length - max} more`;
}

/**
 * Groups the unscheduled requests into gangs. `memberWaits` holds why a request waits on its own Node (missing,
 * held, or another request for it ranks first): such a member keeps its whole gang from starting.
 */
export function findGangs(state: SchedulingState, gangNodeLabel: string | undefined, memberWaits: ReadonlyMap<string, string>): Gangs {
  const grouped = new Map<string, { identity: GangIdentity; all: NodeMaintenance[] }>();
  for (const nm of state.maintenances) {
    const identity = gangIdentityOf(nm, state.nodes.get(nm.spec.nodeName), gangNodeLabel);
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
    const problems = [
      ...all.filter((nm) => isBeingDeleted(nm) && notStarted(nm)).map((nm) => `request ${maintenanceKey(nm)} was deleted before the gang started`),
      ...(identity.byNodeLabel !== undefined ? nodesWithoutRequest(state, identity.byNodeLabel) : []),
      ...sizeProblems(name, all.filter((nm) => !isBeingDeleted(nm))),
      ...members.flatMap((nm) => {
        const why = memberWaits.get(maintenanceKey(nm));
        return why === undefined ? [] : [`request ${maintenanceKey(nm)} waits: ${why}`];
      }),
    ];
    const admitted = all.filter((nm) => isAdmittedUnfinished(nm, state.nodes.get(nm.spec.nodeName))).sort((a, b) => compareStrings(maintenanceKey(a), maintenanceKey(b)));
    const gang: Gang = { name, members, problems: problems.length > 0 ? [list(problems)] : [], waitingSince: Math.min(...members.map(createdMs)), admitted };
    for (const nm of members) byKey.set(maintenanceKey(nm), gang);
  }
  return { byKey };
}
