// The `device request` gate (issue 45): a device request is admitted under the same gates as any request, and one whose
// devices cannot be taken out of service alone waits with the reason, never admitted as a node request.
import { describe, expect, it } from 'vitest';
import { buildDeviceView } from '../devices/index.ts';
import { planScheduling } from './plan.ts';
import { checkSchedulingInvariants } from './invariants.ts';
import { NOW, aMaintenance, limits, recordedState, someNodes } from './test-builders.ts';

const slice = { spec: { driver: 'gpu.nvidia.com', nodeName: 'node-01', pool: { name: 'node-01' }, devices: [{ name: 'gpu-0' }, { name: 'gpu-1' }] } };
const request = (devices: string) => aMaintenance({ name: 'fix-gpu', nodeName: 'node-01', annotations: { 'kmaint.io/devices': devices } });

describe('the device request gate', () => {
  it.each([
    ['a device its node publishes, API served: admitted', 'gpu.nvidia.com/node-01/gpu-1', 'v1alpha3', { admitted: ['default/fix-gpu'], waiting: [] }],
    [
      'a device its node does not publish: waits, with the device named',
      'gpu.nvidia.com/node-01/gpu-9',
      'v1alpha3',
      { admitted: [], waiting: [{ key: 'default/fix-gpu', why: 'kmaint.io/devices names devices no ResourceSlice of node node-01 publishes: gpu.nvidia.com/node-01/gpu-9; a device request is never treated as a node request' }] },
    ],
    [
      'no DeviceTaintRule API: waits, never admitted as a node request',
      'gpu.nvidia.com/node-01/gpu-1',
      undefined,
      {
        admitted: [],
        waiting: [
          {
            key: 'default/fix-gpu',
            why: 'this cluster does not serve DeviceTaintRules (resource.k8s.io/v1beta2 from Kubernetes 1.36, or v1alpha3 in 1.35 with the feature gates DRADeviceTaints and DRADeviceTaintRules and --runtime-config=resource.k8s.io/v1alpha3=true), so kmaint cannot take single devices out of service; a device request is never treated as a node request',
          },
        ],
      },
    ],
  ])('%s', (_name, devices, version, expected) => {
    const state = recordedState({ nodes: someNodes(3), maintenances: [request(devices)], devices: buildDeviceView([slice], version) });
    const plan = planScheduling(state, limits(2, 1), NOW);
    checkSchedulingInvariants(state, limits(2, 1), plan, NOW);
    expect({ admitted: plan.admitted, waiting: plan.waiting }).toEqual(expected);
  });
});

describe('a device request and a node request for one node', () => {
  it('the node request waits until the device request is released (one request per node, whichever came first)', () => {
    const inProgress = aMaintenance({ name: 'fix-gpu', nodeName: 'node-01', phase: 'Draining', annotations: { 'kmaint.io/devices': 'gpu.nvidia.com/node-01/gpu-1' } });
    const nodeRequest = aMaintenance({ name: 'upgrade', nodeName: 'node-01' });
    const state = recordedState({ nodes: someNodes(3), maintenances: [inProgress, nodeRequest] });
    const plan = planScheduling(state, limits(2, 1), NOW);
    checkSchedulingInvariants(state, limits(2, 1), plan, NOW);
    expect({ admitted: plan.admitted, waiting: plan.waiting }).toEqual({ admitted: [], waiting: [{ key: 'default/upgrade', why: 'another request for node node-01 is in progress (default/fix-gpu)' }] });
  });
});
