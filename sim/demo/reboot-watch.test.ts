// The reboot demo's watch and plan (issue 43): every Node and request write folded in, and the seed's choice of nodes.
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { NodeMaintenance } from '../../shared/api/index.ts';
import { generateCluster } from '../generator/index.ts';
import { rebootDemoPlan } from './reboot-scenario.ts';
import { checkRebootInvariants, RebootWatch } from './reboot-watch.ts';

const aNode = (name: string, ready: boolean, bootID: string): V1Node => ({
  metadata: { name },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }], nodeInfo: { bootID } as NonNullable<V1Node['status']>['nodeInfo'] },
});

const aRequest = (name: string, nodeName: string, phase: string): NodeMaintenance => ({
  metadata: { name, namespace: 'default' },
  spec: { requestorID: 'os-patch.acme.com', nodeName },
  status: phase === '' ? {} : { conditions: [{ type: 'Ready', status: phase === 'Ready' ? 'True' : 'False', reason: phase, message: '', lastTransitionTime: '2026-12-01T10:00:00Z' }] },
});

describe('RebootWatch', () => {
  it('says when a node goes down and comes back with its boot ID, keeps the most down at once and each request\'s phases', () => {
    const w = new RebootWatch([aNode('a', true, 'aaaaaaaa-1'), aNode('b', true, 'bbbbbbbb-1'), aNode('c', true, 'cccccccc-1')]);
    for (const phase of ['', 'Scheduled', 'Draining', 'Draining', 'Rebooting']) w.maintenance(aRequest('r-a', 'a', phase));
    expect(w.node(aNode('a', false, 'aaaaaaaa-1'), 1000)).toEqual([{ kind: 'node', atMs: 1000, node: 'a', message: 'NotReady, rebooting (1 node down)' }]);
    // A status write that changes neither Ready nor the boot ID says nothing.
    expect(w.node(aNode('a', false, 'aaaaaaaa-1'), 1500)).toEqual([]);
    expect(w.node(aNode('b', false, 'bbbbbbbb-1'), 2000)).toEqual([{ kind: 'node', atMs: 2000, node: 'b', message: 'NotReady, rebooting (2 nodes down)' }]);
    expect(w.node(aNode('a', true, 'aaaaaaaa-2'), 3000)).toEqual([{ kind: 'node', atMs: 3000, node: 'a', message: 'Ready, boot ID aaaaaaaa -> aaaaaaaa (1 node down)' }]);
    expect(w.node(aNode('b', true, 'bbbbbbbb-1'), 4000)).toEqual([{ kind: 'node', atMs: 4000, node: 'b', message: 'Ready, boot ID bbbbbbbb unchanged (0 nodes down)' }]);
    w.maintenance(aRequest('r-a', 'a', 'Ready'));
    w.maintenance(aRequest('r-b', 'b', 'Pending'));
    const report = w.report();
    expect(report).toEqual({
      mostDown: 2,
      rows: [
        { key: 'default/r-a', node: 'a', phases: ['Scheduled', 'Draining', 'Rebooting', 'Ready'], bootBefore: 'aaaaaaaa-1', bootAfter: 'aaaaaaaa-2' },
        { key: 'default/r-b', node: 'b', phases: ['Pending'], bootBefore: 'bbbbbbbb-1', bootAfter: 'bbbbbbbb-1' },
      ],
    });
    expect(checkRebootInvariants(report, 2)).toEqual(['node b kept boot ID bbbbbbbb-1']);
    expect(checkRebootInvariants(report, 1)).toEqual(['2 nodes were down at once (maxParallelOperations 1)', 'node b kept boot ID bbbbbbbb-1']);
  });

  it('counts nodes already NotReady at the start as down', () => {
    const w = new RebootWatch([aNode('a', false, 'x'), aNode('b', true, 'y')]);
    expect(w.node(aNode('b', false, 'y'), 10)).toEqual([{ kind: 'node', atMs: 10, node: 'b', message: 'NotReady, rebooting (2 nodes down)' }]);
    expect(w.mostDown).toBe(2);
  });
});

describe('rebootDemoPlan', () => {
  it('asks for a reboot of the six general nodes with the most replicated pods, in name order; the third cordoned by an admin', () => {
    const plan = rebootDemoPlan(generateCluster({ profile: 'demo', seed: 1 }));
    expect(plan.requests.map((r) => [`${r.namespace}/${r.name}`, r.spec.nodeName, r.spec.requestorID, r.annotations, r.holdMs])).toEqual(
      ['node-005', 'node-006', 'node-007', 'node-008', 'node-009', 'node-019'].map((n) => [`default/reboot-${n}`, n, 'os-patch.acme.com', { 'kmaint.io/reboot': 'true' }, 0]),
    );
    expect(plan.preCordoned).toBe('node-007');
    expect(rebootDemoPlan(generateCluster({ profile: 'demo', seed: 1 }))).toEqual(plan);
  });
});
