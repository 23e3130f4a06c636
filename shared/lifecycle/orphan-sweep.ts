// The sweep of node-side state whose request is gone: a cordon, an out-of-service or a devices-draining taint that
// kmaint's own record on the Node (`kmaint.io/cordoned-by`, `kmaint.io/out-of-service-by`,
// `kmaint.io/devices-draining-by`) says a request made, or kmaint's admission record
// (`kmaint.io/admitted`, issue 40: the request of that namespace, name and uid), when no such request exists
// any more (its finalizer was removed by hand, it was deleted while kmaint was not running, a crash between writes).
// Kubernetes' garbage collector is the model: the dependent goes when its owner is gone. Only kmaint's own records
// lead here — requestors cannot write Nodes — and a node whose record names a live request is never touched.
import { namespacedName } from '../api/index.ts';
import type { V1Node } from '@kubernetes/client-node';
import {
  KMAINT_FIELD_MANAGER,
  ANNOTATION_ADMITTED,
  ANNOTATION_CORDON_REASON,
  ANNOTATION_CORDONED_BY,
  ANNOTATION_OUT_OF_SERVICE_BY,
  ANNOTATION_DEVICES_DRAINING_BY,
  MEDIK8S_HOLDER_PREFIX,
  SLINKY_NODE_CORDON_REASON,
  TAINT_OUT_OF_SERVICE,
  rfc3339Seconds,
} from '../api/index.ts';
import type { Action, MaintenanceRef, NodeTaint } from '../api/index.ts';
import { KMAINT_CORDON_REASON_PREFIX, slinkyCordonReason } from '../slurm/index.ts';
import { cordonOwnership, sayTheirCordon } from './cordon-owner.ts';
import { admissionRecordOwner } from '../scheduling/index.ts';
import { sweepDevicesDrainingTaint } from './devices-taint.ts';

/** The request a `kmaint/<namespace>/<name>` record names; undefined for anything else (another tool's value). */
export function recordOwner(record: string | undefined): MaintenanceRef | undefined {
  if (record === undefined || !record.startsWith(MEDIK8S_HOLDER_PREFIX)) return undefined;
  const rest = record.slice(MEDIK8S_HOLDER_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  // No resourceVersion: the request is only named, never written, through this ref.
  return { namespace: rest.slice(0, slash), name: rest.slice(slash + 1), resourceVersion: '' };
}


/**
 * The request Slinky's `node-cordon-reason` names when kmaint wrote it (`kmaint: <namespace>/<name>`, steps/cordon.ts);
 * undefined for a reason another party set. Issue 40: kmaint's reason is its own record, swept like the others.
 */
export function slinkyReasonOwner(reason: string | undefined): MaintenanceRef | undefined {
  if (reason === undefined || !reason.startsWith(KMAINT_CORDON_REASON_PREFIX)) return undefined;
  return recordOwner(`${MEDIK8S_HOLDER_PREFIX}${reason.slice(KMAINT_CORDON_REASON_PREFIX.length)}`);
}

/** An orphan found on one node: the record key and the request it names. */
export interface NodeOrphan {
  node: string;
  record: typeof ANNOTATION_CORDONED_BY | typeof ANNOTATION_OUT_OF_SERVICE_BY | typeof ANNOTATION_DEVICES_DRAINING_BY | typeof SLINKY_NODE_CORDON_REASON | typeof ANNOTATION_ADMITTED;
  owner: MaintenanceRef;
}

/**
 * The key in `live` that keeps an orphan's record: `namespace/name` for the cordon and out-of-service records, and
 * `namespace/name/uid` for the admission record (a request recreated under the name is another request).
 */
export function orphanLiveKey(orphan: NodeOrphan): string {
  return orphan.record === ANNOTATION_ADMITTED ? `${namespacedName(orphan.owner)}/${orphan.owner.uid ?? ''}` : namespacedName(orphan.owner);
}

/**
 * Pure: the nodes whose kmaint records name a request not in `live` (every request the pass read, malformed ones and
 * those being deleted included: cleanup releases those itself), by `namespace/name` and by `namespace/name/uid`
 * (orphanLiveKey). In node-name order.
 */
export function findNodeOrphans(nodes: readonly V1Node[], live: ReadonlySet<string>): NodeOrphan[] {
  const found: NodeOrphan[] = [];
  const sorted = [...nodes].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  for (const node of sorted) {
    const name = node.metadata?.name ?? '';
    const annotations = node.metadata?.annotations ?? {};
    for (const record of [ANNOTATION_CORDONED_BY, ANNOTATION_OUT_OF_SERVICE_BY, ANNOTATION_DEVICES_DRAINING_BY] as const) {
      const owner = recordOwner(annotations[record]);
      if (owner !== undefined && !live.has(namespacedName(owner))) found.push({ node: name, record, owner });
    }
    const admitted = admissionRecordOwner(annotations[ANNOTATION_ADMITTED]);
    if (admitted !== undefined) {
      const orphan: NodeOrphan = { node: name, record: ANNOTATION_ADMITTED, owner: admitted };
      if (!live.has(orphanLiveKey(orphan))) found.push(orphan);
    }
    // Kmaint's Slinky reason left alone (someone else uncordoned, so the cordon record went first): an orphan of its own.
    // With an orphaned cordon record naming the same request, that record's sweep drops it in the same patch.
    const reasonOwner = slinkyReasonOwner(annotations[SLINKY_NODE_CORDON_REASON]);
    const cordonOwner = recordOwner(annotations[ANNOTATION_CORDONED_BY]);
    const sweptWithCordon = reasonOwner !== undefined && cordonOwner !== undefined && namespacedName(cordonOwner) === namespacedName(reasonOwner);
    if (reasonOwner !== undefined && !live.has(namespacedName(reasonOwner)) && !sweptWithCordon) found.push({ node: node.metadata?.name ?? '', record: SLINKY_NODE_CORDON_REASON, owner: reasonOwner });
  }
  return found;
}

/** The node's taints without the out-of-service one, as written back (another party's are kept, in their order). */
function taintsWithoutOutOfService(node: V1Node): NodeTaint[] {
  return (node.spec?.taints ?? [])
    .filter((t) => t.key !== TAINT_OUT_OF_SERVICE)
    .map((t) => ({ key: t.key, effect: t.effect, ...(t.value !== undefined ? { value: t.value } : {}), ...(t.timeAdded !== undefined ? { timeAdded: rfc3339Seconds(new Date(t.timeAdded)) } : {}) }));
}

/**
 * Pure: the writes that undo `orphans` — confirmed gone by a read made after the nodes were read (the caller's job, so
 * a request created between two LISTs is never taken for gone). A cordon is lifted only while kmaint's record still
 * names that request, in the patch that drops the record (with the Slinky cordon reason when it names the request too,
 * and the admission record when it is orphaned with it);
 * on a node someone uncordoned since, only the record goes — and so on a node cordoned again since by another field
 * manager (managedFields, cordon-owner.ts): the record outlived kmaint's cordon, the cordon is theirs. Where
 * managedFields say nothing (unknown), the record alone decides, as before. The out-of-service taint goes with its record.
 */
export function planOrphanSweep(nodes: ReadonlyMap<string, V1Node>, orphans: readonly NodeOrphan[], fieldManager: string = KMAINT_FIELD_MANAGER): Action[] {
  const actions: Action[] = [];
  // An admission record orphaned with the cordon record of the same request goes in the cordon's patch (one Node write).
  const admittedWithCordon = new Set(orphans.filter((o) => o.record === ANNOTATION_ADMITTED).map((o) => `${o.node}\u0000${namespacedName(o.owner)}`));
  const folded = new Set(orphans.filter((o) => o.record === ANNOTATION_CORDONED_BY && admittedWithCordon.has(`${o.node}\u0000${namespacedName(o.owner)}`)).map((o) => `${o.node}\u0000${namespacedName(o.owner)}`));
  for (const orphan of orphans) {
    const node = nodes.get(orphan.node);
    if (node === undefined) continue;
    const nodeRef = { name: orphan.node, resourceVersion: node.metadata?.resourceVersion ?? '' };
    const owner = namespacedName(orphan.owner);
    if (orphan.record === ANNOTATION_ADMITTED) {
      if (folded.has(`${orphan.node}\u0000${owner}`)) continue;
      actions.push({ kind: 'patchNodeAnnotations', node: nodeRef, annotations: { [ANNOTATION_ADMITTED]: null }, maintenance: orphan.owner, reason: `orphaned admission record: ${owner} (uid ${orphan.owner.uid ?? ''}) no longer exists` });
    } else if (orphan.record === ANNOTATION_CORDONED_BY) {
      const drop: Record<string, null> = { [ANNOTATION_CORDONED_BY]: null, [ANNOTATION_CORDON_REASON]: null };
      if (folded.has(`${orphan.node}\u0000${owner}`)) drop[ANNOTATION_ADMITTED] = null;
      if (node.metadata?.annotations?.[SLINKY_NODE_CORDON_REASON] === slinkyCordonReason(orphan.owner)) drop[SLINKY_NODE_CORDON_REASON] = null;
      const ownership = node.spec?.unschedulable === true ? cordonOwnership(node, fieldManager) : undefined;
      actions.push(
        ownership === undefined
          ? { kind: 'patchNodeAnnotations', node: nodeRef, annotations: drop, maintenance: orphan.owner, reason: `orphaned cordon record: ${owner} no longer exists` }
          : ownership.kind === 'theirs'
            ? { kind: 'patchNodeAnnotations', node: nodeRef, annotations: drop, maintenance: orphan.owner, reason: `orphaned cordon record: ${owner} no longer exists; ${sayTheirCordon(ownership.managers)}` }
            : { kind: 'uncordonNode', node: nodeRef, maintenance: orphan.owner, annotations: drop, reason: `orphaned cordon: kmaint cordoned the node for ${owner}, which no longer exists` },
      );
    } else if (orphan.record === SLINKY_NODE_CORDON_REASON) {
      // Only while it still names that request: a reason written since is someone's current one.
      if (node.metadata?.annotations?.[SLINKY_NODE_CORDON_REASON] !== slinkyCordonReason(orphan.owner)) continue;
      actions.push({ kind: 'patchNodeAnnotations', node: nodeRef, annotations: { [SLINKY_NODE_CORDON_REASON]: null }, maintenance: orphan.owner, reason: `orphaned Slinky cordon reason: ${owner} no longer exists` });
    } else if (orphan.record === ANNOTATION_DEVICES_DRAINING_BY) {
      // After the out-of-service sweep of the same node (record order), built from the same read: never put it back.
      const outOfServiceGoes = orphans.some((o) => o.node === orphan.node && o.record === ANNOTATION_OUT_OF_SERVICE_BY);
      actions.push(sweepDevicesDrainingTaint(node, nodeRef, orphan.owner, outOfServiceGoes ? [TAINT_OUT_OF_SERVICE] : []));
    } else {
      actions.push({
        kind: 'setNodeTaints',
        node: nodeRef,
        taints: taintsWithoutOutOfService(node),
        annotations: { [ANNOTATION_OUT_OF_SERVICE_BY]: null },
        maintenance: orphan.owner,
        reason: `orphaned out-of-service taint: kmaint added it for ${owner}, which no longer exists`,
      });
    }
  }
  return actions;
}
