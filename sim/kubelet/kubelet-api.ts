// The only part of the simulated kubelet that talks to the API server: a few verbs with typed outcomes.
import { errorMessage } from '../../shared/errors/index.ts';
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  Watch,
  setHeaderOptions,
  type KubeConfig,
  type V1Lease,
  type V1Node,
  type V1Pod,
} from '@kubernetes/client-node';
// Pooled connections: on the large testbed profile a new TLS connection per request held pod creation to a third of the rate.
import { withOneConnectionPool } from '../../shared/kube/index.ts';

/** client-node 2.x picks application/json-patch+json for PATCH; the header middleware overrides it per call. */
const STRATEGIC_MERGE = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export type WriteOutcome = 'ok' | 'notFound' | 'conflict';

/** Pods bound to some node and not finished: what a kubelet may still have to act on. */
export const BOUND_PODS_FIELD_SELECTOR = 'spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed';

export class KubeletApiError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    options: { cause: unknown },
  ) {
    super(message, options);
    this.name = 'KubeletApiError';
  }
}

function statusOf(err: unknown): number | undefined {
  return err instanceof ApiException ? err.code : undefined;
}

function wrap(doing: string, err: unknown): KubeletApiError {
  const status = statusOf(err);
  const body = err instanceof ApiException ? (err.body as { message?: string } | string | undefined) : undefined;
  const detail = typeof body === 'object' && body?.message ? body.message : errorMessage(err);
  return new KubeletApiError(`${doing}: ${status ? `HTTP ${status}: ` : ''}${detail}`, status, { cause: err });
}

async function outcome(doing: string, call: () => Promise<unknown>): Promise<WriteOutcome> {
  try {
    await call();
    return 'ok';
  } catch (err) {
    const status = statusOf(err);
    if (status === 404) return 'notFound';
    if (status === 409) return 'conflict';
    throw wrap(doing, err);
  }
}

export interface PodPage {
  items: V1Pod[];
  resourceVersion: string;
}

export class KubeletApi {
  private readonly core: CoreV1Api;
  private readonly coordination: CoordinationV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly watcher: Watch;

  constructor(kubeConfig: KubeConfig) {
    const pooled = withOneConnectionPool(kubeConfig);
    this.core = pooled.makeApiClient(CoreV1Api);
    this.coordination = pooled.makeApiClient(CoordinationV1Api);
    this.custom = pooled.makeApiClient(CustomObjectsApi);
    this.watcher = new Watch(pooled);
  }

  /** Creates the Node; an existing one is kept. Returns its uid when the server said it. */
  async registerNode(node: V1Node): Promise<{ created: boolean; uid?: string }> {
    const name = node.metadata?.name ?? '';
    try {
      const created = await this.core.createNode({ body: node });
      return { created: true, ...(created.metadata?.uid ? { uid: created.metadata.uid } : {}) };
    } catch (err) {
      if (statusOf(err) !== 409) throw wrap(`registering Node ${name}`, err);
      const existing = await this.core.readNode({ name }).catch((e: unknown) => {
        throw wrap(`reading existing Node ${name}`, e);
      });
      return { created: false, ...(existing.metadata?.uid ? { uid: existing.metadata.uid } : {}) };
    }
  }

  /** POST of a cluster-scoped object of a non-core group (`resource.k8s.io/v1` slices, classes); 'conflict' = already there. */
  createClusterObject(apiVersion: string, plural: string, body: { metadata: { name: string } }): Promise<WriteOutcome> {
    const [group = '', version = ''] = apiVersion.split('/');
    return outcome(`creating ${plural} ${body.metadata.name}`, () => this.custom.createClusterCustomObject({ group, version, plural, body }));
  }

  patchNodeStatus(name: string, body: object): Promise<WriteOutcome> {
    return outcome(`patching status of Node ${name}`, () => this.core.patchNodeStatus({ name, body }, STRATEGIC_MERGE));
  }

  deleteNode(name: string): Promise<WriteOutcome> {
    return outcome(`deleting Node ${name}`, () => this.core.deleteNode({ name }));
  }

  renewLease(namespace: string, name: string, body: object): Promise<WriteOutcome> {
    return outcome(`renewing Lease ${namespace}/${name}`, () => this.coordination.patchNamespacedLease({ namespace, name, body }, MERGE));
  }

  createLease(lease: V1Lease): Promise<WriteOutcome> {
    const { namespace = '', name = '' } = lease.metadata ?? {};
    return outcome(`creating Lease ${namespace}/${name}`, () => this.coordination.createNamespacedLease({ namespace, body: lease }));
  }

  /** One page of bound, unfinished pods across namespaces. */
  async listBoundPods(limit: number, continueToken?: string): Promise<PodPage & { continueToken?: string }> {
    try {
      const page = await this.core.listPodForAllNamespaces({
        fieldSelector: BOUND_PODS_FIELD_SELECTOR,
        limit,
        ...(continueToken ? { _continue: continueToken } : {}),
      });
      const next = page.metadata?._continue;
      return { items: page.items, resourceVersion: page.metadata?.resourceVersion ?? '', ...(next ? { continueToken: next } : {}) };
    } catch (err) {
      throw wrap('listing bound pods', err);
    }
  }

  /** Patches a pod's status and returns the pod as stored, or the outcome when it is gone. */
  async patchPodStatus(namespace: string, name: string, body: object): Promise<V1Pod | 'notFound'> {
    try {
      return await this.core.patchNamespacedPodStatus({ namespace, name, body }, STRATEGIC_MERGE);
    } catch (err) {
      if (statusOf(err) === 404) return 'notFound';
      throw wrap(`patching status of Pod ${namespace}/${name}`, err);
    }
  }

  /** A token for the pod's ServiceAccount, bound to the pod, as the kubelet requests it for the projected volume. */
  async createPodToken(namespace: string, serviceAccount: string, pod: { name: string; uid: string }): Promise<string> {
    try {
      const res = await this.core.createNamespacedServiceAccountToken({
        namespace,
        name: serviceAccount,
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: { audiences: [], expirationSeconds: 3607, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.name, uid: pod.uid } },
        },
      });
      const token = res.status?.token;
      if (!token) throw new Error('the TokenRequest returned no token');
      return token;
    } catch (err) {
      throw wrap(`requesting a token of ServiceAccount ${namespace}/${serviceAccount} for Pod ${pod.name}`, err);
    }
  }

  /** One key of a ConfigMap (kube-root-ca.crt's ca.crt for the projected volume). */
  async readConfigMapKey(namespace: string, name: string, key: string): Promise<string> {
    let value: string | undefined;
    try {
      value = (await this.core.readNamespacedConfigMap({ namespace, name })).data?.[key];
    } catch (err) {
      throw wrap(`reading ConfigMap ${namespace}/${name}`, err);
    }
    if (value === undefined) throw new KubeletApiError(`reading ConfigMap ${namespace}/${name}: no key ${key}`, undefined, { cause: undefined });
    return value;
  }

  /** The kubelet's final delete: grace 0, only if the pod is still the one we saw (uid). */
  deletePod(namespace: string, name: string, uid: string): Promise<WriteOutcome> {
    return outcome(`deleting Pod ${namespace}/${name}`, () =>
      this.core.deleteNamespacedPod({ namespace, name, gracePeriodSeconds: 0, body: { gracePeriodSeconds: 0, preconditions: { uid } } }),
    );
  }

  /**
   * Watches bound, unfinished pods from `resourceVersion`. `onEvent` gets raw JSON objects (dates
   * are strings); `onDone` gets null when the server closed the watch, or the error.
   */
  watchBoundPods(
    resourceVersion: string,
    timeoutSeconds: number,
    onEvent: (type: string, object: unknown) => void,
    onDone: (err: unknown) => void,
  ): Promise<AbortController> {
    return this.watcher.watch(
      '/api/v1/pods',
      { fieldSelector: BOUND_PODS_FIELD_SELECTOR, resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
      (type, object) => onEvent(type, object),
      onDone,
    );
  }
}
