// Pools whose limits another system defines and kmaint enforces at admission: today the SR-IOV network operator's
// SriovNetworkPoolConfigs, which that operator ignores for externally drained nodes (shared/handshake/sriov-pools.ts
// resolves them). The scheduler only counts: which requests a pool covers, its limit, and how many it already runs.
import type { Refusal } from './refusal.ts';

export interface ExternalPool {
  /** As messages name it, e.g. `SriovNetworkPoolConfig sriov-network-operator/workers`. */
  readonly name: string;
  /** Requests at once in the pool; undefined: no limit. */
  readonly max: number | undefined;
  /** The limit as configured and resolved, for messages: `"50%" of 4 nodes = 2`. */
  readonly text: string;
  /** Covered requests already in progress on the pool's nodes. */
  readonly inProgress: number;
}

export interface ExternalPools {
  /** Which kind of request the pools cover, for messages: `SR-IOV drain`. */
  readonly what: string;
  /** Node -> its pool's name, for every node with a covered request waiting. */
  readonly poolOf: ReadonlyMap<string, string>;
  readonly pools: ReadonlyMap<string, ExternalPool>;
  /** Node -> why its pool cannot be known (two pools match it, a pool's value cannot be used): it admits nothing. */
  readonly problems: ReadonlyMap<string, string>;
}

/** Why a covered request on `node` may not start now, given `admitted` covered admissions per pool in this walk. */
export function externalPoolRefusal(pools: ExternalPools | undefined, admitted: ReadonlyMap<string, number>, node: string): Refusal | undefined {
  if (pools === undefined) return undefined;
  const problem = pools.problems.get(node);
  if (problem !== undefined) return { gate: 'external pool', kind: 'external-problem', text: `waiting for ${pools.what} admission: ${problem}` };
  const pool = pools.pools.get(pools.poolOf.get(node) ?? '');
  if (pool?.max === undefined) return undefined;
  const used = pool.inProgress + (admitted.get(pool.name) ?? 0);
  return used >= pool.max ? { gate: 'external pool', kind: 'external-limit', text: `waiting for ${pool.name}: maxUnavailable ${pool.text}, ${pools.what}s in progress: ${used}` } : undefined;
}

/** What the gate read when it admits a covered request on `node` (`kmaint explain`). */
export function externalPoolAdmits(pools: ExternalPools | undefined, admitted: ReadonlyMap<string, number>, node: string): string | undefined {
  const pool = pools?.pools.get(pools.poolOf.get(node) ?? '');
  if (pools === undefined || pool === undefined) return undefined;
  return `${pool.name}: maxUnavailable ${pool.text}, ${pools.what}s in progress: ${pool.inProgress + (admitted.get(pool.name) ?? 0)}`;
}
