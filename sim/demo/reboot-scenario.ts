// `kmaint demo --scenario reboot` (issue 43): kured's job done by kmaint. A patch agent asks for a reboot of six general
// nodes (kmaint.io/reboot=true on each request) under maxParallelOperations 2; kmaint drains each node, runs its reboot
// Job, waits for the new boot ID and Ready, and the agent deletes the request, which uncordons the node.
import { ANNOTATION_REBOOT } from '../../shared/api/index.ts';
import type { GeneratedCluster } from '../generator/index.ts';
import { plannedPlacement } from './planned-placement.ts';
import { DEMO_NAMESPACE, poolNodes, replicatedPodsByNode, type DemoPlan } from './requestors.ts';

export const REBOOT_REQUESTOR = 'os-patch.acme.com';
/** The rolling reboot's limit: two nodes down at most, as kured with `--concurrency 2`. */
export const REBOOT_DEMO_LIMITS = { maxParallelOperations: 2 } as const;
/** Nodes the patch agent asks to reboot. */
export const REBOOT_DEMO_NODES = 6;
/**
 * How long a simulated node is down in a reboot: a bare-metal server's firmware checks and boot take minutes. Long
 * beside a round of passes even on a loaded machine (the demo's clock runs on while a pass is slow), so two nodes
 * admitted together are down together, one drainer round apart at most: the limit, not luck, is what bounds them.
 */
export const REBOOT_DEMO_DOWN_SECONDS = 600;

/**
 * The six general nodes running the most replicated pods (so each drain meets PodDisruptionBudgets), in name order,
 * each with a reboot request; the third is cordoned by an admin before the demo, a cordon kmaint must keep.
 * A pure function of the generated cluster: what `kmaint demo --scenario reboot --seed N` asks for.
 */
export function rebootDemoPlan(cluster: Pick<GeneratedCluster, 'nodes' | 'workloads'>): DemoPlan {
  const replicated = replicatedPodsByNode(plannedPlacement(cluster));
  const chosen = poolNodes(cluster.nodes, 'general')
    .map((name) => ({ name, pods: replicated.get(name) ?? 0 }))
    .sort((a, b) => b.pods - a.pods || (a.name < b.name ? -1 : 1))
    .slice(0, REBOOT_DEMO_NODES)
    .map((n) => n.name)
    .sort();
  const requests = chosen.map((node) => ({
    namespace: DEMO_NAMESPACE,
    name: `reboot-${node}`,
    spec: { requestorID: REBOOT_REQUESTOR, nodeName: node, cordon: true, drainSpec: { force: true, deleteEmptyDir: true } },
    annotations: { [ANNOTATION_REBOOT]: 'true' },
    // The requestor's work is kmaint's reboot: it deletes the request as soon as it is Ready.
    holdMs: 0,
    reboot: false,
  }));
  return { requests, preCordoned: chosen.length >= 3 ? chosen[2] : undefined };
}
