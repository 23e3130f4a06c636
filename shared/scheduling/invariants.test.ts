import { describe, expect, it } from 'vitest';
import { CONDITION_WAITING, WaitingOn } from '#api';
import type { NodeMaintenance } from '#api';
import { SchedulingInvariantError } from './errors.ts';
import { checkSchedulingInvariants } from './invariants.ts';
import type { SchedulingLimits } from './limits.ts';
import { planScheduling } from './plan.ts';
import type { SchedulingPlan } from './plan.ts';
import { aMaintenance, NOW, someNodes, recordedState } from './test-builders.ts';

const maintenances: NodeMaintenance[] = [
  aMaintenance({ name: 'run', nodeName: 'node-01', phase: 'Draining' }),
  aMaintenance({ name: 'p1', nodeName: 'node-02', created: '2025-12-01T00:00:00Z' }),
  aMaintenance({ name: 'p2', nodeName: 'node-02', created: '2025-12-02T00:00:00Z' }),
  aMaintenance({ name: 'p3', nodeName: 'node-03', created: '2025-12-03T00:00:00Z' }),
  aMaintenance({ name: 'p4', nodeName: 'node-04', created: '2025-12-04T00:00:00Z' }),
];
const state = recordedState({ nodes: someNodes(4, { cordoned: ['node-04'] }), maintenances });
const tight: SchedulingLimits = { maxParallelOperations: 2, maxUnavailable: 2 };

/** The violations a plan (derived from the honest one) breaks; [] when it passes. */
function violations(limits: SchedulingLimits, tamper: (plan: SchedulingPlan) => SchedulingPlan): readonly string[] {
  const honest = planScheduling(state, limits, NOW);
  try {
    checkSchedulingInvariants(state, limits, tamper(honest));
    return [];
  } catch (error) {
    if (error instanceof SchedulingInvariantError) return error.violations;
    throw error;
  }
}

/** Moves `key` from waiting to admitted, as a buggy planner would. */
function alsoAdmit(key: string) {
  return (plan: SchedulingPlan): SchedulingPlan => ({ ...plan, admitted: [...plan.admitted, key], waiting: plan.waiting.filter((w) => w.key !== key) });
}

describe('checkSchedulingInvariants', () => {
  it.each([
    { rule: 'the honest plan passes', limits: tight, tamper: (p: SchedulingPlan) => p, expected: [] },
    {
      rule: 'a non-candidate admitted',
      limits: tight,
      tamper: (p: SchedulingPlan) => ({ ...p, admitted: [...p.admitted, 'default/run'] }),
      expected: ['default/run admitted but it is not an unscheduled request', 'default/run admitted without a status write'],
    },
    {
      rule: 'two admitted on one node',
      limits: { maxParallelOperations: 9, maxUnavailable: 'unlimited' as const },
      tamper: alsoAdmit('default/p2'),
      expected: ['two requests admitted for node node-02', 'default/p2 written with Ready reason Pending, expected Scheduled'],
    },
    {
      rule: 'maxParallelOperations exceeded',
      limits: { maxParallelOperations: 2, maxUnavailable: 'unlimited' as const },
      tamper: alsoAdmit('default/p3'),
      expected: ['3 nodes in progress after the plan, maxParallelOperations is 2', 'default/p3 written with Ready reason Pending, expected Scheduled'],
    },
    {
      rule: 'maxUnavailable exceeded by newly unavailable nodes',
      limits: tight,
      tamper: alsoAdmit('default/p3'),
      expected: [
        '3 nodes in progress after the plan, maxParallelOperations is 2',
        '2 unavailable + 1 newly unavailable exceeds maxUnavailable 2',
        'default/p3 written with Ready reason Pending, expected Scheduled',
      ],
    },
    {
      rule: 'admitted under an invalid config',
      limits: { maxParallelOperations: null, maxUnavailable: 'unlimited' as const },
      tamper: alsoAdmit('default/p1'),
      expected: ['1 admitted under an invalid config', 'default/p1 written with Ready reason Pending, expected Scheduled'],
    },
    {
      rule: 'a request neither admitted nor waiting',
      limits: tight,
      tamper: (p: SchedulingPlan) => ({ ...p, waiting: p.waiting.filter((w) => w.key !== 'default/p3') }),
      expected: ['default/p3 must be either admitted or waiting, exactly once'],
    },
    {
      rule: 'a wait without its gate, and a wait written with another gate',
      limits: tight,
      tamper: (p: SchedulingPlan) => ({ ...p, waitingOn: new Map([...p.waitingOn].filter(([key]) => key !== 'default/p3').map(([key, on]) => [key, key === 'default/p1' ? WaitingOn.Zone : on])) }),
      expected: ['default/p3 waits without a gate recorded', 'default/p1 written with kmaint.io/Waiting Parallel, expected Zone', 'default/p3 written with kmaint.io/Waiting Parallel, expected (none)'],
    },
    {
      rule: 'an admission written with kmaint.io/Waiting left on',
      limits: tight,
      tamper: (p: SchedulingPlan) => ({
        ...p,
        actions: p.actions.map((a) =>
          a.kind === 'writeStatus' && a.phaseTo === 'Scheduled'
            ? { ...a, status: { conditions: [...(a.status.conditions ?? []), { type: CONDITION_WAITING, status: 'True' as const, reason: 'Parallel', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] } }
            : a,
        ),
      }),
      expected: ['default/p4 written with kmaint.io/Waiting Parallel, expected (none)'],
    },
    {
      rule: 'blocked with nothing waiting, idle with actions',
      limits: tight,
      tamper: (p: SchedulingPlan) => ({ ...p, admitted: [], waiting: [], blocked: true, idle: true, actions: p.actions.filter((a) => a.kind === 'emitEvent') }),
      expected: [
        'default/p1 must be either admitted or waiting, exactly once',
        'default/p2 must be either admitted or waiting, exactly once',
        'default/p3 must be either admitted or waiting, exactly once',
        'default/p4 must be either admitted or waiting, exactly once',
        'plan is blocked but nothing waits',
        'plan is idle but has actions',
      ],
    },
  ])('$rule', ({ limits, tamper, expected }) => {
    expect(violations(limits, tamper)).toEqual(expected);
  });

  it('throws one error naming every violation', () => {
    expect(() => checkSchedulingInvariants(state, tight, { ...planScheduling(state, tight, NOW), admitted: ['default/run'] })).toThrow(
      'checking scheduling invariants: default/run admitted but it is not an unscheduled request; ',
    );
  });
});
