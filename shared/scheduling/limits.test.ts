import { describe, expect, it } from 'vitest';
import { computeBudget } from './limits.ts';
import type { SchedulingLimits } from './limits.ts';
import { aMaintenance, someNodes, recordedState } from './test-builders.ts';

// 10 nodes: node-09 cordoned, node-10 not ready, node-01 and node-09 under maintenance -> 3 unavailable, 2 in progress.
const state = recordedState({
  nodes: someNodes(10, { cordoned: ['node-09'], notReady: ['node-10'] }),
  maintenances: [
    aMaintenance({ name: 'a', nodeName: 'node-01', phase: 'Draining' }),
    aMaintenance({ name: 'b', nodeName: 'node-09', phase: 'Cordon' }),
    aMaintenance({ name: 'c', nodeName: 'node-99', phase: 'Cordon' }),
  ],
});

describe('computeBudget', () => {
  it.each<{ rule: string; limits: SchedulingLimits; expected: ReturnType<typeof computeBudget> }>([
    {
      rule: 'slots are maxParallelOperations minus nodes in progress; unavailability budget subtracts the union',
      limits: { maxParallelOperations: 5, maxUnavailable: 4 },
      expected: { kind: 'valid', maxParallelOperations: 5, maxUnavailable: 4, inProgress: 2, unavailable: 3, availableSlots: 3, canBecomeUnavailable: 1 },
    },
    {
      rule: 'unlimited maxUnavailable lets every slot make a node unavailable',
      limits: { maxParallelOperations: 5, maxUnavailable: 'unlimited' },
      expected: { kind: 'valid', maxParallelOperations: 5, maxUnavailable: 'unlimited', inProgress: 2, unavailable: 3, availableSlots: 3, canBecomeUnavailable: 3 },
    },
    {
      rule: 'never negative when already above both limits',
      limits: { maxParallelOperations: 1, maxUnavailable: 2 },
      expected: { kind: 'valid', maxParallelOperations: 1, maxUnavailable: 2, inProgress: 2, unavailable: 3, availableSlots: 0, canBecomeUnavailable: 0 },
    },
    {
      rule: 'slots are capped at the number of nodes',
      limits: { maxParallelOperations: 100, maxUnavailable: 'unlimited' },
      expected: { kind: 'valid', maxParallelOperations: 100, maxUnavailable: 'unlimited', inProgress: 2, unavailable: 3, availableSlots: 10, canBecomeUnavailable: 10 },
    },
    { rule: 'null maxParallelOperations carries the stated problems', limits: { maxParallelOperations: null, maxUnavailable: 1, problems: ['p1', 'p2'] }, expected: { kind: 'invalid', problem: 'p1; p2' } },
    { rule: 'null without a stated problem names the limit', limits: { maxParallelOperations: 1, maxUnavailable: null }, expected: { kind: 'invalid', problem: 'maxUnavailable could not be resolved' } },
    { rule: 'a fraction is invalid', limits: { maxParallelOperations: 1.5, maxUnavailable: 1 }, expected: { kind: 'invalid', problem: 'maxParallelOperations 1.5 is not a non-negative integer' } },
    { rule: 'a negative maxUnavailable is invalid', limits: { maxParallelOperations: 1, maxUnavailable: -1 }, expected: { kind: 'invalid', problem: 'maxUnavailable -1 is not a non-negative integer' } },
    { rule: 'NaN is invalid', limits: { maxParallelOperations: Number.NaN, maxUnavailable: 1 }, expected: { kind: 'invalid', problem: 'maxParallelOperations NaN is not a non-negative integer' } },
  ])('$rule', ({ limits, expected }) => {
    expect(computeBudget(state, limits)).toEqual(expected);
  });
});
