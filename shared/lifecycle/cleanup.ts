// The cleanup pass's pure plan: release deleted requests (uncordon if we cordoned, drop the finalizer),
// release requests whose node is gone, and garbage-collect stale Ready requests.
import type { V1Node } from '@kubernetes/client-node';
import { maintenanceRef, maintenanceKey, maintenancePhase } from '../api/index.ts';
import type { Action, NodeMaintenance } from '../api/index.ts';
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
  Phase,
  SLINKY_NODE_CORDON_REASON,
} from '../api/index.ts';
import { cordonedBy, holderFor, nodeLeaseName, type Medik8sLeases } from './node-lease.ts';
import { releaseOutOfServiceTaint } from './dead-node.ts';
import { hasOurCordonReason, planSlurmRelease, type SlurmContext, type SlurmRelease, type SlurmWrite } from '../slurm/index.ts';
import { sayReleaseHeld } from './release-hold.ts';
import { cordonOwnership, sayTheirCordon } from './cordon-owner.ts';
import { admissionRecordDrop } from '../scheduling/index.ts';
import { releaseRebootJob } from './reboot-release.ts'; // issue 43

export interface CleanupSnapshot {
  nodes: ReadonlyMap<string, V1Node>;
  maintenances: readonly NodeMaintenance[];
  /** The medik8s node leases (read when a deleted request recorded one); undefined reads as none. */
  medik8s?: Medik8sLeases;
  /** spec.slurm when enabled (read when a deleted request recorded Slurm drains); undefined = Slurm off. */
  slurm?: SlurmContext;
}

export interface CleanupConfig {
  maxNodeMaintenanceTimeSeconds: number;
  /** The field manager kmaint writes as (managedFields name it as a cordon's owner); default KMAINT_FIELD_MANAGER. */
  fieldManager?: string;
}

export interface CleanupPlan {
  actions: Action[];
  /** Undrains to send to slurmrestd. */
  slurm: SlurmWrite[];
  /** Deleted requests held by additionalRequestors. */
  held: Array<{ key: string; why: string }>;
  released: number;
  collected: number;
  idle: boolean;
}


const HOLDING_PHASES: ReadonlySet<string> = new Set([Phase.Ready, Phase.RequestorFailed]);

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
 * A request whose node is gone: nothing left to undo on the Kubernetes node, but its Slurm drains and reservation outlive
 * it, so they are released first and hold the finalizer as on deletion (Kubernetes GC then removes the object). Returns
 * how many requests it released (0 or 1).
 */
function releaseWithoutNode(nm: NodeMaintenance, ctx: SlurmContext | undefined, now: Date, out: Pick<CleanupPlan, 'actions' | 'slurm' | 'held'>): number {
  const release = planSlurmRelease(nm, ctx);
  if (release.kind === 'hold') {
    holdRelease(nm, release, now, out);
    return 0;
  }
  const dropped = release.dropAnnotations.length > 0 ? { annotations: Object.fromEntries(release.dropAnnotations.map((k) => [k, null])) } : {};
  out.actions.push({ kind: 'patchMaintenanceMeta', target: maintenanceRef(nm), ...dropped, removeFinalizer: true, reason: `node ${nm.spec.nodeName} no longer exists` });
  return 1;
}

/**
 * Keeps the finalizer while Slurm state the request made is being (or cannot be) released. With nothing sent to Slurm
 * (spec.slurm off or invalid, slurmrestd unreadable) nothing will change by itself: the request's Ready message says why.
 */
function holdRelease(nm: NodeMaintenance, release: Extract<SlurmRelease, { kind: 'hold' }>, now: Date, out: Pick<CleanupPlan, 'actions' | 'slurm' | 'held'>): void {
  out.slurm.push(...release.writes);
  out.held.push({ key: maintenanceKey(nm), why: release.why });
  const said = release.writes.length === 0 ? sayReleaseHeld(nm, maintenanceRef(nm), release.why, now) : undefined;
  if (said) out.actions.push(said);
}

/** Pure: decides every release and collection for one snapshot. */
export function planCleanup(snapshot: CleanupSnapshot, config: CleanupConfig, now: Date): CleanupPlan {
  const actions: Action[] = [];
  const slurm: SlurmWrite[] = [];
  const held: CleanupPlan['held'] = [];
  let released = 0;
  let collected = 0;
  const sorted = [...snapshot.maintenances].sort((a, b) => (maintenanceKey(a) < maintenanceKey(b) ? -1 : 1));
  for (const nm of sorted) {
    const ref = maintenanceRef(nm);
    const key = maintenanceKey(nm);
    const ours = (nm.metadata.finalizers ?? []).includes(FINALIZER);
    const node = snapshot.nodes.get(nm.spec.nodeName);
    const phase = maintenancePhase(nm);
    if (ours && !node) {
      released += releaseWithoutNode(nm, snapshot.slurm, now, { actions, slurm, held });
      continue;
    }
    if (nm.metadata.deletionTimestamp) {
      if (!ours || !node) continue;
      const others = nm.spec.additionalRequestors ?? [];
      if (HOLDING_PHASES.has(phase) && others.length > 0) {
        held.push({ key, why: `waiting for additional requestors: ${others.join(', ')}` });
        continue;
      }
      const leaseRecorded = nm.metadata.annotations?.[ANNOTATION_MEDIK8S_LEASE] !== undefined;
      if (leaseRecorded && snapshot.medik8s?.kind === 'unreadable') {
        // Keep the finalizer until the lease we took can be given back.
        held.push({ key, why: `cannot read the medik8s node lease to release it: ${snapshot.medik8s.message}` });
        continue;
      }
      // Slurm drains we recorded are lifted first; the finalizer stays until a later pass reads them undrained.
      const release = planSlurmRelease(nm, snapshot.slurm);
      if (release.kind === 'hold') {
        holdRelease(nm, release, now, { actions, slurm, held });
        continue;
      }
      // Undo only what kmaint's own record says it did: uncordon only while the node's kmaint.io/cordoned-by names this
      // request (written by kmaint alone, in its cordon's own patch, on a node that was schedulable). The request's
      // node-initial-state annotation is the requestor's to write (a preset "false" and the finalizer), so it never lifts
      // a cordon by itself: a cordon another tool or an administrator made, or made after someone uncordoned, stays.
      // The record can outlive kmaint's cordon (uncordoned by someone and cordoned again, the record left): the node's
      // managedFields then name another manager as the cordon's owner, and only the record goes (cordon-owner.ts).
      const nodeRef = { name: nm.spec.nodeName, resourceVersion: node.metadata?.resourceVersion ?? '' };
      const ourCordon = cordonedBy(node) === holderFor(nm);
      const dropRecord = nodeRecordsToDrop(nm, node, ourCordon);
      const ownership = ourCordon && node.spec?.unschedulable === true ? cordonOwnership(node, config.fieldManager ?? KMAINT_FIELD_MANAGER) : undefined;
      if (ownership !== undefined && ownership.kind !== 'theirs') {
        // The record goes in the uncordon's own patch: a second node write would race the controllers reacting to it.
        actions.push({ kind: 'uncordonNode', node: nodeRef, maintenance: ref, reason: `${key} deleted; node was schedulable before maintenance`, ...(dropRecord ? { annotations: dropRecord } : {}) });
      } else if (dropRecord) {
        const what = !ourCordon && ANNOTATION_ADMITTED in dropRecord ? 'its admission record' : 'its cordon record';
        const why = ownership?.kind === 'theirs' ? `${key} deleted; drop ${what}; ${sayTheirCordon(ownership.managers)}` : `${key} deleted; drop ${what}`;
        actions.push({ kind: 'patchNodeAnnotations', node: nodeRef, annotations: dropRecord, maintenance: ref, reason: why });
      }
      actions.push(...releaseOutOfServiceTaint(nm, node, nodeRef, ref));
      actions.push(...releaseRebootJob(nm, ref)); // issue 43: the reboot Job goes with its request (reboot-release.ts)
      if (leaseRecorded && snapshot.medik8s?.kind === 'present') {
        const name = nodeLeaseName(nm.spec.nodeName);
        const lease = snapshot.medik8s.leases.get(name);
        // Only a lease we still hold: one that expired and was taken by another tool is theirs now.
        if (lease && lease.spec?.holderIdentity === holderFor(nm)) {
          actions.push({ kind: 'releaseNodeLease', lease: { namespace: MEDIK8S_LEASE_NAMESPACE, name, resourceVersion: lease.metadata?.resourceVersion ?? '' }, maintenance: ref, reason: `${key} deleted` });
        }
      }
      const records = [ANNOTATION_INITIAL_UNSCHEDULABLE, ANNOTATION_MEDIK8S_LEASE, ANNOTATION_CORDON_RECORDED].filter((k) => nm.metadata.annotations?.[k] !== undefined).concat(release.dropAnnotations);
      actions.push({
        kind: 'patchMaintenanceMeta',
        target: ref,
        ...(records.length > 0 ? { annotations: Object.fromEntries(records.map((k) => [k, null])) } : {}),
        removeFinalizer: true,
        reason: `${key} deleted in phase ${phase || '(new)'}`,
      });
      released++;
      continue;
    }
    // Garbage collection: only Ready requests; a RequestorFailed request waits for a person.
    if (phase === Phase.Ready && nm.metadata.annotations?.[ANNOTATION_GC_IGNORE] !== 'true') {
      const readyAt = Date.parse(nm.metadata.annotations?.[ANNOTATION_READY_TIME] ?? '');
      if (!Number.isNaN(readyAt) && now.getTime() - readyAt >= config.maxNodeMaintenanceTimeSeconds * 1000) {
        actions.push({ kind: 'deleteMaintenance', target: ref, reason: `Ready for more than maxNodeMaintenanceTimeSeconds (${config.maxNodeMaintenanceTimeSeconds} s)` });
        collected++;
      }
    }
  }
  return { actions, slurm, held, released, collected, idle: actions.length === 0 && slurm.length === 0 };
}
