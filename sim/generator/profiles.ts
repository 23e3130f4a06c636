// The cluster shapes the generator knows: node counts per pool, zones, instance types.

export type ProfileName = 'small' | 'demo' | 'large';
export type PoolName = 'control-plane' | 'general' | 'gpu';

export interface InstanceType {
  readonly name: string;
  readonly cpu: number;
  readonly memoryGi: number;
  readonly gpus: number;
  /** nvidia.com/rdma_shared_device_a capacity; 0 on non-RDMA machines. */
  readonly rdma: number;
}

export interface ProfileSpec {
  readonly nodes: number;
  readonly controlPlane: number;
  /** Share of the nodes in the gpu pool, at least one gpu node whatever the count. */
  readonly gpuFraction: number;
  readonly zones: readonly string[];
  /** Pods generated directly as bound Pod objects instead of through controllers. */
  readonly prebound: boolean;
  /** Pods per node in prebound mode, counting mirror and daemon pods. */
  readonly podsPerNode: number;
}

export const REGION = 'us-east-1';

export const PROFILES: Readonly<Record<ProfileName, ProfileSpec>> = {
  small: { nodes: 6, controlPlane: 1, gpuFraction: 1 / 6, zones: ['us-east-1a', 'us-east-1b'], prebound: false, podsPerNode: 30 },
  demo: { nodes: 24, controlPlane: 3, gpuFraction: 1 / 6, zones: ['us-east-1a', 'us-east-1b', 'us-east-1c'], prebound: false, podsPerNode: 30 },
  large: { nodes: 5000, controlPlane: 3, gpuFraction: 0.04, zones: ['us-east-1a', 'us-east-1b', 'us-east-1c'], prebound: true, podsPerNode: 30 },
};

export const INSTANCE_TYPES: Readonly<Record<PoolName, readonly InstanceType[]>> = {
  'control-plane': [
    { name: 'm6i.large', cpu: 2, memoryGi: 8, gpus: 0, rdma: 0 },
    { name: 'm6i.xlarge', cpu: 4, memoryGi: 16, gpus: 0, rdma: 0 },
  ],
  general: [
    { name: 'm5.xlarge', cpu: 4, memoryGi: 16, gpus: 0, rdma: 0 },
    { name: 'm5.2xlarge', cpu: 8, memoryGi: 32, gpus: 0, rdma: 0 },
    { name: 'm6i.2xlarge', cpu: 8, memoryGi: 32, gpus: 0, rdma: 0 },
  ],
  gpu: [
    { name: 'p4d.24xlarge', cpu: 96, memoryGi: 1152, gpus: 8, rdma: 63 },
    { name: 'p5.48xlarge', cpu: 192, memoryGi: 2048, gpus: 8, rdma: 63 },
  ],
};

export interface PoolCounts {
  readonly controlPlane: number;
  readonly general: number;
  readonly gpu: number;
}

/** Splits a node count into pools: the profile's control-plane count, a gpu share, the rest general. */
export function poolCounts(spec: ProfileSpec, total: number): PoolCounts {
  if (!Number.isInteger(total) || total < 3) {
    throw new RangeError(`a generated cluster needs at least 3 nodes (control-plane, general, gpu), got ${total}`);
  }
  const controlPlane = Math.min(spec.controlPlane, total - 2);
  const gpu = Math.min(Math.max(1, Math.round(total * spec.gpuFraction)), total - controlPlane - 1);
  return { controlPlane, gpu, general: total - controlPlane - gpu };
}
