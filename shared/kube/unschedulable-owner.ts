// What a lean Node (lean-nodes.ts) keeps of metadata.managedFields: only the entries that own spec.unschedulable or
// kmaint's cordon record (the annotation kmaint.io/cordoned-by), reduced to those fields, so that cleanup can tell a
// cordon kmaint's own write set from one another party set (shared/lifecycle/cordon-owner.ts). The rest of
// managedFields (a Node's largest metadata) is still dropped.
//
// Observed on the testbed (Kubernetes v1.35, the field managers' Update operations), node cordoned or not:
//   merge patch {spec:{unschedulable:true}} with fieldManager=kmaint  -> owners [kmaint/Update]
//   `kubectl uncordon`, or a merge patch of false or null by anyone   -> field gone, no owner (false is omitted)
//   `kubectl cordon` on a schedulable node                            -> owners [kubectl/Update]
//   a cordon write on a node already cordoned (kubectl or a patch)    -> no change: the earlier owner stays
//   a server-side apply of unschedulable:true by another manager      -> owners [applier/Apply, kmaint/Update]
import type { V1ManagedFieldsEntry } from '@kubernetes/client-node';
import { ANNOTATION_CORDONED_BY } from '../api/index.ts';

const F_SPEC = 'f:spec';
const F_UNSCHEDULABLE = 'f:unschedulable';
const F_METADATA = 'f:metadata';
const F_ANNOTATIONS = 'f:annotations';
const F_RECORD = `f:${ANNOTATION_CORDONED_BY}`;

type Raw = { manager?: unknown; operation?: unknown; fieldsV1?: unknown };

function field(obj: unknown, key: string): unknown {
  return obj !== null && typeof obj === 'object' ? (obj as Record<string, unknown>)[key] : undefined;
}

/** The kept part of one entry's fieldsV1, or undefined when it owns neither field. */
function keptFields(entry: Raw): Record<string, unknown> | undefined {
  const fields = entry.fieldsV1;
  const spec = field(fields, F_SPEC);
  const ownsCordon = spec !== null && typeof spec === 'object' && F_UNSCHEDULABLE in spec;
  const annotations = field(field(fields, F_METADATA), F_ANNOTATIONS);
  const ownsRecord = annotations !== null && typeof annotations === 'object' && F_RECORD in annotations;
  if (!ownsCordon && !ownsRecord) return undefined;
  return { ...(ownsRecord ? { [F_METADATA]: { [F_ANNOTATIONS]: { [F_RECORD]: {} } } } : {}), ...(ownsCordon ? { [F_SPEC]: { [F_UNSCHEDULABLE]: {} } } : {}) };
}

/**
 * Pure: the managedFields entries that own spec.unschedulable or kmaint.io/cordoned-by, each reduced to `{ manager,
 * operation, fieldsV1 }` with just those fields (a form V1Node carries). Undefined when none does — managedFields absent
 * (an API server that does not track them, the embedded sim) or no owner: readers take that as unknown.
 */
export function unschedulableOwners(managedFields: unknown): V1ManagedFieldsEntry[] | undefined {
  if (!Array.isArray(managedFields)) return undefined;
  const owners: V1ManagedFieldsEntry[] = [];
  for (const e of managedFields as unknown[]) {
    if (e === null || typeof e !== 'object') continue;
    const entry = e as Raw;
    const kept = keptFields(entry);
    if (kept === undefined) continue;
    owners.push({ ...(typeof entry.manager === 'string' ? { manager: entry.manager } : {}), ...(typeof entry.operation === 'string' ? { operation: entry.operation } : {}), fieldsV1: kept });
  }
  return owners.length > 0 ? owners : undefined;
}

/** `{ managedFields }` with the owners of spec.unschedulable and of the record, or nothing: spread into a lean Node's metadata. */
export function unschedulableOwnersMeta(managedFields: unknown): { managedFields?: V1ManagedFieldsEntry[] } {
  const owners = unschedulableOwners(managedFields);
  return owners === undefined ? {} : { managedFields: owners };
}
