// Deadlines in the ranking (issue 30 point 8, issue 31 point 5): a deadline at risk outranks a rollout in progress, and
// a deadline before its request's creation is not believed. NOW is 2026-01-01T00:00:00Z; default drain timeout 300 s.
import { describe, expect, it } from 'vitest';
import { ANNOTATION_DEADLINE, maintenanceKey, type NodeMaintenance } from '#api';
import { deadlineAtRisk, expectedDrainSeconds, rankingDeadline } from './deadline-risk.ts';
import { rankCandidates } from './rank.ts';
import { aMaintenance, limits, NOW, planChecked, someNodes, recordedState } from './test-builders.ts';

const deadline = (at: string): Record<string, string> => ({ [ANNOTATION_DEADLINE]: at });
/** Requestor `rollout` has a request in progress and one waiting, created first. */
const rollout = [
  aMaintenance({ name: 'running', nodeName: 'node-05', requestorID: 'rollout', phase: 'Draining' }),
  aMaintenance({ name: 'next', nodeName: 'node-01', requestorID: 'rollout', created: '2025-11-01T00:00:00Z' }),
];
const withSpec = (nm: NodeMaintenance, spec: Partial<NodeMaintenance['spec']>): NodeMaintenance => ({ ...nm, spec: { ...nm.spec, ...spec } });

function rank(maintenances: NodeMaintenance[]): string[] {
  const state = recordedState({ nodes: someNodes(5), maintenances });
  return rankCandidates(state, state.unscheduled, NOW).map(maintenanceKey);
}

describe('deadline at risk outranks requestor stickiness', () => {
  it.each([
    {
      rule: 'deadline in 30 min, expected drain 300 s + 1800 s margin: at risk, ahead of the rollout in progress',
      others: [aMaintenance({ name: 'retire', nodeName: 'node-02', requestorID: 'cloud', annotations: deadline('2026-01-01T00:30:00Z') })],
      expected: ['default/retire', 'default/next'],
    },
    {
      rule: 'deadline in exactly 35 min: at risk from that instant on',
      others: [aMaintenance({ name: 'retire', nodeName: 'node-02', requestorID: 'cloud', annotations: deadline('2026-01-01T00:35:00Z') })],
      expected: ['default/retire', 'default/next'],
    },
    {
      rule: 'deadline in 35 min 1 s: not yet at risk, the rollout in progress goes first',
      others: [aMaintenance({ name: 'retire', nodeName: 'node-02', requestorID: 'cloud', annotations: deadline('2026-01-01T00:35:01Z') })],
      expected: ['default/next', 'default/retire'],
    },
    {
      rule: 'a 2 h drain timeout makes a deadline 2 h 20 min away at risk (2 h + 30 min)',
      others: [withSpec(aMaintenance({ name: 'retire', nodeName: 'node-02', requestorID: 'cloud', annotations: deadline('2026-01-01T02:20:00Z') }), { drainSpec: { timeoutSeconds: 7200 } })],
      expected: ['default/retire', 'default/next'],
    },
    {
      rule: 'a deadline already passed (after the request was created) stays at risk',
      others: [aMaintenance({ name: 'late', nodeName: 'node-02', requestorID: 'cloud', created: '2025-12-01T00:00:00Z', annotations: deadline('2025-12-31T00:00:00Z') })],
      expected: ['default/late', 'default/next'],
    },
    {
      rule: 'two at risk: the nearer deadline first, both ahead of the rollout',
      others: [
        aMaintenance({ name: 'r2', nodeName: 'node-02', requestorID: 'cloud', annotations: deadline('2026-01-01T00:20:00Z') }),
        aMaintenance({ name: 'r3', nodeName: 'node-03', requestorID: 'cloud', annotations: deadline('2026-01-01T00:10:00Z') }),
      ],
      expected: ['default/r3', 'default/r2', 'default/next'],
    },
    {
      rule: 'a deadline before the request was created is not believed: it ranks as none, behind the rollout and a real deadline',
      others: [
        aMaintenance({ name: 'jump', nodeName: 'node-02', requestorID: 'cloud', created: '2025-12-10T00:00:00Z', annotations: deadline('2000-01-01T00:00:00Z') }),
        aMaintenance({ name: 'real', nodeName: 'node-03', requestorID: 'other', created: '2025-12-20T00:00:00Z', annotations: deadline('2026-02-01T00:00:00Z') }),
      ],
      expected: ['default/next', 'default/real', 'default/jump'],
    },
  ])('$rule', ({ others, expected }) => {
    expect(rank([...rollout, ...others])).toEqual(expected);
  });
});

describe('deadline-risk values', () => {
  it.each([
    { rule: 'no drainSpec: 300 s', spec: {}, seconds: 300 },
    { rule: 'drain timeout 0 (none) counts an hour', spec: { drainSpec: { timeoutSeconds: 0 } }, seconds: 3600 },
    { rule: 'a bounded wait for pods adds its timeout', spec: { waitForPodCompletion: { podSelector: 'app=x', timeoutSeconds: 600 } }, seconds: 900 },
    { rule: 'an unbounded wait for pods adds an hour', spec: { waitForPodCompletion: { podSelector: 'app=x', timeoutSeconds: 0 } }, seconds: 3900 },
    { rule: 'a wait without a selector waits for nothing', spec: { waitForPodCompletion: { timeoutSeconds: 600 } }, seconds: 300 },
  ])('expected drain: $rule', ({ spec, seconds }) => {
    expect(expectedDrainSeconds(withSpec(aMaintenance({ name: 'x', nodeName: 'node-01' }), spec))).toBe(seconds);
  });

  it.each([
    { rule: 'absent', annotations: {}, created: '2025-12-01T00:00:00Z', expected: { kind: 'none' } },
    { rule: 'unreadable (reported as invalid elsewhere)', annotations: deadline('soon'), created: '2025-12-01T00:00:00Z', expected: { kind: 'none' } },
    { rule: 'equal to the creation: believed', annotations: deadline('2025-12-01T00:00:00Z'), created: '2025-12-01T00:00:00Z', expected: { kind: 'valid', at: new Date('2025-12-01T00:00:00Z') } },
    {
      rule: 'one second before the creation: ignored, with the reason',
      annotations: deadline('2025-11-30T23:59:59Z'),
      created: '2025-12-01T00:00:00Z',
      expected: { kind: 'ignored', reason: 'kmaint.io/deadline 2025-11-30T23:59:59Z is before the request was created (2025-12-01T00:00:00Z)' },
    },
  ])('rankingDeadline: $rule', ({ annotations, created, expected }) => {
    const nm = aMaintenance({ name: 'x', nodeName: 'node-01', created, annotations });
    expect(rankingDeadline(nm)).toEqual(expected);
    expect(deadlineAtRisk(nm, NOW)).toBe(expected.kind === 'valid');
  });
});

describe('planScheduling with a rollout in progress and a retirement at risk', () => {
  it('admits the retirement into the one free slot; the rollout waits', () => {
    const retire = aMaintenance({ name: 'retire', nodeName: 'node-02', requestorID: 'cloud', created: '2025-12-31T00:00:00Z', annotations: deadline('2026-01-01T00:20:00Z') });
    const plan = planChecked(someNodes(5), [...rollout, retire], limits(2, 'unlimited'));

    expect(plan.admitted).toEqual(['default/retire']);
    expect(plan.waiting).toEqual([{ key: 'default/next', why: 'maxParallelOperations 2 reached (2 in progress)' }]);
  });
});
