// Reads what a snapshot keeps from a live cluster: pods, budgets and the config through kmaint's client, and the
// nodes in full through client-node (kmaint's own LIST nodes keeps only what its passes read, not allocatable).
import { CoreV1Api, type KubeConfig, type V1Node } from '@kubernetes/client-node';
import { KubeClient, KubeRequestError } from '../../shared/kube/index.ts';
import { buildSnapshot } from './snapshot-build.ts';
import type { ClusterSnapshot } from './snapshot-schema.ts';

async function listNodes(kubeConfig: KubeConfig): Promise<V1Node[]> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const nodes: V1Node[] = [];
  let cont: string | undefined;
  do {
    const page = await core.listNode({ limit: 500, ...(cont ? { _continue: cont } : {}) });
    nodes.push(...page.items);
    cont = page.metadata?._continue || undefined;
  } while (cont);
  return nodes;
}

/**
 * The DRA lists (issue 45), or undefined when the user may not read them (403): the snapshot then names no devices,
 * as one of a cluster without DRA (a server without resource.k8s.io answers 404, which the client reads as none).
 */
async function readDevices(client: KubeClient): Promise<{ slices: Awaited<ReturnType<KubeClient['listResourceSlices']>>; claims: Awaited<ReturnType<KubeClient['listResourceClaims']>> } | undefined> {
  try {
    const [slices, claims] = await Promise.all([client.listResourceSlices(), client.listResourceClaims()]);
    return { slices, claims };
  } catch (err) {
    if (err instanceof KubeRequestError && err.status === 403) return undefined;
    throw err;
  }
}

/** The cluster `kubeConfig` points at, as a snapshot; the config is read from `namespace`. */
export async function readClusterSnapshot(kubeConfig: KubeConfig, namespace: string, now: Date): Promise<ClusterSnapshot> {
  const client = new KubeClient(kubeConfig);
  const [nodes, pods, pdbs, config, devices] = await Promise.all([listNodes(kubeConfig), client.listPods(), client.listPodDisruptionBudgets(), client.getConfig(namespace), readDevices(client)]);
  return buildSnapshot({ nodes, pods, pdbs, config, configNamespace: namespace, ...(devices ?? {}) }, now, kubeConfig.getCurrentCluster()?.server ?? '');
}
