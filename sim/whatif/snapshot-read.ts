// Reads what a snapshot keeps from a live cluster: pods, budgets and the config through kmaint's client, and the
// nodes in full through client-node (kmaint's own LIST nodes keeps only what its passes read, not allocatable).
import { CoreV1Api, type KubeConfig, type V1Node } from '@kubernetes/client-node';
import { KubeClient } from '../../shared/kube/index.ts';
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

/** The cluster `kubeConfig` points at, as a snapshot; the config is read from `namespace`. */
export async function readClusterSnapshot(kubeConfig: KubeConfig, namespace: string, now: Date): Promise<ClusterSnapshot> {
  const client = new KubeClient(kubeConfig);
  const [nodes, pods, pdbs, config] = await Promise.all([listNodes(kubeConfig), client.listPods(), client.listPodDisruptionBudgets(), client.getConfig(namespace)]);
  return buildSnapshot({ nodes, pods, pdbs, config, configNamespace: namespace }, now, kubeConfig.getCurrentCluster()?.server ?? '');
}
