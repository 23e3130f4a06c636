// Budgets of the scopes narrower than the cluster: pools (first match), zones and windows, resolved against one
// snapshot at `now`. Pure, and fails closed: a value that cannot be resolved makes its scope admit nothing.
import type { IntOrString } from '#api';
import { resolveIntOrPercent } from '#config';
import type { AdmissionRules } from '#config';
import { assignPools } from './pools.ts';
import type { PoolOverlap } from './pools.ts';
import type { SchedulingState } from './state.ts';
import { windowStatus } from '#config';
import type { WindowStatus } from '#config';

/** A limit of one scope, resolved to a number; `text` is how wait messages show it. */
export type ScopeLimit = { kind: 'unlimited' } | { kind: 'limit'; max: number; text: string } | { kind: 'invalid'; problem: string };

/** A scope's Nodes as the snapshot shows them, before this pass's admissions. */
export interface ScopeCount {
  /** Nodes of the scope with a request in progress. */
  inProgress: number;
  /** Nodes of the scope cordoned or not ready, without a request in progress. */
  cordonedOrNotReady: number;
}

export interface PoolScope {
  readonly name: string;
  readonly nodes: number;
  readonly maxParallelOperations: ScopeLimit;
  readonly maxUnavailable: ScopeLimit;
  readonly window: WindowStatus;
  /** Set when a limit cannot be used: the pool admits nothing. */
  readonly problem?: string;
  readonly count: Readonly<ScopeCount>;
}

export interface ZoneScope {
  readonly zone: string;
  readonly nodes: number;
  readonly maxUnavailable: ScopeLimit;
  readonly count: Readonly<ScopeCount>;
}

export interface Scopes {
  readonly clusterWindow: WindowStatus;
  /** Node name -> pool name, for Nodes in a pool. */
  readonly poolOf: ReadonlyMap<string, string>;
  readonly pools: ReadonlyMap<string, PoolScope>;
  /** Node name -> zone, only while a zone limit is set, for Nodes carrying the zone label. */
  readonly zoneOf: ReadonlyMap<string, string>;
  readonly zones: ReadonlyMap<string, ZoneScope>;
  readonly overlaps: readonly PoolOverlap[];
}

/** No pools, zones or windows: every scope gate lets every request through. */
export const NO_SCOPES: Scopes = {
  clusterWindow: { kind: 'unrestricted' },
  poolOf: new Map(),
  pools: new Map(),
  zoneOf: new Map(),
  zones: new Map(),
  overlaps: [],
};

/**
 * Resolves one limit against the scope's node count. Rounding, as the cluster-wide limits and upstream do:
 * maxParallelOperations rounds **up** (a small pool with a small percentage still makes progress);
 * maxUnavailable and maxUnavailablePerZone round **down** (never more unavailable than asked; 25% of a 3-node
 * zone is 0). Unset is unlimited; an unresolvable value is invalid and names its field.
 */
export function resolveScopeLimit(value: IntOrString | undefined, nodes: number, rounding: 'up' | 'down', field: string): ScopeLimit {
  if (value === undefined) return { kind: 'unlimited' };
  const result = resolveIntOrPercent(value, nodes, rounding);
  if (!result.ok) return { kind: 'invalid', problem: `${field}: ${result.error}` };
  const text = typeof value === 'number' ? `${result.value}` : `${result.value} (${value} of ${nodes} node${nodes === 1 ? '' : 's'})`;
  return { kind: 'limit', max: result.value, text };
}

/** Counts of the Nodes grouped by `groupOf` (Nodes it maps to undefined are left out). */
function countBy(state: SchedulingState, groupOf: (node: string) => string | undefined): Map<string, { nodes: number; count: ScopeCount }> {
  const groups = new Map<string, { nodes: number; count: ScopeCount }>();
  for (const node of state.nodes.keys()) {
    const group = groupOf(node);
    if (group === undefined) continue;
    const entry = groups.get(group) ?? { nodes: 0, count: { inProgress: 0, cordonedOrNotReady: 0 } };
    entry.nodes += 1;
    if (state.nodesUnderMaintenance.has(node)) entry.count.inProgress += 1;
    else if (state.nodesUnavailable.has(node)) entry.count.cordonedOrNotReady += 1;
    groups.set(group, entry);
  }
  return groups;
}

export function resolveScopes(state: SchedulingState, rules: AdmissionRules | undefined, now: Date): Scopes {
  if (rules === undefined) return NO_SCOPES;
  const { poolOf, overlaps } = assignPools(state.nodes, rules.pools);
  const poolCounts = countBy(state, (node) => poolOf.get(node));
  const pools = new Map<string, PoolScope>();
  for (const [index, pool] of rules.pools.entries()) {
    const { nodes, count } = poolCounts.get(pool.name) ?? { nodes: 0, count: { inProgress: 0, cordonedOrNotReady: 0 } };
    const path = `spec.pools[${index}]`;
    const maxParallelOperations = resolveScopeLimit(pool.maxParallelOperations, nodes, 'up', `${path}.maxParallelOperations`);
    const maxUnavailable = resolveScopeLimit(pool.maxUnavailable, nodes, 'down', `${path}.maxUnavailable`);
    const problems = [
      ...(pool.problem !== undefined ? [pool.problem] : []),
      ...[maxParallelOperations, maxUnavailable].flatMap((limit) => (limit.kind === 'invalid' && pool.problem === undefined ? [limit.problem] : [])),
    ];
    pools.set(pool.name, {
      name: pool.name,
      nodes,
      maxParallelOperations,
      maxUnavailable,
      window: windowStatus(pool.windows, now),
      ...(problems.length > 0 ? { problem: problems.join('; ') } : {}),
      count,
    });
  }

  const zoneOf = new Map<string, string>();
  const zones = new Map<string, ZoneScope>();
  if (rules.maxUnavailablePerZone !== undefined) {
    for (const [name, node] of state.nodes) {
      const labels = node.metadata?.labels ?? {};
      if (Object.hasOwn(labels, rules.zoneLabel)) zoneOf.set(name, labels[rules.zoneLabel] ?? '');
    }
    for (const [zone, { nodes, count }] of countBy(state, (node) => zoneOf.get(node))) {
      zones.set(zone, { zone, nodes, maxUnavailable: resolveScopeLimit(rules.maxUnavailablePerZone, nodes, 'down', 'spec.maxUnavailablePerZone'), count });
    }
  }

  return { clusterWindow: windowStatus(rules.windows, now), poolOf, pools, zoneOf, zones, overlaps };
}
