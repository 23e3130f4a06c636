// The one rule of issue 40 (start-now.ts): which waiting requests could start now on their own account, and which
// request each Node serves next; the plan, the reaper and `kmaint explain` all read it from here.
import { describe, expect, it } from 'vitest';
import { ANNOTATION_DEADLINE, ANNOTATION_GANG_SIZE, ANNOTATION_NOT_BEFORE, LABEL_GANG, maintenanceKey } from '#api';
import type { NodeMaintenance } from '#api';
import { buildSchedulingState } from './state.ts';
import { limits, NOW, pending, someNodes, withAdmission } from './test-builders.ts';
import type { SchedulingLimits } from './limits.ts';
import { nextOnNode, requestsHoldingNodes, startableNow } from './start-now.ts';

const AT_RISK = '2026-01-01T00:00:01Z';
const member = (name: string, node: string, gang: string, more: { size?: number; deadline?: string } = {}): NodeMaintenance =>
  pending(name, node, 2, {
    labels: { [LABEL_GANG]: gang },
    annotations: { ...(more.size !== undefined ? { [ANNOTATION_GANG_SIZE]: String(more.size) } : {}), ...(more.deadline !== undefined ? { [ANNOTATION_DEADLINE]: more.deadline } : {}) },
  });

interface Row {
  rule: string;
  maintenances: NodeMaintenance[];
  limits?: SchedulingLimits;
  /** The waiting requests that hold their node. */
  holding: string[];
  /** node -> the request it serves next ('' for none). */
  next: Record<string, string>;
}

const rows: Row[] = [
  {
    rule: 'singles: the best-ranked request of each node is next, and every one of them may hold',
    maintenances: [pending('a', 'node-01', 1), pending('b', 'node-01', 2)],
    holding: ['default/a', 'default/b'],
    next: { 'node-01': 'default/a', 'node-02': '' },
  },
  {
    rule: 'a gang missing a member, ranked first: holds nothing, the single behind it is next',
    maintenances: [member('g', 'node-01', 'never', { size: 2, deadline: AT_RISK }), pending('admin', 'node-01', 3)],
    holding: ['default/admin'],
    next: { 'node-01': 'default/admin', 'node-02': '' },
  },
  {
    rule: 'its own not-before: holds nothing; alone on its node, the node has no next request',
    maintenances: [pending('later', 'node-01', 1, { annotations: { [ANNOTATION_NOT_BEFORE]: '2026-02-01T00:00:00Z' } })],
    holding: [],
    next: { 'node-01': '', 'node-02': '' },
  },
  {
    rule: 'two gangs that each take a node from the other: neither can start, both hold nothing, the singles behind are next',
    maintenances: [
      member('x1', 'node-01', 'x', { deadline: AT_RISK }),
      member('x2', 'node-02', 'x'),
      member('y1', 'node-01', 'y'),
      member('y2', 'node-02', 'y', { deadline: AT_RISK }),
      pending('s1', 'node-01', 9, { requestorID: 'other' }),
    ],
    holding: ['default/s1'],
    next: { 'node-01': 'default/s1', 'node-02': '' },
  },
  {
    rule: 'a request waiting only on maxParallelOperations can start on its own account: it keeps its node as before',
    maintenances: [pending('busy', 'node-02', 1, { phase: 'Draining' }), pending('a', 'node-01', 2)],
    limits: limits(1, 'unlimited'),
    holding: ['default/a'],
    next: { 'node-01': 'default/a', 'node-02': '' },
  },
  {
    rule: 'a closed cluster window: every request on every node holds nothing',
    maintenances: [pending('a', 'node-01', 2)],
    limits: withAdmission(limits(1, 'unlimited'), { windows: [{ schedule: '0 3 * * *', duration: '1h', timeZone: 'UTC' }] }),
    holding: [],
    next: { 'node-01': '', 'node-02': '' },
  },
];

describe('startableNow: who may hold a node (issue 40)', () => {
  it.each(rows)('$rule', (row) => {
    const state = buildSchedulingState({ nodes: someNodes(2), maintenances: row.maintenances });
    const lim = row.limits ?? limits(4, 'unlimited');
    expect([...requestsHoldingNodes(state, lim, NOW)].sort()).toEqual(row.holding);
    const start = startableNow(state, lim, NOW);
    const next = Object.fromEntries(['node-01', 'node-02'].map((node) => [node, ((n) => (n === undefined ? '' : maintenanceKey(n)))(nextOnNode(start, node))]));
    expect(next).toEqual(row.next);
  });
});
