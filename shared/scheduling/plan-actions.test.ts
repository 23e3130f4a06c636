import { describe, expect, it } from 'vitest';
import type { NodeMaintenance } from '#api';
import { EARLIER, limits, pending, planChecked, someNodes } from './test-builders.ts';

describe('planScheduling actions (exact writes and events)', () => {
  const target = (name: string) => ({ namespace: 'default', name, uid: `uid-${name}`, resourceVersion: '100' });
  const event = (name: string, message: string) => ({
    kind: 'emitEvent',
    target: { kind: 'NodeMaintenance', namespace: 'default', name, uid: `uid-${name}` },
    type: 'Normal',
    eventReason: 'ConditionChanged',
    message,
    reason: `phase changed to ${message}`,
  });
  /** kmaint's admission record on the request's Node, written before its Scheduled status, in its unit (issue 40). */
  const record = (name: string, node: string, reason: string) => ({
    kind: 'patchNodeAnnotations',
    node: { name: node, resourceVersion: '' },
    annotations: { 'kmaint.io/admitted': `default/${name}/uid-${name}` },
    maintenance: target(name),
    reason,
  });
  const ready = (reason: string, message: string, lastTransitionTime: string, observedGeneration = 1) => ({
    type: 'Ready',
    status: 'False',
    reason,
    message,
    lastTransitionTime,
    observedGeneration,
  });
  /** kmaint.io/Waiting beside Ready: what the request waits on. */
  const waiting = (reason: string, lastTransitionTime: string, observedGeneration = 1) => ({
    type: 'kmaint.io/Waiting',
    status: 'True',
    reason,
    message: '',
    lastTransitionTime,
    observedGeneration,
  });

  it.each([
    {
      rule: 'a new request admitted at once: one write with the final phase, one event per phase passed',
      maintenances: [pending('nm-new', 'node-01', 1, { phase: '' })],
      limits: limits(1, 'unlimited'),
      actions: [
        record('nm-new', 'node-01', 'admitted: slot 1 of 1'),
        {
          kind: 'writeStatus',
          target: target('nm-new'),
          status: { conditions: [ready('Scheduled', 'admitted: slot 1 of 1', '2026-01-01T00:00:00Z')] },
          phaseFrom: '',
          phaseTo: 'Scheduled',
          reason: 'admitted: slot 1 of 1',
        },
        event('nm-new', 'Pending'),
        event('nm-new', 'Scheduled'),
      ],
    },
    {
      rule: 'a new request that must wait becomes Pending with the reason',
      maintenances: [pending('nm-new', 'node-01', 1, { phase: '' })],
      limits: limits(0, 'unlimited'),
      actions: [
        {
          kind: 'writeStatus',
          target: target('nm-new'),
          status: { conditions: [ready('Pending', 'waiting: maxParallelOperations 0 reached (0 in progress)', '2026-01-01T00:00:00Z'), waiting('Parallel', '2026-01-01T00:00:00Z')] },
          phaseFrom: '',
          phaseTo: 'Pending',
          reason: 'new request, waiting: maxParallelOperations 0 reached (0 in progress)',
        },
        event('nm-new', 'Pending'),
      ],
    },
    {
      rule: 'a Pending request admitted keeps lastTransitionTime (status stays False), loses kmaint.io/Waiting in the same write, and gets the Scheduled event',
      maintenances: [pending('nm-1', 'node-01', 1, { message: 'waiting: maxParallelOperations 0 reached (0 in progress)', waitingOn: 'Parallel' })],
      limits: limits(1, 'unlimited'),
      actions: [
        record('nm-1', 'node-01', 'admitted: slot 1 of 1'),
        {
          kind: 'writeStatus',
          target: target('nm-1'),
          status: { conditions: [ready('Scheduled', 'admitted: slot 1 of 1', EARLIER)] },
          phaseFrom: 'Pending',
          phaseTo: 'Scheduled',
          reason: 'admitted: slot 1 of 1',
        },
        event('nm-1', 'Scheduled'),
      ],
    },
    {
      rule: 'a Pending request whose wait reason changed gets a status write and no event',
      maintenances: [pending('nm-1', 'node-01', 1, { message: 'waiting: maxParallelOperations 1 reached (1 in progress)', waitingOn: 'Parallel' })],
      limits: limits(0, 'unlimited'),
      actions: [
        {
          kind: 'writeStatus',
          target: target('nm-1'),
          status: { conditions: [ready('Pending', 'waiting: maxParallelOperations 0 reached (0 in progress)', EARLIER), waiting('Parallel', EARLIER)] },
          reason: 'wait reason changed, waiting: maxParallelOperations 0 reached (0 in progress)',
        },
      ],
    },
    {
      rule: 'a Pending request whose wait reason is unchanged gets nothing',
      maintenances: [pending('nm-1', 'node-01', 1, { message: 'waiting: maxParallelOperations 0 reached (0 in progress)', waitingOn: 'Parallel' })],
      limits: limits(0, 'unlimited'),
      actions: [],
    },
    {
      rule: 'a Pending request an older kmaint wrote (no kmaint.io/Waiting) gets it in one status write; Ready keeps its words and time',
      maintenances: [pending('nm-1', 'node-01', 1, { message: 'waiting: maxParallelOperations 0 reached (0 in progress)' })],
      limits: limits(0, 'unlimited'),
      actions: [
        {
          kind: 'writeStatus',
          target: target('nm-1'),
          status: { conditions: [ready('Pending', 'waiting: maxParallelOperations 0 reached (0 in progress)', EARLIER), waiting('Parallel', '2026-01-01T00:00:00Z')] },
          reason: 'wait reason changed, waiting: maxParallelOperations 0 reached (0 in progress)',
        },
      ],
    },
    {
      rule: 'admissions are written first, in rank order, then waits by namespace/name',
      maintenances: [pending('nm-c', 'node-01', 1, { phase: '' }), pending('nm-a', 'node-02', 2, { phase: '' }), pending('nm-b', 'node-03', 3)],
      limits: limits(1, 'unlimited'),
      actions: [
        record('nm-c', 'node-01', 'admitted: slot 1 of 1'),
        {
          kind: 'writeStatus',
          target: target('nm-c'),
          status: { conditions: [ready('Scheduled', 'admitted: slot 1 of 1', '2026-01-01T00:00:00Z')] },
          phaseFrom: '',
          phaseTo: 'Scheduled',
          reason: 'admitted: slot 1 of 1',
        },
        event('nm-c', 'Pending'),
        event('nm-c', 'Scheduled'),
        {
          kind: 'writeStatus',
          target: target('nm-a'),
          status: { conditions: [ready('Pending', 'waiting: maxParallelOperations 1 reached (1 in progress)', '2026-01-01T00:00:00Z'), waiting('Parallel', '2026-01-01T00:00:00Z')] },
          phaseFrom: '',
          phaseTo: 'Pending',
          reason: 'new request, waiting: maxParallelOperations 1 reached (1 in progress)',
        },
        event('nm-a', 'Pending'),
        {
          kind: 'writeStatus',
          target: target('nm-b'),
          status: { conditions: [ready('Pending', 'waiting: maxParallelOperations 1 reached (1 in progress)', EARLIER), waiting('Parallel', '2026-01-01T00:00:00Z')] },
          reason: 'wait reason changed, waiting: maxParallelOperations 1 reached (1 in progress)',
        },
      ],
    },
  ])('$rule', ({ maintenances, limits: lim, actions }) => {
    expect(planChecked(someNodes(3), maintenances, lim).actions).toEqual(actions);
  });

  it('rewrites an unchanged message when the generation moved (observedGeneration follows metadata.generation)', () => {
    const nm = pending('nm-1', 'node-01', 1, { message: 'waiting: maxParallelOperations 0 reached (0 in progress)', waitingOn: 'Parallel' });
    const bumped: NodeMaintenance = { ...nm, metadata: { ...nm.metadata, generation: 2 } };
    const plan = planChecked(someNodes(1), [bumped], limits(0, 'unlimited'));
    expect(plan.actions).toEqual([
      {
        kind: 'writeStatus',
        target: target('nm-1'),
        status: { conditions: [ready('Pending', 'waiting: maxParallelOperations 0 reached (0 in progress)', EARLIER, 2), waiting('Parallel', EARLIER, 2)] },
        reason: 'wait reason changed, waiting: maxParallelOperations 0 reached (0 in progress)',
      },
    ]);
  });

  it('keeps every other status field and condition in the written status', () => {
    const nm = pending('nm-1', 'node-01', 1);
    const other = { type: 'RequestorFailed', status: 'False' as const, reason: 'x', message: 'y', lastTransitionTime: EARLIER };
    const withMore: NodeMaintenance = {
      ...nm,
      status: { conditions: [other, ...(nm.status?.conditions ?? [])], waitForCompletion: ['default/pod-a'], drain: { totalPods: 3, evictionPods: 1, drainProgress: 66 } },
    };
    const write = planChecked(someNodes(1), [withMore], limits(1, 'unlimited')).actions.find((a) => a.kind === 'writeStatus');
    expect(write?.kind === 'writeStatus' ? write.status : undefined).toEqual({
      conditions: [other, ready('Scheduled', 'admitted: slot 1 of 1', EARLIER)],
      waitForCompletion: ['default/pod-a'],
      drain: { totalPods: 3, evictionPods: 1, drainProgress: 66 },
    });
  });
});
