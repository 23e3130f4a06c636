// The HTTP transport: each primitive as client-node's call for the collection — typed APIs for the built-in groups
// kmaint uses (their answers carry Dates where the types say so), the custom-objects API for every other group.
import { errorMessage } from '../errors/index.ts';
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  createConfiguration,
  CustomObjectsApi,
  PatchStrategy,
  PolicyV1Api,
  ServerConfiguration,
  setHeaderOptions,
  type CoreV1Event,
  type KubeConfig,
  type V1Lease,
} from '@kubernetes/client-node';
import { hasDeferredItems } from './deferred-items.ts';
import { HttpFailureError, type HttpFailure } from './errors.ts';
import { KubeConfigError } from './kubeconfig.ts';
import { LeanNodeListProcessor } from './lean-nodes.ts';
import { compressListsFrom, LIST_ACCEPT_ENCODING } from './list-compression.ts';
import { nodeListEncodingFrom, nodeListOptions, type NodeListEncoding } from './node-list-encoding.ts';
import { withOneConnectionPool } from './connection-pool.ts';
import { watchForChange } from './watch-change.ts';
import type { ApiResource, DeleteBody, KubeTransport, ListPage, ListQuery, ObjectTarget, PatchBody, WriteAnswer } from './transport.ts';

/** One failed exchange, read once from client-node's exception or the network error. */
export function failureOf(err: unknown): HttpFailure {
  if (err instanceof HttpFailureError) return err.httpFailure;
  if (err instanceof ApiException) {
    const e = err as ApiException<unknown>;
    let message = e.message;
    const body: unknown = e.body;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    try {
      const parsed = JSON.parse(text) as { message?: string };
      if (parsed.message) message = parsed.message;
    } catch {
      if (text) message = text.slice(0, 300);
    }
    return { status: e.code, message, retryAfter: e.headers?.['retry-after'] };
  }
  // Network failures: undici's "fetch failed" hides the reason (ECONNREFUSED, certificate errors) in `cause`.
  return { status: 0, message: errorMessage(err, { cause: true }), retryAfter: undefined };
}

async function carried<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new HttpFailureError(failureOf(err), { cause: err });
  }
}

function answer(res: unknown): WriteAnswer {
  const rv = (res as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion;
  return rv ? { resourceVersion: rv } : {};
}

interface RawList {
  items: unknown[];
  metadata?: { _continue?: string; continue?: string; resourceVersion?: string };
}

const headers = {
  merge: setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  json: setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
  strategic: setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
};

export interface HttpTransportOptions {
  /** Ask for gzipped LIST responses (list-compression.ts). @default KMAINT_COMPRESS_LISTS of the environment, else false */
  compressLists?: boolean;
  /** What node LISTs ask for (node-list-encoding.ts). @default KMAINT_NODE_LIST_ENCODING of the environment, else "protobuf" */
  nodeListEncoding?: NodeListEncoding;
}

/** What a collection's calls need beyond the target: the typed API's name for it, or the custom-objects path. */
function unsupported(verb: string, r: ApiResource): never {
  throw new HttpFailureError({ status: 0, message: `the HTTP transport has no ${verb} for ${r.plural}`, retryAfter: undefined });
}

export class HttpTransport implements KubeTransport {
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly policy: PolicyV1Api;
  private readonly coordination: CoordinationV1Api;
  /** Every LIST's Accept-Encoding header. */
  private readonly listEncoding: ReturnType<typeof setHeaderOptions>;
  /** A node LIST's: listEncoding and its Accept. */
  private readonly nodeListEncoding: ReturnType<typeof setHeaderOptions>;

  constructor(
    private readonly kubeConfig: KubeConfig,
    opts: HttpTransportOptions = {},
  ) {
    const compress = opts.compressLists ?? compressListsFrom(process.env);
    this.listEncoding = setHeaderOptions('Accept-Encoding', compress ? LIST_ACCEPT_ENCODING.compressed : LIST_ACCEPT_ENCODING.identity);
    this.nodeListEncoding = nodeListOptions(this.listEncoding, opts.nodeListEncoding ?? nodeListEncodingFrom(process.env));
    const pooled = withOneConnectionPool(kubeConfig);
    // LIST nodes skips client-node's typed copy of every field (lean-nodes.ts); the rest is makeApiClient's setup.
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new KubeConfigError('the kubeconfig has no current cluster');
    const coreConfig = createConfiguration({ baseServer: new ServerConfiguration(cluster.server, {}), authMethods: { default: pooled } });
    this.core = new CoreV1Api(coreConfig, undefined, new LeanNodeListProcessor());
    this.custom = pooled.makeApiClient(CustomObjectsApi);
    this.policy = pooled.makeApiClient(PolicyV1Api);
    this.coordination = pooled.makeApiClient(CoordinationV1Api);
  }

  async listPage(r: ApiResource, q: ListQuery): Promise<ListPage> {
    const page = { limit: q.limit, ...(q.continue ? { _continue: q.continue } : {}) };
    const selectors = { ...(q.fieldSelector ? { fieldSelector: q.fieldSelector } : {}), ...(q.labelSelector ? { labelSelector: q.labelSelector } : {}) };
    const enc = this.listEncoding;
    const res = (await carried((): Promise<RawList> => {
      if (r.group === '' && r.plural === 'nodes') return this.core.listNode({ ...page, ...selectors }, this.nodeListEncoding);
      if (r.group === '' && r.plural === 'pods') return this.core.listPodForAllNamespaces({ ...page, ...selectors }, enc);
      if (r.group === 'policy' && r.plural === 'poddisruptionbudgets') return this.policy.listPodDisruptionBudgetForAllNamespaces({ ...page, ...selectors }, enc);
      if (r.group === 'coordination.k8s.io' && q.namespace !== undefined) return this.coordination.listNamespacedLease({ namespace: q.namespace, ...page, ...selectors }, enc);
      // Custom objects of one namespace: the SR-IOV network operator's, read in its namespace only (its RoleBinding's reach).
      if (r.group !== '' && q.namespace !== undefined) return this.custom.listNamespacedCustomObject({ group: r.group, version: r.version, namespace: q.namespace, plural: r.plural, ...page, ...selectors }, enc) as Promise<RawList>;
      if (r.group === '' || q.namespace !== undefined) return unsupported('LIST', r);
      return this.custom.listClusterCustomObject({ group: r.group, version: r.version, plural: r.plural, ...page, ...selectors }, enc) as Promise<RawList>;
    })) as RawList;
    // kmaint never reads managedFields; not keeping them is a third of a 10,000-request list's memory.
    if (r.group !== '' && r.group !== 'policy' && r.group !== 'coordination.k8s.io') for (const o of res.items) delete (o as { metadata: { managedFields?: unknown } }).metadata.managedFields;
    const cont = res.metadata?._continue ?? res.metadata?.continue;
    const rv = res.metadata?.resourceVersion;
    const head = { ...(cont ? { continue: cont } : {}), ...(rv ? { resourceVersion: rv } : {}) };
    // Items a processor left undecoded (lean-nodes.ts) stay so until the client reads them.
    if (hasDeferredItems(res)) return { ...head, itemsDeferred: true, get items(): unknown[] { return res.items; } };
    return { items: res.items, ...head };
  }

  get(t: ObjectTarget): Promise<unknown> {
    const { namespace = '', name } = t;
    return carried((): Promise<unknown> => {
      if (t.resource.group === '' && t.resource.plural === 'secrets') return this.core.readNamespacedSecret({ namespace, name });
      if (t.resource.group === '' && t.resource.plural === 'namespaces') return this.core.readNamespace({ name });
      if (t.resource.group === 'coordination.k8s.io') return this.coordination.readNamespacedLease({ namespace, name });
      if (t.resource.group === '' || t.resource.group === 'policy') return unsupported('GET', t.resource);
      const obj = { group: t.resource.group, version: t.resource.version, plural: t.resource.plural, name };
      return t.resource.namespaced ? this.custom.getNamespacedCustomObject({ ...obj, namespace }) : this.custom.getClusterCustomObject(obj);
    });
  }

  async create(r: ApiResource, namespace: string | undefined, body: object, fieldManager?: string): Promise<WriteAnswer> {
    const ns = namespace ?? '';
    const manager = fieldManager ? { fieldManager } : {};
    return answer(
      await carried((): Promise<unknown> => {
        // client-node types the event timestamps as Date but sends what it is given: RFC 3339 strings go as they are.
        if (r.group === '' && r.plural === 'events') return this.core.createNamespacedEvent({ namespace: ns, body: body as CoreV1Event, ...manager });
        if (r.group === 'coordination.k8s.io') return this.coordination.createNamespacedLease({ namespace: ns, body: body as V1Lease, ...manager });
        if (r.group === '' || r.group === 'policy') return unsupported('POST', r);
        // Cluster-scoped objects of other groups: the DeviceTaintRules of device requests (issue 45).
        if (!r.namespaced) return this.custom.createClusterCustomObject({ group: r.group, version: r.version, plural: r.plural, body, ...manager });
        return this.custom.createNamespacedCustomObject({ group: r.group, version: r.version, plural: r.plural, namespace: ns, body, ...manager });
      }),
    );
  }

  async replace(t: ObjectTarget, body: object): Promise<WriteAnswer> {
    if (t.resource.group !== 'coordination.k8s.io') unsupported('PUT', t.resource);
    return answer(await carried(() => this.coordination.replaceNamespacedLease({ namespace: t.namespace ?? '', name: t.name, body: body as V1Lease })));
  }

  async patch(t: ObjectTarget, patch: PatchBody, fieldManager: string): Promise<WriteAnswer> {
    const { group, version, plural, namespaced } = t.resource;
    const options = headers[patch.type];
    return answer(
      await carried((): Promise<unknown> => {
        if (group === '' && plural === 'nodes') {
          const req = { name: t.name, body: patch.body, fieldManager };
          return t.subresource === 'status' ? this.core.patchNodeStatus(req, options) : this.core.patchNode(req, options);
        }
        if (group === '' || group === 'policy' || group === 'coordination.k8s.io' || !namespaced) return unsupported('PATCH', t.resource);
        const req = { group, version, plural, namespace: t.namespace ?? '', name: t.name, body: patch.body, fieldManager };
        return t.subresource === 'status' ? this.custom.patchNamespacedCustomObjectStatus(req, options) : this.custom.patchNamespacedCustomObject(req, options);
      }),
    );
  }

  async delete(t: ObjectTarget, body: DeleteBody): Promise<WriteAnswer> {
    const namespace = t.namespace ?? '';
    const { name } = t;
    return answer(
      await carried((): Promise<unknown> => {
        if (t.resource.group === '' && t.resource.plural === 'pods') {
          const grace = body.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: body.gracePeriodSeconds } : {};
          return this.core.deleteNamespacedPod({ namespace, name, ...grace, ...(body.preconditions ? { body } : {}) });
        }
        if (t.resource.group === 'coordination.k8s.io') return this.coordination.deleteNamespacedLease({ namespace, name, body });
        if (t.resource.group === '' || t.resource.group === 'policy') return unsupported('DELETE', t.resource);
        if (!t.resource.namespaced) return this.custom.deleteClusterCustomObject({ group: t.resource.group, version: t.resource.version, plural: t.resource.plural, name, body });
        return this.custom.deleteNamespacedCustomObject({ group: t.resource.group, version: t.resource.version, plural: t.resource.plural, namespace, name, body });
      }),
    );
  }

  async evict(namespace: string, name: string, body: object): Promise<void> {
    await carried(() => this.core.createNamespacedPodEviction({ namespace, name, body }));
  }

  watch(...[targets, timeoutMs, opts]: Parameters<KubeTransport['watch']>): ReturnType<KubeTransport['watch']> {
    return watchForChange(this.kubeConfig, targets, timeoutMs, opts);
  }
}
