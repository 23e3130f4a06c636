// Reading what one pass needs: a handful of paged LISTs, pods only of the nodes being drained.
import type { V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import type { MaintenanceOperatorConfig, NodeMaintenance } from '../api/types.ts';
import type { KubeClient } from '../kube/index.ts';
import { PHASES_NEEDING_PODS } from '../lifecycle/index.ts';
import { maintenancePhase } from '../scheduling/index.ts';

export interface BaseSnapshot {
  nodes: Map<string, V1Node>;
  nodeList: V1Node[];
  maintenances: NodeMaintenance[];
  config: MaintenanceOperatorConfig | undefined;
}

export async function readBase(client: KubeClient, namespace: string): Promise<BaseSnapshot> {
  const [nodeList, maintenances, config] = await Promise.all([client.listNodes(), client.listMaintenances(), client.getConfig(namespace)]);
  return { nodes: new Map(nodeList.map((n) => [n.metadata?.name ?? '', n])), nodeList, maintenances, config };
}

/** Pods of each node whose request the drainer may move this pass, with bounded concurrency. */
export async function readDrainPods(
  client: KubeClient,
  base: BaseSnapshot,
  concurrency = 8,
): Promise<{ podsByNode: Map<string, V1Pod[]>; pdbs: V1PodDisruptionBudget[] }> {
  const nodes = [
    ...new Set(
      base.maintenances
        .filter((nm) => !nm.metadata.deletionTimestamp && PHASES_NEEDING_PODS.has(maintenancePhase(nm)) && base.nodes.has(nm.spec.nodeName))
        .map((nm) => nm.spec.nodeName),
    ),
  ].sort();
  const podsByNode = new Map<string, V1Pod[]>();
  if (nodes.length === 0) return { podsByNode, pdbs: [] };
  const queue = [...nodes];
  const worker = async (): Promise<void> => {
    for (let node = queue.shift(); node !== undefined; node = queue.shift()) {
      podsByNode.set(node, await client.listPods({ fieldSelector: `spec.nodeName=${node}` }));
    }
  };
  const [pdbs] = await Promise.all([client.listPodDisruptionBudgets(), ...Array.from({ length: Math.min(concurrency, nodes.length) }, () => worker())]);
  return { podsByNode, pdbs };
}
