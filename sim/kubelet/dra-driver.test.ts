// The simulated DRA GPU driver's objects, exactly as the real kube-scheduler reads them.
import { describe, expect, it } from 'vitest';
import { generateCluster } from '../generator/index.ts';
import { gpuDeviceClass, gpuResourceSlice } from './dra-driver.ts';

describe('simulated DRA GPU driver', () => {
  it('the DeviceClass selects every device of gpu.nvidia.com', () => {
    expect(gpuDeviceClass()).toEqual({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: 'gpu.nvidia.com' },
      spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.nvidia.com"' } }] },
    });
  });

  it('one slice per GPU node of the small profile, one device per nvidia.com/gpu, owned by the Node; none for the others', () => {
    const { nodes } = generateCluster({ profile: 'small', seed: 1 });
    const slices = nodes.flatMap((n) => {
      const slice = gpuResourceSlice(n, `uid-${n.metadata?.name ?? ''}`);
      return slice ? [slice] : [];
    });
    const gpuNodes = nodes.filter((n) => Number(n.status?.capacity?.['nvidia.com/gpu'] ?? '0') > 0);
    expect(slices.map((s) => s.metadata.name)).toEqual(gpuNodes.map((n) => `${n.metadata?.name ?? ''}-gpu.nvidia.com`));
    const [node] = gpuNodes;
    const name = node?.metadata?.name ?? '';
    const gpus = Number(node?.status?.capacity?.['nvidia.com/gpu']);
    expect(slices[0]).toEqual({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { name: `${name}-gpu.nvidia.com`, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: `uid-${name}` }] },
      spec: {
        driver: 'gpu.nvidia.com',
        pool: { name, generation: 0, resourceSliceCount: 1 },
        nodeName: name,
        devices: Array.from({ length: gpus }, (_, i) => ({ name: `gpu-${i}`, attributes: { index: { int: i } } })),
      },
    });
  });
});
