// Prebound mode for large clusters: ~podsPerNode bound pods per node, yielded lazily to stay memory-lean.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { CONTROL_PLANE_COMPONENTS, WORKER_STATIC_POD, poolOf } from './catalog.ts';
import { barePod, mirrorPod, type PodShape } from './manifests.ts';
import { createRng, deriveSeed } from './prng.ts';
import { RESOURCE_GPU } from './sim-keys.ts';
import type { GeneratedCluster, PreboundApp, PreboundPlan } from './types.ts';

/** Bare per-node pods standing in for DaemonSet pods (a DaemonSet would make the scheduler place them all). */
export const NODE_DAEMONS = ['node-exporter', 'log-agent'] as const;
export const GPU_APP = { namespace: 'ml', name: 'gpu-train' } as const;
const GPU_PODS_PER_NODE = 4;
const PODS_PER_APP = 200;
const BENCH_NAMESPACES = 10;
const POD_SHAPE: PodShape = { cpu: '10m', memory: '16Mi' };
const GPU_TOLERATION = [{ key: RESOURCE_GPU, operator: 'Exists', effect: 'NoSchedule' }];

type Slot =
  | { kind: 'mirror'; component: string }
  | { kind: 'daemon'; name: string }
  | { kind: 'gpu' }
  | { kind: 'app' };

/** What runs on one node, in order; the first slots are fixed, the rest go to apps round-robin. */
function slotsFor(node: V1Node, podsPerNode: number): Slot[] {
  const pool = poolOf(node);
  const slots: Slot[] = (pool === 'control-plane' ? CONTROL_PLANE_COMPONENTS : [WORKER_STATIC_POD]).map((component) => ({
    kind: 'mirror' as const,
    component,
  }));
  for (const name of NODE_DAEMONS) slots.push({ kind: 'daemon', name });
  if (pool === 'control-plane') return slots.slice(0, podsPerNode);
  if (pool === 'gpu') for (let i = 0; i < GPU_PODS_PER_NODE; i++) slots.push({ kind: 'gpu' });
  while (slots.length < podsPerNode) slots.push({ kind: 'app' });
  return slots.slice(0, podsPerNode);
}

/** Sizes the app groups so each holds about PODS_PER_APP pods, spread over many nodes. */
export function planPrebound(nodes: readonly V1Node[], podsPerNode: number): { plan: PreboundPlan; gpuPods: number; total: number } {
  let appSlots = 0;
  let gpuPods = 0;
  let total = 0;
  for (const node of nodes) {
    const slots = slotsFor(node, podsPerNode);
    total += slots.length;
    for (const slot of slots) {
      if (slot.kind === 'app') appSlots++;
      if (slot.kind === 'gpu') gpuPods++;
    }
  }
  const appCount = Math.max(1, Math.round(appSlots / PODS_PER_APP));
  const apps: PreboundApp[] = Array.from({ length: appCount }, (_, i) => ({
    namespace: benchNamespace(i),
    name: `app-${String(i).padStart(3, '0')}`,
    pods: Math.floor(appSlots / appCount) + (i < appSlots % appCount ? 1 : 0),
  }));
  return { plan: { podsPerNode, apps }, gpuPods, total };
}

export function benchNamespace(appIndex: number): string {
  return `bench-${appIndex % BENCH_NAMESPACES}`;
}

export function benchNamespaces(appCount: number): string[] {
  return Array.from({ length: Math.min(appCount, BENCH_NAMESPACES) }, (_, i) => `bench-${i}`);
}

/**
 * The bound pods of a prebound cluster, in node order, generated on demand: the same cluster
 * always yields the same pods. Empty when the cluster was not generated in prebound mode.
 */
export function* preboundPods(cluster: GeneratedCluster): Generator<V1Pod> {
  const plan = cluster.prebound;
  if (!plan) return;
  const rng = createRng(deriveSeed(cluster.seed, 'prebound'));
  const shape: PodShape = plan.graceSeconds !== undefined ? { ...POD_SHAPE, terminationGracePeriodSeconds: plan.graceSeconds } : POD_SHAPE;
  const appCount = plan.apps.length;
  let appSlot = 0;
  for (const node of cluster.nodes) {
    const nodeName = node.metadata?.name ?? '';
    const slots = slotsFor(node, plan.podsPerNode);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i] as Slot;
      switch (slot.kind) {
        case 'mirror':
          yield mirrorPod(slot.component, nodeName, rng.hex(32), shape);
          break;
        case 'daemon':
          yield barePod('ops', `${slot.name}-${nodeName}`, slot.name, nodeName, shape);
          break;
        case 'gpu':
          yield barePod(GPU_APP.namespace, `${GPU_APP.name}-${nodeName}-${i}`, GPU_APP.name, nodeName, {
            ...shape,
            gpus: 1,
            rdma: 1,
            tolerations: GPU_TOLERATION,
          });
          break;
        case 'app': {
          const app = plan.apps[appSlot % appCount] as PreboundApp;
          appSlot++;
          yield barePod(app.namespace, `${app.name}-${nodeName}-${i}`, app.name, nodeName, shape);
          break;
        }
      }
    }
  }
}
