// drainSpec.freeDevices in the drainer and cleanup (issue 45 point 3): the kmaint.io/devices-draining taint goes on in
// a pass of its own before any eviction, the next pass evicts the DaemonSet GPU user, release and the orphan sweep take
// off only the taint kmaint's record names, never another party's taint.
import type { V1Node, V1Taint } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_INITIAL_UNSCHEDULABLE, readyCondition, type Action, type RequestDrainSpec } from '../api/index.ts';
import { planDrainer, type DrainerSnapshot } from './plan-drainer.ts';
import { walkReleases } from './releases.ts';
import { findNodeOrphans, planOrphanSweep } from './orphan-sweep.ts';
import { aLifecycleMaintenance, aNodeWithUid, aReadyPod, LATER, recorded } from './test-builders.ts';
import { NOW } from '../scheduling/test-builders.ts';

const NODE = 'gpu-01';
const FREE: RequestDrainSpec = { force: true, freeDevices: { resources: ['nvidia.com/gpu'] } };
const THEIRS: V1Taint = { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' };
const OURS: V1Taint = { key: 'kmaint.io/devices-draining', effect: 'NoSchedule', timeAdded: new Date('2026-01-01T00:00:00Z') };
const OOS: V1Taint = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute', timeAdded: new Date('2026-01-01T00:00:00Z') };

function nodeWith(taints: V1Taint[], annotations: Record<string, string> = {}): V1Node {
  const n = aNodeWithUid({ name: NODE, unschedulable: true });
  return { ...n, metadata: { ...n.metadata, annotations: { ...n.metadata?.annotations, ...annotations } }, spec: { ...n.spec, taints } };
}

function draining(node: V1Node): DrainerSnapshot {
  const nm = aLifecycleMaintenance({ name: 'driver-upgrade', nodeName: NODE, phase: 'Draining', annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' }, spec: { drainSpec: FREE } });
  const pods = [
    aReadyPod({ name: 'dcgm-exporter-x', nodeName: NODE, owner: 'DaemonSet', limits: ['nvidia.com/gpu'] }),
    aReadyPod({ name: 'nvidia-driver-daemonset-x', nodeName: NODE, owner: 'DaemonSet', labels: { app: 'nvidia-driver-daemonset' } }),
  ];
  return recorded({ nodes: new Map([[NODE, node]]), maintenances: [nm], podsByNode: new Map([[NODE, pods]]), pdbs: [] });
}

const messageOf = (snapshot: DrainerSnapshot, actions: readonly Action[]): string | undefined => {
  const write = actions.find((a) => a.kind === 'writeStatus');
  return write?.kind === 'writeStatus' ? readyCondition({ ...snapshot.maintenances[0]!, status: write.status })?.message : undefined;
};

describe('the drainer with drainSpec.freeDevices', () => {
  it('first pass: only the taint, recorded on the node, another party\'s taint kept; no eviction yet', () => {
    const snapshot = draining(nodeWith([THEIRS]));
    const plan = planDrainer(snapshot, NOW);
    const taints = plan.actions.filter((a) => a.kind === 'setNodeTaints');
    expect(taints).toEqual([
      {
        kind: 'setNodeTaints',
        node: { name: NODE, resourceVersion: '7' },
        taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }, { key: 'kmaint.io/devices-draining', effect: 'NoSchedule', timeAdded: '2026-01-01T00:00:00Z' }],
        annotations: { 'kmaint.io/devices-draining-by': 'kmaint/default/driver-upgrade' },
        maintenance: { namespace: 'default', name: 'driver-upgrade', resourceVersion: '100', uid: 'uid-driver-upgrade' },
        reason: 'drainSpec.freeDevices: no DaemonSet pod put back before release',
      },
    ]);
    expect(plan.actions.filter((a) => a.kind === 'evictPod')).toEqual([]);
    expect(messageOf(snapshot, plan.actions)).toBe(
      'draining: adding kmaint.io/devices-draining:NoSchedule keeps the DaemonSet controller from recreating the device users the drain evicts, until the request is released; no pod is evicted before it is on the node',
    );
  });

  it('next pass, the taint on the node: the DaemonSet GPU user is evicted, the driver DaemonSet pod kept, no second taint write', () => {
    const snapshot = draining(nodeWith([THEIRS, OURS], { 'kmaint.io/devices-draining-by': 'kmaint/default/driver-upgrade' }));
    const plan = planDrainer(snapshot, LATER);
    expect(plan.actions.filter((a) => a.kind === 'evictPod' || a.kind === 'setNodeTaints').map((a) => (a.kind === 'evictPod' ? `evict ${a.pod.name}` : a.kind))).toEqual(['evict dcgm-exporter-x']);
    expect(messageOf(snapshot, plan.actions)).toBe('draining: 1 of 1 pods left');
  });

  it('without freeDevices no taint is written and the DaemonSet pods stay, as before', () => {
    const snapshot = draining(nodeWith([THEIRS]));
    const nm = snapshot.maintenances[0]!;
    const plain = { ...snapshot, maintenances: [{ ...nm, spec: { ...nm.spec, drainSpec: { force: true } } }] };
    const plan = planDrainer(plain, NOW);
    expect(plan.actions.filter((a) => a.kind === 'evictPod' || a.kind === 'setNodeTaints')).toEqual([]);
    expect(plan.becameReady).toBe(1);
  });
});

describe('release and sweep of the devices-draining taint', () => {
  const deleted = (name: string) => aLifecycleMaintenance({ name, nodeName: NODE, phase: 'Ready', deleting: true, spec: { drainSpec: FREE } });
  const taintWrites = (node: V1Node, name: string): Action[] =>
    walkReleases(deleted(name), { nodes: new Map([[NODE, node]]), maxNodeMaintenanceTimeSeconds: 3600 }, NOW).flatMap((t) => (t.result.actions ?? []).filter((a) => a.kind === 'setNodeTaints'));

  it.each([
    {
      rule: 'ours by the record: removed with its record, theirs kept',
      node: nodeWith([THEIRS, OURS], { 'kmaint.io/devices-draining-by': 'kmaint/default/driver-upgrade' }),
      writes: [[[{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }], { 'kmaint.io/devices-draining-by': null }]],
    },
    { rule: 'the record names another request: left', node: nodeWith([OURS], { 'kmaint.io/devices-draining-by': 'kmaint/default/other' }), writes: [] },
    { rule: 'no record (someone else\'s taint of that key): left', node: nodeWith([OURS]), writes: [] },
    {
      rule: 'with the out-of-service taint this request added: that step removes it first, and the devices write does not put it back',
      node: nodeWith([THEIRS, OOS, OURS], { 'kmaint.io/devices-draining-by': 'kmaint/default/driver-upgrade', 'kmaint.io/out-of-service-by': 'kmaint/default/driver-upgrade' }),
      writes: [
        [[{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }, { key: 'kmaint.io/devices-draining', effect: 'NoSchedule', timeAdded: '2026-01-01T00:00:00Z' }], { 'kmaint.io/out-of-service-by': null }],
        [[{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }], { 'kmaint.io/devices-draining-by': null }],
      ],
    },
  ])('on release, $rule', ({ node, writes }) => {
    expect(taintWrites(node, 'driver-upgrade').map((a) => (a.kind === 'setNodeTaints' ? [a.taints, a.annotations] : []))).toEqual(writes);
  });

  it('the orphan sweep removes the taint and its record once the request its record names is gone; a live one\'s stays', () => {
    const gone = nodeWith([THEIRS, OURS], { 'kmaint.io/devices-draining-by': 'kmaint/default/gone' });
    const live = { ...nodeWith([OURS], { 'kmaint.io/devices-draining-by': 'kmaint/default/live' }), metadata: { name: 'gpu-02', resourceVersion: '7', annotations: { 'kmaint.io/devices-draining-by': 'kmaint/default/live' } } };
    const orphans = findNodeOrphans([gone, live], new Set(['default/live']));
    expect(orphans).toEqual([{ node: NODE, record: 'kmaint.io/devices-draining-by', owner: { namespace: 'default', name: 'gone', resourceVersion: '' } }]);
    expect(planOrphanSweep(new Map([[NODE, gone], ['gpu-02', live]]), orphans)).toEqual([
      {
        kind: 'setNodeTaints',
        node: { name: NODE, resourceVersion: '7' },
        taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }],
        annotations: { 'kmaint.io/devices-draining-by': null },
        maintenance: { namespace: 'default', name: 'gone', resourceVersion: '' },
        reason: 'orphaned kmaint.io/devices-draining taint: kmaint added it for default/gone, which no longer exists',
      },
    ]);
  });
});
