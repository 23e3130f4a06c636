import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  formatMicroTime,
  leaseForCreate,
  leaseRenewPatch,
  nextConditions,
  nodeForCreate,
  nodeStatusPatch,
  spreadOffset,
  wantedConditions,
  type WantedCondition,
} from './node-status.ts';

const T0 = Date.parse('2025-03-01T10:00:00.123Z');
const healthy = { ready: true, extra: new Map<string, WantedCondition>() };
const node: V1Node = {
  metadata: { name: 'node-001', labels: { a: 'b' } },
  spec: { providerID: 'aws:///us-east-1a/i-0123456789abcdef0' },
  status: { capacity: { cpu: '4' }, allocatable: { cpu: '3920m' }, addresses: [{ type: 'InternalIP', address: '10.1.0.11' }], conditions: [{ type: 'Ready', status: 'True' }] },
};

describe('node conditions', () => {
  it('a healthy node: Ready True and no pressure', () => {
    expect(wantedConditions(healthy).map((c) => `${c.type}=${c.status}/${c.reason}`)).toEqual([
      'MemoryPressure=False/KubeletHasSufficientMemory',
      'DiskPressure=False/KubeletHasNoDiskPressure',
      'PIDPressure=False/KubeletHasSufficientPID',
      'Ready=True/KubeletReady',
    ]);
  });

  it('a not-ready node says KubeletNotReady unless told a reason', () => {
    expect(wantedConditions({ ready: false, extra: new Map() }).at(-1)).toMatchObject({ type: 'Ready', status: 'False', reason: 'KubeletNotReady' });
    expect(wantedConditions({ ready: false, notReadyReason: 'RuntimeDown', extra: new Map() }).at(-1)).toMatchObject({ reason: 'RuntimeDown' });
  });

  it('extra conditions are appended, or replace the kubelet own ones by type', () => {
    const extra = new Map<string, WantedCondition>([
      ['GpuFault', { type: 'GpuFault', status: 'True', reason: 'Xid', message: 'xid 79' }],
      ['Ready', { type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', message: '' }],
    ]);
    const types = wantedConditions({ ready: true, extra }).map((c) => `${c.type}=${c.status}`);
    expect(types).toEqual(['MemoryPressure=False', 'DiskPressure=False', 'PIDPressure=False', 'Ready=Unknown', 'GpuFault=True']);
  });

  it('lastTransitionTime moves only when the status changes', () => {
    const first = nextConditions([], wantedConditions(healthy), T0);
    const same = nextConditions(first, wantedConditions(healthy), T0 + 60_000);
    expect(same.every((c) => c.lastTransitionMs === T0)).toBe(true);
    const down = nextConditions(same, wantedConditions({ ready: false, extra: new Map() }), T0 + 120_000);
    expect(down.find((c) => c.type === 'Ready')?.lastTransitionMs).toBe(T0 + 120_000);
    expect(down.find((c) => c.type === 'DiskPressure')?.lastTransitionMs).toBe(T0);
  });

  it('a heartbeat patch carries only conditions; the first one also capacity and addresses', () => {
    const conditions = nextConditions([], wantedConditions(healthy), T0);
    const beat = nodeStatusPatch(node, conditions, T0 + 5000, false);
    expect(Object.keys(beat.status)).toEqual(['conditions']);
    expect(beat.status.conditions).toContainEqual({
      type: 'Ready',
      status: 'True',
      reason: 'KubeletReady',
      message: 'kubelet is posting ready status',
      lastHeartbeatTime: '2025-03-01T10:00:05Z',
      lastTransitionTime: '2025-03-01T10:00:00Z',
    });
    const full = nodeStatusPatch(node, conditions, T0, true);
    expect(full.status).toMatchObject({ capacity: { cpu: '4' }, allocatable: { cpu: '3920m' }, addresses: [{ type: 'InternalIP', address: '10.1.0.11' }] });
  });

  it('the registered node has no conditions', () => {
    const created = nodeForCreate(node);
    expect(created.status?.conditions).toBeUndefined();
    expect(created.status?.capacity).toEqual({ cpu: '4' });
    expect(created.spec?.providerID).toBe('aws:///us-east-1a/i-0123456789abcdef0');
  });
});

describe('leases', () => {
  const MICRO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

  it('renewTime has the six fraction digits MicroTime requires', () => {
    expect(formatMicroTime(T0)).toBe('2025-03-01T10:00:00.123000Z');
    expect(leaseRenewPatch('node-001', T0)).toEqual({ spec: { holderIdentity: 'node-001', leaseDurationSeconds: 40, renewTime: '2025-03-01T10:00:00.123000Z' } });
  });

  it('a created lease serialises renewTime as MicroTime and is owned by its node', () => {
    const lease = leaseForCreate('node-001', 'uid-1', T0);
    const wire = JSON.parse(JSON.stringify(lease)) as { spec: { renewTime: string }; metadata: unknown };
    expect(wire.spec.renewTime).toMatch(MICRO);
    expect(wire.metadata).toEqual({ name: 'node-001', namespace: 'kube-node-lease', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-001', uid: 'uid-1' }] });
  });

  it.each([
    [0, 4, 10_000, 0],
    [1, 4, 10_000, 2500],
    [3, 4, 10_000, 7500],
    [0, 0, 10_000, 0],
  ])('spreadOffset(%i of %i over %i) = %i', (i, n, interval, offset) => expect(spreadOffset(i, n, interval)).toBe(offset));
});
