// The simulated DRA driver of GPU nodes: what NVIDIA's GPU driver publishes for a node (a ResourceSlice of its GPUs,
// driver gpu.nvidia.com) and the DeviceClass its install creates, built from the node's nvidia.com/gpu capacity, so
// that the real kube-scheduler allocates ResourceClaims on them (shared/reference interop sheet, DRA 4.2).
import type { V1Node } from '@kubernetes/client-node';
import { RESOURCE_GPU } from '../generator/sim-keys.ts';

/** The driver (and DeviceClass) name NVIDIA's DRA GPU driver uses; kmaint maps it to nvidia.com/gpu by default. */
export const SIM_GPU_DRIVER = 'gpu.nvidia.com';

export interface ClusterObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string }> };
  spec: Record<string, unknown>;
}

/** The DeviceClass every GPU claim names: all devices of the driver. */
export function gpuDeviceClass(): ClusterObject {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name: SIM_GPU_DRIVER },
    spec: { selectors: [{ cel: { expression: `device.driver == "${SIM_GPU_DRIVER}"` } }] },
  };
}

/**
 * One slice per GPU node: pool = node name, generation 0, one slice in the pool, devices gpu-0 .. gpu-(n-1) for the
 * node's nvidia.com/gpu capacity; owned by the Node (when its uid is known), so it goes with the Node. undefined for a
 * node without GPUs.
 */
export function gpuResourceSlice(node: V1Node, nodeUid: string | undefined): ClusterObject | undefined {
  const name = node.metadata?.name ?? '';
  const gpus = Number(node.status?.capacity?.[RESOURCE_GPU] ?? '0');
  if (!Number.isInteger(gpus) || gpus <= 0 || name === '') return undefined;
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: {
      name: `${name}-${SIM_GPU_DRIVER}`,
      ...(nodeUid !== undefined ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: nodeUid }] } : {}),
    },
    spec: {
      driver: SIM_GPU_DRIVER,
      pool: { name, generation: 0, resourceSliceCount: 1 },
      nodeName: name,
      devices: Array.from({ length: gpus }, (_, i) => ({ name: `gpu-${i}`, attributes: { index: { int: i } } })),
    },
  };
}
