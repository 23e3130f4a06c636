import { describe, expect, it } from 'vitest';
import { isInProgress, isUnscheduled, maintenanceKey, maintenancePhase } from '#api';
import { buildSchedulingState, isNodeUnavailable } from './state.ts';
import { aMaintenance, aNode, someNodes } from './test-builders.ts';

describe('phases', () => {
  it.each([
    { rule: 'no Ready condition is uninitialized', phase: '', deleting: false, expected: { phase: '', inProgress: false, unscheduled: true } },
    { rule: 'Pending is unscheduled', phase: 'Pending', deleting: false, expected: { phase: 'Pending', inProgress: false, unscheduled: true } },
    { rule: 'Scheduled is in progress', phase: 'Scheduled', deleting: false, expected: { phase: 'Scheduled', inProgress: true, unscheduled: false } },
    { rule: 'Ready keeps its slot until deleted', phase: 'Ready', deleting: false, expected: { phase: 'Ready', inProgress: true, unscheduled: false } },
    { rule: 'RequestorFailed keeps its slot', phase: 'RequestorFailed', deleting: false, expected: { phase: 'RequestorFailed', inProgress: true, unscheduled: false } },
    { rule: 'Pending being deleted is in progress', phase: 'Pending', deleting: true, expected: { phase: 'Pending', inProgress: true, unscheduled: false } },
    { rule: 'uninitialized being deleted is in progress', phase: '', deleting: true, expected: { phase: '', inProgress: true, unscheduled: false } },
  ])('$rule', ({ phase, deleting, expected }) => {
    const nm = aMaintenance({ name: 'nm', nodeName: 'node-01', phase, deleting });
    expect({ phase: maintenancePhase(nm), inProgress: isInProgress(nm), unscheduled: isUnscheduled(nm) }).toEqual(expected);
  });

  it('keys a request by namespace/name', () => {
    expect(maintenanceKey(aMaintenance({ name: 'nm', namespace: 'ns', nodeName: 'n' }))).toBe('ns/nm');
  });
});

/** A ready node carrying one more condition. */
function withCondition(type: string, status: string, message: string): ReturnType<typeof aNode> {
  const node = aNode({ name: 'n' });
  node.status?.conditions?.push({ type, status, reason: 'SomeReason', message });
  return node;
}

describe('isNodeUnavailable', () => {
  it.each([
    { rule: 'ready and schedulable is available', node: aNode({ name: 'n' }), expected: false },
    { rule: 'no Ready condition counts as ready', node: aNode({ name: 'n', ready: 'absent' }), expected: false },
    { rule: 'cordoned is unavailable', node: aNode({ name: 'n', unschedulable: true }), expected: true },
    { rule: 'Ready False is unavailable', node: aNode({ name: 'n', ready: 'False' }), expected: true },
    { rule: 'Ready Unknown is unavailable', node: aNode({ name: 'n', ready: 'Unknown' }), expected: true },
    { rule: "another controller's MaintenanceInProgress=True is unavailable", node: withCondition('MaintenanceInProgress', 'True', 'node-drainer: rack 4'), expected: true },
    { rule: "another controller's DrainInProgress=True is unavailable", node: withCondition('DrainInProgress', 'True', ''), expected: true },
    { rule: "another controller's Drained=True is unavailable", node: withCondition('Drained', 'True', 'done'), expected: true },
    { rule: "another controller's MaintenancePlanned=True alone is available", node: withCondition('MaintenancePlanned', 'True', 'next week'), expected: false },
    { rule: "another controller's MaintenanceInProgress=False is available", node: withCondition('MaintenanceInProgress', 'False', ''), expected: false },
    { rule: "kmaint's own MaintenanceInProgress=True does not count (its request counts instead)", node: withCondition('MaintenanceInProgress', 'True', 'kmaint: NodeMaintenance default/nm'), expected: false },
  ])('$rule', ({ node, expected }) => {
    expect(isNodeUnavailable(node)).toBe(expected);
  });
});

describe('buildSchedulingState', () => {
  it('indexes nodes, progress, availability and pending counts once', () => {
    // node-01 carries kmaint's admission record of a-run (issue 40): b-run's Draining is a phase kmaint never admitted.
    const [node01, ...rest] = someNodes(4, { cordoned: ['node-03'], notReady: ['node-04'] });
    const recorded = { ...node01, metadata: { ...node01?.metadata, annotations: { 'kmaint.io/admitted': 'default/a-run/uid-a-run' } } };
    const state = buildSchedulingState({
      nodes: [recorded, ...rest],
      maintenances: [
        aMaintenance({ name: 'b-run', nodeName: 'node-01', requestorID: 'upgrade', phase: 'Draining' }),
        aMaintenance({ name: 'a-run', nodeName: 'node-01', requestorID: 'firmware', phase: 'Ready' }),
        aMaintenance({ name: 'gone', nodeName: 'node-99', requestorID: 'reaper', phase: 'Cordon' }),
        aMaintenance({ name: 'del', nodeName: 'node-02', requestorID: 'upgrade', deleting: true }),
        aMaintenance({ name: 'p1', nodeName: 'node-03', requestorID: 'upgrade' }),
        aMaintenance({ name: 'p2', nodeName: 'node-98', requestorID: 'upgrade', phase: '' }),
        aMaintenance({ name: 'p3', nodeName: 'node-04', requestorID: 'firmware' }),
      ],
    });
    expect({
      nodes: [...state.nodes.keys()],
      unscheduled: state.unscheduled.map(maintenanceKey),
      notAdmitted: state.notAdmitted.map(maintenanceKey),
      admitted: [...state.admitted],
      inProgressByNode: Object.fromEntries([...state.inProgressByNode].map(([n, nms]) => [n, nms.map(maintenanceKey)])),
      nodesUnderMaintenance: [...state.nodesUnderMaintenance],
      nodesUnavailable: [...state.nodesUnavailable],
      requestorsInProgress: [...state.requestorsInProgress],
      unscheduledByRequestor: Object.fromEntries(state.unscheduledByRequestor),
    }).toEqual({
      nodes: ['node-01', 'node-02', 'node-03', 'node-04'],
      unscheduled: ['default/p1', 'default/p2', 'default/p3'],
      notAdmitted: ['default/b-run'],
      admitted: ['default/a-run'],
      inProgressByNode: { 'node-01': ['default/a-run'], 'node-02': ['default/del'] },
      nodesUnderMaintenance: ['node-01', 'node-02'],
      nodesUnavailable: ['node-03', 'node-04'],
      requestorsInProgress: ['firmware', 'upgrade'],
      unscheduledByRequestor: { upgrade: 2, firmware: 1 },
    });
  });
});
