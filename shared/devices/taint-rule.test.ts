import { describe, expect, it } from 'vitest';
import { aClaim, aPod } from '../drain/test-builders.ts';
import { indexClaims } from '../drain/index.ts';
import { aMaintenance } from '../scheduling/test-builders.ts';
import { deviceRequestLines, podsHoldingDevices } from './holders.ts';
import { deviceTaintRuleManifest, deviceTaintRuleWrites, recordedDeviceTaintRules } from './taint-rule.ts';

const nm = aMaintenance({ name: 'fix-gpu', namespace: 'ops', nodeName: 'gpu-01', annotations: { 'kmaint.io/devices': 'gpu.nvidia.com/gpu-01/gpu-1' } });

describe('the DeviceTaintRules of a device request', () => {
  it('one NoSchedule rule per device, named by the request uid and index, labelled and owned by the Node', () => {
    const writes = deviceTaintRuleWrites(nm, [{ driver: 'gpu.nvidia.com', pool: 'gpu-01', device: 'gpu-1' }], { name: 'gpu-01', uid: 'uid-gpu-01' });
    expect(writes.map(deviceTaintRuleManifest)).toEqual([
      {
        kind: 'DeviceTaintRule',
        metadata: {
          name: 'kmaint-device-uid-fix-gpu-0',
          labels: { 'kmaint.io/device-maintenance': 'true' },
          annotations: { 'kmaint.io/maintenance': 'ops/fix-gpu' },
          ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'gpu-01', uid: 'uid-gpu-01' }],
        },
        spec: { deviceSelector: { driver: 'gpu.nvidia.com', pool: 'gpu-01', device: 'gpu-1' }, taint: { key: 'kmaint.io/maintenance', effect: 'NoSchedule' } },
      },
    ]);
  });

  it.each([
    ['none recorded', undefined, []],
    ['two recorded', 'kmaint-device-uid-r-0,kmaint-device-uid-r-1', ['kmaint-device-uid-r-0', 'kmaint-device-uid-r-1']],
    ['a name that is not kmaint\'s, or another request\'s, is never deleted', 'someone-elses,kmaint-device-uid-other-0,kmaint-device-uid-r-0', ['kmaint-device-uid-r-0']],
  ])('recorded rules: %s', (_name, value, expected) => {
    const annotations: Record<string, string> = value === undefined ? {} : { 'kmaint.io/device-taint-rules': value };
    expect(recordedDeviceTaintRules(aMaintenance({ name: 'r', nodeName: 'gpu-01', annotations }))).toEqual(expected);
  });

  it('holders: only pods whose reserved, allocated claims hold a named device', () => {
    const pods = [
      aPod({ name: 'holds-gpu-1', nodeName: 'gpu-01', claims: [{ name: 'gpu', claim: 'c1' }] }),
      aPod({ name: 'holds-gpu-0', nodeName: 'gpu-01', claims: [{ name: 'gpu', claim: 'c0' }] }),
      aPod({ name: 'not-reserved', nodeName: 'gpu-01', claims: [{ name: 'gpu', claim: 'c2' }] }),
      aPod({ name: 'no-claims', nodeName: 'gpu-01' }),
    ];
    const claims = indexClaims([
      aClaim({ name: 'c1', devices: ['gpu.nvidia.com/gpu-01/gpu-1'], reservedFor: ['holds-gpu-1'] }),
      aClaim({ name: 'c0', devices: ['gpu.nvidia.com/gpu-01/gpu-0'], reservedFor: ['holds-gpu-0'] }),
      aClaim({ name: 'c2', devices: ['gpu.nvidia.com/gpu-01/gpu-1'], reservedFor: [] }),
    ]);
    const held = podsHoldingDevices(pods, claims, [{ driver: 'gpu.nvidia.com', pool: 'gpu-01', device: 'gpu-1' }]);
    expect(held.map((h) => [h.pod.metadata?.name, h.devices])).toEqual([['holds-gpu-1', ['gpu.nvidia.com/gpu-01/gpu-1']]]);
  });

  it('explain lines: the devices, the recorded rules and the pods holding them; none for a node request', () => {
    const pods = [aPod({ name: 'holds-gpu-1', namespace: 'ml', nodeName: 'gpu-01', claims: [{ name: 'gpu', claim: 'c1' }] })];
    const claims = indexClaims([aClaim({ name: 'c1', namespace: 'ml', devices: ['gpu.nvidia.com/gpu-01/gpu-1'], reservedFor: ['holds-gpu-1'] })]);
    const admitted = aMaintenance({ name: 'fix-gpu', namespace: 'ops', nodeName: 'gpu-01', annotations: { 'kmaint.io/devices': 'gpu.nvidia.com/gpu-01/gpu-1', 'kmaint.io/device-taint-rules': 'kmaint-device-uid-fix-gpu-0' } });
    expect(deviceRequestLines(admitted, pods, claims)).toEqual([
      'devices: gpu.nvidia.com/gpu-01/gpu-1 (kmaint.io/devices; the node is not cordoned)',
      'DeviceTaintRules (NoSchedule): kmaint-device-uid-fix-gpu-0',
      'held by: ml/holds-gpu-1 (gpu.nvidia.com/gpu-01/gpu-1)',
    ]);
    expect(deviceRequestLines(aMaintenance({ name: 'n', nodeName: 'gpu-01' }), pods, claims)).toEqual([]);
  });
});
