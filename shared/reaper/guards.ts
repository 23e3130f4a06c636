// The reaper's cluster-health guards: how many Nodes are unhealthy in the cluster and in each zone, against
// maxNodesUnhealthy and maxNodesUnhealthyInSameZone. Pure; percentages round down and invalid limits fail closed.
import type { IntOrString } from '#api';
import { resolveIntOrPercent } from '../config/index.ts';

export interface UnhealthyCounts {
  total: number;
  unhealthy: number;
  /** By zone ('' = no zone label, which has no zone guard). */
  zones: ReadonlyMap<string, { total: number; unhealthy: number }>;
}

/** Counts Nodes by zone; `unhealthy(i)` says whether Node i is unhealthy. */
export function countUnhealthy(zones: readonly string[], unhealthy: readonly boolean[]): UnhealthyCounts {
  const byZone = new Map<string, { total: number; unhealthy: number }>();
  let count = 0;
  zones.forEach((zone, i) => {
    const z = byZone.get(zone) ?? { total: 0, unhealthy: 0 };
    z.total++;
    if (unhealthy[i]) {
      z.unhealthy++;
      count++;
    }
    byZone.set(zone, z);
  });
  return { total: zones.length, unhealthy: count, zones: byZone };
}

function describeLimit(field: string, value: IntOrString, resolved: number): string {
  return typeof value === 'string' ? `${field} ${value} (= ${resolved})` : `${field} ${resolved}`;
}

/**
 * Why the cluster guard stops all reaping, or undefined when it allows it: more unhealthy Nodes than the limit
 * (a number, or a percentage of all Nodes rounded down). An invalid limit stops reaping and says why.
 */
export function clusterGuard(counts: UnhealthyCounts, limit: IntOrString): string | undefined {
  const resolved = resolveIntOrPercent(limit, counts.total, 'down');
  if (!resolved.ok) return `maxNodesUnhealthy: ${resolved.error}`;
  if (counts.unhealthy <= resolved.value) return undefined;
  return `cluster guard: ${counts.unhealthy} of ${counts.total} nodes are unhealthy, more than ${describeLimit('maxNodesUnhealthy', limit, resolved.value)}`;
}

/** Why the zone guard stops reaping in `zone`, or undefined; Nodes without a zone label have no zone guard. */
export function zoneGuard(counts: UnhealthyCounts, zone: string, limit: IntOrString): string | undefined {
  if (zone === '') return undefined;
  const z = counts.zones.get(zone) ?? { total: 0, unhealthy: 0 };
  const resolved = resolveIntOrPercent(limit, z.total, 'down');
  if (!resolved.ok) return `maxNodesUnhealthyInSameZone: ${resolved.error}`;
  if (z.unhealthy <= resolved.value) return undefined;
  return `zone guard: ${z.unhealthy} of ${z.total} nodes in zone ${zone} are unhealthy, more than ${describeLimit('maxNodesUnhealthyInSameZone', limit, resolved.value)}`;
}
