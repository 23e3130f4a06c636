// Gangs and limits another system defines (SR-IOV pools, issue 30 point 4): trying a gang counts nothing, so a pool's
// count after the walk is exactly the covered requests admitted, and its wait texts name that count.
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { LABEL_GANG } from '#api';
import type { NodeMaintenance } from '#api';
import type { ExternalPools } from './external-pools.ts';
import { checkSchedulingInvariants } from './invariants.ts';
import { planScheduling } from './plan.ts';
import { aNode, limits, NOW, pending, withAdmission, recordedState } from './test-builders.ts';

const POOL = 'SriovNetworkPoolConfig sriov-network-operator/workers';

/** Pool `workers` over sr-1..sr-3 with `max` SR-IOV drains at once and `inProgress` already running. */
function workers(max: number, inProgress = 0): ExternalPools {
  return {
    what: 'SR-IOV drain',
    poolOf: new Map(['sr-1', 'sr-2', 'sr-3'].map((n) => [n, POOL])),
    pools: new Map([[POOL, { name: POOL, max, text: String(max), inProgress }]]),
    problems: new Map(),
  };
}

const nodes: V1Node[] = ['sr-1', 'sr-2', 'sr-3', 'cpu-1', 'cpu-2'].map((name) => aNode({ name }));
const gangMember = (name: string, node: string, day: number): NodeMaintenance => pending(name, node, day, { labels: { [LABEL_GANG]: 'train' } });

describe('gangs with external pools', () => {
  it.each([
    {
      rule: 'an admitted gang counts its covered member once: the single after it takes the pool\'s second place',
      maintenances: [gangMember('g1', 'sr-1', 1), gangMember('g2', 'cpu-1', 2), pending('s1', 'sr-2', 3), pending('s2', 'sr-3', 4)],
      pools: workers(2),
      admitted: ['default/g1', 'default/g2', 'default/s1'],
      waiting: { 'default/s2': `waiting for ${POOL}: maxUnavailable 2, SR-IOV drains in progress: 2` },
    },
    {
      rule: 'a gang that waits counts nothing: the single in the pool starts and the texts count only it',
      maintenances: [gangMember('g1', 'sr-1', 1), gangMember('g2', 'sr-2', 2), pending('s1', 'sr-3', 3)],
      pools: workers(2, 1),
      admitted: ['default/s1'],
      waiting: {
        'default/g1': `gang train (2 requests) starts all at once or not at all: waiting for ${POOL}: maxUnavailable 2, SR-IOV drains in progress: 2`,
        'default/g2': `gang train (2 requests) starts all at once or not at all: waiting for ${POOL}: maxUnavailable 2, SR-IOV drains in progress: 2`,
      },
    },
    {
      rule: 'a gang ranked first that does not fit leaves the pool\'s free place to the single (ranked after it)',
      maintenances: [gangMember('g1', 'sr-1', 1), gangMember('g2', 'sr-2', 2), pending('s1', 'sr-3', 3), pending('c1', 'cpu-2', 4)],
      pools: workers(1),
      admitted: ['default/s1', 'default/c1'],
      waiting: {
        'default/g1': `gang train (2 requests) starts all at once or not at all: waiting for ${POOL}: maxUnavailable 1, SR-IOV drains in progress: 1`,
        'default/g2': `gang train (2 requests) starts all at once or not at all: waiting for ${POOL}: maxUnavailable 1, SR-IOV drains in progress: 1`,
      },
    },
    {
      rule: 'a gang that has waited long enough holds freed slots when it fits once the pool\'s drains in progress finish (as the next pass will judge it)',
      maintenances: [gangMember('g1', 'sr-1', 1), gangMember('g2', 'sr-2', 2), pending('s1', 'sr-3', 3)],
      pools: workers(2, 1),
      reserveAfterSeconds: 0,
      admitted: [],
      waiting: {
        'default/g1': `gang train (2 requests) starts all at once or not at all: waiting for ${POOL}: maxUnavailable 2, SR-IOV drains in progress: 2 counting 1 of its members, at default/g2`,
        'default/g2': `gang train (2 requests) starts all at once or not at all: waiting for ${POOL}: maxUnavailable 2, SR-IOV drains in progress: 2 counting 1 of its members, at default/g2`,
        'default/s1': 'freed slots are held for gang train, waiting since 2025-12-01T00:00:00Z',
      },
    },
  ])('$rule', ({ maintenances, pools, admitted, waiting, ...row }) => {
    const state = recordedState({ nodes, maintenances, externalPools: pools });
    // Gangs hold freed slots only where a row says so.
    const lim = withAdmission(limits(10, 'unlimited'), { gangReserveAfterSeconds: 'reserveAfterSeconds' in row ? row.reserveAfterSeconds : 2_000_000_000 });
    const plan = planScheduling(state, lim, NOW);
    checkSchedulingInvariants(state, lim, plan, NOW);

    expect(plan.admitted).toEqual(admitted);
    expect(Object.fromEntries(plan.waiting.map((w) => [w.key, w.why]))).toEqual(waiting);
  });
});
