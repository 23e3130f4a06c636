// Table tests for admission beyond the cluster-wide limits: pools (first match), zones and windows interacting with
// maxParallelOperations and maxUnavailable, with exact admitted sets and wait messages; each row also passes twice.
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { GATES } from './gates.ts';
import { aNode, aPoolNode, itPlansEachRow, limits, pending, planChecked, POOL, withAdmission, withStatusesApplied, ZONE } from './test-builders.ts';
import type { PlanRow } from './test-builders.ts';

const A = 'us-east-1a';
const B = 'us-east-1b';

/** 11 nodes: pool general (cpu-1..6), gpu (gpu-1..3), infra (in no configured pool); zone a has 6 nodes, zone b 5. */
function cluster(opts: { cordoned?: string[]; notReady?: string[]; extra?: V1Node[] } = {}): V1Node[] {
  const layout: Array<[string, string, string]> = [
    ['cpu-1', 'general', A],
    ['cpu-2', 'general', A],
    ['cpu-3', 'general', A],
    ['cpu-4', 'general', B],
    ['cpu-5', 'general', B],
    ['cpu-6', 'general', B],
    ['gpu-1', 'gpu', A],
    ['gpu-2', 'gpu', B],
    ['gpu-3', 'gpu', A],
    ['infra-1', 'infra', A],
    ['infra-2', 'infra', B],
  ];
  return [
    ...layout.map(([name, pool, zone]) =>
      aPoolNode(name, pool, zone, { unschedulable: opts.cordoned?.includes(name) ?? false, ready: opts.notReady?.includes(name) ? 'False' : 'True' }),
    ),
    ...(opts.extra ?? []),
  ];
}

const gpu = (more: Record<string, unknown> = {}) => ({ name: 'gpu', nodeSelector: { matchLabels: { [POOL]: 'gpu' } }, ...more });
const cpu = (more: Record<string, unknown> = {}) => ({ name: 'cpu', nodeSelector: { matchExpressions: [{ key: POOL, operator: 'In', values: ['general'] }] }, ...more });
const ten = limits(10, 'unlimited');

const rows: PlanRow[] = [
  // Pools.
  {
    rule: 'pools without limits restrict nothing: the cluster limit alone decides, with its usual message',
    nodes: cluster(),
    maintenances: [pending('c1', 'cpu-1', 1), pending('g1', 'gpu-1', 2), pending('i1', 'infra-1', 3), pending('c2', 'cpu-2', 4)],
    limits: withAdmission(limits(3, 'unlimited'), { pools: [gpu(), cpu()] }),
    admitted: { 'default/c1': 'admitted: slot 1 of 3', 'default/g1': 'admitted: slot 2 of 3', 'default/i1': 'admitted: slot 3 of 3' },
    waiting: { 'default/c2': 'maxParallelOperations 3 reached (3 in progress)' },
    blocked: true,
  },
  {
    rule: 'an empty pool list changes nothing: README example 1 decides and reads exactly as upstream',
    nodes: cluster(),
    maintenances: [pending('nm-a', 'cpu-3', 3), pending('nm-b', 'cpu-1', 5), pending('nm-c', 'cpu-2', 1)],
    limits: withAdmission(limits(2, 5), { pools: [] }),
    admitted: { 'default/nm-c': 'admitted: slot 1 of 2, unavailable 1 of 5', 'default/nm-a': 'admitted: slot 2 of 2, unavailable 2 of 5' },
    waiting: { 'default/nm-b': 'maxParallelOperations 2 reached (2 in progress)' },
    blocked: true,
  },
  {
    rule: 'pool gpu maxUnavailable 1 admits one gpu node while other pools go on',
    nodes: cluster(),
    maintenances: [pending('g1', 'gpu-1', 1), pending('g2', 'gpu-2', 2), pending('c1', 'cpu-1', 3)],
    limits: withAdmission(ten, { pools: [gpu({ maxUnavailable: 1 }), cpu()] }),
    admitted: { 'default/g1': 'admitted: slot 1 of 10', 'default/c1': 'admitted: slot 2 of 10' },
    waiting: { 'default/g2': 'pool gpu: maxUnavailable 1 reached (1 under maintenance + 0 cordoned or not ready)' },
    blocked: true,
  },
  {
    rule: "a pool's maxParallelOperations narrows the cluster's",
    nodes: cluster(),
    maintenances: [pending('c1', 'cpu-1', 1), pending('c2', 'cpu-2', 2), pending('c3', 'cpu-3', 3), pending('c4', 'cpu-4', 4)],
    limits: withAdmission(ten, { pools: [cpu({ maxParallelOperations: 2 })] }),
    admitted: { 'default/c1': 'admitted: slot 1 of 10', 'default/c2': 'admitted: slot 2 of 10' },
    waiting: {
      'default/c3': 'pool cpu: maxParallelOperations 2 reached (2 in progress)',
      'default/c4': 'pool cpu: maxParallelOperations 2 reached (2 in progress)',
    },
    blocked: true,
  },
  {
    rule: 'a pool allowing more never widens the cluster limit, which speaks first',
    nodes: cluster(),
    maintenances: [pending('c1', 'cpu-1', 1), pending('c2', 'cpu-2', 2)],
    limits: withAdmission(limits(1, 'unlimited'), { pools: [cpu({ maxParallelOperations: 5, maxUnavailable: 5 })] }),
    admitted: { 'default/c1': 'admitted: slot 1 of 1' },
    waiting: { 'default/c2': 'maxParallelOperations 1 reached (1 in progress)' },
    blocked: true,
  },
  {
    rule: "percent of the pool's nodes: maxParallelOperations 25% of 6 rounds up to 2",
    nodes: cluster(),
    maintenances: [pending('c1', 'cpu-1', 1), pending('c2', 'cpu-2', 2), pending('c3', 'cpu-3', 3)],
    limits: withAdmission(ten, { pools: [cpu({ maxParallelOperations: '25%' })] }),
    admitted: { 'default/c1': 'admitted: slot 1 of 10', 'default/c2': 'admitted: slot 2 of 10' },
    waiting: { 'default/c3': 'pool cpu: maxParallelOperations 2 (25% of 6 nodes) reached (2 in progress)' },
    blocked: true,
  },
  {
    rule: "percent of the pool's nodes: maxUnavailable 25% of 6 rounds down to 1, spent by a cordoned node; the cordoned node itself may start",
    nodes: cluster({ cordoned: ['cpu-3'] }),
    maintenances: [pending('c1', 'cpu-1', 1), pending('c2', 'cpu-2', 2), pending('c3', 'cpu-3', 3)],
    limits: withAdmission(ten, { pools: [cpu({ maxUnavailable: '25%' })] }),
    admitted: { 'default/c3': 'admitted: slot 1 of 10, node already unavailable' },
    waiting: {
      'default/c1': 'pool cpu: maxUnavailable 1 (25% of 6 nodes) reached (1 under maintenance + 0 cordoned or not ready)',
      'default/c2': 'pool cpu: maxUnavailable 1 (25% of 6 nodes) reached (1 under maintenance + 0 cordoned or not ready)',
    },
    blocked: true,
  },
  {
    rule: "a pool counts only its own cordoned nodes: cpu is full, gpu is not",
    nodes: cluster({ cordoned: ['cpu-2'] }),
    maintenances: [pending('c1', 'cpu-1', 1), pending('g1', 'gpu-1', 2)],
    limits: withAdmission(ten, { pools: [gpu({ maxUnavailable: 1 }), cpu({ maxUnavailable: 1 })] }),
    admitted: { 'default/g1': 'admitted: slot 1 of 10' },
    waiting: { 'default/c1': 'pool cpu: maxUnavailable 1 reached (0 under maintenance + 1 cordoned or not ready)' },
    blocked: true,
  },
  {
    rule: "a pool's maxParallelOperations also counts requests on unavailable nodes",
    nodes: cluster({ cordoned: ['cpu-2'] }),
    maintenances: [pending('c2', 'cpu-2', 1), pending('c3', 'cpu-3', 2)],
    limits: withAdmission(ten, { pools: [cpu({ maxParallelOperations: 1 })] }),
    admitted: { 'default/c2': 'admitted: slot 1 of 10, node already unavailable' },
    waiting: { 'default/c3': 'pool cpu: maxParallelOperations 1 reached (1 in progress)' },
    blocked: true,
  },
  {
    rule: 'requests already in progress count against their pool',
    nodes: cluster(),
    maintenances: [pending('run', 'cpu-1', 1, { phase: 'Draining' }), pending('c3', 'cpu-3', 2), pending('g1', 'gpu-1', 3)],
    limits: withAdmission(ten, { pools: [gpu(), cpu({ maxParallelOperations: 1 })] }),
    admitted: { 'default/g1': 'admitted: slot 2 of 10' },
    waiting: { 'default/c3': 'pool cpu: maxParallelOperations 1 reached (1 in progress)' },
    blocked: true,
  },
  {
    rule: 'nodes in no pool follow only the cluster-wide limits',
    nodes: cluster(),
    maintenances: [pending('i1', 'infra-1', 1), pending('g1', 'gpu-1', 2), pending('i2', 'infra-2', 3)],
    limits: withAdmission(ten, { pools: [gpu({ maxParallelOperations: 0 })] }),
    admitted: { 'default/i1': 'admitted: slot 1 of 10', 'default/i2': 'admitted: slot 2 of 10' },
    waiting: { 'default/g1': 'pool gpu: maxParallelOperations 0 reached (0 in progress)' },
    blocked: true,
  },
  {
    rule: 'first match: gpu nodes also selected by the catch-all pool count only in gpu',
    nodes: cluster(),
    maintenances: [pending('g1', 'gpu-1', 1), pending('g2', 'gpu-2', 2), pending('c1', 'cpu-1', 3), pending('c4', 'cpu-4', 4)],
    limits: withAdmission(ten, { pools: [gpu({ maxUnavailable: 2 }), { name: 'all', nodeSelector: {}, maxUnavailable: 1 }] }),
    admitted: { 'default/g1': 'admitted: slot 1 of 10', 'default/g2': 'admitted: slot 2 of 10', 'default/c1': 'admitted: slot 3 of 10' },
    waiting: { 'default/c4': 'pool all: maxUnavailable 1 reached (1 under maintenance + 0 cordoned or not ready)' },
    blocked: true,
  },
  {
    rule: 'a pool with a value that cannot be used admits nothing; the other pools go on',
    nodes: cluster(),
    maintenances: [pending('g1', 'gpu-1', 1), pending('c1', 'cpu-1', 2)],
    limits: withAdmission(ten, { pools: [gpu({ maxUnavailable: 'abc%' }), cpu()] }),
    admitted: { 'default/c1': 'admitted: slot 1 of 10' },
    waiting: { 'default/g1': 'pool gpu admits nothing: spec.pools[0].maxUnavailable: "abc%" is not an integer or a percentage' },
    blocked: true,
  },
  {
    rule: 'the runner-up on the same node waits on the same pool limit as the winner',
    nodes: cluster(),
    maintenances: [pending('g1', 'gpu-1', 1), pending('g2a', 'gpu-2', 2), pending('g2b', 'gpu-2', 3)],
    limits: withAdmission(ten, { pools: [gpu({ maxUnavailable: 1 })] }),
    admitted: { 'default/g1': 'admitted: slot 1 of 10' },
    waiting: {
      'default/g2a': 'pool gpu: maxUnavailable 1 reached (1 under maintenance + 0 cordoned or not ready)',
      'default/g2b': 'pool gpu: maxUnavailable 1 reached (1 under maintenance + 0 cordoned or not ready)',
    },
    blocked: true,
  },
  // Zones.
  {
    rule: 'maxUnavailablePerZone 1: one node per zone',
    nodes: cluster(),
    maintenances: [pending('c1', 'cpu-1', 1), pending('c2', 'cpu-2', 2), pending('c4', 'cpu-4', 3)],
    limits: withAdmission(ten, { maxUnavailablePerZone: 1 }),
    admitted: { 'default/c1': 'admitted: slot 1 of 10', 'default/c4': 'admitted: slot 2 of 10' },
    waiting: { 'default/c2': 'zone us-east-1a: maxUnavailablePerZone 1 reached (1 under maintenance + 0 cordoned or not ready)' },
    blocked: true,
  },
  {
    rule: "zone percent is of the zone's nodes, rounded down: 40% of 6 and of 5 are both 2",
    nodes: cluster(),
    maintenances: ['cpu-1', 'cpu-2', 'cpu-3', 'cpu-4', 'cpu-5', 'cpu-6'].map((node, i) => pending(`c${i + 1}`, node, i + 1)),
    limits: withAdmission(ten, { maxUnavailablePerZone: '40%' }),
    admitted: {
      'default/c1': 'admitted: slot 1 of 10',
      'default/c2': 'admitted: slot 2 of 10',
      'default/c4': 'admitted: slot 3 of 10',
      'default/c5': 'admitted: slot 4 of 10',
    },
    waiting: {
      'default/c3': 'zone us-east-1a: maxUnavailablePerZone 2 (40% of 6 nodes) reached (2 under maintenance + 0 cordoned or not ready)',
      'default/c6': 'zone us-east-1b: maxUnavailablePerZone 2 (40% of 5 nodes) reached (2 under maintenance + 0 cordoned or not ready)',
    },
    blocked: true,
  },
  {
    rule: 'a zone counts its cordoned nodes, whatever their pool',
    nodes: cluster({ cordoned: ['infra-1'] }),
    maintenances: [pending('c1', 'cpu-1', 1), pending('c4', 'cpu-4', 2)],
    limits: withAdmission(ten, { pools: [gpu(), cpu()], maxUnavailablePerZone: 1 }),
    admitted: { 'default/c4': 'admitted: slot 1 of 10' },
    waiting: { 'default/c1': 'zone us-east-1a: maxUnavailablePerZone 1 reached (0 under maintenance + 1 cordoned or not ready)' },
    blocked: true,
  },
  {
    rule: 'nodes without the zone label have no zone limit',
    nodes: cluster({ extra: [aPoolNode('edge-1', undefined, undefined)] }),
    maintenances: [pending('e1', 'edge-1', 1), pending('c1', 'cpu-1', 2)],
    limits: withAdmission(ten, { maxUnavailablePerZone: 0 }),
    admitted: { 'default/e1': 'admitted: slot 1 of 10' },
    waiting: { 'default/c1': 'zone us-east-1a: maxUnavailablePerZone 0 reached (0 under maintenance + 0 cordoned or not ready)' },
    blocked: true,
  },
  {
    rule: 'zoneLabel names another label; the default zone label is then ignored',
    nodes: [
      aNode({ name: 'r1', labels: { 'example.com/rack': 'rack-7', [ZONE]: A } }),
      aNode({ name: 'r2', labels: { 'example.com/rack': 'rack-7', [ZONE]: B } }),
      aNode({ name: 'r3', labels: { 'example.com/rack': 'rack-8', [ZONE]: A } }),
    ],
    maintenances: [pending('r1', 'r1', 1), pending('r2', 'r2', 2), pending('r3', 'r3', 3)],
    limits: withAdmission(ten, { maxUnavailablePerZone: 1, zoneLabel: 'example.com/rack' }),
    admitted: { 'default/r1': 'admitted: slot 1 of 10', 'default/r3': 'admitted: slot 2 of 10' },
    waiting: { 'default/r2': 'zone rack-7: maxUnavailablePerZone 1 reached (1 under maintenance + 0 cordoned or not ready)' },
    blocked: true,
  },
  // Pools, zones and the cluster together.
  {
    rule: 'cluster maxUnavailable 3 with pools and zones: walk admits gpu-1, cpu-1, cpu-4; the rest wait on the cluster limit, the first gate to refuse',
    nodes: cluster(),
    maintenances: [pending('g1', 'gpu-1', 1), pending('g2', 'gpu-2', 2), pending('c1', 'cpu-1', 3), pending('c2', 'cpu-2', 4), pending('c4', 'cpu-4', 5), pending('c5', 'cpu-5', 6)],
    limits: withAdmission(limits(10, 3), { pools: [gpu({ maxUnavailable: 1 }), cpu({ maxUnavailable: 2 })], maxUnavailablePerZone: 2 }),
    admitted: {
      'default/g1': 'admitted: slot 1 of 10, unavailable 1 of 3',
      'default/c1': 'admitted: slot 2 of 10, unavailable 2 of 3',
      'default/c4': 'admitted: slot 3 of 10, unavailable 3 of 3',
    },
    waiting: {
      'default/g2': 'maxUnavailable 3 reached (3 under maintenance + 0 cordoned or not ready)',
      'default/c2': 'maxUnavailable 3 reached (3 under maintenance + 0 cordoned or not ready)',
      'default/c5': 'maxUnavailable 3 reached (3 under maintenance + 0 cordoned or not ready)',
    },
    blocked: true,
  },
  {
    rule: 'the same without a cluster maxUnavailable: each waits on its pool, which comes before the zone (cpu-2 was skipped for its zone during the walk)',
    nodes: cluster(),
    maintenances: [pending('g1', 'gpu-1', 1), pending('g2', 'gpu-2', 2), pending('c1', 'cpu-1', 3), pending('c2', 'cpu-2', 4), pending('c4', 'cpu-4', 5), pending('c5', 'cpu-5', 6)],
    limits: withAdmission(ten, { pools: [gpu({ maxUnavailable: 1 }), cpu({ maxUnavailable: 2 })], maxUnavailablePerZone: 2 }),
    admitted: { 'default/g1': 'admitted: slot 1 of 10', 'default/c1': 'admitted: slot 2 of 10', 'default/c4': 'admitted: slot 3 of 10' },
    waiting: {
      'default/g2': 'pool gpu: maxUnavailable 1 reached (1 under maintenance + 0 cordoned or not ready)',
      'default/c2': 'pool cpu: maxUnavailable 2 reached (2 under maintenance + 0 cordoned or not ready)',
      'default/c5': 'pool cpu: maxUnavailable 2 reached (2 under maintenance + 0 cordoned or not ready)',
    },
    blocked: true,
  },
  {
    rule: 'zone full before the pool: zone a already has a request in progress, so cpu-2 waits on its zone while cpu-4 in zone b starts',
    nodes: cluster(),
    maintenances: [pending('run', 'gpu-1', 1, { phase: 'Cordon' }), pending('c2', 'cpu-2', 2), pending('c4', 'cpu-4', 3)],
    limits: withAdmission(ten, { pools: [gpu({ maxUnavailable: 1 }), cpu({ maxUnavailable: 2 })], maxUnavailablePerZone: 1 }),
    admitted: { 'default/c4': 'admitted: slot 2 of 10' },
    waiting: { 'default/c2': 'zone us-east-1a: maxUnavailablePerZone 1 reached (1 under maintenance + 0 cordoned or not ready)' },
    blocked: true,
  },
  // Windows (NOW is Thursday 2026-01-01T00:00:00Z).
  {
    rule: 'outside the cluster window nothing new starts; the request in progress is left alone',
    nodes: cluster(),
    maintenances: [pending('run', 'cpu-3', 1, { phase: 'Draining' }), pending('c1', 'cpu-1', 2), pending('g1', 'gpu-1', 3)],
    limits: withAdmission(ten, { windows: [{ schedule: '0 2 * * *', duration: '4h', timeZone: 'Europe/Berlin' }] }),
    admitted: {},
    waiting: {
      'default/c1': 'window cluster next opens at 2026-01-01T01:00:00Z',
      'default/g1': 'window cluster next opens at 2026-01-01T01:00:00Z',
    },
    blocked: true,
  },
  {
    rule: 'inside the cluster window requests start',
    nodes: cluster(),
    maintenances: [pending('run', 'cpu-3', 1, { phase: 'Draining' }), pending('c1', 'cpu-1', 2), pending('g1', 'gpu-1', 3)],
    limits: withAdmission(ten, { windows: [{ schedule: '0 2 * * *', duration: '4h', timeZone: 'Europe/Berlin' }] }),
    now: new Date('2026-01-01T03:00:00Z'),
    admitted: { 'default/c1': 'admitted: slot 2 of 10', 'default/g1': 'admitted: slot 3 of 10' },
    waiting: {},
    blocked: false,
  },
  {
    rule: "a pool's window narrows the cluster's: cluster open, gpu closed until Saturday night",
    nodes: cluster(),
    maintenances: [pending('c1', 'cpu-1', 1), pending('g1', 'gpu-1', 2)],
    limits: withAdmission(ten, { windows: [{ schedule: '0 0 * * *', duration: '2h' }], pools: [gpu({ windows: [{ schedule: '0 22 * * SAT', duration: '8h' }] })] }),
    admitted: { 'default/c1': 'admitted: slot 1 of 10' },
    waiting: { 'default/g1': 'window pool gpu next opens at 2026-01-03T22:00:00Z' },
    blocked: true,
  },
  {
    rule: 'gpu window open but the cluster window closed: the cluster window speaks for every request',
    nodes: cluster(),
    maintenances: [pending('c1', 'cpu-1', 1), pending('g1', 'gpu-1', 2)],
    limits: withAdmission(ten, { windows: [{ schedule: '0 0 * * *', duration: '2h' }], pools: [gpu({ windows: [{ schedule: '0 22 * * SAT', duration: '8h' }] })] }),
    now: new Date('2026-01-03T23:00:00Z'),
    admitted: {},
    waiting: {
      'default/c1': 'window cluster next opens at 2026-01-04T00:00:00Z',
      'default/g1': 'window cluster next opens at 2026-01-04T00:00:00Z',
    },
    blocked: true,
  },
  {
    rule: 'a closed window is named before a full pool (gates in order)',
    nodes: cluster(),
    maintenances: [pending('g1', 'gpu-1', 1)],
    limits: withAdmission(ten, { pools: [gpu({ maxParallelOperations: 0, windows: [{ schedule: '0 22 * * SAT', duration: '8h' }] })] }),
    admitted: {},
    waiting: { 'default/g1': 'window pool gpu next opens at 2026-01-03T22:00:00Z' },
    blocked: true,
  },
  {
    rule: 'an invalid cluster window admits nothing, never everything',
    nodes: cluster(),
    maintenances: [pending('c1', 'cpu-1', 1)],
    limits: withAdmission(ten, { windows: [{ schedule: '0 2 * * *', duration: '1h', timeZone: 'Mars/Olympus' }] }),
    admitted: {},
    waiting: { 'default/c1': 'window cluster admits nothing: spec.windows[0].timeZone: "Mars/Olympus" is not a known IANA time zone' },
    blocked: true,
  },
  {
    rule: 'an invalid pool window closes that pool only',
    nodes: cluster(),
    maintenances: [pending('g1', 'gpu-1', 1), pending('c1', 'cpu-1', 2)],
    limits: withAdmission(ten, { pools: [gpu({ windows: [{ schedule: '0 2 * * 8', duration: '1h' }] })] }),
    admitted: { 'default/c1': 'admitted: slot 1 of 10' },
    waiting: {
      'default/g1': 'window pool gpu admits nothing: spec.pools[0].windows[0].schedule: "0 2 * * 8" is not a valid cron expression (CronPattern: Invalid value for dayOfWeek: 8)',
    },
    blocked: true,
  },
  {
    rule: 'a window that never opens says so',
    nodes: cluster(),
    maintenances: [pending('c1', 'cpu-1', 1)],
    limits: withAdmission(ten, { windows: [{ schedule: '0 0 30 2 *', duration: '1h' }] }),
    admitted: {},
    waiting: { 'default/c1': 'window cluster never opens' },
    blocked: true,
  },
];

describe('planScheduling with pools, zones and windows', () => {
  itPlansEachRow(rows);

  it('gates run in the documented order', () => {
    expect(GATES.map((g) => g.name)).toEqual(['not-before', 'device request', 'window cluster', 'pool invalid', 'window pool', 'release delay', 'blocking alert', 'blocking pod', 'parallel', 'unavailable', 'pool parallel', 'pool unavailable', 'zone', 'external pool']);
  });

  it('reports nodes selected by more than one pool, by node name, with every pool in spec order', () => {
    const plan = planChecked(cluster(), [], withAdmission(ten, { pools: [gpu(), { name: 'all', nodeSelector: {} }, { name: 'zone-a', nodeSelector: { matchLabels: { [ZONE]: A } } }] }));
    expect(plan.poolOverlaps).toEqual([
      { node: 'cpu-1', pools: ['all', 'zone-a'] },
      { node: 'cpu-2', pools: ['all', 'zone-a'] },
      { node: 'cpu-3', pools: ['all', 'zone-a'] },
      { node: 'gpu-1', pools: ['gpu', 'all', 'zone-a'] },
      { node: 'gpu-2', pools: ['gpu', 'all'] },
      { node: 'gpu-3', pools: ['gpu', 'all', 'zone-a'] },
      { node: 'infra-1', pools: ['all', 'zone-a'] },
    ]);
  });

  it('reports no overlap without pools, or with disjoint pools', () => {
    expect(planChecked(cluster(), [], ten).poolOverlaps).toEqual([]);
    expect(planChecked(cluster(), [], withAdmission(ten, { pools: [gpu(), cpu()] })).poolOverlaps).toEqual([]);
  });

  it('a closed window writes nothing on later passes: the next opening does not count down', () => {
    const lim = withAdmission(ten, { windows: [{ schedule: '0 2 * * *', duration: '4h', timeZone: 'Europe/Berlin' }] });
    const first = planChecked(cluster(), [pending('c1', 'cpu-1', 1, { phase: '' })], lim);
    const written = withStatusesApplied([pending('c1', 'cpu-1', 1, { phase: '' })], first.actions);
    for (const now of ['2026-01-01T00:00:01Z', '2026-01-01T00:30:00Z', '2026-01-01T00:59:59Z']) {
      const later = planChecked(cluster(), written, lim, new Date(now));
      expect(later.actions).toEqual([]);
      expect(later.waiting).toEqual([{ key: 'default/c1', why: 'window cluster next opens at 2026-01-01T01:00:00Z' }]);
    }
    const opened = planChecked(cluster(), written, lim, new Date('2026-01-01T01:00:00Z'));
    expect(opened.admitted).toEqual(['default/c1']);
  });
});
