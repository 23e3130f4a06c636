// createCluster: creates a generated cluster's namespaces and workloads through the API (Nodes come from the kubelet).
import { forEachBounded } from '../../shared/concurrency/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import {
  ApiException,
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  PolicyV1Api,
  type KubeConfig,
  type V1Node,
  type V1Pod,
} from '@kubernetes/client-node';
import { abortableSleep as sleep } from '../../shared/kube/index.ts';
import { silentLogger, type SimLogger } from '../kubelet/logger.ts';
import { NODE_OWNER_UID_PLACEHOLDER } from './manifests.ts';
import { preboundPods } from './prebound.ts';
import type { GeneratedCluster } from './types.ts';

export interface CreateClusterOptions {
  /** Create requests in flight at once. @default 16 */
  concurrency?: number;
  logger?: SimLogger;
  signal?: AbortSignal;
}

export interface CreateClusterResult {
  /** Objects created, by kind. */
  created: Record<string, number>;
  /** Objects that already existed (409), by kind; running twice is harmless. */
  existed: Record<string, number>;
}

const RETRIES = 6;

/**
 * Namespaces (and their default ServiceAccount, so bare pods need not wait for the controller),
 * then Services and PDBs, then controllers, then bound pods. Mirror pods get their Node's uid
 * as owner, so the Nodes must be registered first (`SimKubelet.start()`).
 */
export async function createCluster(kubeConfig: KubeConfig, cluster: GeneratedCluster, options: CreateClusterOptions = {}): Promise<CreateClusterResult> {
  const concurrency = options.concurrency ?? 16;
  const log = options.logger ?? silentLogger;
  const signal = options.signal;
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const batch = kubeConfig.makeApiClient(BatchV1Api);
  const policy = kubeConfig.makeApiClient(PolicyV1Api);
  const result: CreateClusterResult = { created: {}, existed: {} };

  const create = async (kind: string, ns: string | undefined, name: string, call: () => Promise<unknown>): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      try {
        await call();
        result.created[kind] = (result.created[kind] ?? 0) + 1;
        return;
      } catch (err) {
        if (err instanceof ApiException && err.code === 409) {
          result.existed[kind] = (result.existed[kind] ?? 0) + 1;
          return;
        }
        if (attempt < RETRIES && isTransient(err)) {
          await sleep(100 * 2 ** attempt, signal);
          continue;
        }
        throw new Error(`creating ${kind} ${ns ? `${ns}/` : ''}${name}: ${describeError(err)}`, { cause: err });
      }
    }
  };
  const meta = (o: { metadata?: { name?: string; namespace?: string } }) => ({ name: o.metadata?.name ?? '', namespace: o.metadata?.namespace ?? 'default' });

  await forEachBounded(cluster.namespaces, { limit: concurrency, signal }, async (ns) => {
    const name = ns.metadata?.name ?? '';
    await create('Namespace', undefined, name, () => core.createNamespace({ body: ns }));
    await create('ServiceAccount', name, 'default', () =>
      core.createNamespacedServiceAccount({ namespace: name, body: { metadata: { name: 'default', namespace: name } } }),
    );
  });
  const w = cluster.workloads;
  await forEachBounded(w.services, { limit: concurrency, signal }, (s) => {
    const { name, namespace } = meta(s);
    return create('Service', namespace, name, () => core.createNamespacedService({ namespace, body: s }));
  });
  await forEachBounded(w.podDisruptionBudgets, { limit: concurrency, signal }, (p) => {
    const { name, namespace } = meta(p);
    return create('PodDisruptionBudget', namespace, name, () => policy.createNamespacedPodDisruptionBudget({ namespace, body: p }));
  });
  await forEachBounded(w.statefulSets, { limit: concurrency, signal }, (s) => {
    const { name, namespace } = meta(s);
    return create('StatefulSet', namespace, name, () => apps.createNamespacedStatefulSet({ namespace, body: s }));
  });
  await forEachBounded(w.deployments, { limit: concurrency, signal }, (d) => {
    const { name, namespace } = meta(d);
    return create('Deployment', namespace, name, () => apps.createNamespacedDeployment({ namespace, body: d }));
  });
  await forEachBounded(w.daemonSets, { limit: concurrency, signal }, (d) => {
    const { name, namespace } = meta(d);
    return create('DaemonSet', namespace, name, () => apps.createNamespacedDaemonSet({ namespace, body: d }));
  });
  await forEachBounded(w.jobs, { limit: concurrency, signal }, (j) => {
    const { name, namespace } = meta(j);
    return create('Job', namespace, name, () => batch.createNamespacedJob({ namespace, body: j }));
  });

  const nodeUids = w.pods.some(ownedByNode) || cluster.prebound ? await listNodeUids(core) : new Map<string, string>();
  const pods = chain(w.pods, preboundPods(cluster));
  await forEachBounded(pods, { limit: concurrency, signal }, (pod) => {
    const { name, namespace } = meta(pod);
    const body = withNodeOwnerUid(pod, nodeUids);
    return create('Pod', namespace, name, () => core.createNamespacedPod({ namespace, body }));
  });
  log.info({ created: result.created, existed: result.existed }, 'generated cluster created');
  return result;
}

function ownedByNode(pod: V1Pod): boolean {
  return pod.metadata?.ownerReferences?.some((o) => o.kind === 'Node') ?? false;
}

/** A copy of the pod whose Node owner reference carries the registered Node's uid. */
export function withNodeOwnerUid(pod: V1Pod, nodeUids: ReadonlyMap<string, string>): V1Pod {
  const refs = pod.metadata?.ownerReferences;
  if (!refs?.some((o) => o.kind === 'Node' && o.uid === NODE_OWNER_UID_PLACEHOLDER)) return pod;
  return {
    ...pod,
    metadata: {
      ...pod.metadata,
      ownerReferences: refs.map((o) => {
        if (o.kind !== 'Node' || o.uid !== NODE_OWNER_UID_PLACEHOLDER) return o;
        const uid = nodeUids.get(o.name);
        if (!uid) throw new Error(`creating mirror pod ${pod.metadata?.namespace}/${pod.metadata?.name}: Node ${o.name} is not registered (start the SimKubelet first)`);
        return { ...o, uid };
      }),
    },
  };
}

async function listNodeUids(core: CoreV1Api): Promise<Map<string, string>> {
  const uids = new Map<string, string>();
  let cont: string | undefined;
  do {
    const page = await core.listNode({ limit: 500, ...(cont ? { _continue: cont } : {}) });
    for (const node of page.items as V1Node[]) {
      if (node.metadata?.name && node.metadata.uid) uids.set(node.metadata.name, node.metadata.uid);
    }
    cont = page.metadata?._continue || undefined;
  } while (cont);
  return uids;
}

function isTransient(err: unknown): boolean {
  if (!(err instanceof ApiException)) return false;
  if (err.code === 429 || err.code >= 500) return true;
  // The ServiceAccount admission plugin reads a cache that may not have seen our ServiceAccount yet.
  return err.code === 403 && /service ?account/i.test(String(err.body ?? err.message));
}

function describeError(err: unknown): string {
  if (err instanceof ApiException) {
    const body = err.body as { message?: string } | string | undefined;
    const message = typeof body === 'object' && body?.message ? body.message : String(body ?? '');
    return `HTTP ${err.code}${message ? `: ${message}` : ''}`;
  }
  return errorMessage(err);
}

function* chain<T>(...parts: Iterable<T>[]): Generator<T> {
  for (const part of parts) yield* part;
}

