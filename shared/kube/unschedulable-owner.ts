// What a lean Node (lean-nodes.ts) keeps of metadata.managedFields: only the entries that own spec.unschedulable,
// reduced to that one field, so that cleanup can tell a cordon kmaint's own write set from one another party set
// (shared/lifecycle/cordon-owner.ts). The rest of managedFields (a Node's largest metadata) is still dropped.
//
// Observed on the testbed (Kubernetes v1.35, the field managers' Update operations), node cordoned or not:
//   merge patch {spec:{unschedulable:true}} with fieldManager=kmaint  -> owners [kmaint/Update]
//   `kubectl uncordon`, or a merge patch of false or null by anyone   -> field gone, no owner (false is omitted)
//   `kubectl cordon` on a schedulable node                            -> owners [kubectl/Update]
//   a cordon write on a node already cordoned (kubectl or a patch)    -> no change: the earlier owner stays
//   a server-side apply of unschedulable:true by another manager      -> owners [applier/Apply, kmaint/Update]
import type { V1ManagedFieldsEntry } from '@kubernetes/client-node';

const F_SPEC = 'f:spec';
const F_UNSCHEDULABLE = 'f:unschedulable';

function ownsUnschedulable(entry: unknown): entry is { manager?: unknown; operation?: unknown; fieldsV1?: Record<string, unknown> } {
  if (entry === null || typeof entry !== 'object') return false;
  const fields = (entry as { fieldsV1?: unknown }).fieldsV1;
  if (fields === null || typeof fields !== 'object') return false;
  const spec = (fields as Record<string, unknown>)[F_SPEC];
  return spec !== null && typeof spec === 'object' && F_UNSCHEDULABLE in spec;
}

/**
 * Pure: the managedFields entries that own spec.unschedulable, each reduced to `{ manager, operation, fieldsV1:
 * { f:spec: { f:unschedulable: {} } } }` (a form V1Node carries). Undefined when none does — managedFields absent (an
 * API server that does not track them, the embedded sim) or no owner (the field is unset): readers take that as unknown.
 */
export function unschedulableOwners(managedFields: unknown): V1ManagedFieldsEntry[] | undefined {
  if (!Array.isArray(managedFields)) return undefined;
  const owners: V1ManagedFieldsEntry[] = managedFields.filter(ownsUnschedulable).map((e) => ({
    ...(typeof e.manager === 'string' ? { manager: e.manager } : {}),
    ...(typeof e.operation === 'string' ? { operation: e.operation } : {}),
    fieldsV1: { [F_SPEC]: { [F_UNSCHEDULABLE]: {} } },
  }));
  return owners.length > 0 ? owners : undefined;
}

/** `{ managedFields }` with the owners of spec.unschedulable, or nothing: spread into a lean Node's metadata. */
export function unschedulableOwnersMeta(managedFields: unknown): { managedFields?: V1ManagedFieldsEntry[] } {
  const owners = unschedulableOwners(managedFields);
  return owners === undefined ? {} : { managedFields: owners };
}
