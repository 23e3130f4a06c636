// Every write-order rule, beside the Action type: how a plan's actions are grouped into write units (applied in
// order, a unit stopping at its first failed write) and where a write sits inside its unit. `orderWrites` applies them
// all to a plan and is what runPass and the applier call; the drainer assembles a request's unit with `requestUnit`.
// Nothing else decides order. Each rule has a row in write-order.test.ts, `orderWrites` one of its own.
import type { Action, MaintenanceRef } from './actions.ts';

/**
 * Rule 1, units: the unit an action belongs to is the NodeMaintenance it serves; a node write serving none (a sweep of
 * kmaint's own node conditions, an orphan's SR-IOV state) is its node's unit; the config report is its own unit. Events
 * follow the writes of the object they are about; a Node event naming a request (`maintenance`) says what a write of
 * that request's unit did, and follows that unit.
 */
export function unitKey(a: Action): string {
  switch (a.kind) {
    case 'writeStatus':
    case 'patchMaintenanceMeta':
    case 'deleteMaintenance':
    case 'createMaintenance':
      return `nm/${a.target.namespace}/${a.target.name}`;
    case 'cordonNode':
    case 'uncordonNode':
    case 'evictPod':
    case 'deletePod':
    case 'takeNodeLease':
    case 'releaseNodeLease':
    case 'setNodeTaints':
    case 'createRebootJob':
    case 'deleteRebootJob':
    case 'rebootInstance':
    case 'createDeviceTaintRule':
    case 'deleteDeviceTaintRule':
    case 'createValidationJob':
    case 'deleteValidationJob':
      return `nm/${a.maintenance.namespace}/${a.maintenance.name}`;
    case 'moveInstanceEvent':
      return `nm/${a.request.namespace}/${a.request.name}`;
    case 'patchNodeAnnotations':
    case 'patchNodeConditions':
      return a.maintenance ? `nm/${a.maintenance.namespace}/${a.maintenance.name}` : `node/${a.node.name}`;
    case 'patchSriovNodeState':
      return a.maintenance ? `nm/${a.maintenance.namespace}/${a.maintenance.name}` : `node/${a.target.name}`;
    case 'emitEvent':
      if (a.target.kind === 'Node') return a.maintenance ? `nm/${a.maintenance.namespace}/${a.maintenance.name}` : `node/${a.target.name}`;
      return a.target.kind === 'NodeMaintenance' ? `nm/${a.target.namespace}/${a.target.name}` : `config/${a.target.namespace}/${a.target.name}`;
    case 'writeConfigStatus':
      return `config/${a.target.namespace}/${a.target.name}`;
  }
}

/**
 * Rule 2, units in plan order: actions grouped by `unitKey`, each unit keeping its actions' order in the plan, units
 * listed in the order their first action appears. The applier runs the units concurrently, each one in order.
 */
export function writeUnits(actions: readonly Action[]): Map<string, Action[]> {
  const groups = new Map<string, Action[]>();
  for (const a of actions) {
    const k = unitKey(a);
    const g = groups.get(k);
    if (g) g.push(a);
    else groups.set(k, [a]);
  }
  return groups;
}

/** Rule 3, what stops a unit: pod outcomes and events never do; one blocked eviction must not hold back the others. */
export function stopsUnit(a: Action): boolean {
  return a.kind !== 'evictPod' && a.kind !== 'deletePod' && a.kind !== 'emitEvent';
}

/** One request's writes of one drainer pass, by part (plan-drainer.ts planOne). */
export interface RequestWrites {
  /** The one metadata patch (annotations, finalizer, owner). */
  meta?: Action | undefined;
  node: readonly Action[];
  pods: readonly Action[];
  status?: Action | undefined;
  /** The phase events, then warnings. */
  events: readonly Action[];
}

/**
 * Rule 4, a request's unit: its metadata patch first (the finalizer lands before the node is touched; the records
 * before what they record), then its node writes, then its pod writes (evictions after the cordon), then its status
 * write (a phase is shown only once the writes that reach it landed), then its events (said only of what happened).
 */
export function requestUnit(w: RequestWrites): Action[] {
  return [...(w.meta ? [w.meta] : []), ...w.node, ...w.pods, ...(w.status ? [w.status] : []), ...w.events];
}

const sameRequest = (a: MaintenanceRef | undefined, b: MaintenanceRef): boolean => a?.namespace === b.namespace && a.name === b.name;

/**
 * Rule 5, a release's condition removal before its uncordon: a patch removing node conditions (none set) placed after
 * an uncordon of the same node in the same request unit moves just before that uncordon. The node lifecycle
 * controller answers the uncordon at once (it removes the unschedulable taint), so a removal following it met a 409
 * (bench:peers parallel-24: 3 of 24 releases). The request is being released: the node is to show nothing, whether or
 * not the uncordon lands.
 */
export function removalsBeforeUncordons(actions: readonly Action[]): Action[] {
  const sameUnit = (a: Action, b: Action): boolean => a.kind === 'patchNodeConditions' && b.kind === 'uncordonNode' && a.node.name === b.node.name && sameRequest(a.maintenance, b.maintenance);
  const moved = new Set(actions.filter((a) => a.kind === 'patchNodeConditions' && a.set.length === 0 && actions.some((b) => sameUnit(a, b) && actions.indexOf(b) < actions.indexOf(a))));
  if (moved.size === 0) return [...actions];
  return actions.flatMap((b) => (moved.has(b) ? [] : [...[...moved].filter((a) => sameUnit(a, b)), b]));
}

type SweepWrite = Extract<Action, { kind: 'uncordonNode' | 'patchNodeAnnotations' | 'setNodeTaints' }>;
const isSweepWrite = (a: Action): a is SweepWrite => a.kind === 'uncordonNode' || a.kind === 'patchNodeAnnotations' || a.kind === 'setNodeTaints';

/**
 * Rule 6, a sweep's node conditions join its unit, first: the node-condition patch of a node that `sweep` (an orphan
 * sweep's writes, each naming the gone request) writes has no request of its own; it takes the unit of the sweep's
 * write on that node and goes just before the first such write. After the uncordon the taint controller writes the node
 * at once (the unschedulable taint), so a status patch following it would meet a 409 nearly every time.
 */
export function sweepConditionsFirst(actions: readonly Action[], sweep: readonly Action[]): Action[] {
  const unitOf = new Map<string, MaintenanceRef>();
  for (const a of sweep) if (isSweepWrite(a) && a.maintenance) unitOf.set(a.node.name, a.maintenance);
  if (unitOf.size === 0) return [...actions];
  const conditionsFirst = new Map<string, Action>();
  const others = actions.filter((a) => {
    if (a.kind !== 'patchNodeConditions' || a.maintenance !== undefined) return true;
    const unit = unitOf.get(a.node.name);
    if (unit) conditionsFirst.set(a.node.name, { ...a, maintenance: unit });
    return unit === undefined;
  });
  return others.flatMap((a) => {
    const conditions = isSweepWrite(a) && sweep.includes(a) ? conditionsFirst.get(a.node.name) : undefined;
    if (conditions === undefined || !isSweepWrite(a)) return [a];
    conditionsFirst.delete(a.node.name);
    return [conditions, a];
  });
}

/** What the order needs to know beyond the actions themselves. */
export interface WriteOrderFacts {
  /** The writes of a sweep of leftovers (cleanup's orphan sweep), whose node conditions join their unit (rule 6). */
  sweep?: readonly Action[];
}

/** One write unit as the applier runs it: its key (rule 1), its writes in order, each saying whether its failure stops the rest (rule 3). */
export interface WriteUnit {
  key: string;
  writes: Array<{ action: Action; stopsUnit: boolean }>;
}

/** A plan's writes in order: the actions as they are listed (plan lines, metrics) and the units as they are applied. */
export interface OrderedWrites {
  actions: Action[];
  units: WriteUnit[];
}

/**
 * The one function that orders a plan's writes: a release's condition removals before its uncordon (rule 5), a sweep's
 * node conditions into its unit (rule 6), then the units in plan order (rules 1 and 2) with what stops each (rule 3).
 * Applying it to its own output changes nothing, so the applier may order what runPass already ordered.
 */
export function orderWrites(actions: readonly Action[], facts: WriteOrderFacts = {}): OrderedWrites {
  const moved = removalsBeforeUncordons(actions);
  const ordered = facts.sweep !== undefined && facts.sweep.length > 0 ? sweepConditionsFirst(moved, facts.sweep) : moved;
  const units = [...writeUnits(ordered)].map(([key, group]): WriteUnit => ({ key, writes: group.map((action) => ({ action, stopsUnit: stopsUnit(action) })) }));
  return { actions: ordered, units };
}
