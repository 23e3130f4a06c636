import { describe, expect, it } from 'vitest';
import { itPlansEachRow, limits, pending, planChecked, someNodes, aNode } from './test-builders.ts';
import type { PlanRow } from './test-builders.ts';

const tenNodesTwoUnavailable = someNodes(10, { cordoned: ['node-09'], notReady: ['node-10'] });

// The limits: the seed README's examples, edge values, invalid config, and upstream's slot-accounting flaw fixed.
const rows: PlanRow[] = [
  {
    rule: 'README example 1: maxParallelOperations 2 admits exactly the 2 best-ranked of 5 pending',
    nodes: someNodes(10),
    maintenances: [pending('nm-a', 'node-03', 3), pending('nm-b', 'node-01', 5), pending('nm-c', 'node-02', 1), pending('nm-d', 'node-04', 4), pending('nm-e', 'node-05', 2)],
    limits: limits(2, 5),
    admitted: { 'default/nm-c': 'admitted: slot 1 of 2, unavailable 1 of 5', 'default/nm-e': 'admitted: slot 2 of 2, unavailable 2 of 5' },
    waiting: {
      'default/nm-a': 'maxParallelOperations 2 reached (2 in progress)',
      'default/nm-b': 'maxParallelOperations 2 reached (2 in progress)',
      'default/nm-d': 'maxParallelOperations 2 reached (2 in progress)',
    },
    blocked: true,
  },
  {
    rule: 'README example 2: maxUnavailable 3 with 2 nodes unavailable admits 1 of 3 requests on available nodes',
    nodes: tenNodesTwoUnavailable,
    maintenances: [pending('nm-1', 'node-01', 1), pending('nm-2', 'node-02', 2), pending('nm-3', 'node-03', 3)],
    limits: limits(5, 3),
    admitted: { 'default/nm-1': 'admitted: slot 1 of 5, unavailable 3 of 3' },
    waiting: {
      'default/nm-2': 'maxUnavailable 3 reached (1 under maintenance + 2 cordoned or not ready)',
      'default/nm-3': 'maxUnavailable 3 reached (1 under maintenance + 2 cordoned or not ready)',
    },
    blocked: true,
  },
  {
    rule: 'README step 6: availableSlots 3, canBecomeUnavailable 1, two requests on unavailable nodes and one on an available node: all 3',
    nodes: tenNodesTwoUnavailable,
    maintenances: [pending('nm-1', 'node-01', 1), pending('nm-9', 'node-09', 2), pending('nm-10', 'node-10', 3)],
    limits: limits(3, 3),
    admitted: {
      'default/nm-1': 'admitted: slot 1 of 3, unavailable 3 of 3',
      'default/nm-9': 'admitted: slot 2 of 3, node already unavailable',
      'default/nm-10': 'admitted: slot 3 of 3, node already unavailable',
    },
    waiting: {},
    blocked: false,
  },
  {
    rule: 'README step 6: availableSlots 3, canBecomeUnavailable 1, three requests on available nodes: only 1',
    nodes: tenNodesTwoUnavailable,
    maintenances: [pending('nm-1', 'node-01', 1), pending('nm-2', 'node-02', 2), pending('nm-3', 'node-03', 3)],
    limits: limits(3, 3),
    admitted: { 'default/nm-1': 'admitted: slot 1 of 3, unavailable 3 of 3' },
    waiting: {
      'default/nm-2': 'maxUnavailable 3 reached (1 under maintenance + 2 cordoned or not ready)',
      'default/nm-3': 'maxUnavailable 3 reached (1 under maintenance + 2 cordoned or not ready)',
    },
    blocked: true,
  },
  {
    rule: 'maxUnavailable 0 admits only requests on nodes that are already unavailable',
    nodes: someNodes(5, { cordoned: ['node-04'], notReady: ['node-05'] }),
    maintenances: [pending('nm-1', 'node-01', 1), pending('nm-4', 'node-04', 2), pending('nm-5', 'node-05', 3)],
    limits: limits(3, 0),
    admitted: { 'default/nm-4': 'admitted: slot 1 of 3, node already unavailable', 'default/nm-5': 'admitted: slot 2 of 3, node already unavailable' },
    waiting: { 'default/nm-1': 'maxUnavailable 0 reached (2 under maintenance + 0 cordoned or not ready)' },
    blocked: true,
  },
  {
    rule: 'maxParallelOperations 0 admits nothing (upstream: 0 blocks all scheduling)',
    nodes: someNodes(3),
    maintenances: [pending('nm-1', 'node-01', 1)],
    limits: limits(0, 'unlimited'),
    admitted: {},
    waiting: { 'default/nm-1': 'maxParallelOperations 0 reached (0 in progress)' },
    blocked: true,
  },
  {
    rule: 'an invalid config admits nothing and every candidate is told the problem',
    nodes: someNodes(3),
    maintenances: [pending('nm-1', 'node-01', 1), pending('nm-2', 'node-02', 2)],
    limits: limits(null, 'unlimited', ['maxParallelOperations "ten" is neither an integer nor a percentage']),
    admitted: {},
    waiting: {
      'default/nm-1': 'config invalid: maxParallelOperations "ten" is neither an integer nor a percentage',
      'default/nm-2': 'config invalid: maxParallelOperations "ten" is neither an integer nor a percentage',
    },
    blocked: true,
  },
  {
    rule: 'admission closed as a whole (foreign CRDs) admits nothing, even with free slots, and every candidate is told why',
    nodes: someNodes(3),
    maintenances: [pending('nm-running', 'node-01', 1, { phase: 'Cordon' }), pending('nm-2', 'node-02', 2), pending('nm-3', 'node-03', 3)],
    limits: { ...limits(5, 'unlimited'), closed: "kmaint's CRDs are not in force" },
    admitted: {},
    waiting: { 'default/nm-2': "kmaint's CRDs are not in force", 'default/nm-3': "kmaint's CRDs are not in force" },
    blocked: true,
  },
  {
    rule: 'an invalid maxUnavailable with no stated problem still admits nothing',
    nodes: someNodes(3),
    maintenances: [pending('nm-1', 'node-01', 1)],
    limits: limits(2, null),
    admitted: {},
    waiting: { 'default/nm-1': 'config invalid: maxUnavailable could not be resolved' },
    blocked: true,
  },
  {
    rule: 'a negative limit is invalid (fail closed)',
    nodes: someNodes(3),
    maintenances: [pending('nm-1', 'node-01', 1)],
    limits: limits(-1, 'unlimited'),
    admitted: {},
    waiting: { 'default/nm-1': 'config invalid: maxParallelOperations -1 is not a non-negative integer' },
    blocked: true,
  },
  {
    rule: 'slot accounting fix: a request skipped for maxUnavailable spends no slot, so a later one on an unavailable node starts (upstream: only the first)',
    nodes: someNodes(10, { cordoned: ['node-10'] }),
    maintenances: [pending('nm-1', 'node-01', 1), pending('nm-2', 'node-02', 2), pending('nm-10', 'node-10', 3)],
    limits: limits(2, 2),
    admitted: { 'default/nm-1': 'admitted: slot 1 of 2, unavailable 2 of 2', 'default/nm-10': 'admitted: slot 2 of 2, node already unavailable' },
    waiting: { 'default/nm-2': 'maxParallelOperations 2 reached (2 in progress)' },
    blocked: true,
  },
  {
    rule: 'a cluster already above maxParallelOperations (limit lowered) admits nothing',
    nodes: someNodes(5),
    maintenances: [
      pending('nm-1', 'node-01', 1, { phase: 'Ready' }),
      pending('nm-2', 'node-02', 1, { phase: 'RequestorFailed' }),
      pending('nm-3', 'node-03', 1, { phase: 'Scheduled' }),
      pending('nm-4', 'node-04', 2),
    ],
    limits: limits(2, 'unlimited'),
    admitted: {},
    waiting: { 'default/nm-4': 'maxParallelOperations 2 reached (3 in progress)' },
    blocked: true,
  },
  {
    rule: 'a node both cordoned and under maintenance counts once against maxUnavailable',
    nodes: [aNode({ name: 'node-01', unschedulable: true }), ...someNodes(5).slice(1)],
    maintenances: [pending('nm-running', 'node-01', 1, { phase: 'Cordon' }), pending('nm-2', 'node-02', 2), pending('nm-3', 'node-03', 3)],
    limits: limits(3, 2),
    admitted: { 'default/nm-2': 'admitted: slot 2 of 3, unavailable 2 of 2' },
    waiting: { 'default/nm-3': 'maxUnavailable 2 reached (2 under maintenance + 0 cordoned or not ready)' },
    blocked: true,
  },
  {
    rule: 'a node with no Ready condition counts as available',
    nodes: [aNode({ name: 'node-01', ready: 'absent' }), aNode({ name: 'node-02', ready: 'Unknown' })],
    maintenances: [pending('nm-1', 'node-01', 1), pending('nm-2', 'node-02', 2)],
    limits: limits(2, 1),
    admitted: { 'default/nm-2': 'admitted: slot 1 of 2, node already unavailable' },
    waiting: { 'default/nm-1': 'maxUnavailable 1 reached (1 under maintenance + 0 cordoned or not ready)' },
    blocked: true,
  },
  {
    rule: 'maxParallelOperations above the node count is capped at the node count',
    nodes: someNodes(2),
    maintenances: [pending('nm-1', 'node-01', 1), pending('nm-2', 'node-02', 2)],
    limits: limits(10, 'unlimited'),
    admitted: { 'default/nm-1': 'admitted: slot 1 of 10', 'default/nm-2': 'admitted: slot 2 of 10' },
    waiting: {},
    blocked: false,
  },
  {
    rule: 'a new request (no Ready condition) can be admitted in its first pass',
    nodes: someNodes(2),
    maintenances: [pending('nm-new', 'node-01', 1, { phase: '' })],
    limits: limits(1, 'unlimited'),
    admitted: { 'default/nm-new': 'admitted: slot 1 of 1' },
    waiting: {},
    blocked: false,
  },
  {
    rule: 'no requests: nothing admitted, nothing waits',
    nodes: someNodes(3),
    maintenances: [],
    limits: limits(1, 'unlimited'),
    admitted: {},
    waiting: {},
    blocked: false,
    idle: true,
  },
];

describe('planScheduling under the limits', () => {
  itPlansEachRow(rows);

  it('never mutates its inputs', () => {
    const row = rows[0];
    if (row === undefined) throw new Error('no rows');
    const before = JSON.stringify({ nodes: row.nodes, maintenances: row.maintenances });
    planChecked(row.nodes, row.maintenances, row.limits);
    expect(JSON.stringify({ nodes: row.nodes, maintenances: row.maintenances })).toBe(before);
  });
});

describe('planScheduling names the requests waiting because admission is closed (the ForeignCRDs event counts them, not their text)', () => {
  it.each([
    { rule: 'closed: every candidate, not the request in flight', closed: "kmaint's CRDs are not in force", expected: ['default/nm-2', 'default/nm-3'] },
    { rule: 'open: none, whatever waits', closed: undefined, expected: [] },
  ])('$rule', ({ closed, expected }) => {
    const maintenances = [pending('nm-running', 'node-01', 1, { phase: 'Cordon' }), pending('nm-2', 'node-02', 2), pending('nm-3', 'node-03', 3)];
    const plan = planChecked(someNodes(3), maintenances, { ...limits(1, 'unlimited'), ...(closed !== undefined ? { closed } : {}) });
    expect(plan.closed).toEqual(expected);
  });
});
