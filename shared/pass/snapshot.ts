// Reading what one pass needs: a handful of paged LISTs, pods only of the nodes being drained.
import { forEachBounded } from '../concurrency/index.ts';
import { errorMessage } from '../errors/index.ts';
import type { ResourceV1ResourceClaim, V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { maintenancePhase, MEDIK8S_LEASE_NAMESPACE, PHASES_NEEDING_PODS, POOL_NAME_PATTERN } from '../api/index.ts';
import type { MaintenanceOperatorConfig, NodeMaintenance } from '../api/index.ts';
import type { OwnPods } from '../drain/index.ts';
import { fieldSelectorTerm, type KubeClient } from '../kube/index.ts';
import { budgetsToExplain, type Medik8sLeases } from '../lifecycle/index.ts';
import { holdsAdmission } from '../scheduling/index.ts';
import { setApartMalformed, type MalformedMaintenance } from './malformed.ts';

/** How a snapshot read the Nodes: every one, or only those `asked` (the drainer's and cleanup's named reads). */
export type NodeRead = { kind: 'full' } | { kind: 'named'; asked: ReadonlySet<string> };

/** What a pass reads besides the Nodes. */
export interface RequestsRead {
  /** The requests planners read: those of the shape the CRD promises. */
  maintenances: NodeMaintenance[];
  /** Requests that bypassed the CRD's validation: no planner sees them (malformed.ts). */
  malformed: MalformedMaintenance[];
  /** The config as stored: read only by shared/pass/config.ts loadConfig, which every pass calls once. */
  rawConfig: MaintenanceOperatorConfig | undefined;
}

export interface BaseSnapshot extends RequestsRead {
  /** The Nodes read: every Node, or those of `nodeRead.asked` that exist. */
  nodes: Map<string, V1Node>;
  nodeList: V1Node[];
  /** The cluster's node count: on a named read, the last full read's. Absent: nodeList's length. */
  nodeCount?: number;
  /** Absent: a full read. */
  nodeRead?: NodeRead;
}

/** The node count percentages resolve against. */
export function nodeCountOf(base: BaseSnapshot): number {
  return base.nodeCount ?? base.nodeList.length;
}

/** Whether `base` read every Node. */
export function readAllOf(base: BaseSnapshot): boolean {
  return base.nodeRead === undefined || base.nodeRead.kind === 'full';
}

export async function readBase(client: KubeClient, namespace: string): Promise<BaseSnapshot> {
  const [nodeList, listed, rawConfig] = await Promise.all([client.listNodes(), client.listMaintenances(), client.getConfig(namespace)]);
  const { valid, malformed } = setApartMalformed(listed);
  return withNodes({ maintenances: valid, malformed, rawConfig }, nodeList, { kind: 'full' }, nodeList.length);
}

/** The requests and the config, for a pass that decides from them which Nodes to read (read-named-nodes.ts). */
export async function readRequests(client: KubeClient, namespace: string): Promise<RequestsRead> {
  const [listed, rawConfig] = await Promise.all([client.listMaintenances(), client.getConfig(namespace)]);
  const { valid, malformed } = setApartMalformed(listed);
  return { maintenances: valid, malformed, rawConfig };
}

function withNodes(head: RequestsRead, nodeList: V1Node[], nodeRead: NodeRead, nodeCount: number): BaseSnapshot {
  return { maintenances: head.maintenances, malformed: head.malformed, rawConfig: head.rawConfig, nodes: new Map(nodeList.map((n) => [n.metadata?.name ?? '', n])), nodeList, nodeCount, nodeRead };
}

/** `head` with every Node (one paged LIST). */
export async function readAllNodes(client: KubeClient, head: RequestsRead): Promise<BaseSnapshot> {
  const nodeList = await client.listNodes();
  return withNodes(head, nodeList, { kind: 'full' }, nodeList.length);
}

/**
 * `head` with the Nodes named, each read by name; those `known` (a fresh snapshot of this round) already read are not
 * read again. A Node not found is gone, exactly as one absent from a full LIST.
 */
export async function readNamedNodes(client: KubeClient, head: RequestsRead, names: readonly string[], nodeCount: number, known?: BaseSnapshot): Promise<BaseSnapshot> {
  const have = known?.nodeRead?.kind === 'named' ? known.nodeRead.asked : new Set<string>();
  const found = await client.readNodes(names.filter((n) => !have.has(n)));
  for (const n of names) {
    const node = have.has(n) ? known?.nodes.get(n) : undefined;
    if (node) found.set(n, node);
  }
  const nodeList = [...found.values()].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  return withNodes(head, nodeList, { kind: 'named', asked: new Set(names) }, nodeCount);
}

/** Whether `base` can tell if Node `name` exists: a full read knows every Node, a named read those it asked. */
export function knowsNode(base: BaseSnapshot, name: string): boolean {
  return base.nodeRead === undefined || base.nodeRead.kind === 'full' || base.nodeRead.asked.has(name);
}

/** Whether `base` read every Node in `names`. */
export function covers(base: BaseSnapshot, names: readonly string[]): boolean {
  return names.every((n) => knowsNode(base, n));
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
   * this (lifecycle/plan-drainer.ts); every other drain goes on. A failed DRA read never stops the pass.
   */
  claimsProblem?: string;
}

/** Pods of each node whose request the drainer may move this pass (bounded concurrency), and the claims they use. */
export async function readDrainPods(client: KubeClient, base: BaseSnapshot, concurrency = 8): Promise<DrainPods> {
  const nodes = [
    ...new Set(
      base.maintenances
        // Only requests kmaint admitted by its record (issue 40): a phase written into status costs no pod read.
        .filter((nm) => !nm.metadata.deletionTimestamp && PHASES_NEEDING_PODS.has(maintenancePhase(nm)) && holdsAdmission(nm, base.nodes.get(nm.spec.nodeName)))
        .map((nm) => nm.spec.nodeName),
    ),
  ].sort();
  const podsByNode = new Map<string, V1Pod[]>();
  const budgetPods = new Map<string, V1Pod[]>();
  if (nodes.length === 0) return { podsByNode, pdbs: [], budgetPods, claims: [] };
  const podReads = forEachBounded(nodes, { limit: concurrency }, async (node) => void podsByNode.set(node, await client.listPods({ fieldSelector: fieldSelectorTerm('spec.nodeName', node) })));
  const [pdbs] = await Promise.all([client.listPodDisruptionBudgets(), podReads]);
  // Budgets that already allow no eviction of a pod here: their pods say why (unhealthy, several controllers).
  for (const b of budgetsToExplain(pdbs, [...podsByNode.values()].flat())) {
    budgetPods.set(b.key, await client.listPods({ fieldSelector: fieldSelectorTerm('metadata.namespace', b.namespace), ...(b.labelSelector ? { labelSelector: b.labelSelector } : {}) }));
  }
  // One cluster-wide LIST rather than one per namespace: a drained node's pods may span any number of namespaces.
  const usesDra = [...podsByNode.values()].some((pods) => pods.some((p) => (p.spec?.resourceClaims ?? []).length > 0));
  if (!usesDra) return { podsByNode, pdbs, budgetPods, claims: [] };
  try {
    return { podsByNode, pdbs, budgetPods, claims: await client.listResourceClaims() };
  } catch (err) {
    return { podsByNode, pdbs, budgetPods, claims: [], claimsProblem: errorMessage(err) };
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
    return { kind: 'unreadable', message: errorMessage(err) };
  }
}

/** Where the ServiceAccount of kmaint's own pods is named: the chart sets it from the pod's spec.serviceAccountName. */
export const OWN_SERVICE_ACCOUNT_ENV = 'KMAINT_SERVICE_ACCOUNT';
/** infra/base's ServiceAccount, and the chart's for a release named kmaint. */
export const DEFAULT_OWN_SERVICE_ACCOUNT = 'kmaint';

/**
 * kmaint's own pods, which no drain evicts: those in kmaint's namespace running as its ServiceAccount. Both are set
 * by whoever installs kmaint; neither can be set by a tenant on its own pods (a label can). `upstream`: the config's
 * spec.upstreamOperatorNamespace (KmaintConfig.upstreamOperatorNamespace).
 */
export function ownPodsOf(namespace: string, env: Readonly<Record<string, string | undefined>>, upstream?: string): OwnPods {
  const named = env[OWN_SERVICE_ACCOUNT_ENV]?.trim();
  return { namespace, serviceAccounts: [named !== undefined && named !== '' ? named : DEFAULT_OWN_SERVICE_ACCOUNT], ...(upstream !== undefined ? { upstreamOperatorNamespace: upstream } : {}) };
}

/**
 * Section (shared/pass/config.ts): spec.upstreamOperatorNamespace when the config sets a valid one (the drain then exempts the upstream operator's
 * labelled pods there); undefined: the default namespace (select-pods.ts). Read on its own, so a config that fails
 * elsewhere still names it.
 */
export function upstreamOperatorNamespaceOf(config: MaintenanceOperatorConfig | undefined): string | undefined {
  const value: unknown = config?.spec?.upstreamOperatorNamespace;
  return typeof value === 'string' && value.length <= 63 && POOL_NAME_PATTERN.test(value) ? value : undefined;
}
