// Gangs (issue 21): requests that start together or not at all, grouped by the kmaint.io/gang label on the request
// or by a node label named in the config (an NVLink clique), with whatever keeps a gang from starting at all.
import { ANNOTATION_GANG_SIZE, LABEL_GANG, isBeingDeleted, isInProgress, maintenanceKey, maintenancePhase, Phase, PHASE_UNINITIALIZED } from '#api';
import type { NodeMaintenance } from '#api';
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
}

export interface Gangs {
  /** namespace/name of an unscheduled request -> its gang. */
  readonly byKey: ReadonlyMap<string, Gang>;
}

export const NO_GANGS: Gangs = { byKey: new Map() };

/** A request's gang name: its own label first, else its node's value of the configured node label; undefined: a single. */
export function gangNameOf(nm: NodeMaintenance, state: SchedulingState, gangNodeLabel: string | undefined): string | undefined {
  const own = nm.metadata.labels?.[LABEL_GANG];
  if (own !== undefined && own !== '') return own;
  if (gangNodeLabel === undefined) return undefined;
  const value = state.nodes.get(nm.spec.nodeName)?.metadata?.labels?.[gangNodeLabel];
  return value === undefined || value === '' ? undefined : `${gangNodeLabel}=${value}`;
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

/** Nodes of a node-label gang that no request names: the gang is incomplete until each has one. */
function nodesWithoutRequest(state: SchedulingState, gangNodeLabel: string, name: string): string[] {
  const value = name.slice(gangNodeLabel.length + 1);
  const requested = new Set(state.maintenances.map((nm) => nm.spec.nodeName));
  const missing: string[] = [];
  for (const [node, obj] of state.nodes) {
    if (obj.metadata?.labels?.[gangNodeLabel] === value && !requested.has(node)) missing.push(node);
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
  const named = new Map<string, NodeMaintenance[]>();
  for (const nm of state.maintenances) {
    const name = gangNameOf(nm, state, gangNodeLabel);
    if (name === undefined) continue;
    named.set(name, [...(named.get(name) ?? []), nm]);
  }
  const byKey = new Map<string, Gang>();
  for (const [name, all] of named) {
    const members = all.filter((nm) => !isInProgress(nm)).sort((a, b) => compareStrings(maintenanceKey(a), maintenanceKey(b)));
    if (members.length === 0) continue;
    const notStarted = (nm: NodeMaintenance): boolean => [PHASE_UNINITIALIZED, Phase.Pending].includes(maintenancePhase(nm));
    const problems = [
      ...all.filter((nm) => isBeingDeleted(nm) && notStarted(nm)).map((nm) => `request ${maintenanceKey(nm)} was deleted before the gang started`),
      ...(gangNodeLabel !== undefined && name.startsWith(`${gangNodeLabel}=`) ? nodesWithoutRequest(state, gangNodeLabel, name) : []),
      ...sizeProblems(name, all.filter((nm) => !isBeingDeleted(nm))),
      ...members.flatMap((nm) => {
        const why = memberWaits.get(maintenanceKey(nm));
        return why === undefined ? [] : [`request ${maintenanceKey(nm)} waits: ${why}`];
      }),
    ];
    const gang: Gang = { name, members, problems: problems.length > 0 ? [list(problems)] : [], waitingSince: Math.min(...members.map(createdMs)) };
    for (const nm of members) byKey.set(maintenanceKey(nm), gang);
  }
  return { byKey };
}
