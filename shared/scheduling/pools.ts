// Pool membership: each Node belongs to the first pool, in spec order, whose selector matches its labels.
import type { V1Node } from '@kubernetes/client-node';
import type { PoolRules } from '#config';
import { matchesLabels } from '#selectors';
import { compareStrings } from './state.ts';

/** A Node that more than one pool selects; it belongs to the first of `pools`. */
export interface PoolOverlap {
  readonly node: string;
  /** Every pool that selects the Node, in spec order. */
  readonly pools: readonly string[];
}

export interface PoolMembership {
  /** Node name -> its pool; Nodes in no pool are absent. */
  readonly poolOf: ReadonlyMap<string, string>;
  /** Sorted by node name. */
  readonly overlaps: readonly PoolOverlap[];
}

export function assignPools(nodes: ReadonlyMap<string, V1Node>, pools: readonly PoolRules[]): PoolMembership {
  const poolOf = new Map<string, string>();
  const overlaps: PoolOverlap[] = [];
  if (pools.length === 0) return { poolOf, overlaps };
  for (const [name, node] of nodes) {
    const selecting = pools.filter((pool) => matchesLabels(pool.selector, node.metadata?.labels)).map((pool) => pool.name);
    const first = selecting[0];
    if (first === undefined) continue;
    poolOf.set(name, first);
    if (selecting.length > 1) overlaps.push({ node: name, pools: selecting });
  }
  overlaps.sort((a, b) => compareStrings(a.node, b.node));
  return { poolOf, overlaps };
}
