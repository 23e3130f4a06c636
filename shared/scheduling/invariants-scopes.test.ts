// The invariant checker catches plans that break a pool, zone or window rule (each derived from an honest plan).
import { describe, expect, it } from 'vitest';
import { SchedulingInvariantError } from './errors.ts';
import { checkSchedulingInvariants } from './invariants.ts';
import type { SchedulingLimits } from './limits.ts';
import { planScheduling } from './plan.ts';
import type { SchedulingPlan } from './plan.ts';
import { aPoolNode, limits, NOW, pending, POOL, withAdmission, recordedState } from './test-builders.ts';

const state = recordedState({
  nodes: [aPoolNode('g1', 'gpu', 'a'), aPoolNode('g2', 'gpu', 'b'), aPoolNode('c1', 'general', 'a'), aPoolNode('c2', 'general', 'a')],
  maintenances: [pending('g1', 'g1', 1), pending('g2', 'g2', 2), pending('c1', 'c1', 3), pending('c2', 'c2', 4)],
});
const gpu = (more: Record<string, unknown>) => ({ name: 'gpu', nodeSelector: { matchLabels: { [POOL]: 'gpu' } }, ...more });

/** Marks every waiting request admitted, as a planner ignoring the scopes would. */
function admitAll(plan: SchedulingPlan): SchedulingPlan {
  return { ...plan, admitted: [...plan.admitted, ...plan.waiting.map((w) => w.key)], waiting: [], blocked: false };
}

function violations(lim: SchedulingLimits, tamper: (plan: SchedulingPlan) => SchedulingPlan): readonly string[] {
  try {
    checkSchedulingInvariants(state, lim, tamper(planScheduling(state, lim, NOW)), NOW);
    return [];
  } catch (error) {
    if (error instanceof SchedulingInvariantError) return error.violations.filter((v) => !v.includes('written with Ready reason'));
    throw error;
  }
}

describe('checkSchedulingInvariants with pools, zones and windows', () => {
  it.each([
    { rule: 'an honest plan passes', lim: withAdmission(limits(9, 'unlimited'), { pools: [gpu({ maxUnavailable: 1 })], maxUnavailablePerZone: 1 }), tamper: (p: SchedulingPlan) => p, expected: [] },
    {
      rule: 'a pool maxUnavailable exceeded',
      lim: withAdmission(limits(9, 'unlimited'), { pools: [gpu({ maxUnavailable: 1 })] }),
      tamper: admitAll,
      expected: ['pool gpu: 0 + 2 exceeds maxUnavailable 1'],
    },
    {
      rule: 'a pool maxParallelOperations exceeded',
      lim: withAdmission(limits(9, 'unlimited'), { pools: [gpu({ maxParallelOperations: 1 })] }),
      tamper: admitAll,
      expected: ['pool gpu: 0 + 2 exceeds maxParallelOperations 1'],
    },
    {
      rule: 'a zone limit exceeded',
      lim: withAdmission(limits(9, 'unlimited'), { maxUnavailablePerZone: 1 }),
      tamper: admitAll,
      expected: ['zone a: 0 + 3 exceeds maxUnavailablePerZone 1'],
    },
    {
      rule: 'an admission in a pool with an invalid value',
      lim: withAdmission(limits(9, 'unlimited'), { pools: [gpu({ maxUnavailable: 'x%' })] }),
      tamper: admitAll,
      expected: ['2 admitted in pool gpu, which has an invalid value'],
    },
    {
      rule: 'admissions outside the cluster window',
      lim: withAdmission(limits(9, 'unlimited'), { windows: [{ schedule: '0 12 * * *', duration: '1h' }] }),
      tamper: admitAll,
      expected: ['4 admitted in the cluster while its windows are closed'],
    },
    {
      rule: 'admissions outside a pool window',
      lim: withAdmission(limits(9, 'unlimited'), { pools: [gpu({ windows: [{ schedule: '0 12 * * *', duration: '1h' }] })] }),
      tamper: admitAll,
      expected: ['2 admitted in pool gpu while its windows are closed'],
    },
  ])('$rule', ({ lim, tamper, expected }) => {
    expect(violations(lim, tamper)).toEqual(expected);
  });

  it('windows cannot be checked without the clock', () => {
    const lim = withAdmission(limits(9, 'unlimited'), { windows: [{ schedule: '0 12 * * *', duration: '1h' }] });
    expect(() => checkSchedulingInvariants(state, lim, admitAll(planScheduling(state, lim, NOW)))).toThrow('windows are configured but no `now` was given to check them');
  });
});
