// KEP-5683 node lifecycle conditions: what each node under maintenance should show for the phase its request reaches
// in this pass, and the one strategic-merge patch per node that gets it there (none when it already shows it).
import { namespacedName } from '../api/index.ts';
import type { V1Node, V1NodeCondition } from '@kubernetes/client-node';
import {
  NODE_CONDITION_MESSAGE_PREFIX,
  NODE_CONDITION_TYPES,
  NodeCondition,
  NodeConditionReason,
  PHASE_UNINITIALIZED,
  Phase,
  isOwnNodeCondition,
  maintenanceKey,
  maintenancePhase,
  maintenanceRef,
  requestNotBefore,
  rfc3339Seconds,
} from '../api/index.ts';
import type { Action, NodeConditionWrite, NodeMaintenance } from '../api/index.ts';

/** One condition kmaint wants on a node: its status and reason (the message names the request). */
export interface DesiredCondition {
  type: NodeCondition;
  status: 'True' | 'False';
  reason: string;
}

const { MaintenancePlanned, MaintenanceInProgress, DrainInProgress, Drained } = NodeCondition;
const R = NodeConditionReason;

/** Admitted, not started: planned; nothing else yet. */
const PLANNED: readonly DesiredCondition[] = [
  { type: MaintenancePlanned, status: 'True', reason: R.MaintenanceScheduled },
  { type: MaintenanceInProgress, status: 'False', reason: R.MaintenanceScheduled },
  { type: DrainInProgress, status: 'False', reason: R.DrainNotStarted },
  { type: Drained, status: 'False', reason: R.DrainNotStarted },
];
/** From the cordon: the maintenance has started (no longer only planned), no eviction yet. */
const STARTED: readonly DesiredCondition[] = [
  { type: MaintenancePlanned, status: 'False', reason: R.MaintenanceStarted },
  { type: MaintenanceInProgress, status: 'True', reason: R.MaintenanceStarted },
  { type: DrainInProgress, status: 'False', reason: R.DrainNotStarted },
  { type: Drained, status: 'False', reason: R.DrainNotStarted },
];
const DRAINING: readonly DesiredCondition[] = [
  { type: MaintenancePlanned, status: 'False', reason: R.MaintenanceStarted },
  { type: MaintenanceInProgress, status: 'True', reason: R.MaintenanceStarted },
  { type: DrainInProgress, status: 'True', reason: R.EvictingPods },
  { type: Drained, status: 'False', reason: R.EvictingPods },
];
/** Ready (and RequestorFailed, which is still the requestor's maintenance): drained, maintenance under way. */
const DRAINED: readonly DesiredCondition[] = [
  { type: MaintenancePlanned, status: 'False', reason: R.MaintenanceStarted },
  { type: MaintenanceInProgress, status: 'True', reason: R.MaintenanceStarted },
  { type: DrainInProgress, status: 'False', reason: R.DrainCompleted },
  { type: Drained, status: 'True', reason: R.DrainCompleted },
];

/** By phase, in the order a request meets them (the index ranks requests sharing a node); absent phases show nothing. */
const BY_PHASE: ReadonlyArray<readonly [string, readonly DesiredCondition[]]> = [
  [Phase.Scheduled, PLANNED],
  [Phase.Cordon, STARTED],
  [Phase.WaitForPodCompletion, STARTED],
  [Phase.Draining, DRAINING],
  [Phase.Ready, DRAINED],
  [Phase.RequestorFailed, DRAINED],
];

/** The conditions a node shows for a request in `phase`: none before admission, and none while being deleted. */
export function desiredNodeConditions(phase: string): readonly DesiredCondition[] {
  return BY_PHASE.find(([p]) => p === phase)?.[1] ?? [];
}

function rankOf(phase: string): number {
  return BY_PHASE.findIndex(([p]) => p === phase);
}

/** The message of kmaint's conditions: its ownership mark and the request they come from (with its not-before, when set). */
export function nodeConditionMessage(nm: NodeMaintenance): string {
  const notBefore = requestNotBefore(nm);
  const when = notBefore.kind === 'valid' ? `, not before ${rfc3339Seconds(notBefore.at)}` : '';
  return `${NODE_CONDITION_MESSAGE_PREFIX}NodeMaintenance ${maintenanceKey(nm)} (requestor ${nm.spec.requestorID}${when})`;
}

/**
 * Advance notice (issue 21): a request not admitted yet that has a kmaint.io/not-before shows as planned (as if
 * Scheduled) from not-before minus the lead time on, so consumers of MaintenancePlanned (Rook, autoscalers) hear early.
 */
function plannedAhead(nm: NodeMaintenance, phase: string, leadSeconds: number, now: Date): boolean {
  if (phase !== Phase.Pending && phase !== PHASE_UNINITIALIZED) return false;
  const notBefore = requestNotBefore(nm);
  return notBefore.kind === 'valid' && now.getTime() >= notBefore.at.getTime() - leadSeconds * 1000;
}

export interface NodeConditionsInput {
  nodes: readonly V1Node[];
  maintenances: readonly NodeMaintenance[];
  /** Phases this pass's writes move requests to, by namespace/name; requests it deletes or releases map to ''. */
  phaseAfter: ReadonlyMap<string, string>;
  /** spec.nodeConditions: when false, only the removal of kmaint's own conditions is planned. */
  enabled: boolean;
  /** spec.maintenancePlannedLeadSeconds: a not-before request's node shows MaintenancePlanned this long ahead. @default 3600 */
  plannedLeadSeconds?: number;
  /** Nodes whose conditions this pass leaves to the next one (nodesCordoned): none planned for them. @default none */
  later?: ReadonlySet<string>;
  now: Date;
}

/** The request whose phase a node shows: the furthest on among its live requests, then the first by namespace/name. */
function showingRequest(requests: readonly NodeMaintenance[], input: NodeConditionsInput): { nm: NodeMaintenance; phase: string } | undefined {
  const { phaseAfter } = input;
  let best: { nm: NodeMaintenance; phase: string } | undefined;
  for (const nm of requests) {
    if (nm.metadata.deletionTimestamp) continue;
    if (phaseAfter.get(maintenanceKey(nm)) === '') continue;
    const after = phaseAfter.get(maintenanceKey(nm)) ?? maintenancePhase(nm);
    const phase = plannedAhead(nm, after, input.plannedLeadSeconds ?? 3600, input.now) ? Phase.Scheduled : after;
    if (rankOf(phase) < 0) continue;
    if (best === undefined || rankOf(phase) > rankOf(best.phase)) best = { nm, phase };
  }
  return best;
}

/** What to set and remove so that `current` shows `desired`: another writer's condition of a type is never touched. */
export function conditionChanges(current: readonly V1NodeCondition[], desired: readonly DesiredCondition[], message: string, now: Date): { set: NodeConditionWrite[]; remove: string[] } {
  const set: NodeConditionWrite[] = [];
  const remove: string[] = [];
  const at = rfc3339Seconds(now);
  for (const type of NODE_CONDITION_TYPES) {
    const have = current.find((c) => c.type === type);
    if (have !== undefined && !isOwnNodeCondition(have)) continue; // theirs: neither overwritten nor removed
    const want = desired.find((d) => d.type === type);
    if (want === undefined) {
      if (have !== undefined) remove.push(type);
      continue;
    }
    if (have !== undefined && have.status === want.status && have.reason === want.reason && have.message === message) continue;
    const since = have !== undefined && have.status === want.status && have.lastTransitionTime !== undefined ? rfc3339Seconds(new Date(have.lastTransitionTime)) : at;
    set.push({ type, status: want.status, reason: want.reason, message, lastTransitionTime: since, lastHeartbeatTime: at });
  }
  return { set, remove };
}

/**
 * One patch per node whose kmaint conditions differ from what its request's phase after this pass asks for; nodes
 * without a live request lose kmaint's own conditions (a release, or one a crashed pass left). The patch joins the
 * showing request's unit, after its status write, so a node never shows a phase its request did not reach. Nodes in
 * `later` (cordoned by this pass) are left to the next pass.
 */
export function planNodeConditions(input: NodeConditionsInput): Action[] {
  const byNode = new Map<string, NodeMaintenance[]>();
  for (const nm of [...input.maintenances].sort((a, b) => (maintenanceKey(a) < maintenanceKey(b) ? -1 : 1))) {
    byNode.set(nm.spec.nodeName, [...(byNode.get(nm.spec.nodeName) ?? []), nm]);
  }
  const actions: Action[] = [];
  for (const node of input.nodes) {
    const name = node.metadata?.name ?? '';
    if (input.later?.has(name) === true) continue;
    const current = node.status?.conditions ?? [];
    const requests = byNode.get(name) ?? [];
    const showing = input.enabled ? showingRequest(requests, input) : undefined;
    const desired = showing ? desiredNodeConditions(showing.phase) : [];
    const { set, remove } = conditionChanges(current, desired, showing ? nodeConditionMessage(showing.nm) : '', input.now);
    if (set.length === 0 && remove.length === 0) continue;
    const nodeRef = { name, resourceVersion: node.metadata?.resourceVersion ?? '' };
    const reason = showing ? `node shows ${showing.nm.metadata.namespace ?? ''}/${showing.nm.metadata.name} at ${showing.phase}` : input.enabled ? 'no request in maintenance on the node: remove the conditions kmaint set' : 'spec.nodeConditions is false: remove the conditions kmaint set';
    // A removal joins the unit of a request being released here, and goes before its uncordon (removalsBeforeUncordons).
    const unit = showing?.nm ?? requests[0];
    actions.push({ kind: 'patchNodeConditions', node: nodeRef, set, remove, ...(unit ? { maintenance: maintenanceRef(unit) } : {}), reason });
  }
  return actions;
}

/**
 * The nodes a plan cordons. Their conditions wait for the next pass: the node lifecycle controller answers a cordon
 * within milliseconds with a write of its own (the node.kubernetes.io/unschedulable taint), so a conditions patch
 * preconditioned on the cordon's resourceVersion is refused with a 409 (bench:peers: every cordon, 25 of 25) and costs a
 * write that changes nothing. The next pass plans them on the node as the taint left it.
 */
export function nodesCordoned(actions: readonly Action[]): Set<string> {
  return new Set(actions.flatMap((a) => (a.kind === 'cordonNode' ? [a.node.name] : [])));
}

/** A release's condition removal goes before its uncordon: the rule lives with the others in shared/api/write-order.ts. */
export { removalsBeforeUncordons } from '../api/index.ts';

/** The phases a plan's writes move requests to ('' for those it deletes or releases), for planNodeConditions. */
export function phasesAfter(actions: readonly Action[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const a of actions) {
    if (a.kind === 'writeStatus' && a.phaseTo !== undefined) out.set(namespacedName(a.target), a.phaseTo);
    if (a.kind === 'deleteMaintenance' || (a.kind === 'patchMaintenanceMeta' && a.removeFinalizer === true)) out.set(namespacedName(a.target), '');
  }
  return out;
}
