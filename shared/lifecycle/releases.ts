// Cleanup's decisions for one request, as an ordered table of releases: garbage collection of a live request, the
// release of one whose node is gone, and the release of a deleted one step by step (held for other requestors, for the
// medik8s lease, Slurm first, then the node, the lease, the request's records and last its finalizer). planCleanup
// walks it for every request, `kmaint explain` walks it for one: what cleanup waits on and will do come from here alone.
import type { V1Node } from '@kubernetes/client-node';
import { DRAINED_PHASES, maintenanceKey, maintenancePhase, maintenanceRef } from '../api/index.ts';
import type { Action, MaintenanceRef, NodeMaintenance, NodeRef } from '../api/index.ts';
import {
  KMAINT_FIELD_MANAGER,
  ANNOTATION_ADMITTED,
  ANNOTATION_CORDON_REASON,
  ANNOTATION_CORDON_RECORDED,
  ANNOTATION_CORDONED_BY,
  ANNOTATION_GC_IGNORE,
  ANNOTATION_INITIAL_UNSCHEDULABLE,
  ANNOTATION_MEDIK8S_LEASE,
  ANNOTATION_READY_TIME,
  FINALIZER,
  MEDIK8S_LEASE_NAMESPACE,
  ANNOTATION_OUT_OF_SERVICE_BY,
  TAINT_OUT_OF_SERVICE,
  Phase,
  SLINKY_NODE_CORDON_REASON,
} from '../api/index.ts';
import { hasOurCordonReason, planSlurmRelease, type SlurmContext, type SlurmRelease, type SlurmWrite } from '../slurm/index.ts';
import { admissionRecordDrop } from '../scheduling/index.ts';
import { cordonOwnership, sayTheirCordon } from './cordon-owner.ts';
import { releaseOutOfServiceTaint } from './dead-node.ts';
import { releaseDevicesDrainingTaint } from './devices-taint.ts';
import { cordonedBy, holderFor, nodeLeaseName, type Medik8sLeases } from './node-lease.ts';
import { releaseRebootJob } from './reboot-release.ts';
import { releaseDeviceTaintRules } from './device-release.ts';
import { releaseDelayHold } from './release-delay-hold.ts';
import { sayReleaseHeld } from './release-hold.ts';
import { validateBeforeUncordon, type ValidationReads } from './validate-release.ts';

/** What every release step reads: one request, its node, what the pass read around it, and what the steps before asked. */
export interface ReleaseContext {
  nm: NodeMaintenance;
  key: string;
  ref: MaintenanceRef;
  phase: string;
  /** kmaint's finalizer is on the request: kmaint has something to release. */
  ours: boolean;
  /** undefined: the node is gone. */
  node: V1Node | undefined;
  /** undefined reads as no medik8s leases read. */
  medik8s: Medik8sLeases | undefined;
  /** undefined = Slurm off. */
  slurm: SlurmContext | undefined;
  maxNodeMaintenanceTimeSeconds: number;
  /** spec.releaseDelaySeconds; 0: off. */
  releaseDelaySeconds: number;
  fieldManager: string;
  now: Date;
  /** Annotations of the request the steps before asked to drop, in table order; the finalizer's patch takes them. */
  dropFromRequest: readonly string[];
  /** spec.validation and the validation Jobs read (issue 44); undefined: validation off. */
  validation: ValidationReads | undefined;
  /** A step before asked the uncordon to leave the node cordoned (a failed validation, validate-release.ts). */
  keepCordoned: boolean;
}

/**
 * A step's verdict on one request. `go`: its part is done (its writes, possibly none), the next step follows. `hold`:
 * the finalizer stays and the steps after it wait for a later pass; `why` is what cleanup waits on. `end`: the walk ends
 * here for this request (its writes the last), counted as `released` or `collected` when it is one.
 */
export type ReleaseResult =
  | { kind: 'go'; actions?: readonly Action[]; dropFromRequest?: readonly string[]; keepCordoned?: true }
  | { kind: 'hold'; why: string; actions?: readonly Action[]; slurm?: readonly SlurmWrite[] }
  | { kind: 'end'; actions?: readonly Action[]; counts?: 'released' | 'collected' };

export interface ReleaseStep {
  /** How `kmaint explain` names it. */
  readonly name: string;
  /** Pure. */
  readonly step: (ctx: ReleaseContext) => ReleaseResult;
}

const GO: ReleaseResult = { kind: 'go' };
/** The request's own records its finalizer's patch drops, in this order, before those other steps asked for. */
const REQUEST_RECORDS = [ANNOTATION_INITIAL_UNSCHEDULABLE, ANNOTATION_MEDIK8S_LEASE, ANNOTATION_CORDON_RECORDED] as const;

const deleted = (ctx: ReleaseContext): boolean => ctx.nm.metadata.deletionTimestamp !== undefined;
const nodeRefOf = (ctx: ReleaseContext, node: V1Node): NodeRef => ({ name: ctx.nm.spec.nodeName, resourceVersion: node.metadata?.resourceVersion ?? '' });

/**
 * Keeps the finalizer while Slurm state the request made is being (or cannot be) released. With nothing sent to Slurm
 * (spec.slurm off or invalid, slurmrestd unreadable) nothing will change by itself: the request's Ready message says why.
 */
function holdForSlurm(ctx: ReleaseContext, release: Extract<SlurmRelease, { kind: 'hold' }>): ReleaseResult {
  const said = release.writes.length === 0 ? sayReleaseHeld(ctx.nm, ctx.ref, release.why, ctx.now) : undefined;
  return { kind: 'hold', why: release.why, slurm: release.writes, ...(said ? { actions: [said] } : {}) };
}

/**
 * A request whose node is gone: nothing left to undo on the Kubernetes node, but its Slurm drains and reservation outlive
 * it, so they are released first and hold the finalizer as on deletion (Kubernetes GC then removes the object).
 */
function releaseWithoutNode(ctx: ReleaseContext): ReleaseResult {
  if (!ctx.ours || ctx.node !== undefined) return GO;
  const release = planSlurmRelease(ctx.nm, ctx.slurm);
  if (release.kind === 'hold') return holdForSlurm(ctx, release);
  const dropped = release.dropAnnotations.length > 0 ? { annotations: Object.fromEntries(release.dropAnnotations.map((k) => [k, null])) } : {};
  return { kind: 'end', counts: 'released', actions: [{ kind: 'patchMaintenanceMeta', target: ctx.ref, ...dropped, removeFinalizer: true, reason: `node ${ctx.nm.spec.nodeName} no longer exists` }] };
}

/** A live request: only collected, and only when Ready (a RequestorFailed request waits for a person). */
function collectStale(ctx: ReleaseContext): ReleaseResult {
  if (deleted(ctx)) return GO;
  const { nm, phase, now, maxNodeMaintenanceTimeSeconds: max } = ctx;
  if (phase !== Phase.Ready || nm.metadata.annotations?.[ANNOTATION_GC_IGNORE] === 'true') return { kind: 'end' };
  const readyAt = Date.parse(nm.metadata.annotations?.[ANNOTATION_READY_TIME] ?? '');
  if (Number.isNaN(readyAt) || now.getTime() - readyAt < max * 1000) return { kind: 'end' };
  return { kind: 'end', counts: 'collected', actions: [{ kind: 'deleteMaintenance', target: ctx.ref, reason: `Ready for more than maxNodeMaintenanceTimeSeconds (${max} s)` }] };
}

/** A deleted request without kmaint's finalizer (or, without it, on no node): nothing of kmaint's to release. */
const oursToRelease = (ctx: ReleaseContext): ReleaseResult => (ctx.ours && ctx.node !== undefined ? GO : { kind: 'end' });

function heldForRequestors(ctx: ReleaseContext): ReleaseResult {
  const others = ctx.nm.spec.additionalRequestors ?? [];
  return DRAINED_PHASES.has(ctx.phase) && others.length > 0 ? { kind: 'hold', why: `waiting for additional requestors: ${others.join(', ')}` } : GO;
}

const leaseRecorded = (ctx: ReleaseContext): boolean => ctx.nm.metadata.annotations?.[ANNOTATION_MEDIK8S_LEASE] !== undefined;

/** Keeps the finalizer until the lease we took can be given back. */
function heldForLease(ctx: ReleaseContext): ReleaseResult {
  return leaseRecorded(ctx) && ctx.medik8s?.kind === 'unreadable' ? { kind: 'hold', why: `cannot read the medik8s node lease to release it: ${ctx.medik8s.message}` } : GO;
}

/** Slurm drains we recorded are lifted first; the finalizer stays until a later pass reads them undrained. */
function releaseSlurm(ctx: ReleaseContext): ReleaseResult {
  const release = planSlurmRelease(ctx.nm, ctx.slurm);
  return release.kind === 'hold' ? holdForSlurm(ctx, release) : { kind: 'go', dropFromRequest: release.dropAnnotations };
}

/**
 * The node annotations a deleted request takes back: its cordon record while the cordon is ours, its admission record
 * while it names this request, and the Slinky cordon reason while it still names this request (dropped with the
 * uncordon, on which Slinky undrains).
 */
function nodeRecordsToDrop(nm: NodeMaintenance, node: V1Node, ourCordon: boolean): Record<string, null> | undefined {
  // kmaint's admission record (issue 40) goes with the release, in the uncordon's own patch where there is one.
  const drop: Record<string, null> = { ...(ourCordon ? { [ANNOTATION_CORDONED_BY]: null, [ANNOTATION_CORDON_REASON]: null } : {}), ...admissionRecordDrop(nm, node) };
  if (hasOurCordonReason(node, maintenanceRef(nm))) drop[SLINKY_NODE_CORDON_REASON] = null;
  return Object.keys(drop).length > 0 ? drop : undefined;
}

/**
 * Undo only what kmaint's own record says it did: uncordon only while the node's kmaint.io/cordoned-by names this
 * request (written by kmaint alone, in its cordon's own patch, on a node that was schedulable). The request's
 * node-initial-state annotation is the requestor's to write (a preset "false" and the finalizer), so it never lifts a
 * cordon by itself: a cordon another tool or an administrator made, or made after someone uncordoned, stays. The record
 * can outlive kmaint's cordon (uncordoned by someone and cordoned again, the record left): the node's managedFields then
 * name another manager as the cordon's owner, and only the record goes (cordon-owner.ts).
 */
function uncordon(ctx: ReleaseContext): ReleaseResult {
  const { nm, node, key, ref } = ctx;
  // A failed validation kept the cordon and took its record over (validate-release.ts): nothing here is undone.
  if (node === undefined || ctx.keepCordoned) return GO;
  const nodeRef = nodeRefOf(ctx, node);
  const ourCordon = cordonedBy(node) === holderFor(nm);
  const dropRecord = nodeRecordsToDrop(nm, node, ourCordon);
  const ownership = ourCordon && node.spec?.unschedulable === true ? cordonOwnership(node, ctx.fieldManager) : undefined;
  if (ownership !== undefined && ownership.kind !== 'theirs') {
    // The record goes in the uncordon's own patch: a second node write would race the controllers reacting to it.
    return { kind: 'go', actions: [{ kind: 'uncordonNode', node: nodeRef, maintenance: ref, reason: `${key} deleted; node was schedulable before maintenance`, ...(dropRecord ? { annotations: dropRecord } : {}) }] };
  }
  if (dropRecord === undefined) return GO;
  const what = !ourCordon && ANNOTATION_ADMITTED in dropRecord ? 'its admission record' : 'its cordon record';
  const why = ownership?.kind === 'theirs' ? `${key} deleted; drop ${what}; ${sayTheirCordon(ownership.managers)}` : `${key} deleted; drop ${what}`;
  return { kind: 'go', actions: [{ kind: 'patchNodeAnnotations', node: nodeRef, annotations: dropRecord, maintenance: ref, reason: why }] };
}

/** The validation Job run on the node before its uncordon (issue 44, validate-release.ts). */
const validate = (ctx: ReleaseContext): ReleaseResult => validateBeforeUncordon(ctx);

/** The out-of-service taint this request added on a dead node (dead-node.ts). */
const removeOutOfServiceTaint = (ctx: ReleaseContext): ReleaseResult => (ctx.node === undefined ? GO : { kind: 'go', actions: releaseOutOfServiceTaint(ctx.nm, ctx.node, nodeRefOf(ctx, ctx.node), ctx.ref) });

/** The kmaint.io/devices-draining taint this request added for drainSpec.freeDevices (devices-taint.ts). */
function removeDevicesDrainingTaint(ctx: ReleaseContext): ReleaseResult {
  if (ctx.node === undefined) return GO;
  // Built from the same read as the out-of-service step's write just before it: never put that taint back.
  const outOfServiceGoes = ctx.node.metadata?.annotations?.[ANNOTATION_OUT_OF_SERVICE_BY] === holderFor(ctx.nm);
  return { kind: 'go', actions: releaseDevicesDrainingTaint(ctx.nm, ctx.node, nodeRefOf(ctx, ctx.node), ctx.ref, outOfServiceGoes ? [TAINT_OUT_OF_SERVICE] : []) };
}

/** spec.releaseDelaySeconds: the node is back; the finalizer stays for the delay after the release (release-delay-hold.ts). */
function holdForReleaseDelay(ctx: ReleaseContext): ReleaseResult {
  const verdict = releaseDelayHold(ctx.nm, ctx.ref, ctx.phase, ctx.releaseDelaySeconds, ctx.now);
  return verdict.kind === 'go' ? { kind: 'go', dropFromRequest: verdict.drop } : { kind: 'hold', why: verdict.why, actions: verdict.actions };
}

/** The reboot Job the request recorded (issue 43, reboot-release.ts); with the node gone, the Job (owned by the Node) went with it. */
const removeRebootJob = (ctx: ReleaseContext): ReleaseResult => (ctx.node === undefined ? GO : { kind: 'go', actions: releaseRebootJob(ctx.nm, ctx.ref) });

/** The DeviceTaintRules of a device request (issue 45, device-release.ts); with the node gone, they (owned by the Node) went with it. */
const removeDeviceTaintRules = (ctx: ReleaseContext): ReleaseResult => (ctx.node === undefined ? GO : { kind: 'go', actions: releaseDeviceTaintRules(ctx.nm, ctx.ref) });

/** Only a lease we still hold: one that expired and was taken by another tool is theirs now. */
function releaseLease(ctx: ReleaseContext): ReleaseResult {
  if (!leaseRecorded(ctx) || ctx.medik8s?.kind !== 'present') return GO;
  const name = nodeLeaseName(ctx.nm.spec.nodeName);
  const lease = ctx.medik8s.leases.get(name);
  if (!lease || lease.spec?.holderIdentity !== holderFor(ctx.nm)) return GO;
  return { kind: 'go', actions: [{ kind: 'releaseNodeLease', lease: { namespace: MEDIK8S_LEASE_NAMESPACE, name, resourceVersion: lease.metadata?.resourceVersion ?? '' }, maintenance: ctx.ref, reason: `${ctx.key} deleted` }] };
}

/** The request's own records of what kmaint did (node's initial state, lease, cordon): they go with the finalizer. */
const dropRecords = (ctx: ReleaseContext): ReleaseResult => ({ kind: 'go', dropFromRequest: REQUEST_RECORDS.filter((k) => ctx.nm.metadata.annotations?.[k] !== undefined) });

/** Last: one patch drops the records the steps asked for (the request's own first) and the finalizer. */
function removeFinalizer(ctx: ReleaseContext): ReleaseResult {
  const own: readonly string[] = REQUEST_RECORDS;
  const records = [...ctx.dropFromRequest.filter((k) => own.includes(k)), ...ctx.dropFromRequest.filter((k) => !own.includes(k))];
  const annotations = records.length > 0 ? { annotations: Object.fromEntries(records.map((k) => [k, null])) } : {};
  return { kind: 'end', counts: 'released', actions: [{ kind: 'patchMaintenanceMeta', target: ctx.ref, ...annotations, removeFinalizer: true, reason: `${ctx.key} deleted in phase ${ctx.phase || '(new)'}` }] };
}

/**
 * The releases, in the order cleanup meets them for one request; a walk runs them top down until one holds or ends.
 *
 * To add a step (a validation Job run on the node before it is uncordoned, a wait for a reboot): write a pure
 * `(ctx) => ReleaseResult` (`go` with its writes when done or not concerned, `hold` with what it waits on while the
 * finalizer must stay, `end` only when nothing after it may run), put it in its own file with its table test, and add
 * one entry here with a line saying why it sits where it does. A step that must finish before the node returns to
 * service goes before `uncordon`; what it needs to read joins ReleaseContext (and cleanup's read in shared/pass). The
 * cleanup pass and `kmaint explain` (cli/explain-cleanup.ts) both walk this table: the new step shows in both.
 */
export const RELEASES: readonly ReleaseStep[] = [
  // First: a node that is gone leaves nothing to undo on it, deleted or not; only its Slurm state holds the finalizer.
  { name: 'node gone', step: releaseWithoutNode },
  // A live request is only ever collected (Ready past maxNodeMaintenanceTimeSeconds); everything below is a deletion's.
  { name: 'garbage collection', step: collectStale },
  // Without kmaint's finalizer nothing here is kmaint's to release (another tool's request, or one never admitted).
  { name: 'kmaint finalizer', step: oursToRelease },
  // Upstream's rule: a Ready or RequestorFailed request stays while other requestors still share it.
  { name: 'held for other requestors', step: heldForRequestors },
  // Before anything is undone: the lease we took must be readable to be given back.
  { name: 'held for the medik8s lease', step: heldForLease },
  // Slurm before the node: its drains are lifted and read back undrained before Kubernetes lets pods in again.
  { name: 'Slurm release', step: releaseSlurm },
  // Before the node returns to service: the validation Job must pass (issue 44); a failure keeps the cordon.
  { name: 'validation', step: validate },
  // The node back in service, only if kmaint's record says kmaint cordoned it; its node records go in the same patch.
  { name: 'uncordon', step: uncordon },
  { name: 'out-of-service taint', step: removeOutOfServiceTaint },
  // The DaemonSet pods drainSpec.freeDevices evicted may come back once the request is released (issue 45).
  { name: 'devices-draining taint', step: removeDevicesDrainingTaint },
  // A device request's devices back in service where the node would be uncordoned (issue 45): before the finalizer.
  { name: 'device taint rules', step: removeDeviceTaintRules },
  // kured's --lock-release-delay (issue 43 point 3): the node is back in service (the steps above); the request stays
  // for the delay so the scheduler's `release delay` gate sees it. Before the reboot Job's delete, which its record would
  // repeat on every held pass: the finished Job and the medik8s lease go when the delay is over (kured holds its lock
  // through the delay too). Shown by shared/lifecycle/release-delay-hold.test.ts and test/reboot.test.ts (RD1).
  { name: 'release delay', step: holdForReleaseDelay },
  // The reboot Job goes with its request, in its unit before the finalizer (issue 43). Shown by
  // shared/lifecycle/reboot-release.test.ts and test/reboot.test.ts › "rolls a reboot over 6 nodes …" (RB1).
  // Not a release: the reboot sentinel's Node condition is node-problem-detector's (kmaint only reads it), and its
  // `reboot-<node>` requests are deleted by the scheduler pass (shared/reboot/sentinel.ts; sentinel.test.ts, RS1).
  { name: 'reboot Job', step: removeRebootJob },
  { name: 'medik8s lease', step: releaseLease },
  { name: 'drop records', step: dropRecords },
  // Last: once the finalizer is gone the request may vanish, and with it every record of what is left to undo.
  { name: 'finalizer', step: removeFinalizer },
];

/** One step a walk ran, with its verdict. */
export interface ReleaseTrace {
  name: string;
  result: ReleaseResult;
}

/** What the pass read for cleanup, for every request of it. */
export interface ReleaseReads {
  nodes: ReadonlyMap<string, V1Node>;
  medik8s?: Medik8sLeases;
  slurm?: SlurmContext;
  maxNodeMaintenanceTimeSeconds: number;
  /** spec.releaseDelaySeconds. @default 0 (off) */
  releaseDelaySeconds?: number;
  /** @default KMAINT_FIELD_MANAGER */
  fieldManager?: string;
  /** spec.validation and its Jobs (issue 44); absent: validation off. */
  validation?: ValidationReads;
}

/** Walks `table` for one request until a step holds or ends: every step it ran, with its verdict. Pure. */
export function walkReleases(nm: NodeMaintenance, reads: ReleaseReads, now: Date, table: readonly ReleaseStep[] = RELEASES): ReleaseTrace[] {
  const trace: ReleaseTrace[] = [];
  let ctx: ReleaseContext = {
    nm,
    key: maintenanceKey(nm),
    ref: maintenanceRef(nm),
    phase: maintenancePhase(nm),
    ours: (nm.metadata.finalizers ?? []).includes(FINALIZER),
    node: reads.nodes.get(nm.spec.nodeName),
    medik8s: reads.medik8s,
    slurm: reads.slurm,
    maxNodeMaintenanceTimeSeconds: reads.maxNodeMaintenanceTimeSeconds,
    releaseDelaySeconds: reads.releaseDelaySeconds ?? 0,
    fieldManager: reads.fieldManager ?? KMAINT_FIELD_MANAGER,
    now,
    dropFromRequest: [],
    validation: reads.validation,
    keepCordoned: false,
  };
  for (const { name, step } of table) {
    const result = step(ctx);
    trace.push({ name, result });
    if (result.kind !== 'go') break;
    if (result.dropFromRequest !== undefined && result.dropFromRequest.length > 0) ctx = { ...ctx, dropFromRequest: [...ctx.dropFromRequest, ...result.dropFromRequest] };
    if (result.keepCordoned === true) ctx = { ...ctx, keepCordoned: true };
  }
  return trace;
}
