// Table tests for the narrower scopes: pool membership by first match, per-pool and per-zone rounding, and counts.
import { describe, expect, it } from 'vitest';
import { assignPools } from './pools.ts';
import { resolveScopeLimit, resolveScopes } from './scopes.ts';
import { aMaintenance, aPoolNode, limits, NOW, POOL, withAdmission, ZONE, recordedState } from './test-builders.ts';

const rulesOf = (spec: Record<string, unknown>) => {
  const admission = withAdmission(limits(1, 'unlimited'), spec).admission;
  if (admission === undefined) throw new Error('no rules');
  return admission;
};

describe('assignPools', () => {
  const nodes = new Map(
    [aPoolNode('a', 'gpu', 'z1'), aPoolNode('b', 'general', 'z1'), aPoolNode('c', 'general', 'z2'), aPoolNode('d', undefined, 'z2')].map((n) => [n.metadata?.name ?? '', n]),
  );

  it.each([
    { rule: 'no pools: no node is in a pool', pools: [], poolOf: {}, overlaps: [] },
    {
      rule: 'matchLabels selects exactly; unselected nodes are in no pool',
      pools: [{ name: 'gpu', nodeSelector: { matchLabels: { [POOL]: 'gpu' } } }],
      poolOf: { a: 'gpu' },
      overlaps: [],
    },
    {
      rule: 'first match wins and every overlap is reported',
      pools: [
        { name: 'z1', nodeSelector: { matchLabels: { [ZONE]: 'z1' } } },
        { name: 'general', nodeSelector: { matchExpressions: [{ key: POOL, operator: 'In', values: ['general'] }] } },
      ],
      poolOf: { a: 'z1', b: 'z1', c: 'general' },
      overlaps: [{ node: 'b', pools: ['z1', 'general'] }],
    },
    {
      rule: 'an empty selector selects every node, so a later pool gets only what no earlier pool took',
      pools: [
        { name: 'gpu', nodeSelector: { matchLabels: { [POOL]: 'gpu' } } },
        { name: 'rest', nodeSelector: {} },
      ],
      poolOf: { a: 'gpu', b: 'rest', c: 'rest', d: 'rest' },
      overlaps: [{ node: 'a', pools: ['gpu', 'rest'] }],
    },
    {
      rule: 'DoesNotExist and NotIn select nodes without the label too',
      pools: [{ name: 'unlabelled', nodeSelector: { matchExpressions: [{ key: POOL, operator: 'DoesNotExist' }] } }, { name: 'not-gpu', nodeSelector: { matchExpressions: [{ key: POOL, operator: 'NotIn', values: ['gpu'] }] } }],
      poolOf: { b: 'not-gpu', c: 'not-gpu', d: 'unlabelled' },
      overlaps: [{ node: 'd', pools: ['unlabelled', 'not-gpu'] }],
    },
  ])('$rule', ({ pools, poolOf, overlaps }) => {
    const membership = assignPools(nodes, rulesOf({ pools }).pools);
    expect(Object.fromEntries(membership.poolOf)).toEqual(poolOf);
    expect(membership.overlaps).toEqual(overlaps);
  });
});

describe('resolveScopeLimit', () => {
  it.each([
    { rule: 'unset is unlimited', value: undefined, nodes: 4, rounding: 'up' as const, expected: { kind: 'unlimited' } },
    { rule: 'an integer is taken as is, even above the pool size', value: 7, nodes: 4, rounding: 'down' as const, expected: { kind: 'limit', max: 7, text: '7' } },
    { rule: 'parallel 25% of a 4-node pool is 1', value: '25%', nodes: 4, rounding: 'up' as const, expected: { kind: 'limit', max: 1, text: '1 (25% of 4 nodes)' } },
    { rule: 'parallel 10% of a 3-node pool rounds up to 1', value: '10%', nodes: 3, rounding: 'up' as const, expected: { kind: 'limit', max: 1, text: '1 (10% of 3 nodes)' } },
    { rule: 'unavailable 10% of a 3-node pool rounds down to 0', value: '10%', nodes: 3, rounding: 'down' as const, expected: { kind: 'limit', max: 0, text: '0 (10% of 3 nodes)' } },
    { rule: 'unavailable 50% of a 5-node zone rounds down to 2', value: '50%', nodes: 5, rounding: 'down' as const, expected: { kind: 'limit', max: 2, text: '2 (50% of 5 nodes)' } },
    { rule: 'parallel 50% of a 5-node pool rounds up to 3', value: '50%', nodes: 5, rounding: 'up' as const, expected: { kind: 'limit', max: 3, text: '3 (50% of 5 nodes)' } },
    { rule: 'one node is singular', value: '100%', nodes: 1, rounding: 'down' as const, expected: { kind: 'limit', max: 1, text: '1 (100% of 1 node)' } },
    { rule: 'a percentage of an empty pool is 0', value: '50%', nodes: 0, rounding: 'up' as const, expected: { kind: 'limit', max: 0, text: '0 (50% of 0 nodes)' } },
    {
      rule: 'a value too large for this pool fails closed, naming the field',
      value: '99999999999999%',
      nodes: 1000,
      rounding: 'down' as const,
      expected: { kind: 'invalid', problem: 'spec.pools[0].maxUnavailable: "99999999999999%" is too large' },
    },
  ])('$rule', ({ value, nodes, rounding, expected }) => {
    expect(resolveScopeLimit(value, nodes, rounding, 'spec.pools[0].maxUnavailable')).toEqual(expected);
  });
});

describe('resolveScopes', () => {
  const state = recordedState({
    nodes: [
      aPoolNode('g1', 'gpu', 'a'),
      aPoolNode('g2', 'gpu', 'b', { unschedulable: true }),
      aPoolNode('c1', 'general', 'a'),
      aPoolNode('c2', 'general', 'a', { ready: 'False' }),
      aPoolNode('c3', 'general', 'b'),
      aPoolNode('x1', undefined, undefined),
    ],
    maintenances: [aMaintenance({ name: 'run-g2', nodeName: 'g2', phase: 'Draining' }), aMaintenance({ name: 'run-c1', nodeName: 'c1', phase: 'Cordon' })],
  });

  it('no rules: no scopes at all', () => {
    const scopes = resolveScopes(state, undefined, NOW);
    expect([scopes.clusterWindow, scopes.poolOf.size, scopes.pools.size, scopes.zoneOf.size, scopes.zones.size, scopes.overlaps]).toEqual([{ kind: 'unrestricted' }, 0, 0, 0, 0, []]);
  });

  it('resolves each pool against its own nodes and counts them (in progress first, then cordoned or not ready)', () => {
    const scopes = resolveScopes(
      state,
      rulesOf({
        pools: [
          { name: 'gpu', nodeSelector: { matchLabels: { [POOL]: 'gpu' } }, maxParallelOperations: '50%', maxUnavailable: '50%' },
          { name: 'cpu', nodeSelector: { matchLabels: { [POOL]: 'general' } }, maxUnavailable: 1 },
        ],
        maxUnavailablePerZone: '50%',
      }),
      NOW,
    );
    expect(scopes.pools.get('gpu')).toEqual({
      name: 'gpu',
      nodes: 2,
      maxParallelOperations: { kind: 'limit', max: 1, text: '1 (50% of 2 nodes)' },
      maxUnavailable: { kind: 'limit', max: 1, text: '1 (50% of 2 nodes)' },
      window: { kind: 'unrestricted' },
      count: { inProgress: 1, cordonedOrNotReady: 0 },
    });
    expect(scopes.pools.get('cpu')).toEqual({
      name: 'cpu',
      nodes: 3,
      maxParallelOperations: { kind: 'unlimited' },
      maxUnavailable: { kind: 'limit', max: 1, text: '1' },
      window: { kind: 'unrestricted' },
      count: { inProgress: 1, cordonedOrNotReady: 1 },
    });
    expect(Object.fromEntries(scopes.zoneOf)).toEqual({ g1: 'a', g2: 'b', c1: 'a', c2: 'a', c3: 'b' });
    expect(scopes.zones.get('a')).toEqual({ zone: 'a', nodes: 3, maxUnavailable: { kind: 'limit', max: 1, text: '1 (50% of 3 nodes)' }, count: { inProgress: 1, cordonedOrNotReady: 1 } });
    expect(scopes.zones.get('b')).toEqual({ zone: 'b', nodes: 2, maxUnavailable: { kind: 'limit', max: 1, text: '1 (50% of 2 nodes)' }, count: { inProgress: 1, cordonedOrNotReady: 0 } });
  });

  it('without a zone limit no zones are computed, whatever the zone label', () => {
    const scopes = resolveScopes(state, rulesOf({ zoneLabel: ZONE }), NOW);
    expect([scopes.zoneOf.size, scopes.zones.size]).toEqual([0, 0]);
  });

  it('a pool whose limit the loader refused carries the problem and admits nothing', () => {
    const scopes = resolveScopes(state, rulesOf({ pools: [{ name: 'gpu', nodeSelector: { matchLabels: { [POOL]: 'gpu' } }, maxParallelOperations: '-5%' }] }), NOW);
    expect(scopes.pools.get('gpu')?.problem).toBe('spec.pools[0].maxParallelOperations: "-5%" is a negative percentage; use 0% or more');
  });
});
