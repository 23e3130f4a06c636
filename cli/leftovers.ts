// `kmaint leftovers`: every record kmaint (or, for a takeover, the upstream operator) left outside its own objects, as
// the owner table (docs/owner-table-tests.md) lists them, found by their marks alone, and the writes that remove
// kmaint's own. Pure: the caller reads the cluster and Slurm, and applies. Node records go through the orphan sweep's
// planner (shared/lifecycle/orphan-sweep.ts) with no live request: a cordon is lifted only where kmaint's cordon record
// says kmaint cordoned and managedFields do not show another manager's cordon since; anyone else's cordon stays.
import type { V1Job, V1Lease, V1Node, V1NodeCondition } from '@kubernetes/client-node';
import {
  ANNOTATION_ADMITTED,
  ANNOTATION_CORDON_REASON,
  ANNOTATION_CORDONED_BY,
  ANNOTATION_CURRENT_STATE,
  ANNOTATION_HANDSHAKE_PROBLEM,
  ANNOTATION_INITIAL_UNSCHEDULABLE,
  ANNOTATION_OUT_OF_SERVICE_BY,
  ANNOTATION_DEVICES_DRAINING_BY,
  TAINT_DEVICES_DRAINING,
  ANNOTATION_REAPED,
  ANNOTATION_REAPER_DECISION,
  ANNOTATION_REAPER_JOINED,
  ANNOTATION_REAPER_JOINED_PROVIDER_ID,
  ANNOTATION_REPAIR_HISTORY,
  ANNOTATION_REPAIR_RUNG,
  ANNOTATION_REPAIR_UNHEALTHY_SINCE,
  ANNOTATION_SRIOV_HANDSHAKE_PROBLEM,
  ANNOTATION_VALIDATION_CORDONED_BY,
  ANNOTATION_VALIDATION_FOR,
  ANNOTATION_VALIDATION_JOB,
  ANNOTATION_VALIDATION_OUTCOME,
  ANNOTATION_VALIDATION_START,
  CONDITION_VALIDATION_FAILED,
  CONDITION_WAITING,
  FINALIZER,
  KMAINT_FIELD_MANAGER,
  NODE_CONDITION_MESSAGE_PREFIX,
  NODE_CONDITION_TYPES,
  SLINKY_NODE_CORDON_REASON,
  TAINT_OUT_OF_SERVICE,
  ValidationFailedReason,
  isBeingDeleted,
  isKmaintNodeRequest,
  maintenanceRef,
} from '../shared/api/index.ts';
import { maintenanceKey, type Action, type NodeMaintenance } from '../shared/api/index.ts';
import { cordonIsOurs, findNodeOrphans, planOrphanSweep, recordOwner } from '../shared/lifecycle/index.ts';
import type { DeviceTaintRuleObject } from '../shared/kube/index.ts';
import type { Leftover } from './leftover-row.ts';
import { deviceTaintRuleLeftovers, jobLeftovers } from './leftovers-objects.ts';
import { KMAINT_CORDON_REASON_PREFIX, drainOwner, hasDrainFlag, reservationOwner, type SlurmNodeInfo, type SlurmReservationInfo } from '../shared/slurm/index.ts';

export type { Leftover, LeftoverOwner } from './leftover-row.ts';

/** A Slurm write --fix sends. */
export type SlurmFix = { kind: 'undrain'; node: string } | { kind: 'deleteReservation'; name: string };

export interface LeftoversInput {
  nodes: readonly V1Node[];
  maintenances: readonly NodeMaintenance[];
  /** The Leases of the medik8s-leases namespace (none when it does not exist). */
  leases: readonly V1Lease[];
  /** kmaint's namespace: where its own requests (reap-, cloud-event-, sriov-, handshake-) are told apart. */
  kmaintNamespace: string;
  /** The Jobs of kmaint's namespace (its reboot and validation Jobs among them). */
  jobs?: readonly V1Job[];
  /** The DeviceTaintRules, when the cluster serves them and they were read. */
  deviceTaintRules?: readonly DeviceTaintRuleObject[];
  /** What slurmrestd lists, when one was given. */
  slurm?: { nodes: readonly SlurmNodeInfo[]; reservations: readonly SlurmReservationInfo[]; reasonPrefix: string };
}

export interface LeftoversPlan {
  /** In object order, then record order. */
  found: Leftover[];
  actions: Action[];
  slurm: SlurmFix[];
}

/**
 * Node annotations only kmaint writes (a requestor or agent never does: they cannot, or write other keys), besides the
 * cordon, admission and out-of-service records the orphan sweep removes with what they mark.
 */
const KMAINT_NODE_RECORDS = [
  ANNOTATION_CORDON_REASON,
  ANNOTATION_REAPER_DECISION,
  ANNOTATION_REAPED,
  ANNOTATION_REAPER_JOINED,
  ANNOTATION_REAPER_JOINED_PROVIDER_ID,
  ANNOTATION_CURRENT_STATE,
  ANNOTATION_HANDSHAKE_PROBLEM,
  ANNOTATION_SRIOV_HANDSHAKE_PROBLEM,
  // The reaper's repair ladder (issue 44): unhealthy-since, the rung, the fault history.
  ANNOTATION_REPAIR_UNHEALTHY_SINCE,
  ANNOTATION_REPAIR_RUNG,
  ANNOTATION_REPAIR_HISTORY,
  // Validation's (issue 44). Its kept cordon is not lifted here: the node failed its validation, so the cordon stays
  // (an administrator's to lift) and only kmaint's record of it goes.
  ANNOTATION_VALIDATION_JOB,
  ANNOTATION_VALIDATION_FOR,
  ANNOTATION_VALIDATION_START,
  ANNOTATION_VALIDATION_OUTCOME,
  ANNOTATION_VALIDATION_CORDONED_BY,
] as const;
/** Removed by the orphan sweep's writes, with the cordon or taint they record. */
const SWEPT_NODE_RECORDS = [ANNOTATION_CORDONED_BY, ANNOTATION_CORDON_REASON, ANNOTATION_ADMITTED, ANNOTATION_OUT_OF_SERVICE_BY, ANNOTATION_DEVICES_DRAINING_BY, SLINKY_NODE_CORDON_REASON] as const;

const nameOf = (o: { metadata?: { name?: string } }): string => o.metadata?.name ?? '';
const byName = <T extends { metadata?: { name?: string } }>(items: readonly T[]): T[] => [...items].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));

/**
 * kmaint's node conditions: the KEP-5683 ones by their `kmaint: ` message, and a failed validation's
 * KmaintValidationFailed (kmaint's own type) by its reason. Listed and removed; a validation's kept cordon stays.
 */
function isKmaintCondition(c: V1NodeCondition): boolean {
  if (c.type === CONDITION_VALIDATION_FAILED) return (Object.values(ValidationFailedReason) as string[]).includes(c.reason ?? '');
  return (NODE_CONDITION_TYPES as readonly string[]).includes(c.type) && (c.message ?? '').startsWith(NODE_CONDITION_MESSAGE_PREFIX);
}

/** Upstream's cordon: a cordoned Node without kmaint's record, whose request says the Node was schedulable before. */
export function upstreamCordons(nodes: readonly V1Node[], maintenances: readonly NodeMaintenance[]): Array<{ node: string; request: NodeMaintenance }> {
  const out: Array<{ node: string; request: NodeMaintenance }> = [];
  for (const node of byName(nodes)) {
    if (node.spec?.unschedulable !== true || node.metadata?.annotations?.[ANNOTATION_CORDONED_BY] !== undefined) continue;
    const request = maintenances.find((nm) => nm.spec.nodeName === nameOf(node) && nm.spec.cordon !== false && nm.metadata.annotations?.[ANNOTATION_INITIAL_UNSCHEDULABLE] === 'false');
    if (request !== undefined) out.push({ node: nameOf(node), request });
  }
  return out;
}

function nodeLeftovers(node: V1Node, out: Leftover[], fieldManager: string): void {
  const name = nameOf(node);
  const object = `Node/${name}`;
  const annotations = node.metadata?.annotations ?? {};
  const ours = recordOwner(annotations[ANNOTATION_CORDONED_BY]) !== undefined;
  if (ours && node.spec?.unschedulable === true && cordonIsOurs(node, fieldManager)) out.push({ object, record: 'cordon', value: annotations[ANNOTATION_CORDONED_BY] ?? '', owner: 'kmaint' });
  for (const key of [ANNOTATION_CORDONED_BY, ANNOTATION_ADMITTED, ANNOTATION_OUT_OF_SERVICE_BY, ANNOTATION_DEVICES_DRAINING_BY, ...KMAINT_NODE_RECORDS]) {
    const value = annotations[key];
    if (value !== undefined) out.push({ object, record: key, value, owner: 'kmaint' });
  }
  const reason = annotations[SLINKY_NODE_CORDON_REASON];
  if (reason?.startsWith(KMAINT_CORDON_REASON_PREFIX) === true) out.push({ object, record: SLINKY_NODE_CORDON_REASON, value: reason ?? '', owner: 'kmaint' });
  if (recordOwner(annotations[ANNOTATION_OUT_OF_SERVICE_BY]) !== undefined) {
    for (const t of node.spec?.taints ?? []) if (t.key === TAINT_OUT_OF_SERVICE) out.push({ object, record: `taint ${t.key}`, value: `${t.value ?? ''}:${t.effect}`, owner: 'kmaint' });
  }
  // drainSpec.freeDevices' taint (issue 45): kmaint's while its record names a request; removed by the orphan sweep's write.
  if (recordOwner(annotations[ANNOTATION_DEVICES_DRAINING_BY]) !== undefined) {
    for (const t of node.spec?.taints ?? []) if (t.key === TAINT_DEVICES_DRAINING) out.push({ object, record: `taint ${t.key}`, value: `${t.value ?? ''}:${t.effect}`, owner: 'kmaint' });
  }
  for (const c of node.status?.conditions ?? []) if (isKmaintCondition(c)) out.push({ object, record: `condition ${c.type}`, value: c.status, owner: 'kmaint' });
}

/** The writes for one node beyond the orphan sweep's: kmaint's other annotations, then its conditions. */
function nodeFixes(node: V1Node): Action[] {
  const annotations = node.metadata?.annotations ?? {};
  const nodeRef = { name: nameOf(node), resourceVersion: node.metadata?.resourceVersion ?? '' };
  const swept = new Set<string>(recordOwner(annotations[ANNOTATION_CORDONED_BY]) !== undefined ? SWEPT_NODE_RECORDS : []);
  const drop = KMAINT_NODE_RECORDS.filter((k) => annotations[k] !== undefined && !swept.has(k));
  const conditions = (node.status?.conditions ?? []).filter(isKmaintCondition).map((c) => c.type);
  return [
    ...(drop.length > 0 ? [{ kind: 'patchNodeAnnotations' as const, node: nodeRef, annotations: Object.fromEntries(drop.map((k) => [k, null])), reason: `kmaint's records left on the node: ${drop.join(', ')}` }] : []),
    ...(conditions.length > 0 ? [{ kind: 'patchNodeConditions' as const, node: nodeRef, set: [], remove: conditions, reason: `kmaint's node conditions left: ${conditions.join(', ')}` }] : []),
  ];
}

/**
 * The status write that removes kmaint's `kmaint.io/Waiting` condition from a request (every other condition kept), or
 * undefined when it has none: what a waiting request waited on, which nobody keeps once kmaint is gone (leftovers) or
 * upstream runs instead (kmaint takeover --to nvidia).
 */
export function dropWaiting(nm: NodeMaintenance, why: string): Action | undefined {
  const conditions = nm.status?.conditions ?? [];
  const waiting = conditions.find((c) => c.type === CONDITION_WAITING);
  if (waiting === undefined) return undefined;
  return {
    kind: 'writeStatus',
    target: maintenanceRef(nm),
    status: { ...nm.status, conditions: conditions.filter((c) => c.type !== CONDITION_WAITING) },
    reason: `drop kmaint's ${CONDITION_WAITING} condition (${waiting.reason ?? ''}) from ${maintenanceKey(nm)}: ${why}`,
  };
}

function maintenanceLeftovers(input: LeftoversInput, found: Leftover[], actions: Action[]): void {
  const sorted = [...input.maintenances].sort((a, b) => (maintenanceKey(a) < maintenanceKey(b) ? -1 : 1));
  for (const nm of sorted) {
    const object = `NodeMaintenance/${nm.metadata.namespace ?? ''}/${nm.metadata.name}`;
    const own = isKmaintNodeRequest(nm, input.kmaintNamespace);
    if (own) found.push({ object, record: 'request', value: nm.spec.requestorID, owner: 'kmaint' });
    if (nm.metadata.finalizers?.includes(FINALIZER)) found.push({ object, record: 'finalizer', value: FINALIZER, owner: 'kmaint' });
    // A request being deleted goes with its finalizer, and kmaint's own requests are deleted: the condition goes with
    // them. On any other request it stays until written away.
    const waiting = own || isBeingDeleted(nm) ? undefined : dropWaiting(nm, 'with no kmaint, nothing keeps or clears it');
    if (waiting !== undefined) found.push({ object, record: `condition ${CONDITION_WAITING}`, value: nm.status?.conditions?.find((c) => c.type === CONDITION_WAITING)?.reason ?? '', owner: 'kmaint' });
    // The finalizer first: kmaint's own request, deleted after it, then goes at once.
    if (nm.metadata.finalizers?.includes(FINALIZER)) actions.push({ kind: 'patchMaintenanceMeta', target: maintenanceRef(nm), removeFinalizer: true, reason: "kmaint's finalizer, with no kmaint to release the request" });
    if (own && !isBeingDeleted(nm)) actions.push({ kind: 'deleteMaintenance', target: maintenanceRef(nm), reason: `kmaint's own request (${nm.spec.requestorID}), with no kmaint to finish it` });
    if (waiting !== undefined) actions.push(waiting);
  }
}

function leaseLeftovers(leases: readonly V1Lease[], found: Leftover[], actions: Action[]): void {
  for (const lease of byName(leases)) {
    const holder = lease.spec?.holderIdentity ?? '';
    const owner = recordOwner(holder);
    if (owner === undefined) continue;
    const namespace = lease.metadata?.namespace ?? '';
    found.push({ object: `Lease/${namespace}/${nameOf(lease)}`, record: 'holder', value: holder, owner: 'kmaint' });
    actions.push({ kind: 'releaseNodeLease', lease: { namespace, name: nameOf(lease), resourceVersion: lease.metadata?.resourceVersion ?? '' }, maintenance: owner, reason: `medik8s node lease held by ${holder}` });
  }
}

function slurmLeftovers(slurm: NonNullable<LeftoversInput['slurm']>, found: Leftover[], fixes: SlurmFix[]): void {
  for (const n of [...slurm.nodes].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!hasDrainFlag(n.state) || drainOwner(n.reason, slurm.reasonPrefix) === undefined) continue;
    found.push({ object: `SlurmNode/${n.name}`, record: 'drain', value: n.reason, owner: 'kmaint' });
    fixes.push({ kind: 'undrain', node: n.name });
  }
  for (const r of [...slurm.reservations].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (reservationOwner(r.name) === undefined) continue;
    found.push({ object: `SlurmReservation/${r.name}`, record: 'reservation', value: r.nodeList, owner: 'kmaint' });
    fixes.push({ kind: 'deleteReservation', name: r.name });
  }
}

/** Pure: what is left and the writes that remove kmaint's part of it (never upstream's, an admin's or a tenant's). */
export function planLeftovers(input: LeftoversInput, fieldManager: string = KMAINT_FIELD_MANAGER): LeftoversPlan {
  const found: Leftover[] = [];
  const nodes = byName(input.nodes);
  for (const node of nodes) nodeLeftovers(node, found, fieldManager);
  for (const { node, request } of upstreamCordons(input.nodes, input.maintenances)) {
    found.push({ object: `Node/${node}`, record: 'cordon', value: `upstream: ${request.metadata.namespace ?? ''}/${request.metadata.name} (${ANNOTATION_INITIAL_UNSCHEDULABLE}=false)`, owner: 'upstream' });
  }
  // Every kmaint record on a Node is an orphan once no kmaint runs: the sweep's own writes, with no request live.
  const byNode = new Map(nodes.map((n) => [nameOf(n), n]));
  const actions: Action[] = [...planOrphanSweep(byNode, findNodeOrphans(nodes, new Set()), fieldManager), ...nodes.flatMap(nodeFixes)];
  maintenanceLeftovers(input, found, actions);
  leaseLeftovers(input.leases, found, actions);
  jobLeftovers(input.jobs ?? [], found, actions);
  deviceTaintRuleLeftovers(input.deviceTaintRules ?? [], found, actions);
  const slurm: SlurmFix[] = [];
  if (input.slurm !== undefined) slurmLeftovers(input.slurm, found, slurm);
  found.sort((a, b) => (a.object < b.object ? -1 : a.object > b.object ? 1 : 0));
  return { found, actions, slurm };
}
