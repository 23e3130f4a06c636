// The drainer's pure plan: Scheduled -> Cordon -> WaitForPodCompletion -> Draining -> Ready (<-> RequestorFailed),
// advancing each request as far as the snapshot allows in one pass, one step per phase (steps/) in an ordered table.
import { isDeepStrictEqual } from 'node:util';
import type { V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import {
  ANNOTATION_CORDON_REASON,
  ANNOTATION_CORDONED_BY,
  ANNOTATION_MEDIK8S_LEASE,
  ANNOTATION_WAIT_KIND,
  DRAINER_PHASES,
  EVENT_REASON_CONDITION_CHANGED,
  PHASE_REBOOTING,
  Phase,
  maintenanceKey,
  maintenancePhase,
  maintenanceRef,
  requestUnit,
  withReadyCondition,
} from '../api/index.ts';
import type { Action, MaintenanceRef, NodeMaintenance, NodeMaintenanceStatus, WaitKind, WaitingOn } from '../api/index.ts';
import { BudgetLedger } from './budgets.ts';
import { gangMembersNotAdmitted } from './gang-hold.ts';
import { holdsAdmission } from '../scheduling/index.ts';
import { reportDeadNode, type OutOfServiceConfig } from './dead-node.ts';
import { cordonedBy, holderFor, leaseWrite, nodeLeaseName, viewLease, type Medik8sLeases } from './node-lease.ts';
import type { SlurmContext, SlurmWrite } from '../slurm/index.ts';
import { referencesClaims, unreadableClaimsMessage, type DraView, type OwnPods } from '../drain/index.ts';
import { cordon } from './steps/cordon.ts';
import { byScope, drainDevices, taintDevices } from './steps/device-steps.ts';
import { drain, unreadableSelectorMessage } from './steps/evict-pods.ts';
import { finalize } from './steps/finalize.ts';
import { behindDevicesTaint } from './steps/free-devices.ts';
import { recordReady } from './steps/ready.ts';
import { reboot, rebootAfter } from './steps/reboot.ts';
import type { LoadedReboot } from '../reboot/index.ts';
import type { DrainerStep, StepContext, StepResult } from './steps/step.ts';
import { waitForCompletion } from './steps/wait-for-completion.ts';

export interface DrainerSnapshot {
  nodes: ReadonlyMap<string, V1Node>;
  maintenances: readonly NodeMaintenance[];
  /** Pods by node name, for the nodes of requests in PHASES_NEEDING_PODS. */
  podsByNode: ReadonlyMap<string, readonly V1Pod[]>;
  pdbs: readonly V1PodDisruptionBudget[];
  /** By budget key: the pods of budgets that allow no eviction (budgetsToExplain), to say why they hold. */
  budgetPods?: ReadonlyMap<string, readonly V1Pod[]>;
  /** The medik8s node leases; undefined reads as a cluster without the medik8s-leases namespace. */
  medik8s?: Medik8sLeases;
  /** spec.slurm when enabled: its settings and the Slurm nodes as read this pass; undefined = Slurm off. */
  slurm?: SlurmContext;
  /** The pass's ResourceClaims and driver-to-resource-name table; undefined: filters see requested resources only. */
  dra?: DraView;
  /** kmaint's own pods (its namespace and ServiceAccounts), never drained; undefined: no pod is kmaint's. */
  ownPods?: OwnPods;
  /** spec.outOfServiceTaint; undefined reads as off with the default threshold. */
  outOfService?: OutOfServiceConfig;
  /** kmaint's namespace, where its own reap requests are (forceRetryOnError); undefined: no request is force-deleted. */
  namespace?: string;
  /** spec.gangNodeLabel, so gangs by node label are held like gangs by request label (gang-hold.ts). */
  gangNodeLabel?: string;
  /** spec.reboot (issue 43); undefined: not read, and a request asking for a reboot holds in Rebooting, issuing none. */
  reboot?: LoadedReboot;
}

export interface DrainerPlan {
  actions: Action[];
  /** Drains to send to slurmrestd (each already recorded on its request in an earlier pass). */
  slurm: SlurmWrite[];
  /** Requests still moving (waiting for pods, draining): another pass soon is useful. */
  inFlight: number;
  /** Requests that reached Ready in this plan. */
  becameReady: number;
  idle: boolean;
}

/** Lives with the Draining step, which says it; exported here as before (`kmaint explain` says it too). */
export { unreadableSelectorMessage };

/**
 * The Draining step behind the pass's DRA read. podEvictionFilters match pods by their DRA devices too, so a filtered
 * drain of a node whose pods reference ResourceClaims cannot choose while the claims could not be read: it holds and
 * says why, before the Slurm gate (no Slurm node is drained for a drain that cannot start). Every other drain goes on.
 */
function drainBehindClaims(ctx: StepContext): StepResult {
  const problem = ctx.dra?.unreadable;
  const filtered = (ctx.nm.spec.drainSpec?.podEvictionFilters ?? []).length > 0;
  // drainSpec.freeDevices finds device users by their claims too (issue 45), unless told not to (dra: false).
  const frees = ctx.nm.spec.drainSpec?.freeDevices !== undefined && ctx.nm.spec.drainSpec.freeDevices.dra !== false;
  if (problem === undefined || !(filtered || frees) || !ctx.pods.some(referencesClaims)) return drain(ctx);
  return { kind: 'hold', message: unreadableClaimsMessage(problem, ctx.pods, filtered ? 'podEvictionFilters' : 'drainSpec.freeDevices'), inFlight: true };
}

/**
 * The drainer's state machine as an ordered table: the order IS the state machine. A request enters at the entry of
 * its phase; a step's `advance` moves it on to a later entry within the same pass, so one pass walks as far as the
 * snapshot allows, and a walk never revisits an entry: it ends within one sweep of the table, with no counter to cap it.
 * `advance` to a phase of the same entry (Ready <-> RequestorFailed) or an earlier one ends the walk there.
 */
const STEPS: readonly { phases: readonly string[]; step: DrainerStep }[] = [
  // First: the finalizer and owner reference are asked for before anything touches the node.
  { phases: [Phase.Scheduled], step: finalize },
  // Before any pod moves: the node's prior state recorded, another tool's lease respected, no new pod let in.
  { phases: [Phase.Cordon], step: byScope(cordon, taintDevices) },
  // On a cordoned node, before any eviction: the pods the requestor named get to finish on their own.
  { phases: [Phase.WaitForPodCompletion], step: waitForCompletion },
  // After the wait: evict what is left, within budgets and behind the Slurm gate (then Rebooting if the request asks).
  // With drainSpec.freeDevices, its taint first, in a pass of its own (steps/free-devices.ts). A device request (issue
  // 45) takes its devices out of service instead of its node: tainted in Cordon's place, their holders drained in
  // Draining's (steps/device-steps.ts).
  { phases: [Phase.Draining], step: byScope(rebootAfter(behindDevicesTaint(drainBehindClaims)), drainDevices) },
  // Once drained, before the node is the requestor's: reboot it if asked (kmaint.io/reboot), still under every limit.
  { phases: [PHASE_REBOOTING], step: reboot },
  // Last, one entry for both: the node is the requestor's, and its verdict may switch between the two any pass.
  { phases: [Phase.Ready, Phase.RequestorFailed], step: recordReady },
];

function entryOf(phase: string): number {
  return STEPS.findIndex((e) => e.phases.includes(phase));
}

/** Where a walk through the table left one request. */
interface Walk {
  phase: string;
  /** The phases advanced to, in order: one ConditionChanged event each. */
  passed: string[];
  /** Every step's result, in order: their writes. */
  results: StepResult[];
  status: NodeMaintenanceStatus;
  message: string;
  inFlight: boolean;
  /** The holding step's wait on another system (kmaint.io/wait-kind). */
  wait?: WaitKind;
  /** The holding step's wait in kmaint's terms (kmaint.io/Waiting). */
  on?: WaitingOn;
}

/** Runs the step of the request's phase and follows each `advance` down the table until a `hold` or the end. */
function walkSteps(base: Omit<StepContext, 'phase' | 'status'>, start: string, status: NodeMaintenanceStatus): Walk {
  const walk: Walk = { phase: start, passed: [], results: [], status, message: '', inFlight: false };
  for (let at = entryOf(start); at >= 0; ) {
    const entry = STEPS[at];
    if (entry === undefined) break;
    const result = entry.step({ ...base, phase: walk.phase, status: walk.status });
    walk.results.push(result);
    if (result.status !== undefined) walk.status = result.status;
    // A hold without words of its own (Ready's) shows what the step that advanced into it had to say.
    if (result.kind === 'hold') return { ...walk, message: result.message || walk.message, inFlight: result.inFlight, ...(result.wait ? { wait: result.wait } : {}), ...(result.on ? { on: result.on } : {}) };
    walk.message = result.note ?? '';
    walk.phase = result.to;
    walk.passed.push(result.to);
    const next = entryOf(result.to);
    at = next > at ? next : -1;
  }
  return walk;
}

/**
 * While the maintenance holds the node: renew our medik8s lease when half of it is used up, and drop our cordon record
 * once someone has uncordoned the node (a later cordon is then theirs, and cleanup leaves it).
 */
function keepHold(nm: NodeMaintenance, node: V1Node, medik8s: Medik8sLeases | undefined, ref: MaintenanceRef, now: Date): Action[] {
  const out: Action[] = [];
  const holder = holderFor(nm);
  const nodeRef = { name: node.metadata?.name ?? '', resourceVersion: node.metadata?.resourceVersion ?? '' };
  if (cordonedBy(node) === holder && node.spec?.unschedulable !== true) {
    out.push({ kind: 'patchNodeAnnotations', node: nodeRef, annotations: { [ANNOTATION_CORDONED_BY]: null, [ANNOTATION_CORDON_REASON]: null }, maintenance: ref, reason: 'node uncordoned by someone else: the cordon is no longer ours' });
  }
  if (medik8s?.kind === 'present' && nm.metadata.annotations?.[ANNOTATION_MEDIK8S_LEASE] !== undefined) {
    const view = viewLease(medik8s.leases.get(nodeLeaseName(nodeRef.name)), holder, now);
    if (view.state === 'ours' && view.renewDue) out.push({ kind: 'takeNodeLease', lease: leaseWrite(node, view, holder, now), maintenance: ref, reason: 'renew the medik8s node lease' });
  }
  return out;
}

/** One request's plan: its actions and whether it is still in flight. */
interface PlannedRequest {
  actions: Action[];
  slurm: SlurmWrite[];
  inFlight: boolean;
  ready: boolean;
}

/** Plans one request: walks the steps, then assembles their writes in the order the applier relies on. */
function planOne(nm: NodeMaintenance, node: V1Node, snapshot: DrainerSnapshot, ledger: BudgetLedger, now: Date): PlannedRequest {
  const ref = maintenanceRef(nm);
  const eventTarget = { kind: 'NodeMaintenance' as const, namespace: ref.namespace, name: ref.name, ...(ref.uid ? { uid: ref.uid } : {}) };
  const start = maintenancePhase(nm);
  const nodeRef = { name: node.metadata?.name ?? '', resourceVersion: node.metadata?.resourceVersion ?? '' };
  const pods = snapshot.podsByNode.get(nodeRef.name) ?? [];
  const base = { nm, node, nodeRef, ref, eventTarget, pods, medik8s: snapshot.medik8s, slurm: snapshot.slurm, dra: snapshot.dra, ownPods: snapshot.ownPods, ledger, now, ...(snapshot.namespace !== undefined ? { kmaintNamespace: snapshot.namespace } : {}), ...(snapshot.reboot ? { reboot: snapshot.reboot } : {}) };
  const walk = walkSteps(base, start, structuredClone(nm.status ?? {}));
  const { results } = walk;
  const nodeActions = results.flatMap((r) => r.nodeActions ?? []);
  // A drain held on a dead node: say so, and add the out-of-service taint when configured (dead-node.ts).
  const dead = walk.phase === Phase.Draining ? reportDeadNode(nm, node, nodeRef, ref, pods, snapshot.outOfService ?? { enabled: false, afterNotReadySeconds: 300 }, now) : undefined;
  if (dead) {
    walk.message = walk.message === '' ? dead.note : `${walk.message}; ${dead.note}`;
    nodeActions.push(...dead.actions.filter((a) => a.kind !== 'emitEvent'));
  }
  if (start !== Phase.Scheduled && start !== Phase.Cordon) nodeActions.push(...keepHold(nm, node, snapshot.medik8s, ref, now));

  // The order of these parts in the request's unit: shared/api/write-order.ts requestUnit.
  const actions = requestUnit({
    meta: metaPatchOf(ref, results, waitKindWrite(nm, walk.wait ?? dead?.wait)),
    node: nodeActions,
    pods: results.flatMap((r) => r.podActions ?? []),
    status: statusWriteOf(nm, ref, start, walk, now),
    events: [
      ...walk.passed.map((p): Action => ({ kind: 'emitEvent', target: eventTarget, type: 'Normal', eventReason: EVENT_REASON_CONDITION_CHANGED, message: p, reason: `phase ${p}` })),
      ...results.flatMap((r) => r.warnings ?? []),
      ...(dead?.actions.filter((a) => a.kind === 'emitEvent') ?? []),
    ],
  });
  return { actions, slurm: results.flatMap((r) => r.slurm ?? []), inFlight: walk.inFlight, ready: walk.passed.includes(Phase.Ready) };
}

/** kmaint.io/wait-kind as this pass leaves it: written when the kind changes, removed when no such wait holds. */
function waitKindWrite(nm: NodeMaintenance, wait: WaitKind | undefined): Record<string, string | null> {
  const current = nm.metadata.annotations?.[ANNOTATION_WAIT_KIND];
  if (current === wait) return {};
  return { [ANNOTATION_WAIT_KIND]: wait ?? null };
}

/** The request's one metadata patch (annotations merged in step order, finalizer, owner), first in its unit; or none. */
function metaPatchOf(ref: MaintenanceRef, results: readonly StepResult[], wait: Record<string, string | null>): Action | undefined {
  const annotations: Record<string, string | null> = Object.assign({}, ...results.map((r) => r.annotations ?? {}), wait);
  const addFinalizer = results.some((r) => r.addFinalizer === true);
  const ownerNode = results.find((r) => r.ownerNode !== undefined)?.ownerNode;
  if (!addFinalizer && !ownerNode && Object.keys(annotations).length === 0) return undefined;
  return {
    kind: 'patchMaintenanceMeta',
    target: ref,
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    ...(addFinalizer ? { addFinalizer: true } : {}),
    ...(ownerNode ? { ownerNode } : {}),
    reason: addFinalizer ? 'finalizer before touching the node' : 'record progress',
  };
}

/** The status write, when the Ready condition or the rest of the status changed; or none. */
function statusWriteOf(nm: NodeMaintenance, ref: MaintenanceRef, start: string, walk: Walk, now: Date): Action | undefined {
  const { phase, status, message } = walk;
  const withStatus: NodeMaintenance = { ...nm, status };
  const cond = withReadyCondition(withStatus, { status: phase === Phase.Ready ? 'True' : 'False', reason: phase, message }, now, walk.on);
  // Structural, not JSON text: the API server returns custom resources with their keys sorted, so a freshly built
  // status.drain ({totalPods, …}) never equals the stored one ({drainProgress, …}) as a string.
  const statusChanged = cond !== undefined || !isDeepStrictEqual(status, nm.status ?? {});
  if (!statusChanged) return undefined;
  return {
    kind: 'writeStatus',
    target: ref,
    status: cond ?? status,
    ...(phase !== start ? { phaseFrom: start, phaseTo: phase } : {}),
    reason: phase !== start ? `${start} -> ${phase}` : message || 'status update',
  };
}

/** Plans every request the drainer owns, in namespace/name order. Pure: inputs are not mutated. */
export function planDrainer(snapshot: DrainerSnapshot, now: Date): DrainerPlan {
  const ledger = new BudgetLedger(snapshot.pdbs, snapshot.budgetPods);
  const actions: Action[] = [];
  const slurm: SlurmWrite[] = [];
  let inFlight = 0;
  let becameReady = 0;
  const owned = snapshot.maintenances
    // Admitted by kmaint's record on the Node (issue 40), never by the phase alone: a requestor may write status.
    .filter((nm) => !nm.metadata.deletionTimestamp && DRAINER_PHASES.has(maintenancePhase(nm)) && holdsAdmission(nm, snapshot.nodes.get(nm.spec.nodeName)))
    .sort((a, b) => (maintenanceKey(a) < maintenanceKey(b) ? -1 : maintenanceKey(a) > maintenanceKey(b) ? 1 : 0));
  for (const nm of owned) {
    const node = snapshot.nodes.get(nm.spec.nodeName);
    if (!node) continue; // cleanup releases requests whose node is gone
    // A gang's member is not cordoned before its whole gang is admitted (issue 30); the scheduler completes it first.
    if (maintenancePhase(nm) === Phase.Scheduled && gangMembersNotAdmitted(nm, snapshot.maintenances, snapshot.nodes, snapshot.gangNodeLabel, snapshot.namespace).length > 0) continue;
    const one = planOne(nm, node, snapshot, ledger, now);
    actions.push(...one.actions);
    slurm.push(...one.slurm);
    if (one.inFlight) inFlight++;
    if (one.ready) becameReady++;
  }
  return { actions, slurm, inFlight, becameReady, idle: actions.length === 0 && slurm.length === 0 && inFlight === 0 };
}

// Not used by anything in the repository (shared/drain exports its own podKey); kept so this module's exports stay as they were.
function podKey(p: V1Pod): string {
  return `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;
}

export { podKey };
