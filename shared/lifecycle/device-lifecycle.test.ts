// A device request (issue 45) through the drainer's steps and cleanup's releases: a DeviceTaintRule per device instead
// of the cordon, only the devices' holders evicted (budgets respected), the rules deleted on release.
import { describe, expect, it } from 'vitest';
import { Phase } from '../api/index.ts';
import type { Action } from '../api/index.ts';
import { aClaim } from '../drain/test-builders.ts';
import { indexClaims } from '../drain/index.ts';
import { NOW } from '../scheduling/test-builders.ts';
import { planCleanup } from './cleanup.ts';
import { drainDevices, taintDevices } from './steps/device-steps.ts';
import { aLifecycleMaintenance, aNodeWithUid, aPdb, aReadyPod, aStepContext } from './test-builders.ts';

const DEVICES = { 'kmaint.io/devices': 'gpu.nvidia.com/gpu-01/gpu-1' };
const ref = { namespace: 'default', name: 'fix-gpu', uid: 'uid-fix-gpu', resourceVersion: '100' };
const pods = [
  aReadyPod({ name: 'holds-gpu-1', nodeName: 'gpu-01', labels: { app: 'train' }, claims: [{ name: 'gpu', claim: 'c1' }] }),
  aReadyPod({ name: 'holds-gpu-0', nodeName: 'gpu-01', labels: { app: 'infer' }, claims: [{ name: 'gpu', claim: 'c0' }] }),
  aReadyPod({ name: 'cpu-only', nodeName: 'gpu-01' }),
];
const dra = {
  claims: indexClaims([aClaim({ name: 'c1', devices: ['gpu.nvidia.com/gpu-01/gpu-1'], reservedFor: ['holds-gpu-1'] }), aClaim({ name: 'c0', devices: ['gpu.nvidia.com/gpu-01/gpu-0'], reservedFor: ['holds-gpu-0'] })]),
  resourceNames: new Map([['gpu.nvidia.com', ['nvidia.com/gpu']]]),
};

describe('a device request in the drainer', () => {
  it('Cordon: records the rule, then creates it (NoSchedule, that device only); the node is never cordoned', () => {
    const nm = aLifecycleMaintenance({ name: 'fix-gpu', nodeName: 'gpu-01', phase: Phase.Cordon, annotations: DEVICES });
    const result = taintDevices(aStepContext(nm));
    expect(result).toEqual({
      kind: 'advance',
      to: Phase.WaitForPodCompletion,
      annotations: { 'kmaint.io/device-taint-rules': 'kmaint-device-uid-fix-gpu-0' },
      nodeActions: [
        {
          kind: 'createDeviceTaintRule',
          rule: { name: 'kmaint-device-uid-fix-gpu-0', device: { driver: 'gpu.nvidia.com', pool: 'gpu-01', device: 'gpu-1' }, request: 'default/fix-gpu', owner: { name: 'gpu-01', uid: 'uid-gpu-01' } },
          maintenance: ref,
          reason: 'default/fix-gpu: no new claim is allocated gpu.nvidia.com/gpu-01/gpu-1 (NoSchedule)',
        },
      ],
    });
  });

  it('Draining: evicts only the pod holding the device; the pod on the other GPU and the CPU pod are not touched', () => {
    const nm = aLifecycleMaintenance({ name: 'fix-gpu', nodeName: 'gpu-01', phase: Phase.Draining, annotations: { ...DEVICES, 'kmaint.io/drain-start-time': '2025-12-31T23:59:00Z' } });
    const result = drainDevices(aStepContext(nm, { pods, dra }));
    expect(result.podActions).toEqual([{ kind: 'evictPod', pod: { namespace: 'default', name: 'holds-gpu-1', uid: 'uid-holds-gpu-1' }, maintenance: ref, reason: 'drain' }]);
    expect([result.kind, result.status?.drain?.totalPods, result.status?.drain?.evictionPods]).toEqual(['hold', 1, 1]);
  });

  it('Draining: a budget that allows no eviction holds the drain, and the wait names it', () => {
    const nm = aLifecycleMaintenance({ name: 'fix-gpu', nodeName: 'gpu-01', phase: Phase.Draining, annotations: { ...DEVICES, 'kmaint.io/drain-start-time': '2025-12-31T23:59:00Z' } });
    const result = drainDevices(aStepContext(nm, { pods, dra, pdbs: [aPdb({ name: 'train', selector: { matchLabels: { app: 'train' } }, disruptionsAllowed: 0 })] }));
    expect(result.podActions).toEqual([]);
    expect(result.kind === 'hold' ? result.message : '').toContain('PodDisruptionBudget default/train');
  });

  it('Draining: Ready once no pod holds the device, whatever runs on the node\'s other devices', () => {
    const nm = aLifecycleMaintenance({ name: 'fix-gpu', nodeName: 'gpu-01', phase: Phase.Draining, annotations: { ...DEVICES, 'kmaint.io/drain-start-time': '2025-12-31T23:59:00Z' } });
    const result = drainDevices(aStepContext(nm, { pods: pods.slice(1), dra }));
    expect([result.kind, result.kind === 'advance' ? result.to : '', result.podActions]).toEqual(['advance', Phase.Ready, []]);
  });
});

describe('a device request released', () => {
  it('cleanup deletes its recorded rules before the finalizer goes, and uncordons nothing', () => {
    const nm = aLifecycleMaintenance({ name: 'fix-gpu', nodeName: 'gpu-01', phase: Phase.Ready, deleting: true, annotations: { ...DEVICES, 'kmaint.io/device-taint-rules': 'kmaint-device-uid-fix-gpu-0' } });
    const plan = planCleanup({ nodes: new Map([['gpu-01', aNodeWithUid({ name: 'gpu-01' })]]), maintenances: [nm] }, { maxNodeMaintenanceTimeSeconds: 3600 }, NOW);
    expect(plan.actions.map((a: Action) => a.kind)).toEqual(['deleteDeviceTaintRule', 'patchMaintenanceMeta']);
    expect(plan.actions[0]).toEqual({ kind: 'deleteDeviceTaintRule', name: 'kmaint-device-uid-fix-gpu-0', maintenance: ref, reason: 'default/fix-gpu released: its devices return to service' });
  });
});
