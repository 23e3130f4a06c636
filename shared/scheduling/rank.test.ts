import { describe, expect, it } from 'vitest';
import { ANNOTATION_DEADLINE, maintenanceKey, type NodeMaintenance } from '#api';
import { firstPerNode, rankCandidates, RANKERS } from './rank.ts';
import { aMaintenance, NOW, someNodes, recordedState } from './test-builders.ts';

function rank(maintenances: NodeMaintenance[]): string[] {
  const state = recordedState({ nodes: someNodes(5), maintenances });
  return rankCandidates(state, state.unscheduled, NOW).map(maintenanceKey);
}

function many(requestorID: string, count: number, created: string): NodeMaintenance[] {
  return Array.from({ length: count }, (_, i) => aMaintenance({ name: `${requestorID}-${i}`, nodeName: 'node-99', requestorID, created }));
}

describe('RANKERS', () => {
  it('run in upstream priority order, after a deadline at risk (issue 30), and end in a total order', () => {
    expect(RANKERS.map((r) => r.name)).toEqual(['deadline-at-risk', 'requestor-in-progress', 'nearest-deadline', 'fewer-pending', 'older-first', 'node-name', 'requestor-id', 'namespace-name']);
  });
});

describe('rankCandidates', () => {
  it.each([
    {
      rule: 'in-progress requestor beats fewer pending and age',
      maintenances: [
        aMaintenance({ name: 'run', nodeName: 'node-05', requestorID: 'a', phase: 'Draining' }),
        aMaintenance({ name: 'a1', nodeName: 'node-01', requestorID: 'a', created: '2025-12-09T00:00:00Z' }),
        aMaintenance({ name: 'a2', nodeName: 'node-02', requestorID: 'a', created: '2025-12-09T00:00:00Z' }),
        aMaintenance({ name: 'b1', nodeName: 'node-03', requestorID: 'b', created: '2025-12-01T00:00:00Z' }),
      ],
      expected: ['default/a1', 'default/a2', 'default/b1'],
    },
    {
      rule: 'in-progress requestor beats a nearer deadline not yet at risk (1 h away; at risk from 35 min: 300 s drain + 1800 s margin)',
      maintenances: [
        aMaintenance({ name: 'run', nodeName: 'node-05', requestorID: 'a', phase: 'Draining' }),
        aMaintenance({ name: 'a1', nodeName: 'node-01', requestorID: 'a' }),
        aMaintenance({ name: 'b1', nodeName: 'node-02', requestorID: 'b', annotations: { [ANNOTATION_DEADLINE]: '2026-01-01T01:00:00Z' } }),
      ],
      expected: ['default/a1', 'default/b1'],
    },
    {
      rule: 'nearest deadline first, then requests without one; a deadline beats fewer pending and age',
      maintenances: [
        aMaintenance({ name: 'a1', nodeName: 'node-01', requestorID: 'a', created: '2025-12-01T00:00:00Z' }),
        aMaintenance({ name: 'b1', nodeName: 'node-02', requestorID: 'b', created: '2025-12-09T00:00:00Z', annotations: { [ANNOTATION_DEADLINE]: '2026-01-03T00:00:00Z' } }),
        aMaintenance({ name: 'b2', nodeName: 'node-03', requestorID: 'b', created: '2025-12-09T00:00:00Z', annotations: { [ANNOTATION_DEADLINE]: '2026-01-02T00:00:00+02:00' } }),
      ],
      expected: ['default/b2', 'default/b1', 'default/a1'],
    },
    {
      rule: 'an invalid deadline ranks as none (the scheduler reports it)',
      maintenances: [
        aMaintenance({ name: 'x', nodeName: 'node-01', created: '2025-12-01T00:00:00Z', annotations: { [ANNOTATION_DEADLINE]: 'tomorrow' } }),
        aMaintenance({ name: 'y', nodeName: 'node-02', created: '2025-12-02T00:00:00Z' }),
        aMaintenance({ name: 'z', nodeName: 'node-03', created: '2025-12-03T00:00:00Z', annotations: { [ANNOTATION_DEADLINE]: '2026-02-01T00:00:00Z' } }),
      ],
      expected: ['default/z', 'default/x', 'default/y'],
    },
    {
      rule: 'fewer pending beats age',
      maintenances: [
        aMaintenance({ name: 'a1', nodeName: 'node-01', requestorID: 'a', created: '2025-12-01T00:00:00Z' }),
        aMaintenance({ name: 'a2', nodeName: 'node-02', requestorID: 'a', created: '2025-12-02T00:00:00Z' }),
        aMaintenance({ name: 'b1', nodeName: 'node-03', requestorID: 'b', created: '2025-12-09T00:00:00Z' }),
      ],
      expected: ['default/b1', 'default/a1', 'default/a2'],
    },
    {
      rule: 'a missing creationTimestamp sorts as oldest (Go zero time)',
      maintenances: [
        aMaintenance({ name: 'x', nodeName: 'node-01', created: '2025-12-01T00:00:00Z' }),
        { ...aMaintenance({ name: 'y', nodeName: 'node-02' }), metadata: { name: 'y', namespace: 'default' } },
      ],
      expected: ['default/y', 'default/x'],
    },
    {
      rule: 'tie: the node name decides',
      maintenances: [aMaintenance({ name: 'a', nodeName: 'node-02' }), aMaintenance({ name: 'b', nodeName: 'node-01' })],
      expected: ['default/b', 'default/a'],
    },
    {
      rule: 'tie on one node: the requestorID decides',
      maintenances: [aMaintenance({ name: 'a', nodeName: 'node-01', requestorID: 's' }), aMaintenance({ name: 'b', nodeName: 'node-01', requestorID: 'r' })],
      expected: ['default/b', 'default/a'],
    },
    {
      rule: 'tie on one node and requestor: namespace/name decides, ordinal (not locale) order',
      maintenances: [
        aMaintenance({ name: 'a', nodeName: 'node-01', namespace: 'zz' }),
        aMaintenance({ name: 'Z', nodeName: 'node-01', namespace: 'zz' }),
        aMaintenance({ name: 'b', nodeName: 'node-01' }),
      ],
      expected: ['default/b', 'zz/Z', 'zz/a'],
    },
  ])('$rule', ({ maintenances, expected }) => {
    expect(rank(maintenances)).toEqual(expected);
  });

  it('caps fewer-pending at 100 others (upstream weight), so beyond it age decides', () => {
    const state = recordedState({ nodes: someNodes(1), maintenances: [...many('busy', 103, '2025-12-01T00:00:00Z'), ...many('lazy', 102, '2025-12-02T00:00:00Z')] });
    const ranked = rankCandidates(state, [state.unscheduled[102], state.unscheduled[103]].filter((nm) => nm !== undefined), NOW).map(maintenanceKey);
    // busy has 102 others, lazy 101: both capped to 100, so the older busy request wins.
    expect(ranked).toEqual(['default/busy-102', 'default/lazy-0']);
  });
});

describe('firstPerNode', () => {
  it('keeps the best-ranked request of each node and pairs the rest with their winner', () => {
    const ranked = [
      aMaintenance({ name: 'w1', nodeName: 'node-01' }),
      aMaintenance({ name: 'w2', nodeName: 'node-02' }),
      aMaintenance({ name: 'l1', nodeName: 'node-01' }),
    ];
    const { winners, losers } = firstPerNode(ranked);
    expect({ winners: winners.map(maintenanceKey), losers: losers.map((l) => [maintenanceKey(l.maintenance), maintenanceKey(l.winner)]) }).toEqual({
      winners: ['default/w1', 'default/w2'],
      losers: [['default/l1', 'default/w1']],
    });
  });
});
