// The demo's two requestors: the upstream README's example on a GPU node, and a rolling OS upgrade of general
// nodes. Each creates its requests, "works" on a node once its request is Ready, then deletes the request.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { NodeMaintenanceSpec } from '../../shared/api/index.ts';
import { createRng, deriveSeed } from '../generator/prng.ts';
import { LABEL_POOL } from '../generator/sim-keys.ts';

export const DEMO_NAMESPACE = 'default';
export const SEED_REQUESTOR = 'some.one.acme.com';
export const UPGRADE_REQUESTOR = 'os-upgrade.acme.com';

export interface PlannedRequest {
  namespace: string;
  name: string;
  spec: NodeMaintenanceSpec;
  /** Simulated ms the requestor works on the node once the request is Ready, then deletes it. */
  holdMs: number;
  /** The node restarts during the work (NotReady for a while, as an OS upgrade reboots). */
  reboot: boolean;
  /** Annotations of the request (kmaint.io/reboot=true asks kmaint to reboot the drained node). */
  annotations?: Record<string, string>;
}

export interface DemoPlan {
  requests: PlannedRequest[];
  /** Cordoned "by an admin" before the demo starts: kmaint must leave it cordoned when done. */
  preCordoned: string | undefined;
}

const byName = (a: V1Node, b: V1Node): number => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1);
export const poolNodes = (nodes: readonly V1Node[], pool: string): string[] =>
  nodes.filter((n) => n.metadata?.labels?.[LABEL_POOL] === pool).sort(byName).map((n) => n.metadata?.name ?? '');

/** The seed README's NodeMaintenance, verbatim but for the node. */
export function seedExampleSpec(nodeName: string): NodeMaintenanceSpec {
  return {
    requestorID: SEED_REQUESTOR,
    nodeName,
    cordon: true,
    waitForPodCompletion: { podSelector: 'app=important', timeoutSeconds: 0 },
    drainSpec: {
      force: true,
      podSelector: '',
      timeoutSeconds: 0,
      deleteEmptyDir: true,
      podEvictionFilters: [{ byResourceNameRegex: 'nvidia.com/gpu-*' }, { byResourceNameRegex: 'nvidia.com/rdma*' }],
    },
  };
}

/** Pods a ReplicaSet or StatefulSet keeps, the ones PodDisruptionBudgets guard, per node. */
export function replicatedPodsByNode(pods: readonly V1Pod[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of pods) {
    const kind = p.metadata?.ownerReferences?.find((o) => o.controller)?.kind;
    const node = p.spec?.nodeName;
    if (node && (kind === 'ReplicaSet' || kind === 'StatefulSet')) counts.set(node, (counts.get(node) ?? 0) + 1);
  }
  return counts;
}

/**
 * Which requests the demo makes: the seed example on the first GPU node (5 simulated minutes of firmware
 * work), and an upgrade of the `upgradeNodes` general nodes running the most replicated pods (2–4 minutes
 * each, with a reboot), so that concurrent drains meet the same PodDisruptionBudgets.
 */
export function planDemoRequests(nodes: readonly V1Node[], pods: readonly V1Pod[], seed: number, upgradeNodes = 8): DemoPlan {
  const rng = createRng(deriveSeed(seed, 'demo-requests'));
  const requests: PlannedRequest[] = [];
  const gpu = poolNodes(nodes, 'gpu')[0];
  if (gpu) requests.push({ namespace: DEMO_NAMESPACE, name: 'my-maintenance-operation', spec: seedExampleSpec(gpu), holdMs: 5 * 60_000, reboot: false });
  const replicated = replicatedPodsByNode(pods);
  const general = poolNodes(nodes, 'general')
    .map((name) => ({ name, pods: replicated.get(name) ?? 0 }))
    .sort((a, b) => b.pods - a.pods || (a.name < b.name ? -1 : 1))
    .slice(0, upgradeNodes)
    .map((n) => n.name)
    .sort();
  for (const node of general) {
    requests.push({
      namespace: DEMO_NAMESPACE,
      name: `os-upgrade-${node}`,
      spec: { requestorID: UPGRADE_REQUESTOR, nodeName: node, drainSpec: { force: true, deleteEmptyDir: true } },
      holdMs: rng.int(120, 240) * 1000,
      reboot: true,
    });
  }
  return { requests, preCordoned: general.length >= 3 ? general[2] : undefined };
}
