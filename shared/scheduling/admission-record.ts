// kmaint's record of its own admissions (issue 40), the one owner of `kmaint.io/admitted` on a Node. A phase in a
// request's status is the requestor's to write (upstream expects requestors to write `nodemaintenances/status`), so it
// is never taken as an admission: the scheduler, when it admits a request, writes this record on the request's Node in
// the request's write unit BEFORE the status that says Scheduled, and every pass that acts on an admission reads it.
// Only kmaint (its ServiceAccount), cluster administrators and the node's own kubelet can write a Node; no requestor can.
// Written: planAdmission (scheduler). Removed: the release (cleanup, in the uncordon's patch where there is one), the
// orphan sweep (a record naming a request that is gone or was recreated under its name), the Node's deletion.
import type { V1Node } from '@kubernetes/client-node';
import { ANNOTATION_ADMITTED, ANNOTATION_CORDONED_BY, MEDIK8S_HOLDER_PREFIX, Phase, PHASE_UNINITIALIZED, maintenancePhase } from '#api';
import type { Action, MaintenanceRef, NodeMaintenance } from '#api';

/** The record's value for `nm`: `<namespace>/<name>/<uid>` (a request recreated under its name is another request). */
export function admissionRecord(nm: NodeMaintenance): string {
  return `${nm.metadata.namespace ?? ''}/${nm.metadata.name}/${nm.metadata.uid ?? ''}`;
}

/** The record on `node`, if any. */
export function admissionRecordOf(node: V1Node | undefined): string | undefined {
  return node?.metadata?.annotations?.[ANNOTATION_ADMITTED];
}

/** The request a record names (`namespace`, `name`, `uid`); undefined for a value that is not one. */
export function admissionRecordOwner(record: string | undefined): (MaintenanceRef & { uid: string }) | undefined {
  if (record === undefined) return undefined;
  const parts = record.split('/');
  if (parts.length !== 3 || parts[0] === '' || parts[1] === '') return undefined;
  // No resourceVersion: the request is only named, never written, through this ref.
  return { namespace: parts[0] ?? '', name: parts[1] ?? '', uid: parts[2] ?? '', resourceVersion: '' };
}

/**
 * How kmaint's records on its Node stand for `nm`:
 * - `recorded`: the Node's kmaint.io/admitted names it (namespace, name and uid).
 * - `legacy`: no admission record on the Node, but kmaint's own cordon record (kmaint.io/cordoned-by, written only by
 *   kmaint in its cordon's patch) names it: a request an older kmaint admitted and cordoned, before this record existed.
 *   Equally unforgeable; the scheduler writes the admission record for it (planLegacyRecords), so it lasts.
 * - `none`: kmaint never admitted it, whatever its status says.
 */
export type AdmissionStanding = 'recorded' | 'legacy' | 'none';

export function admissionStanding(nm: NodeMaintenance, node: V1Node | undefined): AdmissionStanding {
  const record = admissionRecordOf(node);
  if (record !== undefined) return record === admissionRecord(nm) ? 'recorded' : 'none';
  const cordonedBy = node?.metadata?.annotations?.[ANNOTATION_CORDONED_BY];
  return cordonedBy !== undefined && cordonedBy === `${MEDIK8S_HOLDER_PREFIX}${nm.metadata.namespace ?? ''}/${nm.metadata.name}` ? 'legacy' : 'none';
}

/**
 * Whether `nm` holds an admission by kmaint's records on `node` (its slot, its Node): recorded, or a legacy cordon record
 * of a request past Pending. What every pass that acts on an admission asks, never the phase alone.
 */
export function holdsAdmission(nm: NodeMaintenance, node: V1Node | undefined): boolean {
  const standing = admissionStanding(nm, node);
  if (standing === 'recorded') return true;
  const phase = maintenancePhase(nm);
  return standing === 'legacy' && phase !== PHASE_UNINITIALIZED && phase !== Phase.Pending;
}

/** The Node write that records `nm`'s admission: in `ref`'s unit, to go before its status write. */
export function writeAdmissionRecord(nm: NodeMaintenance, node: V1Node, ref: MaintenanceRef, reason: string): Action {
  return {
    kind: 'patchNodeAnnotations',
    node: { name: nm.spec.nodeName, resourceVersion: node.metadata?.resourceVersion ?? '' },
    annotations: { [ANNOTATION_ADMITTED]: admissionRecord(nm) },
    maintenance: ref,
    reason,
  };
}

/**
 * A plan's actions with every later annotation patch of the same Node in the same request's unit (the node-annotation
 * handshake's `current-state: Draining` for the request admitted in this pass) folded into that request's admission
 * record patch: one Node write per admission, not two. It moves before the Scheduled status write, which is right:
 * the record is the admission (a status write that fails is finished by the next pass, the record holds the slot).
 */
export function foldIntoAdmissionRecords(actions: readonly Action[]): Action[] {
  const unitNode = (a: Action): string | undefined => (a.kind === 'patchNodeAnnotations' && a.maintenance !== undefined ? `${a.maintenance.namespace}/${a.maintenance.name}\u0000${a.node.name}` : undefined);
  const records = new Map<string, Extract<Action, { kind: 'patchNodeAnnotations' }>>();
  const out: Action[] = [];
  for (const a of actions) {
    const key = unitNode(a);
    if (a.kind !== 'patchNodeAnnotations' || key === undefined) {
      out.push(a);
      continue;
    }
    const record = records.get(key);
    if (record !== undefined) {
      const merged = { ...record, annotations: { ...record.annotations, ...a.annotations }, reason: `${record.reason}; ${a.reason}` };
      out[out.indexOf(record)] = merged;
      records.set(key, merged);
      continue;
    }
    if (a.annotations[ANNOTATION_ADMITTED] !== undefined && a.annotations[ANNOTATION_ADMITTED] !== null) records.set(key, a);
    out.push(a);
  }
  return out;
}

/** The annotation a release of `nm` drops from `node` (the record while it names `nm`), or none. */
export function admissionRecordDrop(nm: NodeMaintenance, node: V1Node): Record<string, null> {
  return admissionRecordOf(node) === admissionRecord(nm) ? { [ANNOTATION_ADMITTED]: null } : {};
}

/** The Ready message of a request whose status says a phase kmaint never admitted it to (the scheduler resets it to Pending). */
export function notAdmittedWhy(phase: string, node: string): string {
  return `its phase ${phase} was not an admission by kmaint (node ${node} has no ${ANNOTATION_ADMITTED} record of it)`;
}

/** The Ready message of an admission recorded on the Node by an earlier pass whose status write did not land. */
export function finishedAdmissionMessage(node: string): string {
  return `admitted: recorded on node ${node} (${ANNOTATION_ADMITTED}) by an earlier pass`;
}
