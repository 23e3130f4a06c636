import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { NodeMaintenance } from '../../shared/api/index.ts';
import { checkDemoInvariants, DemoObserver } from './observer.ts';
import { planDemoRequests, seedExampleSpec } from './requestors.ts';

const node = (name: string, pool = 'general', unschedulable = false): V1Node => ({
  metadata: { name, labels: { 'kmaint.io/pool': pool } },
  spec: unschedulable ? { unschedulable: true } : {},
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
});

const nm = (name: string, nodeName: string, phase: string, message = '', drain?: { totalPods: number; evictionPods: number; drainProgress: number }): NodeMaintenance => ({
  metadata: { name, namespace: 'default' },
  spec: { requestorID: 'os-upgrade.acme.com', nodeName },
  status: {
    ...(phase ? { conditions: [{ type: 'Ready', status: phase === 'Ready' ? 'True' : 'False', reason: phase, message, lastTransitionTime: '2026-03-01T12:00:00Z' }] } : {}),
    ...(drain ? { drain } : {}),
  },
});

describe('DemoObserver', () => {
  it('reports phase changes, new wait reasons, deletion and release, and keeps the peaks', () => {
    const o = new DemoObserver();
    const nodes = [node('a'), node('b'), node('c', 'general', true)];
    expect(o.observe([nm('x', 'a', ''), nm('y', 'b', '')], nodes, 0)).toEqual([]);
    expect(o.observe([nm('x', 'a', 'Scheduled'), nm('y', 'b', 'Pending', 'waiting: maxParallelOperations 1 reached (1 in progress)')], nodes, 1000)).toEqual([
      { kind: 'phase', atMs: 1000, key: 'default/x', node: 'a', from: '', to: 'Scheduled', message: '' },
      { kind: 'phase', atMs: 1000, key: 'default/y', node: 'b', from: '', to: 'Pending', message: 'waiting: maxParallelOperations 1 reached (1 in progress)' },
    ]);
    const held = 'draining: 1 of 2 pods left; pod web/api-1 waits for PodDisruptionBudget web/api (allows 0 disruptions: needs 2 healthy, has 2 of 3 expected)';
    expect(o.observe([nm('x', 'a', 'Draining', 'draining: 2 of 2 pods left'), nm('y', 'b', 'Pending', 'waiting: maxParallelOperations 1 reached (1 in progress)')], nodes, 2000)).toHaveLength(1);
    expect(o.observe([nm('x', 'a', 'Draining', held, { totalPods: 2, evictionPods: 1, drainProgress: 50 }), nm('y', 'b', 'Pending', 'waiting: maxParallelOperations 1 reached (1 in progress)')], nodes, 3000)).toEqual([
      { kind: 'waiting', atMs: 3000, key: 'default/x', node: 'a', message: held },
    ]);
    const deleting = { ...nm('x', 'a', 'Ready'), metadata: { name: 'x', namespace: 'default', deletionTimestamp: '2026-03-01T12:01:00Z' } };
    expect(o.observe([deleting, nm('y', 'b', 'Pending', 'waiting: maxParallelOperations 1 reached (1 in progress)')], nodes, 4000).map((e) => e.kind)).toEqual(['phase', 'deleting']);
    expect(o.observe([nm('y', 'b', 'Scheduled')], nodes, 5000)).toEqual([
      { kind: 'phase', atMs: 5000, key: 'default/y', node: 'b', from: 'Pending', to: 'Scheduled', message: '' },
      { kind: 'released', atMs: 5000, key: 'default/x', node: 'a', unschedulable: false },
    ]);
    expect(o.peakInProgress).toBe(1);
    // Node c is cordoned: unavailable with the one in progress.
    expect(o.peakUnavailable).toBe(2);
    expect(o.budgetWaits()).toEqual({ pods: 1, byBudget: { 'web/api': 1 } });
    const [x, y] = o.view();
    expect(x).toMatchObject({ key: 'default/x', admittedMs: 1000, readyMs: 4000, releasedMs: 5000, drain: { totalPods: 2, evictionPods: 1, drainProgress: 50 } });
    expect(y).toMatchObject({ key: 'default/y', firstSeenMs: 0, admittedMs: 5000 });
  });
});

describe('checkDemoInvariants', () => {
  const initial = new Map([['a', false], ['b', true]]);
  it.each([
    { rule: 'held: within the limit, every node as before', peak: 3, final: new Map([['a', false], ['b', true]]), unfinished: [], want: [] },
    { rule: 'too many in progress', peak: 4, final: new Map([['a', false], ['b', true]]), unfinished: [], want: ['4 requests were in progress at once (limit 3)'] },
    { rule: 'a node left cordoned', peak: 3, final: new Map([['a', true], ['b', true]]), unfinished: [], want: ['node a is cordoned, was schedulable'] },
    { rule: 'a pre-cordoned node uncordoned', peak: 3, final: new Map([['a', false], ['b', false]]), unfinished: [], want: ['node b is schedulable, was cordoned'] },
    { rule: 'a node gone, a request unfinished', peak: 3, final: new Map([['a', false]]), unfinished: ['default/x'], want: ['node b is gone', 'request default/x did not finish'] },
  ])('$rule', ({ peak, final, unfinished, want }) => {
    expect(checkDemoInvariants({ peakInProgress: peak, maxParallelOperations: 3, initialUnschedulable: initial, finalUnschedulable: final, unfinished })).toEqual({ held: want.length === 0, violations: want });
  });
});

describe('planDemoRequests', () => {
  const nodes = [node('cp', 'control-plane'), node('g1'), node('g2'), node('g3'), node('g4'), node('gpu-b', 'gpu'), node('gpu-a', 'gpu')];
  const rsPod = (n: string): V1Pod => ({ metadata: { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: 'u', controller: true }] }, spec: { nodeName: n, containers: [] } });
  const dsPod = (n: string): V1Pod => ({ metadata: { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'd', uid: 'd', controller: true }] }, spec: { nodeName: n, containers: [] } });

  it('puts the seed README example on the first GPU node and upgrades the general nodes with the most replicated pods', () => {
    const plan = planDemoRequests(nodes, [rsPod('g4'), rsPod('g4'), rsPod('g2'), dsPod('g1'), dsPod('g1'), dsPod('g1')], 1, 3);
    expect(plan.requests.map((r) => `${r.name} ${r.spec.requestorID} ${r.spec.nodeName}`)).toEqual([
      'my-maintenance-operation some.one.acme.com gpu-a',
      'os-upgrade-g1 os-upgrade.acme.com g1',
      'os-upgrade-g2 os-upgrade.acme.com g2',
      'os-upgrade-g4 os-upgrade.acme.com g4',
    ]);
    expect(plan.preCordoned).toBe('g4');
    expect(plan.requests[0]?.spec).toEqual(seedExampleSpec('gpu-a'));
    expect(plan.requests.slice(1).every((r) => r.reboot && r.holdMs >= 120_000 && r.holdMs <= 240_000 && r.spec.drainSpec?.force === true && r.spec.drainSpec.deleteEmptyDir === true)).toBe(true);
  });

  it('is the upstream README example, field for field, but for the node', () => {
    expect(seedExampleSpec('worker-01')).toEqual({
      requestorID: 'some.one.acme.com',
      nodeName: 'worker-01',
      cordon: true,
      waitForPodCompletion: { podSelector: 'app=important', timeoutSeconds: 0 },
      drainSpec: { force: true, podSelector: '', timeoutSeconds: 0, deleteEmptyDir: true, podEvictionFilters: [{ byResourceNameRegex: 'nvidia.com/gpu-*' }, { byResourceNameRegex: 'nvidia.com/rdma*' }] },
    });
  });
});
