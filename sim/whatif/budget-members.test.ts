import type { V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { buildScaleIndex, nextPdbStatus } from '../controllers/disruption.ts';
import { isReady, isTerminating } from '../controllers/pod-facts.ts';
import { NOW, aPdb, aPod, ago } from '../controllers/test-builders.ts';
import { BudgetMembers, countsWithoutScale, memberPdbStatus } from './budget-members.ts';

const NO_SCALE = buildScaleIndex({ replicaSets: [], deployments: [], statefulSets: [] });
const key = (p: V1Pod): string => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;

function membersOf(pods: readonly V1Pod[]): BudgetMembers<V1Pod> {
  const m = new BudgetMembers<V1Pod>();
  for (const p of pods) m.set(key(p), p, { ready: isReady(p), terminating: isTerminating(p) });
  return m;
}

const pods = {
  a: aPod({ name: 'a', node: 'n1' }),
  b: aPod({ name: 'b', node: 'n1' }),
  c: aPod({ name: 'c', node: 'n2' }),
  unready: aPod({ name: 'u', node: 'n2', ready: false }),
  leaving: aPod({ name: 'l', node: 'n2', deleting: true }),
};
const iso = (d: Date): string => d.toISOString();

describe('countsWithoutScale', () => {
  it.each([
    ['integer minAvailable: expected = the selected pods', aPdb({ minAvailable: 3 }), { expectedPods: 7, desiredHealthy: 3 }],
    ['neither field: nothing expected', aPdb({}), { expectedPods: 0, desiredHealthy: 0 }],
    ['a percentage needs the scale', aPdb({ minAvailable: '50%' }), undefined],
    ['maxUnavailable needs the scale', aPdb({ maxUnavailable: 1 }), undefined],
  ])('%s', (_rule, pdb, expected) => {
    expect(countsWithoutScale(pdb, 7)).toEqual(expected);
  });
});

describe('memberPdbStatus gives what nextPdbStatus gives over the same pods', () => {
  const rows: Array<{ rule: string; pdb: V1PodDisruptionBudget; pods: V1Pod[] }> = [
    { rule: 'all healthy, first status', pdb: aPdb({ minAvailable: 2 }), pods: [pods.a, pods.b, pods.c] },
    { rule: 'unready and terminating pods do not count', pdb: aPdb({ minAvailable: 1 }), pods: [pods.a, pods.unready, pods.leaving] },
    {
      rule: 'a listed pod within the timeout is not healthy; one past it is dropped; a terminating or unselected one is dropped',
      pdb: aPdb({
        minAvailable: 1,
        status: {
          currentHealthy: 3,
          desiredHealthy: 1,
          expectedPods: 3,
          disruptionsAllowed: 2,
          observedGeneration: 1,
          disruptedPods: { c: iso(ago(30)) as unknown as Date, b: iso(ago(300)) as unknown as Date, l: iso(ago(5)) as unknown as Date, gone: iso(ago(5)) as unknown as Date },
        },
      }),
      pods: [pods.a, pods.b, pods.c, pods.leaving],
    },
    {
      rule: 'kept entries follow the pods order, not the status order',
      pdb: aPdb({ minAvailable: 0, status: { disruptedPods: { c: iso(ago(10)) as unknown as Date, a: iso(ago(20)) as unknown as Date } } }),
      pods: [pods.a, pods.b, pods.c],
    },
    {
      rule: 'an unready listed pod is kept but was not healthy anyway',
      pdb: aPdb({ minAvailable: 1, status: { disruptedPods: { u: iso(ago(10)) as unknown as Date } } }),
      pods: [pods.a, pods.unready],
    },
    {
      rule: 'an unchanged status writes nothing',
      pdb: aPdb({ minAvailable: 1, status: { currentHealthy: 2, desiredHealthy: 1, expectedPods: 2, disruptionsAllowed: 1, observedGeneration: 1 } }),
      pods: [pods.a, pods.b],
    },
    { rule: 'no minAvailable nor maxUnavailable', pdb: aPdb({}), pods: [pods.a] },
  ];

  it.each(rows)('$rule', ({ pdb, pods: selected }) => {
    expect(memberPdbStatus(pdb, membersOf(selected), NOW)).toEqual(nextPdbStatus(pdb, selected, NO_SCALE, NOW));
  });

  it('computes the status with exact figures: healthy less the pods listed as leaving', () => {
    const status = memberPdbStatus(rows[2]?.pdb as V1PodDisruptionBudget, membersOf([pods.a, pods.b, pods.c, pods.leaving]), NOW);
    expect(status === 'needs-scale' ? status : { ...status, conditions: status?.conditions?.map((c) => c.reason) }).toEqual({
      observedGeneration: 1,
      disruptedPods: { c: ago(30) },
      disruptionsAllowed: 1,
      currentHealthy: 2,
      desiredHealthy: 1,
      expectedPods: 4,
      conditions: ['SufficientPods'],
    });
  });

  it('says when the counts need the scale', () => {
    expect(memberPdbStatus(aPdb({ maxUnavailable: 1 }), membersOf([pods.a]), NOW)).toBe('needs-scale');
  });
});

describe('BudgetMembers', () => {
  it('keeps a replaced pod in its place and a re-added one at the end, and counts Ready pods not being deleted', () => {
    const m = membersOf([pods.a, pods.b, pods.c]);
    m.set('web/a', pods.unready, { ready: false, terminating: false });
    m.delete('web/b');
    m.set('web/b', pods.b, { ready: true, terminating: false });
    m.set('web/l', pods.leaving, { ready: true, terminating: true });
    expect([...m.values()].map((p) => p.metadata?.name)).toEqual(['u', 'c', 'b', 'l']);
    expect({ size: m.size, healthy: m.healthyCandidates, seqA: m.member('web/a')?.seq, seqB: m.member('web/b')?.seq }).toEqual({ size: 4, healthy: 2, seqA: 0, seqB: 3 });
  });
});
