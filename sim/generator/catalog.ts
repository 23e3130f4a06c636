// Which workloads each profile gets, sized with seeded randomness; every kind the drainer must handle.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import {
  barePod,
  daemonSet,
  deployment,
  headlessService,
  job,
  mirrorPod,
  namespace,
  podDisruptionBudget,
  statefulSet,
  type PodShape,
} from './manifests.ts';
import type { Rng } from './prng.ts';
import type { PoolName, ProfileName } from './profiles.ts';
import { LABEL_POOL, RESOURCE_GPU } from './sim-keys.ts';
import type { Workloads } from './types.ts';

const GPU_TOLERATION = [{ key: RESOURCE_GPU, operator: 'Exists', effect: 'NoSchedule' }];
export const CONTROL_PLANE_COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;
/** The static pod every worker runs, as kube-proxy does on kube-up clusters. */
export const WORKER_STATIC_POD = 'kube-proxy';

export function poolOf(node: V1Node): PoolName {
  return (node.metadata?.labels?.[LABEL_POOL] ?? 'general') as PoolName;
}

export function emptyWorkloads(): Workloads {
  return { services: [], deployments: [], statefulSets: [], daemonSets: [], jobs: [], podDisruptionBudgets: [], pods: [] };
}

function small(rng: Rng): PodShape {
  return { cpu: `${rng.pick([10, 20, 25, 50])}m`, memory: `${rng.pick([16, 32, 64])}Mi` };
}

/** Mirror pods for the static pods: control-plane components on control-plane nodes, kube-proxy elsewhere. */
export function mirrorPodsFor(node: V1Node, rng: Rng): V1Pod[] {
  const name = node.metadata?.name ?? '';
  const components = poolOf(node) === 'control-plane' ? CONTROL_PLANE_COMPONENTS : [WORKER_STATIC_POD];
  return components.map((component) => mirrorPod(component, name, rng.hex(32), { cpu: '10m', memory: '16Mi' }));
}

/** The controller-driven workloads of the small and demo profiles (and large without prebinding). */
export function standardWorkloads(profile: ProfileName, nodes: readonly V1Node[], rng: Rng): { namespaces: string[]; workloads: Workloads } {
  const w = emptyWorkloads();
  const demo = profile !== 'small';
  const gpuNodes = nodes.filter((n) => poolOf(n) === 'gpu').length;
  const general = nodes.filter((n) => poolOf(n) === 'general').map((n) => n.metadata?.name ?? '');

  const frontend = demo ? rng.int(6, 8) : rng.int(3, 4);
  w.deployments.push(deployment('web', 'frontend', frontend, small(rng)));
  w.podDisruptionBudgets.push(podDisruptionBudget('web', 'frontend', { minAvailable: frontend - 1 }));
  w.deployments.push(deployment('web', 'api', demo ? rng.int(6, 8) : rng.int(3, 4), { ...small(rng), emptyDir: true }));
  w.podDisruptionBudgets.push(podDisruptionBudget('web', 'api', { maxUnavailable: 1 }));
  w.deployments.push(deployment('web', 'worker', demo ? rng.int(4, 6) : 2, small(rng)));
  w.podDisruptionBudgets.push(podDisruptionBudget('web', 'worker', { maxUnavailable: '50%' }));

  w.statefulSets.push(statefulSet('data', 'db', 3, small(rng)));
  w.services.push(headlessService('data', 'db'));
  w.podDisruptionBudgets.push(podDisruptionBudget('data', 'db', { minAvailable: 2 }));

  const gpuShape = { pool: 'gpu', tolerations: GPU_TOLERATION };
  w.deployments.push(deployment('ml', 'trainer', gpuNodes, { ...small(rng), ...gpuShape, gpus: rng.int(2, 4), rdma: 1 }));
  w.podDisruptionBudgets.push(podDisruptionBudget('ml', 'trainer', { maxUnavailable: 1 }));
  w.deployments.push(deployment('ml', 'inference', gpuNodes * 2, { ...small(rng), ...gpuShape, gpus: 1 }));
  w.podDisruptionBudgets.push(podDisruptionBudget('ml', 'inference', { minAvailable: '50%' }));

  w.jobs.push(job('batch', 'nightly-etl', rng.int(900, 1800), small(rng)));

  w.daemonSets.push(daemonSet('ops', 'node-exporter', small(rng)));
  w.daemonSets.push(daemonSet('ops', 'log-agent', small(rng)));

  const debugNode = rng.pick(general);
  w.pods.push(barePod('ops', `debug-shell-${debugNode}`, 'debug-shell', debugNode, small(rng)));
  const scratchNode = rng.pick(general);
  w.pods.push(barePod('ops', `scratch-pad-${scratchNode}`, 'scratch-pad', scratchNode, { ...small(rng), emptyDir: true }));

  const namespaces = ['web', 'data', 'ml', 'batch', 'ops'];
  if (demo) {
    const cart = rng.int(4, 6);
    w.deployments.push(deployment('shop', 'cart', cart, small(rng)));
    w.podDisruptionBudgets.push(podDisruptionBudget('shop', 'cart', { minAvailable: '75%' }));
    w.deployments.push(deployment('shop', 'checkout', 3, { ...small(rng), emptyDir: true }));
    w.podDisruptionBudgets.push(podDisruptionBudget('shop', 'checkout', { maxUnavailable: 1 }));
    w.statefulSets.push(statefulSet('data', 'queue', 3, small(rng)));
    w.services.push(headlessService('data', 'queue'));
    w.podDisruptionBudgets.push(podDisruptionBudget('data', 'queue', { maxUnavailable: 1 }));
    w.jobs.push(job('batch', 'model-eval', rng.int(600, 1200), small(rng)));
    w.daemonSets.push(daemonSet('ml', 'dcgm-exporter', { ...small(rng), pool: 'gpu' }));
    const cacheNode = rng.pick(general);
    w.pods.push(barePod('shop', `cache-warmer-${cacheNode}`, 'cache-warmer', cacheNode, { ...small(rng), emptyDir: true }));
    namespaces.push('shop');
  }
  for (const node of nodes) w.pods.push(...mirrorPodsFor(node, rng));
  return { namespaces, workloads: w };
}

export function namespaceObjects(names: readonly string[]) {
  return names.map(namespace);
}
