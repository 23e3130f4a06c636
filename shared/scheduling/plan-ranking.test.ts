import { describe } from 'vitest';
import { itPlansEachRow, limits, pending, someNodes } from './test-builders.ts';
import type { PlanRow } from './test-builders.ts';

// Who goes first, one request per node, and requests whose node is missing or taken.
const rows: PlanRow[] = [
  {
    rule: 'equal rank: the node name decides',
    nodes: someNodes(3),
    maintenances: [pending('nm-a', 'node-02', 1), pending('nm-b', 'node-01', 1)],
    limits: limits(1, 'unlimited'),
    admitted: { 'default/nm-b': 'admitted: slot 1 of 1' },
    waiting: { 'default/nm-a': 'maxParallelOperations 1 reached (1 in progress)' },
    blocked: true,
  },
  {
    rule: 'equal rank on one node: the requestorID decides, the runner-up waits for the winner',
    nodes: someNodes(3),
    maintenances: [pending('nm-1', 'node-01', 1, { requestorID: 'zeta' }), pending('nm-2', 'node-01', 1, { requestorID: 'alpha' })],
    limits: limits(5, 'unlimited'),
    admitted: { 'default/nm-2': 'admitted: slot 1 of 5' },
    waiting: { 'default/nm-1': 'another request for node node-01 is in progress (default/nm-2)' },
    blocked: false,
  },
  {
    rule: 'equal rank on one node from one requestor: namespace/name decides',
    nodes: someNodes(3),
    maintenances: [pending('a', 'node-01', 1, { namespace: 'team-b' }), pending('z', 'node-01', 1, { namespace: 'team-a' })],
    limits: limits(5, 'unlimited'),
    admitted: { 'team-a/z': 'admitted: slot 1 of 5' },
    waiting: { 'team-b/a': 'another request for node node-01 is in progress (team-a/z)' },
    blocked: false,
  },
  {
    rule: 'one request per node: when the winner waits on a limit, the runner-up waits on the same limit',
    nodes: someNodes(3),
    maintenances: [pending('nm-1', 'node-01', 1), pending('nm-2', 'node-01', 2)],
    limits: limits(0, 'unlimited'),
    admitted: {},
    waiting: { 'default/nm-1': 'maxParallelOperations 0 reached (0 in progress)', 'default/nm-2': 'maxParallelOperations 0 reached (0 in progress)' },
    blocked: true,
  },
  {
    rule: 'a requestor with a request in progress goes before an older request of another requestor',
    nodes: someNodes(5),
    maintenances: [
      pending('nm-running', 'node-05', 1, { requestorID: 'upgrade', phase: 'Cordon' }),
      pending('nm-old', 'node-01', 2, { requestorID: 'firmware' }),
      pending('nm-new', 'node-02', 9, { requestorID: 'upgrade' }),
    ],
    limits: limits(2, 'unlimited'),
    admitted: { 'default/nm-new': 'admitted: slot 2 of 2' },
    waiting: { 'default/nm-old': 'maxParallelOperations 2 reached (2 in progress)' },
    blocked: true,
  },
  {
    rule: 'a requestor with fewer pending requests goes before older requests of a busier one',
    nodes: someNodes(5),
    maintenances: [
      pending('nm-b1', 'node-01', 1, { requestorID: 'busy' }),
      pending('nm-b2', 'node-02', 2, { requestorID: 'busy' }),
      pending('nm-b3', 'node-03', 3, { requestorID: 'busy' }),
      pending('nm-q', 'node-04', 9, { requestorID: 'quiet' }),
    ],
    limits: limits(1, 'unlimited'),
    admitted: { 'default/nm-q': 'admitted: slot 1 of 1' },
    waiting: {
      'default/nm-b1': 'maxParallelOperations 1 reached (1 in progress)',
      'default/nm-b2': 'maxParallelOperations 1 reached (1 in progress)',
      'default/nm-b3': 'maxParallelOperations 1 reached (1 in progress)',
    },
    blocked: true,
  },
  {
    rule: 'a request for a node with a request in progress waits for that request',
    nodes: someNodes(3),
    maintenances: [pending('nm-running', 'node-01', 1, { phase: 'Draining' }), pending('nm-next', 'node-01', 2)],
    limits: limits(3, 'unlimited'),
    admitted: {},
    waiting: { 'default/nm-next': 'another request for node node-01 is in progress (default/nm-running)' },
    blocked: false,
  },
  {
    rule: 'requests for missing nodes are told so, and one in progress on a missing node holds no slot',
    nodes: someNodes(3),
    maintenances: [pending('nm-gone', 'node-99', 1, { phase: 'Draining' }), pending('nm-lost', 'node-98', 2), pending('nm-1', 'node-01', 3)],
    limits: limits(1, 'unlimited'),
    admitted: { 'default/nm-1': 'admitted: slot 1 of 1' },
    waiting: { 'default/nm-lost': 'node node-98 not found' },
    blocked: false,
  },
  {
    rule: 'a Pending request being deleted is no candidate but still holds its node and a slot',
    nodes: someNodes(3),
    maintenances: [pending('nm-del', 'node-01', 1, { deleting: true }), pending('nm-same', 'node-01', 2), pending('nm-2', 'node-02', 3)],
    limits: limits(2, 'unlimited'),
    admitted: { 'default/nm-2': 'admitted: slot 2 of 2' },
    waiting: { 'default/nm-same': 'another request for node node-01 is in progress (default/nm-del)' },
    blocked: false,
  },
];

describe('planScheduling ranking and nodes', () => {
  itPlansEachRow(rows);
});
