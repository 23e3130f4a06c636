import { describe, expect, it } from 'vitest';
import { aMaintenance } from '../scheduling/test-builders.ts';
import { buildDeviceView, deviceRequestOf, deviceRequestRefusal } from './request.ts';

const nm = (devices: string | undefined, nodeName = 'gpu-01') => aMaintenance({ name: 'fix-gpu', nodeName, ...(devices !== undefined ? { annotations: { 'kmaint.io/devices': devices } } : {}) });
const slice = (node: string, devices: string[]) => ({ spec: { driver: 'gpu.nvidia.com', nodeName: node, pool: { name: node }, devices: devices.map((name) => ({ name })) } });
const SERVED = buildDeviceView([slice('gpu-01', ['gpu-0', 'gpu-1']), slice('gpu-02', ['gpu-0'])], 'v1alpha3');
const NEVER = 'a device request is never treated as a node request';

describe('kmaint.io/devices', () => {
  it.each([
    ['absent: a node request', undefined, { kind: 'node' }],
    ['one device', 'gpu.nvidia.com/gpu-01/gpu-1', { kind: 'devices', devices: [{ driver: 'gpu.nvidia.com', pool: 'gpu-01', device: 'gpu-1' }] }],
    ['two devices, spaces ignored, a pool with / kept whole', ' gpu.nvidia.com/gpu-01/gpu-0 , gpu.nvidia.com/a/b/gpu-1', { kind: 'devices', devices: [{ driver: 'gpu.nvidia.com', pool: 'gpu-01', device: 'gpu-0' }, { driver: 'gpu.nvidia.com', pool: 'a/b', device: 'gpu-1' }] }],
    ['empty', ' , ', { kind: 'invalid', problem: 'it lists no device' }],
    ['no pool', 'gpu.nvidia.com/gpu-0', { kind: 'invalid', problem: '"gpu.nvidia.com/gpu-0" is not driver/pool/device' }],
    ['upper-case device', 'gpu.nvidia.com/gpu-01/GPU0', { kind: 'invalid', problem: '"gpu.nvidia.com/gpu-01/GPU0": device "GPU0" is not a DNS label' }],
    ['listed twice', 'gpu.nvidia.com/gpu-01/gpu-0,gpu.nvidia.com/gpu-01/gpu-0', { kind: 'invalid', problem: '"gpu.nvidia.com/gpu-01/gpu-0" is listed twice' }],
  ])('%s', (_name, value, expected) => {
    expect(deviceRequestOf(nm(value))).toEqual(expected);
  });

  it.each([
    ['a node request: no refusal', nm(undefined), SERVED, undefined],
    ['devices its node publishes, API served: admitted', nm('gpu.nvidia.com/gpu-01/gpu-1'), SERVED, undefined],
    ['a value that cannot be read', nm('gpu-0'), SERVED, `kmaint.io/devices cannot be read: "gpu-0" is not driver/pool/device; ${NEVER}`],
    ['a device of another node', nm('gpu.nvidia.com/gpu-02/gpu-0'), SERVED, `kmaint.io/devices names devices no ResourceSlice of node gpu-01 publishes: gpu.nvidia.com/gpu-02/gpu-0; ${NEVER}`],
    ['a device the node lacks', nm('gpu.nvidia.com/gpu-01/gpu-7'), SERVED, `kmaint.io/devices names devices no ResourceSlice of node gpu-01 publishes: gpu.nvidia.com/gpu-01/gpu-7; ${NEVER}`],
    [
      'no DeviceTaintRule API',
      nm('gpu.nvidia.com/gpu-01/gpu-1'),
      buildDeviceView([], undefined),
      `this cluster does not serve DeviceTaintRules (resource.k8s.io/v1beta2 from Kubernetes 1.36, or v1alpha3 in 1.35 with the feature gates DRADeviceTaints and DRADeviceTaintRules and --runtime-config=resource.k8s.io/v1alpha3=true), so kmaint cannot take single devices out of service; ${NEVER}`,
    ],
    [
      'RBAC not bound',
      nm('gpu.nvidia.com/gpu-01/gpu-1'),
      { ...buildDeviceView([], undefined), forbidden: 'HTTP 403: forbidden' },
      `kmaint may not read DeviceTaintRules and ResourceSlices (HTTP 403: forbidden): bind the ClusterRole kmaint-devices (infra/devices, or the chart's devices.enabled); ${NEVER}`,
    ],
    ['not read this pass', nm('gpu.nvidia.com/gpu-01/gpu-1'), undefined, `the devices of kmaint.io/devices could not be checked this pass; ${NEVER}`],
  ])('refusal: %s', (_name, request, view, expected) => {
    expect(deviceRequestRefusal(request, view)).toBe(expected);
  });
});
