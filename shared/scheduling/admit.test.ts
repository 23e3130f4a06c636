import { describe, expect, it } from 'vitest';
import { maintenanceKey, type NodeMaintenance } from '#api';
import { admitRanked, limitWaitReason } from './admit.ts';
import type { ValidBudget } from './limits.ts';
import { aMaintenance, someNodes, recordedState } from './test-builders.ts';

// node-01..node-03 available, node-09 and node-10 unavailable.
const nodes = someNodes(10, { cordoned: ['node-09'], notReady: ['node-10'] });
const on = (node: string): NodeMaintenance => aMaintenance({ name: `nm-${node}`, nodeName: node });

function budget(availableSlots: number, canBecomeUnavailable: number, maxUnavailable: number | 'unlimited' = 9): ValidBudget {
  return { kind: 'valid', maxParallelOperations: availableSlots, maxUnavailable, inProgress: 0, unavailable: 2, availableSlots, canBecomeUnavailable };
}

describe('admitRanked', () => {
  it.each([
    {
      rule: 'the flaw fixed: [available, available, unavailable] with 2 slots and budget 1 admits the first and the third (upstream: only the first)',
      ranked: [on('node-01'), on('node-02'), on('node-09')],
      budget: budget(2, 1),
      expected: { admitted: ['default/nm-node-01', 'default/nm-node-09'], skipped: ['default/nm-node-02'], slotsLeft: 0, canBecomeUnavailableLeft: 0 },
    },
    {
      rule: 'requests on unavailable nodes take slots but no availability budget',
      ranked: [on('node-09'), on('node-10'), on('node-01')],
      budget: budget(3, 1),
      expected: { admitted: ['default/nm-node-09', 'default/nm-node-10', 'default/nm-node-01'], skipped: [], slotsLeft: 0, canBecomeUnavailableLeft: 0 },
    },
    {
      rule: 'no availability budget: only unavailable nodes, slots left over',
      ranked: [on('node-01'), on('node-09'), on('node-02')],
      budget: budget(3, 0),
      expected: { admitted: ['default/nm-node-09'], skipped: ['default/nm-node-01', 'default/nm-node-02'], slotsLeft: 2, canBecomeUnavailableLeft: 0 },
    },
    {
      rule: 'no slots: nothing, not even on unavailable nodes',
      ranked: [on('node-09')],
      budget: budget(0, 5),
      expected: { admitted: [], skipped: ['default/nm-node-09'], slotsLeft: 0, canBecomeUnavailableLeft: 5 },
    },
  ])('$rule', ({ ranked, budget: b, expected }) => {
    const state = recordedState({ nodes, maintenances: ranked });
    const result = admitRanked(state, b, ranked);
    expect({
      admitted: result.admitted.map((a) => maintenanceKey(a.maintenance)),
      skipped: result.skipped.map(maintenanceKey),
      slotsLeft: result.slotsLeft,
      canBecomeUnavailableLeft: result.canBecomeUnavailableLeft,
    }).toEqual(expected);
  });

  it.each([
    { rule: 'slots spent: maxParallelOperations, counting this pass as in progress', budget: budget(1, 1), ranked: [on('node-01'), on('node-02')], expected: 'maxParallelOperations 1 reached (1 in progress)' },
    {
      rule: 'slots left: maxUnavailable, with nodes admitted this pass counted under maintenance',
      budget: budget(3, 0, 2),
      ranked: [on('node-01'), on('node-09')],
      expected: 'maxUnavailable 2 reached (1 under maintenance + 1 cordoned or not ready)',
    },
  ])('limitWaitReason: $rule', ({ budget: b, ranked, expected }) => {
    const state = recordedState({ nodes, maintenances: ranked });
    expect(limitWaitReason(state, b, admitRanked(state, b, ranked))).toBe(expected);
  });
});
