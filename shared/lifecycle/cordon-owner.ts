// Whose cordon is it? kmaint's record on the Node (kmaint.io/cordoned-by) says kmaint cordoned it once, but the record
// can outlive that cordon: the upstream operator, an administrator (`kubectl uncordon`) or any tool may lift it and
// leave the record, and a later cordon of theirs would then be lifted on the strength of a record that is not about
// it. The API server knows who set the field now: metadata.managedFields names the manager(s) owning spec.unschedulable
// (shared/kube/unschedulable-owner.ts keeps just those entries on the Nodes kmaint reads; what was observed there).
//
// A record kmaint did not write itself — an administrator's `kubectl annotate` handing a cordon over to kmaint
// (docs/migrate.md, moving from the NVIDIA operator, step 4) — vouches for the cordon it names: that cordon was set
// by the other operator, and the person's record says kmaint is to lift it. So the cordon is theirs only when the
// record is kmaint's own writing (written in its cordon's patch) and the cordon is now another manager's.
import type { V1ManagedFieldsEntry, V1Node } from '@kubernetes/client-node';
import { ANNOTATION_CORDONED_BY } from '../api/index.ts';

/**
 * - `ours`: every manager owning spec.unschedulable is kmaint's (kmaint's write set the cordon, no one else's since), or
 *   the record was handed over by another manager (it vouches for the cordon).
 * - `theirs`: another manager owns the cordon (alone, or beside kmaint's by a server-side apply: it asserts it too)
 *   while kmaint's own write made the record: the record outlived kmaint's cordon.
 * - `unknown`: no entry owns spec.unschedulable — an API server that does not track managedFields, the embedded sim
 *   (sim/apiserver keeps none), or a node not cordoned. Callers keep the rule they had before managedFields were read.
 */
export type CordonOwnership = { kind: 'ours' } | { kind: 'theirs'; managers: string[] } | { kind: 'unknown' };

const F_SPEC = 'f:spec';
const F_UNSCHEDULABLE = 'f:unschedulable';
const F_RECORD = `f:${ANNOTATION_CORDONED_BY}`;

function owns(e: V1ManagedFieldsEntry, path: readonly string[]): boolean {
  let at: unknown = e.fieldsV1;
  for (const key of path) {
    if (at === null || typeof at !== 'object' || !(key in at)) return false;
    at = (at as Record<string, unknown>)[key];
  }
  return true;
}

/** Pure: who set the node's spec.unschedulable, by its managedFields, seen from the field manager `fieldManager`. */
export function cordonOwnership(node: V1Node, fieldManager: string): CordonOwnership {
  const entries = node.metadata?.managedFields ?? [];
  const owners = entries.filter((e) => owns(e, [F_SPEC, F_UNSCHEDULABLE])).map((e) => e.manager ?? '');
  if (owners.length === 0) return { kind: 'unknown' };
  const others = [...new Set(owners.filter((m) => m !== fieldManager))].sort();
  if (others.length === 0) return { kind: 'ours' };
  const recordWriters = entries.filter((e) => owns(e, ['f:metadata', 'f:annotations', F_RECORD])).map((e) => e.manager ?? '');
  return recordWriters.includes(fieldManager) ? { kind: 'theirs', managers: others } : { kind: 'ours' };
}

/** Pure: false only when the node's managedFields show the cordon set by another manager; unknown counts as ours. */
export function cordonIsOurs(node: V1Node, fieldManager: string): boolean {
  return cordonOwnership(node, fieldManager).kind !== 'theirs';
}

/** The words a plan line uses for a cordon kept because another manager set it. */
export function sayTheirCordon(managers: readonly string[]): string {
  return `the cordon was set by ${managers.map((m) => (m === '' ? '(unnamed manager)' : m)).join(', ')}, not kmaint: kept`;
}
