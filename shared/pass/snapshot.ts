// Reading what one pass needs: a handful of paged LISTs, pods only of the nodes being drained.
import type { ResourceV1ResourceClaim, V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { MEDIK8S_LEASE_NAMESPACE, maintenancePhase } from '../api/index.ts';
import type { MaintenanceOperatorConfig, NodeMaintenance } from '../api/index.ts';
import type { OwnPods } from '../drain/index.ts';
import type { KubeClient } from '../kube/index.ts';
import { budgetsToExplain, PHASES_NEEDING_PODS, type Medik8sLeases } from '../lifecycle/index.ts';
import { setApartMalformed, type MalformedMaintenance } from './malformed.ts';

export interface BaseSnapshot {
  nodes: Map<string, V1Node>;
  nodeList: V1Node[];
  /** The requests planners read: those of the shape the CRD promises. */
  maintenances: NodeMaintenance[];
  /** Requests that bypassed the CRD's validation: no planner sees them (malformed.ts). */
  malformed: MalformedMaintenance[];
  config: MaintenanceOperatorConfig | undefined;
}

export async function readBase(client: KubeClient, namespace: string): Promise<BaseSnapshot> {
  const [nodeList, listed, config] = await Promise.all([client.listNodes(), client.listMaintenances(), client.getConfig(namespace)]);
  const { valid, malformed } = setApartMalformed(listed);
  return { nodes: new Map(nodeList.map((n) => [n.metadata?.name ?? '', n])), nodeList, maintenances: valid, malformed, config };
}

export interface DrainPods {
  podsByNode: Map<string, V1Pod[]>;
  pdbs: V1PodDisruptionBudget[];
  budgetPods: Map<string, V1Pod[]>;
  /**
   * Every ResourceClaim of the cluster: one LIST, made only when a pod read here has spec.resourceClaims (DRA);
   * otherwise empty and not read.
   */
  claims: ResourceV1ResourceClaim[];
  /**
   * Set when that LIST failed (RBAC, an API error): the drain of a node whose pods reference claims holds and says
   * this (lifecycle/drainer.ts); every other drain goes on. A failed DRA read never stops the pass.
   */
  claimsProblem?: string;
}

/** Pods of each node whose request the drainer may move this pass (bounded concurrency), and the claims they use. */
export async function readDrainPods(client: KubeClient, base: BaseSnapshot, concurrency = 8): Promise<DrainPods> {
  const nodes = [
    ...new Set(
      base.maintenances
        .filter((nm) => !nm.metadata.deletionTimestamp && PHASES_NEEDING_PODS.has(maintenancePhase(nm)) && base.nodes.has(nm.spec.nodeName))
        .map((nm) => nm.spec.nodeName),
    ),
  ].sort();
  const podsByNode = new Map<string, V1Pod[]>();
  const budgetPods = new Map<string, V1Pod[]>();
  if (nodes.length === 0) return { podsByNode, pdbs: [], budgetPods, claims: [] };
  const queue = [...nodes];
  const worker = async (): Promise<void> => {
    for (let node = queue.shift(); node !== undefined; node = queue.shift()) {
      podsByNode.set(node, await client.listPods({ fieldSelector: `spec.nodeName=${node}` }));
    }
  };
  const [pdbs] = await Promise.all([client.listPodDisruptionBudgets(), ...Array.from({ length: Math.min(concurrency, nodes.length) }, () => worker())]);
  // Budgets that already allow no eviction of a pod here: their pods say why (unhealthy, several controllers).
  for (const b of budgetsToExplain(pdbs, [...podsByNode.values()].flat())) {
    budgetPods.set(b.key, await client.listPods({ fieldSelector: `metadata.namespace=${b.namespace}`, ...(b.labelSelector ? { labelSelector: b.labelSelector } : {}) }));
  }
  // One cluster-wide LIST rather than one per namespace: a drained node's pods may span any number of namespaces.
  const usesDra = [...podsByNode.values()].some((pods) => pods.some((p) => (p.spec?.resourceClaims ?? []).length > 0));
  if (!usesDra) return { podsByNode, pdbs, budgetPods, claims: [] };
  try {
    return { podsByNode, pdbs, budgetPods, claims: await client.listResourceClaims() };
  } catch (err) {
    return { podsByNode, pdbs, budgetPods, claims: [], claimsProblem: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * The medik8s node leases, read only when `needed`: one GET of the namespace (absent = no medik8s tool here) and one
 * LIST of its leases. A failure to read them is reported, never guessed around: no cordon until they can be read.
 */
export async function readMedik8sLeases(client: KubeClient, needed: boolean): Promise<Medik8sLeases> {
  if (!needed) return { kind: 'absent' };
  try {
    if (!(await client.namespaceExists(MEDIK8S_LEASE_NAMESPACE))) return { kind: 'absent' };
    const leases = await client.listLeases(MEDIK8S_LEASE_NAMESPACE);
    return { kind: 'present', leases: new Map(leases.map((l) => [l.metadata?.name ?? '', l])) };
  } catch (err) {
    return { kind: 'unreadable', message: err instanceof Error ? err.message : String(err) };
  }
}

/** Where the ServiceAccount of kmaint's own pods is named: the chart sets it from the pod's spec.serviceAccountName. */
export const OWN_SERVICE_ACCOUNT_ENV = 'KMAINT_SERVICE_ACCOUNT';
/** infra/base's ServiceAccount, and the chart's for a release named kmaint. */
export const DEFAULT_OWN_SERVICE_ACCOUNT = 'kmaint';

/**
 * kmaint's own pods, which no drain evicts: those in kmaint's namespace running as its ServiceAccount. Both are set
 * by whoever installs kmaint; neither can be set by a tenant on its own pods (a label can).
 */
export function ownPodsOf(namespace: string, env: Readonly<Record<string, string | undefined>>): OwnPods {
  const named = env[OWN_SERVICE_ACCOUNT_ENV]?.trim();
  return { namespace, serviceAccounts: [named !== undefined && named !== '' ? named : DEFAULT_OWN_SERVICE_ACCOUNT] };
}
