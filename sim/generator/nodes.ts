// Node manifests for a generated cluster: labels, taints, providerIDs, capacity, addresses.
import type { V1Node, V1Taint } from '@kubernetes/client-node';
import type { Rng } from './prng.ts';
import { INSTANCE_TYPES, REGION, poolCounts, type InstanceType, type PoolName, type ProfileSpec } from './profiles.ts';
import {
  KUBELET_VERSION,
  LABEL_ARCH,
  LABEL_CONTROL_PLANE,
  LABEL_HOSTNAME,
  LABEL_INSTANCE_TYPE,
  LABEL_OS,
  LABEL_POOL,
  LABEL_REGION,
  LABEL_ZONE,
  RESOURCE_GPU,
  RESOURCE_RDMA,
} from './sim-keys.ts';

/** `aws:///<zone>/i-<17 hex>`, as the AWS cloud provider writes it. */
export const PROVIDER_ID_PATTERN = /^aws:\/\/\/[a-z]{2}-[a-z]+-\d[a-z]\/i-[0-9a-f]{17}$/;

const CONTROL_PLANE_TAINT: V1Taint = { key: LABEL_CONTROL_PLANE, effect: 'NoSchedule' };
const GPU_TAINT: V1Taint = { key: RESOURCE_GPU, value: 'present', effect: 'NoSchedule' };

export function nodeName(index: number, total: number): string {
  return `node-${String(index).padStart(Math.max(3, String(total - 1).length), '0')}`;
}

/** The pod CIDR of the node at `index`; the simulated kubelet hands out pod IPs from it. */
export function podCidr(index: number): string {
  return `10.${64 + ((index >> 8) & 63)}.${index & 255}.0/24`;
}

export function generateNodes(spec: ProfileSpec, total: number, rng: Rng): V1Node[] {
  const counts = poolCounts(spec, total);
  const pools: PoolName[] = [
    ...Array<PoolName>(counts.controlPlane).fill('control-plane'),
    ...Array<PoolName>(counts.general).fill('general'),
    ...Array<PoolName>(counts.gpu).fill('gpu'),
  ];
  const zoneOffset = rng.int(0, spec.zones.length - 1);
  const seenIds = new Set<string>();
  const perPool = new Map<PoolName, number>();
  return pools.map((pool, index) => {
    const inPool = perPool.get(pool) ?? 0;
    perPool.set(pool, inPool + 1);
    const zoneIndex = (inPool + zoneOffset) % spec.zones.length;
    const zone = spec.zones[zoneIndex] as string;
    let instanceId = `i-${rng.hex(17)}`;
    while (seenIds.has(instanceId)) instanceId = `i-${rng.hex(17)}`;
    seenIds.add(instanceId);
    return buildNode({
      name: nodeName(index, total),
      index,
      pool,
      zone,
      zoneIndex,
      instanceType: rng.pick(INSTANCE_TYPES[pool]),
      providerID: `aws:///${zone}/${instanceId}`,
      machineId: rng.hex(32),
      bootId: uuid(rng),
    });
  });
}

interface NodeFacts {
  name: string;
  index: number;
  pool: PoolName;
  zone: string;
  zoneIndex: number;
  instanceType: InstanceType;
  providerID: string;
  machineId: string;
  bootId: string;
}

function buildNode(facts: NodeFacts): V1Node {
  const { name, pool, instanceType: it } = facts;
  const labels: Record<string, string> = {
    [LABEL_HOSTNAME]: name,
    [LABEL_OS]: 'linux',
    [LABEL_ARCH]: 'amd64',
    [LABEL_ZONE]: facts.zone,
    [LABEL_REGION]: REGION,
    [LABEL_INSTANCE_TYPE]: it.name,
    [LABEL_POOL]: pool,
  };
  if (pool === 'control-plane') labels[LABEL_CONTROL_PLANE] = '';
  const taints = pool === 'control-plane' ? [CONTROL_PLANE_TAINT] : pool === 'gpu' ? [GPU_TAINT] : [];
  const capacity: Record<string, string> = {
    cpu: String(it.cpu),
    memory: `${it.memoryGi * 1024 * 1024}Ki`,
    'ephemeral-storage': '104857600Ki',
    pods: '110',
  };
  // Allocatable keeps back what a real kubelet reserves (system + kube reserved, eviction threshold).
  const allocatable: Record<string, string> = {
    cpu: `${it.cpu * 1000 - 80}m`,
    memory: `${it.memoryGi * 1024 * 1024 - 1024 * 1024 - 100 * 1024}Ki`,
    'ephemeral-storage': '96636764Ki',
    pods: '110',
  };
  if (it.gpus > 0) {
    capacity[RESOURCE_GPU] = allocatable[RESOURCE_GPU] = String(it.gpus);
    capacity[RESOURCE_RDMA] = allocatable[RESOURCE_RDMA] = String(it.rdma);
  }
  const hostOrdinal = 10 + facts.index;
  const cidr = podCidr(facts.index);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels },
    spec: {
      providerID: facts.providerID,
      podCIDR: cidr,
      podCIDRs: [cidr],
      ...(taints.length > 0 ? { taints } : {}),
    },
    status: {
      capacity,
      allocatable,
      addresses: [
        { type: 'InternalIP', address: `10.${1 + facts.zoneIndex}.${(hostOrdinal >> 8) & 255}.${hostOrdinal & 255}` },
        { type: 'Hostname', address: name },
      ],
      nodeInfo: {
        architecture: 'amd64',
        bootID: facts.bootId,
        containerRuntimeVersion: 'containerd://2.1.4',
        kernelVersion: '6.12.40-sim',
        kubeProxyVersion: '',
        kubeletVersion: KUBELET_VERSION,
        machineID: facts.machineId,
        operatingSystem: 'linux',
        osImage: 'Amazon Linux 2023',
        systemUUID: facts.machineId.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'),
      },
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    },
  };
}

function uuid(rng: Rng): string {
  const h = rng.hex(32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
