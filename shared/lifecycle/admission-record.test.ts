// kmaint's admission record (issue 40) through every pass that reads or removes it: the scheduler (a forged phase goes
// back to Pending and holds nothing; a recorded admission whose status write failed is finished without a second slot;
// an older kmaint's cordon record gets its admission record), the drainer and the gang hold (only recorded requests
// move), cleanup (the record goes with the release, in the uncordon's patch) and the orphan sweep.
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Action, NodeMaintenance } from '../api/index.ts';
import { admissionStanding, buildSchedulingState, checkSchedulingInvariants, foldIntoAdmissionRecords, planScheduling } from '../scheduling/index.ts';
import { aMaintenance, aNode, EARLIER, limits, NOW } from '../scheduling/test-builders.ts';
import { planCleanup } from './cleanup.ts';
import { planDrainer } from './plan-drainer.ts';
import { findNodeOrphans, planOrphanSweep } from './orphan-sweep.ts';
import { aLifecycleMaintenance, aNodeWithUid } from './test-builders.ts';

const ADMITTED = 'kmaint.io/admitted';
const withAnnotations = (node: V1Node, annotations: Record<string, string>): V1Node => ({ ...node, metadata: { ...node.metadata, annotations: { ...node.metadata?.annotations, ...annotations } } });
const target = (name: string) => ({ namespace: 'default', name, uid: `uid-${name}`, resourceVersion: '100' });
const event = (name: string, message: string): Action => ({
  kind: 'emitEvent',
  target: { kind: 'NodeMaintenance', namespace: 'default', name, uid: `uid-${name}` },
  type: 'Normal',
  eventReason: 'ConditionChanged',
  message,
  reason: `phase changed to ${message}`,
});
const ready = (reason: string, message: string, lastTransitionTime = EARLIER) => ({ type: 'Ready', status: 'False', reason, message, lastTransitionTime, observedGeneration: 1 });
/** kmaint.io/Waiting beside Ready, first written this pass. */
const waiting = (reason: string) => ({ type: 'kmaint.io/Waiting', status: 'True', reason, message: '', lastTransitionTime: NOW.toISOString().replace('.000', ''), observedGeneration: 1 });

describe('admissionStanding: what kmaint\'s records on the Node say of a request', () => {
  const nm = aMaintenance({ name: 'nm-1', nodeName: 'node-01', phase: 'Draining' });
  it.each<{ rule: string; annotations: Record<string, string>; expected: string }>([
    { rule: 'the record names it (namespace, name, uid): recorded', annotations: { [ADMITTED]: 'default/nm-1/uid-nm-1' }, expected: 'recorded' },
    { rule: 'the record names the same name with another uid (recreated): none', annotations: { [ADMITTED]: 'default/nm-1/uid-old' }, expected: 'none' },
    { rule: 'the record names another request: none, whatever the cordon record says', annotations: { [ADMITTED]: 'default/nm-2/uid-nm-2', 'kmaint.io/cordoned-by': 'kmaint/default/nm-1' }, expected: 'none' },
    { rule: 'no record, an older kmaint\'s cordon record names it: legacy', annotations: { 'kmaint.io/cordoned-by': 'kmaint/default/nm-1' }, expected: 'legacy' },
    { rule: 'no record at all: none', annotations: {}, expected: 'none' },
  ])('$rule', ({ annotations, expected }) => {
    expect(admissionStanding(nm, withAnnotations(aNode({ name: 'node-01' }), annotations))).toBe(expected);
  });
});

/** One scheduler plan over exactly these Nodes (no record added), checked against the invariants. */
function schedule(nodes: V1Node[], maintenances: NodeMaintenance[], max: number) {
  const state = buildSchedulingState({ nodes, maintenances });
  const plan = planScheduling(state, limits(max, 'unlimited'), NOW);
  checkSchedulingInvariants(state, limits(max, 'unlimited'), plan, NOW);
  return plan;
}

describe('the scheduler reads the record, never the phase alone', () => {
  const nodes = ['node-01', 'node-02', 'node-03', 'node-04', 'node-05'].map((name) => aNode({ name }));
  const forgedWhy = (phase: string, node: string): string => `waiting: its phase ${phase} was not an admission by kmaint (node ${node} has no kmaint.io/admitted record of it)`;

  it('five requests a requestor set to Scheduled: each written back to Pending with why, no slot spent, no Node written', () => {
    const forged = nodes.map((n, i) => aMaintenance({ name: `nm-${i + 1}`, nodeName: n.metadata?.name ?? '', phase: 'Scheduled', message: 'admitted: slot 1 of 1' }));
    const plan = schedule(nodes, forged, 1);
    expect(plan.admitted).toEqual([]);
    expect(plan.actions).toEqual(
      forged.flatMap((nm, i) => {
        const message = forgedWhy('Scheduled', `node-0${i + 1}`);
        return [
          { kind: 'writeStatus', target: target(nm.metadata.name), status: { conditions: [ready('Pending', message), waiting('NotAdmitted')] }, phaseFrom: 'Scheduled', phaseTo: 'Pending', reason: `phase Scheduled not admitted by kmaint, ${message}` },
          event(nm.metadata.name, 'Pending'),
        ];
      }),
    );
  });

  it('a forged Ready holds neither its Node nor a slot: the honest request on that Node is admitted, slot 1 of 1', () => {
    const plan = schedule(nodes.slice(0, 1), [aMaintenance({ name: 'forged', nodeName: 'node-01', phase: 'Ready' }), aMaintenance({ name: 'honest', nodeName: 'node-01' })], 1);
    expect(plan.admitted).toEqual(['default/honest']);
    expect(plan.waiting).toEqual([{ key: 'default/forged', why: 'its phase Ready was not an admission by kmaint (node node-01 has no kmaint.io/admitted record of it)' }]);
    expect(plan.actions[0]).toEqual({ kind: 'patchNodeAnnotations', node: { name: 'node-01', resourceVersion: '' }, annotations: { [ADMITTED]: 'default/honest/uid-honest' }, maintenance: target('honest'), reason: 'admitted: slot 1 of 1' });
    expect(plan.actions[1]).toMatchObject({ kind: 'writeStatus', target: target('honest'), phaseTo: 'Scheduled' });
  });

  it('a record written whose status write failed: Scheduled now, on the slot it holds; the other request waits on the limit', () => {
    const recorded = withAnnotations(nodes[0] as V1Node, { [ADMITTED]: 'default/nm-1/uid-nm-1' });
    const plan = schedule([recorded, nodes[1] as V1Node], [aMaintenance({ name: 'nm-1', nodeName: 'node-01' }), aMaintenance({ name: 'nm-2', nodeName: 'node-02' })], 1);
    expect(plan.admitted).toEqual([]);
    expect(plan.actions).toEqual([
      { kind: 'writeStatus', target: target('nm-1'), status: { conditions: [ready('Scheduled', 'admitted: recorded on node node-01 (kmaint.io/admitted) by an earlier pass')] }, phaseFrom: 'Pending', phaseTo: 'Scheduled', reason: 'admitted: recorded on node node-01 (kmaint.io/admitted) by an earlier pass' },
      event('nm-1', 'Scheduled'),
      { kind: 'writeStatus', target: target('nm-2'), status: { conditions: [ready('Pending', 'waiting: maxParallelOperations 1 reached (1 in progress)'), waiting('Parallel')] }, reason: 'wait reason changed, waiting: maxParallelOperations 1 reached (1 in progress)' },
    ]);
  });

  it('an older kmaint\'s admission, known by its cordon record: in progress, and its admission record is written', () => {
    const legacy = withAnnotations(aNode({ name: 'node-01', unschedulable: true }), { 'kmaint.io/cordoned-by': 'kmaint/default/nm-1' });
    const plan = schedule([legacy, nodes[1] as V1Node], [aMaintenance({ name: 'nm-1', nodeName: 'node-01', phase: 'Draining' }), aMaintenance({ name: 'nm-2', nodeName: 'node-02', message: 'waiting: maxParallelOperations 1 reached (1 in progress)', waitingOn: 'Parallel' })], 1);
    expect(plan.actions).toEqual([
      { kind: 'patchNodeAnnotations', node: { name: 'node-01', resourceVersion: '' }, annotations: { [ADMITTED]: 'default/nm-1/uid-nm-1' }, maintenance: target('nm-1'), reason: 'admitted by an earlier kmaint (its cordon record names it): record the admission' },
    ]);
  });
});

describe('foldIntoAdmissionRecords: one Node write per admission', () => {
  it('the handshake\'s report for the request admitted on that Node rides on its record; another unit\'s patch and other Nodes stay apart', () => {
    const record: Action = { kind: 'patchNodeAnnotations', node: { name: 'node-01', resourceVersion: '7' }, annotations: { [ADMITTED]: 'kmaint/nm-1/uid-nm-1' }, maintenance: target('nm-1'), reason: 'admitted: slot 1 of 1' };
    const status: Action = { kind: 'writeStatus', target: target('nm-1'), status: {}, reason: 'admitted: slot 1 of 1' };
    const report: Action = { kind: 'patchNodeAnnotations', node: { name: 'node-01', resourceVersion: '7' }, annotations: { 'kmaint.io/current-state': 'Draining' }, maintenance: target('nm-1'), reason: 'handshake: kmaint.io/current-state=Draining' };
    const refusal: Action = { kind: 'patchNodeAnnotations', node: { name: 'node-01', resourceVersion: '7' }, annotations: { 'kmaint.io/handshake-problem': 'x' }, reason: 'handshake: refused' };
    const elsewhere: Action = { ...report, node: { name: 'node-02', resourceVersion: '7' } };
    expect(foldIntoAdmissionRecords([record, status, report, refusal, elsewhere])).toEqual([
      { ...record, annotations: { [ADMITTED]: 'kmaint/nm-1/uid-nm-1', 'kmaint.io/current-state': 'Draining' }, reason: 'admitted: slot 1 of 1; handshake: kmaint.io/current-state=Draining' },
      status,
      refusal,
      elsewhere,
    ]);
  });
});

describe('the drainer and the gang hold move only recorded requests', () => {
  const node = aNodeWithUid({ name: 'worker-01' });
  it.each(['Scheduled', 'Cordon', 'Draining', 'Ready'])('%s without kmaint\'s record: nothing planned', (phase) => {
    const nm = aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', phase, finalizer: false });
    expect(planDrainer({ nodes: new Map([['worker-01', node]]), maintenances: [nm], podsByNode: new Map(), pdbs: [] }, NOW).actions).toEqual([]);
  });

  it('a gang member with a forged Scheduled is not admitted: its recorded sibling stays Scheduled', () => {
    const gang = { 'kmaint.io/gang': 'rack-1' };
    const a = aLifecycleMaintenance({ name: 'a', nodeName: 'worker-01', phase: 'Scheduled', finalizer: false, labels: gang });
    const b = aLifecycleMaintenance({ name: 'b', nodeName: 'worker-02', phase: 'Scheduled', finalizer: false, labels: gang });
    const nodes = new Map([
      ['worker-01', withAnnotations(aNodeWithUid({ name: 'worker-01' }), { [ADMITTED]: 'default/a/uid-a' })],
      ['worker-02', aNodeWithUid({ name: 'worker-02' })],
    ]);
    expect(planDrainer({ nodes, maintenances: [a, b], podsByNode: new Map(), pdbs: [] }, NOW).actions).toEqual([]);
  });
});

describe('cleanup takes the record back with the release', () => {
  const ref = target('nm-1');
  it('cordoned by kmaint: the record goes in the uncordon\'s own patch', () => {
    const node = withAnnotations(aNodeWithUid({ name: 'worker-01', unschedulable: true }), { 'kmaint.io/cordoned-by': 'kmaint/default/nm-1', 'kmaint.io/cordon-reason': 'r', [ADMITTED]: 'default/nm-1/uid-nm-1' });
    const nm = aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', phase: 'Ready', deleting: true });
    expect(planCleanup({ nodes: new Map([['worker-01', node]]), maintenances: [nm] }, { maxNodeMaintenanceTimeSeconds: 3600 }, NOW).actions[0]).toEqual({
      kind: 'uncordonNode',
      node: { name: 'worker-01', resourceVersion: '7' },
      maintenance: ref,
      reason: 'default/nm-1 deleted; node was schedulable before maintenance',
      annotations: { 'kmaint.io/cordoned-by': null, 'kmaint.io/cordon-reason': null, [ADMITTED]: null },
    });
  });

  it('deleted before any cordon: the record alone goes, one Node patch; a record of another uid stays (the sweep\'s)', () => {
    const nm = aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', phase: 'Scheduled', deleting: true });
    const ours = withAnnotations(aNodeWithUid({ name: 'worker-01' }), { [ADMITTED]: 'default/nm-1/uid-nm-1' });
    const old = withAnnotations(aNodeWithUid({ name: 'worker-01' }), { [ADMITTED]: 'default/nm-1/uid-old' });
    const first = (node: V1Node): Action | undefined => planCleanup({ nodes: new Map([['worker-01', node]]), maintenances: [nm] }, { maxNodeMaintenanceTimeSeconds: 3600 }, NOW).actions[0];
    expect([first(ours), first(old)?.kind]).toEqual([
      { kind: 'patchNodeAnnotations', node: { name: 'worker-01', resourceVersion: '7' }, annotations: { [ADMITTED]: null }, maintenance: ref, reason: 'default/nm-1 deleted; drop its admission record' },
      'patchMaintenanceMeta',
    ]);
  });
});

describe('the orphan sweep: a record naming a request that is gone, or was recreated under its name', () => {
  const node = (name: string, annotations: Record<string, string>, unschedulable = false): V1Node => ({ metadata: { name, resourceVersion: '7', annotations }, spec: unschedulable ? { unschedulable: true } : {} });
  const nodes = [
    node('n1', { [ADMITTED]: 'team-a/gone/u1' }),
    node('n2', { [ADMITTED]: 'team-a/live/u-old' }),
    node('n3', { [ADMITTED]: 'team-a/live/u2' }),
    node('n4', { [ADMITTED]: 'team-a/both/u3', 'kmaint.io/cordoned-by': 'kmaint/team-a/both', 'kmaint.io/cordon-reason': 'r' }, true),
  ];
  const live = new Set(['team-a/live', 'team-a/live/u2']);

  it('finds the gone and the recreated, never the live one; the cordon orphan of the same request takes the record in its patch', () => {
    const orphans = findNodeOrphans(nodes, live);
    expect(orphans).toEqual([
      { node: 'n1', record: ADMITTED, owner: { namespace: 'team-a', name: 'gone', uid: 'u1', resourceVersion: '' } },
      { node: 'n2', record: ADMITTED, owner: { namespace: 'team-a', name: 'live', uid: 'u-old', resourceVersion: '' } },
      { node: 'n4', record: 'kmaint.io/cordoned-by', owner: { namespace: 'team-a', name: 'both', resourceVersion: '' } },
      { node: 'n4', record: ADMITTED, owner: { namespace: 'team-a', name: 'both', uid: 'u3', resourceVersion: '' } },
    ]);
    expect(planOrphanSweep(new Map(nodes.map((n) => [n.metadata?.name ?? '', n])), orphans)).toEqual([
      { kind: 'patchNodeAnnotations', node: { name: 'n1', resourceVersion: '7' }, annotations: { [ADMITTED]: null }, maintenance: { namespace: 'team-a', name: 'gone', uid: 'u1', resourceVersion: '' }, reason: 'orphaned admission record: team-a/gone (uid u1) no longer exists' },
      { kind: 'patchNodeAnnotations', node: { name: 'n2', resourceVersion: '7' }, annotations: { [ADMITTED]: null }, maintenance: { namespace: 'team-a', name: 'live', uid: 'u-old', resourceVersion: '' }, reason: 'orphaned admission record: team-a/live (uid u-old) no longer exists' },
      {
        kind: 'uncordonNode',
        node: { name: 'n4', resourceVersion: '7' },
        maintenance: { namespace: 'team-a', name: 'both', resourceVersion: '' },
        annotations: { 'kmaint.io/cordoned-by': null, 'kmaint.io/cordon-reason': null, [ADMITTED]: null },
        reason: 'orphaned cordon: kmaint cordoned the node for team-a/both, which no longer exists',
      },
    ]);
  });
});
