// Whose cordon is it? kmaint's record on the Node (kmaint.io/cordoned-by) says kmaint cordoned it once, but the record
// can outlive that cordon: the upstream operator, an administrator (`kubectl uncordon`) or any tool may lift it and
// leave the record, and a later cordon of theirs would then be lifted on the strength of a record that is not about
// it. The API server knows who set the field now: metadata.managedFields names the manager(s) owning spec.unschedulable
// (shared/kube/unschedulable-owner.ts keeps just those entries on the Nodes kmaint reads; what was observed there).
import type { V1Node } from '@kubernetes/client-node';

/**
 * - `ours`: every manager owning spec.unschedulable is kmaint's: kmaint's write set the cordon, no one else's since.
 * - `theirs`: another manager owns it (alone, or beside kmaint's by a server-side apply: it asserts the cordon too).
 * - `unknown`: no entry owns it — an API server that does not track managedFields, the embedded sim (sim/apiserver
 *   keeps none), or a node not cordoned. Callers keep the rule they had before managedFields were read.
 */
export type CordonOwnership = { kind: 'ours' } | { kind: 'theirs'; managers: string[] } | { kind: 'unknown' };

const F_SPEC = 'f:spec';
const F_UNSCHEDULABLE = 'f:unschedulable';

/** Pure: who set the node's spec.unschedulable, by its managedFields, seen from the field manager `fieldManager`. */
export function cordonOwnership(node: V1Node, fieldManager: string): CordonOwnership {
  const owners = (node.metadata?.managedFields ?? [])
    .filter((e) => {
      const spec = (e.fieldsV1 as Record<string, unknown> | undefined)?.[F_SPEC];
      return spec !== null && typeof spec === 'object' && F_UNSCHEDULABLE in spec;
    })
    .map((e) => e.manager ?? '');
  if (owners.length === 0) return { kind: 'unknown' };
  const others = [...new Set(owners.filter((m) => m !== fieldManager))].sort();
  return others.length === 0 ? { kind: 'ours' } : { kind: 'theirs', managers: others };
}

/** Pure: false only when the node's managedFields show the cordon set by another manager; unknown counts as ours. */
export function cordonIsOurs(node: V1Node, fieldManager: string): boolean {
  return cordonOwnership(node, fieldManager).kind !== 'theirs';
}

/** The words a plan line uses for a cordon kept because another manager set it. */
export function sayTheirCordon(managers: readonly string[]): string {
  return `the cordon was set by ${managers.map((m) => (m === '' ? '(unnamed manager)' : m)).join(', ')}, not kmaint: kept`;
}
