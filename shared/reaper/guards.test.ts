// Cluster and same-zone unhealthy guards: int and percent limits (rounded down), invalid limits fail closed.
import { describe, expect, it } from 'vitest';
import { clusterGuard, countUnhealthy, zoneGuard } from './guards.ts';

// 10 nodes: zone a has 4 (2 unhealthy), zone b has 5 (1 unhealthy), one node has no zone (unhealthy).
const counts = countUnhealthy(
  ['a', 'a', 'a', 'a', 'b', 'b', 'b', 'b', 'b', ''],
  [true, true, false, false, true, false, false, false, false, true],
);

describe('countUnhealthy', () => {
  it('counts the cluster and each zone', () => {
    expect([counts.total, counts.unhealthy, Object.fromEntries(counts.zones)]).toEqual([
      10,
      4,
      { a: { total: 4, unhealthy: 2 }, b: { total: 5, unhealthy: 1 }, '': { total: 1, unhealthy: 1 } },
    ]);
  });
});

describe('clusterGuard', () => {
  it.each<[string, number | string, string | undefined]>([
    ['4 unhealthy within an int limit of 4', 4, undefined],
    ['4 unhealthy over an int limit of 3', 3, 'cluster guard: 4 of 10 nodes are unhealthy, more than maxNodesUnhealthy 3'],
    ['40% of 10 = 4 allows 4', '40%', undefined],
    ['39% of 10 rounds down to 3', '39%', 'cluster guard: 4 of 10 nodes are unhealthy, more than maxNodesUnhealthy 39% (= 3)'],
    ['0 stops all reaping while any node is unhealthy', 0, 'cluster guard: 4 of 10 nodes are unhealthy, more than maxNodesUnhealthy 0'],
    ['an invalid limit fails closed', 'four', 'maxNodesUnhealthy: "four" is not an integer or a percentage'],
  ])('%s', (_rule, limit, expected) => {
    expect(clusterGuard(counts, limit)).toBe(expected);
  });
});

describe('zoneGuard', () => {
  it.each<[string, string, number | string, string | undefined]>([
    ['zone a: 2 unhealthy within 2', 'a', 2, undefined],
    ['zone a: 2 unhealthy over 1', 'a', 1, 'zone guard: 2 of 4 nodes in zone a are unhealthy, more than maxNodesUnhealthyInSameZone 1'],
    ['zone a: 50% of 4 = 2 allows 2', 'a', '50%', undefined],
    ['zone a: 49% of 4 rounds down to 1', 'a', '49%', 'zone guard: 2 of 4 nodes in zone a are unhealthy, more than maxNodesUnhealthyInSameZone 49% (= 1)'],
    ['zone b: 1 unhealthy within 20% of 5 = 1', 'b', '20%', undefined],
    ['zone b: 19% of 5 rounds down to 0', 'b', '19%', 'zone guard: 1 of 5 nodes in zone b are unhealthy, more than maxNodesUnhealthyInSameZone 19% (= 0)'],
    ['a node without a zone label has no zone guard', '', 0, undefined],
    ['an invalid limit fails closed', 'a', '1.5%', 'maxNodesUnhealthyInSameZone: "1.5%" is not an integer or a percentage'],
  ])('%s', (_rule, zone, limit, expected) => {
    expect(zoneGuard(counts, zone, limit)).toBe(expected);
  });
});
