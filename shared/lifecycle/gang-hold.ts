// The drainer's half of gang atomicity (issue 30): each member's admission is its own status write, so one may fail
// (409, 5xx) while the others land. No member is cordoned until every request of its gang is admitted; the scheduler
// admits the rest first (completingGangsFirst). Membership is the scheduler's rule (gang-membership.ts).
import type { V1Node } from '@kubernetes/client-node';
import { isBeingDeleted, maintenanceKey, type NodeMaintenance } from '../api/index.ts';
import { gangIdentityOf, holdsAdmission } from '../scheduling/index.ts';

/**
 * The requests of `nm`'s gang not admitted yet, by namespace/name: while any remains, `nm` stays Scheduled. Admitted is
 * kmaint's record on the member's Node (issue 40), never the phase its status says. A request being deleted, or whose
 * Node is gone, can never start and holds nothing. `kmaintNamespace`: where kmaint's own requests are.
 */
export function gangMembersNotAdmitted(nm: NodeMaintenance, maintenances: readonly NodeMaintenance[], nodes: ReadonlyMap<string, V1Node>, gangNodeLabel: string | undefined, kmaintNamespace: string | undefined): string[] {
  const key = gangIdentityOf(nm, nodes.get(nm.spec.nodeName), gangNodeLabel, kmaintNamespace)?.key;
  if (key === undefined) return [];
  return maintenances
    .filter((other) => !isBeingDeleted(other) && nodes.has(other.spec.nodeName) && !holdsAdmission(other, nodes.get(other.spec.nodeName)) && gangIdentityOf(other, nodes.get(other.spec.nodeName), gangNodeLabel, kmaintNamespace)?.key === key)
    .map(maintenanceKey)
    .sort();
}
