// Node inventory read from a node list, and which facilities each cluster kind offers with it (the e2e project's
// setup provides the list; test/support/testbed-only.ts counts a test needing what is lacking as not applicable).
import { describe, expect, it } from 'vitest';
import { generateCluster } from '../../sim/generator/index.ts';
import { INVENTORY_FACILITIES, type InventoryNode, inventoryOf } from './node-inventory.ts';
import type { TestClusterKind } from './testbed-info.ts';
import { type ClusterFacility, offeredBy } from './testbed-only.ts';

const ZONE_A = 'eu-west-1a';
const ZONE_B = 'eu-west-1b';

/** A node named `name` in pool `pool` ('' for none) and zone `zone` ('' for no zone label). */
function aNode(name: string, pool: string, zone = ''): InventoryNode {
  return { metadata: { name, labels: { ...(pool ? { 'kmaint.io/pool': pool } : {}), ...(zone ? { 'topology.kubernetes.io/zone': zone } : {}) } } };
}

/** `count` general-pool nodes g0, g1, … in the zones `zones` names in turn. */
function general(count: number, zones: readonly string[] = [ZONE_A, ZONE_B]): InventoryNode[] {
  return Array.from({ length: count }, (_, i) => aNode(`g${i}`, 'general', zones[i % zones.length]));
}

const gpu = aNode('gpu-0', 'gpu', ZONE_A);
const controlPlane = aNode('cp-0', 'control-plane', ZONE_B);

describe('inventoryOf: the node inventory a node list offers', () => {
  it.each<[string, InventoryNode[], string[]]>([
    [
      'four general nodes two per zone, a gpu and a control-plane node: everything',
      [...general(4), gpu, controlPlane],
      ['four to seven general-pool nodes', 'the first four general-pool nodes by name, two in each of two zones', 'a node in the gpu pool', 'a node in the control-plane pool'],
    ],
    ['three general nodes only (the e2e minimum): nothing', general(3), []],
    ['no gpu node: all but the gpu pool', [...general(4), controlPlane], ['four to seven general-pool nodes', 'the first four general-pool nodes by name, two in each of two zones', 'a node in the control-plane pool']],
    ['a gpu node but no control-plane one', [...general(4), gpu], ['four to seven general-pool nodes', 'the first four general-pool nodes by name, two in each of two zones', 'a node in the gpu pool']],
    ['seven general nodes: 25% still rounds down to one', [...general(7), gpu, controlPlane], ['four to seven general-pool nodes', 'the first four general-pool nodes by name, two in each of two zones', 'a node in the gpu pool', 'a node in the control-plane pool']],
    ['eight general nodes: 25% is two, not the count the pools test needs', [...general(8), gpu, controlPlane], ['the first four general-pool nodes by name, two in each of two zones', 'a node in the gpu pool', 'a node in the control-plane pool']],
    ['four general nodes in one zone: no zone split', [...general(4, [ZONE_A]), gpu], ['four to seven general-pool nodes', 'a node in the gpu pool']],
    ['four general nodes in three zones (2+1+1): no zone split', [...general(4, [ZONE_A, ZONE_B, 'eu-west-1c', ZONE_A]), gpu], ['four to seven general-pool nodes', 'a node in the gpu pool']],
    ['first four by name 3+1, though six split 3+3: no zone split', [...general(6, [ZONE_A, ZONE_A, ZONE_A, ZONE_B, ZONE_B, ZONE_B]), gpu], ['four to seven general-pool nodes', 'a node in the gpu pool']],
    ['two general nodes without a zone label and two in one zone: no zone split', [...general(4, ['', ZONE_A]), gpu], ['four to seven general-pool nodes', 'a node in the gpu pool']],
    ['nodes listed out of name order are taken by name', [...general(4).reverse(), gpu], ['four to seven general-pool nodes', 'the first four general-pool nodes by name, two in each of two zones', 'a node in the gpu pool']],
    ['a control-plane node without the pool label (node-role only) is not in the control-plane pool', [...general(4), gpu, aNode('cp-0', '', ZONE_B)], ['four to seven general-pool nodes', 'the first four general-pool nodes by name, two in each of two zones', 'a node in the gpu pool']],
    ['no nodes: nothing', [], []],
  ])('%s', (_rule, nodes, expected) => {
    expect(inventoryOf(nodes)).toEqual(expected);
  });

  it('the small profile, seed 1 (the testbed and the sim generate it): every inventory facility', () => {
    const { nodes } = generateCluster({ profile: 'small', seed: 1 });
    expect(inventoryOf(nodes)).toEqual(['four to seven general-pool nodes', 'the first four general-pool nodes by name, two in each of two zones', 'a node in the gpu pool', 'a node in the control-plane pool']);
  });
});

describe('offeredBy: node inventory always on the testbed and sim, on e2e as found; fixed facilities unchanged', () => {
  const e2eWithoutGpu = inventoryOf([...general(4), controlPlane]);
  it.each<[TestClusterKind, ClusterFacility, boolean]>([
    ['testbed', 'a node in the gpu pool', true],
    ['sim', 'a node in the gpu pool', true],
    ['e2e', 'a node in the gpu pool', false],
    ['e2e', 'a node in the control-plane pool', true],
    ['e2e', 'four to seven general-pool nodes', true],
    ['e2e', 'the first four general-pool nodes by name, two in each of two zones', true],
    ['e2e', 'RBAC enforcement', true],
    ['e2e', 'the API server audit log', false],
    ['sim', 'RBAC enforcement', false],
    ['testbed', 'the simulated kubelet', true],
  ])('%s, %s: %s', (cluster, facility, expected) => {
    expect(offeredBy(cluster, facility, e2eWithoutGpu)).toBe(expected);
  });

  it('on e2e: every node inventory facility where the nodes have all of it, none where they have none of it', () => {
    const everything = inventoryOf([...general(4), gpu, controlPlane]);
    expect(INVENTORY_FACILITIES.map((f) => offeredBy('e2e', f, everything))).toEqual([true, true, true, true]);
    expect(INVENTORY_FACILITIES.map((f) => offeredBy('e2e', f, []))).toEqual([false, false, false, false]);
  });
});
