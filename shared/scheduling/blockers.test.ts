// kured's blockers as gates (issue 43): a blocking pod holds its Node's requests and takes no slot; a firing or
// unreadable alerts API holds every admission; each refusal names what blocks.
import { describe, expect, it } from 'vitest';
import type { NodeMaintenance } from '#api';
import type { Blockers } from './blockers.ts';
import { checkSchedulingInvariants } from './invariants.ts';
import { planScheduling } from './plan.ts';
import { KMAINT_NAMESPACE, limits, NOW, pending, recordedState, someNodes } from './test-builders.ts';

const URL_AM = 'http://alertmanager.monitoring:9093';

interface Row {
  rule: string;
  maintenances: NodeMaintenance[];
  blockers: Blockers;
  parallel: number;
  admitted: string[];
  waiting: Record<string, string>;
  blocked: boolean;
}

const rows: Row[] = [
  {
    rule: 'a blocking pod on node-01 holds its request, which takes no slot: node-02 is admitted under maxParallelOperations 1',
    maintenances: [pending('a', 'node-01', 1), pending('b', 'node-02', 2)],
    blockers: { podSelector: 'kmaint.io/blocks-reboot=true', podsByNode: new Map([['node-01', ['db/postgres-0']]]) },
    parallel: 1,
    admitted: ['default/b'],
    waiting: { 'default/a': 'blocked by pod db/postgres-0 on node node-01 (matches blockingPodSelector kmaint.io/blocks-reboot=true)' },
    blocked: true,
  },
  {
    rule: 'more than three blocking pods: three named, the rest counted',
    maintenances: [pending('a', 'node-01', 1)],
    blockers: { podSelector: 'app=db', podsByNode: new Map([['node-01', ['db/a', 'db/b', 'db/c', 'db/d', 'db/e']]]) },
    parallel: 2,
    admitted: [],
    waiting: { 'default/a': 'blocked by pod db/a, db/b, db/c and 2 more on node node-01 (matches blockingPodSelector app=db)' },
    blocked: true,
  },
  {
    rule: 'a pod selector matching nothing blocks nothing',
    maintenances: [pending('a', 'node-01', 1), pending('b', 'node-02', 2)],
    blockers: { podSelector: 'app=db', podsByNode: new Map() },
    parallel: 2,
    admitted: ['default/a', 'default/b'],
    waiting: {},
    blocked: false,
  },
  {
    rule: 'a firing alert holds every admission and names the alert',
    maintenances: [pending('a', 'node-01', 1), pending('b', 'node-02', 2)],
    blockers: { alerts: { kind: 'firing', url: URL_AM, names: ['NodeDiskFull', 'ZooKeeperQuorumLost'] } },
    parallel: 2,
    admitted: [],
    waiting: {
      'default/a': `blocked by firing alert NodeDiskFull, ZooKeeperQuorumLost (${URL_AM})`,
      'default/b': `blocked by firing alert NodeDiskFull, ZooKeeperQuorumLost (${URL_AM})`,
    },
    blocked: true,
  },
  {
    rule: 'alerts that cannot be read hold every admission, and the wait says unreachable',
    maintenances: [pending('a', 'node-01', 1)],
    blockers: { alerts: { kind: 'unreachable', url: URL_AM, problem: 'fetch failed: connect ECONNREFUSED 127.0.0.1:9' } },
    parallel: 2,
    admitted: [],
    waiting: { 'default/a': `blocked: alerts unreachable at ${URL_AM} (fetch failed: connect ECONNREFUSED 127.0.0.1:9); nothing is admitted until they can be read` },
    blocked: true,
  },
  {
    rule: 'quiet alerts block nothing',
    maintenances: [pending('a', 'node-01', 1)],
    blockers: { alerts: { kind: 'quiet', url: URL_AM } },
    parallel: 2,
    admitted: ['default/a'],
    waiting: {},
    blocked: false,
  },
  {
    rule: 'a firing alert speaks before a blocking pod on the same request',
    maintenances: [pending('a', 'node-01', 1)],
    blockers: { podSelector: 'app=db', podsByNode: new Map([['node-01', ['db/a']]]), alerts: { kind: 'firing', url: URL_AM, names: ['X'] } },
    parallel: 2,
    admitted: [],
    waiting: { 'default/a': `blocked by firing alert X (${URL_AM})` },
    blocked: true,
  },
];

describe('kured blockers as admission gates', () => {
  it.each(rows)('$rule', (row) => {
    const state = recordedState({ nodes: someNodes(2), maintenances: row.maintenances, kmaintNamespace: KMAINT_NAMESPACE, blockers: row.blockers });
    const lim = limits(row.parallel, 'unlimited');
    const plan = planScheduling(state, lim, NOW);
    checkSchedulingInvariants(state, lim, plan, NOW);
    expect(plan.admitted).toEqual(row.admitted);
    expect(Object.fromEntries(plan.waiting.map((w) => [w.key, w.why]))).toEqual(row.waiting);
    expect(plan.blocked).toBe(row.blocked);
  });
});
