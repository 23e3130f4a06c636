// The node inventory behaviour tests may need beyond the e2e project's minimum (3 general-pool nodes): pools by the
// kmaint.io/pool label, zones by topology.kubernetes.io/zone, counts. Pure: the e2e setup reads it from the cluster's
// node list once; test/support/testbed-only.ts counts a test that needs what the cluster lacks as not applicable.

const POOL = 'kmaint.io/pool';
const ZONE = 'topology.kubernetes.io/zone';

/** What a node offers for inventory: its name and labels (a V1Node fits). */
export interface InventoryNode {
  metadata?: { name?: string; labels?: Record<string, string> };
}

/** Nodes labelled `kmaint.io/pool=<pool>`, by name (as test/admission.test.ts picks them). */
function inPool(nodes: readonly InventoryNode[], pool: string): InventoryNode[] {
  return nodes.filter((n) => n.metadata?.labels?.[POOL] === pool).sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
}

/** How many of `nodes` sit in each zone; '' for a node without the zone label. */
function perZone(nodes: readonly InventoryNode[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const n of nodes) {
    const zone = n.metadata?.labels?.[ZONE] ?? '';
    counts.set(zone, (counts.get(zone) ?? 0) + 1);
  }
  return counts;
}

/** Each inventory facility and whether a node list has it, in the order reports list them. */
const HAS = {
  // The pools test sets general's maxUnavailable to 25% and expects exactly one of four requests admitted: 25% must
  // round down to 1, so 4 to 7 nodes.
  'four to seven general-pool nodes': (nodes) => inPool(nodes, 'general').length >= 4 && inPool(nodes, 'general').length <= 7,
  // The zone test takes the first four general-pool nodes by name and needs two of them in each of two labelled zones.
  'the first four general-pool nodes by name, two in each of two zones': (nodes) => {
    const zones = perZone(inPool(nodes, 'general').slice(0, 4));
    return zones.size === 2 && !zones.has('') && [...zones.values()].every((count) => count === 2);
  },
  'a node in the gpu pool': (nodes) => inPool(nodes, 'gpu').length >= 1,
  'a node in the control-plane pool': (nodes) => inPool(nodes, 'control-plane').length >= 1,
} as const satisfies Record<string, (nodes: readonly InventoryNode[]) => boolean>;

/** Node inventory a test may need: offered by the testbed and the sim (their generated nodes have it), on e2e where found. */
export type InventoryFacility = keyof typeof HAS;

/** Every inventory facility, in the order reports list them. */
export const INVENTORY_FACILITIES = Object.keys(HAS) as InventoryFacility[];

/** The inventory facilities `nodes` offer. */
export function inventoryOf(nodes: readonly InventoryNode[]): InventoryFacility[] {
  return INVENTORY_FACILITIES.filter((f) => HAS[f](nodes));
}

export function isInventoryFacility(facility: string): facility is InventoryFacility {
  return Object.hasOwn(HAS, facility);
}
