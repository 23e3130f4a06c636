// The only code that talks HTTP to Kubernetes: a handful of verbs over client-node with typed outcomes,
// paging, retries (timing from retry.ts) and request accounting.
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  createConfiguration,
  ServerConfiguration,
  CustomObjectsApi,
  PatchStrategy,
  PolicyV1Api,
  setHeaderOptions,
  type CoreV1Event,
  type KubeConfig,
  type RequestContext,
  type V1Lease,
  type V1Node,
  type V1Pod,
  type V1PodDisruptionBudget,
} from '@kubernetes/client-node';
import { CONFIG_NAME, CONFIG_PLURAL, GROUP, NODE_MAINTENANCE_PLURAL, VERSION } from '../api/index.ts';
import type { Condition, MaintenanceOperatorConfig, NodeMaintenance, NodeMaintenanceStatus } from '../api/index.ts';
import { HttpFailureError, KubeRequestError, type HttpFailure } from './errors.ts';
import { KubeConfigError } from './kubeconfig.ts';
import { eventBody, type EventRequest } from './event-body.ts';
import { LeanNodeListProcessor } from './lean-nodes.ts';
import { watchForChange, type ListedVersion, type WatchOutcome } from './watch-change.ts';
import { DEFAULT_RETRY, isRetryable, retryDelayMs, type RetryPolicy } from './retry.ts';

/** The result of a write: conflicts, missing objects and budget refusals are outcomes, not exceptions. */
export type WriteOutcome =
  | { kind: 'ok'; resourceVersion?: string }
  | { kind: 'conflict'; message: string }
  | { kind: 'notFound' }
  | { kind: 'blocked'; message: string }
  | { kind: 'error'; error: KubeRequestError };

export interface KubeClientOptions {
  signal?: AbortSignal;
  retry?: RetryPolicy;
  /** Page size of LIST calls. @default 500 */
  pageSize?: number;
  /** Injected sleep (tests, simulated clocks). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random source for retry jitter. @default Math.random */
  random?: () => number;
  /** Field manager recorded on writes. @default "kmaint" */
  fieldManager?: string;
}

export interface RequestCounts {
  /** By "verb resource", e.g. "list nodes", "patch nodemaintenances/status". */
  byVerb: Record<string, number>;
  errors: number;
  /** Failed requests (after retries) by the same "verb resource" keys. */
  errorsByVerb: Record<string, number>;
  retries: number;
}

function failureOf(err: unknown): HttpFailure {
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
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return { status: 0, message: `${err instanceof Error ? err.message : String(err)}${cause}`, retryAfter: undefined };
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

/**
 * A view of `kubeConfig` whose API clients share the first connection pool it builds. client-node 2.0 builds a
 * new undici Agent for every request (KubeConfig.applySecurityAuthentication), so each request opened its own
 * TLS connection: on the testbed 4–5x the wall time and 4–7x the client CPU of kept-alive connections. Headers
 * (tokens, exec credentials) are still applied per request by the original, which is left untouched.
 */
export function withOneConnectionPool(kubeConfig: KubeConfig): KubeConfig {
  let dispatcher: Dispatcher | undefined;
  const view = Object.create(kubeConfig) as KubeConfig;
  view.applySecurityAuthentication = async (context: RequestContext): Promise<void> => {
    await kubeConfig.applySecurityAuthentication(context);
    dispatcher ??= context.getDispatcher();
    if (dispatcher) context.setDispatcher(dispatcher);
  };
  return view;
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
/** Restarts of one LIST after its continue token expired (410); a cluster compacting that often is reported, not chased. */
const LIST_RESTARTS = 2;
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

export class KubeClient {
  readonly counts: RequestCounts = { byVerb: {}, errors: 0, errorsByVerb: {}, retries: 0 };
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly policy: PolicyV1Api;
  private readonly coordination: CoordinationV1Api;
  private readonly opts: Required<Omit<KubeClientOptions, 'signal'>> & { signal?: AbortSignal };
  /** Where each LIST was read, by path and selectors: what `watchForChange` watches from. */
  private readonly listVersions = new Map<string, ListedVersion>();
  private listSeq = 0;

  constructor(private readonly kubeConfig: KubeConfig, opts: KubeClientOptions = {}) {
    const pooled = withOneConnectionPool(kubeConfig);
    // LIST nodes skips client-node's typed copy of every field (lean-nodes.ts); the rest is makeApiClient's setup.
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new KubeConfigError('the kubeconfig has no current cluster');
    const coreConfig = createConfiguration({ baseServer: new ServerConfiguration(cluster.server, {}), authMethods: { default: pooled } });
    this.core = new CoreV1Api(coreConfig, undefined, new LeanNodeListProcessor());
    this.custom = pooled.makeApiClient(CustomObjectsApi);
    this.policy = pooled.makeApiClient(PolicyV1Api);
    this.coordination = pooled.makeApiClient(CoordinationV1Api);
    this.opts = {
      retry: opts.retry ?? DEFAULT_RETRY,
      pageSize: opts.pageSize ?? 500,
      sleep: opts.sleep ?? abortableSleep,
      random: opts.random ?? Math.random,
      fieldManager: opts.fieldManager ?? 'kmaint',
      ...(opts.signal ? { signal: opts.signal } : {}),
    };
  }

  private count(key: string): void {
    this.counts.byVerb[key] = (this.counts.byVerb[key] ?? 0) + 1;
  }

  private countError(key: string): void {
    this.counts.errors++;
    this.counts.errorsByVerb[key] = (this.counts.errorsByVerb[key] ?? 0) + 1;
  }

  /** Runs one request with retries on transient failures; other failures are rethrown as HttpFailure. */
  private async call<T>(key: string, fn: () => Promise<T>, opts: { retry429?: boolean } = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      this.opts.signal?.throwIfAborted();
      this.count(key);
      try {
        return await fn();
      } catch (err) {
        const f = failureOf(err);
        const retry = isRetryable(f.status) && (f.status !== 429 || opts.retry429 !== false) && attempt < this.opts.retry.attempts;
        if (!retry) {
          this.countError(key);
          throw new HttpFailureError(f, { cause: err });
        }
        this.counts.retries++;
        await this.opts.sleep(retryDelayMs(attempt, this.opts.retry, f.retryAfter, this.opts.random()), this.opts.signal);
      }
    }
  }

  /**
   * Every page of a LIST. A continue token the API server no longer honours (410 Expired: its resourceVersion was
   * compacted, after about five minutes) restarts the LIST from its first page, as client-go's pager falls back to a
   * full list: the pages read so far belong to an older snapshot and are dropped. At most LIST_RESTARTS times a LIST.
   */
  private async list<T>(
    key: string,
    page: (cont: string | undefined) => Promise<{ items: T[]; metadata?: { _continue?: string; continue?: string; resourceVersion?: string } }>,
    at?: Omit<ListedVersion, 'resourceVersion' | 'seq'>,
  ): Promise<T[]> {
    const items: T[] = [];
    let cont: string | undefined;
    let restarts = 0;
    for (;;) {
      let res: { items: T[]; metadata?: { _continue?: string; continue?: string; resourceVersion?: string } };
      try {
        res = await this.call(key, () => page(cont));
      } catch (err) {
        const f = (err as { httpFailure?: HttpFailure }).httpFailure;
        if (f?.status !== 410 || cont === undefined || restarts >= LIST_RESTARTS) throw err;
        restarts++;
        items.length = 0;
        cont = undefined;
        continue;
      }
      const rv = res.metadata?.resourceVersion;
      if (at && cont === undefined && rv) this.listVersions.set(`${at.path}?${at.fieldSelector ?? ''}&${at.labelSelector ?? ''}`, { ...at, resourceVersion: rv, seq: ++this.listSeq });
      items.push(...res.items);
      cont = res.metadata?._continue ?? res.metadata?.continue;
      if (!cont) return items;
    }
  }

  private rethrow(doing: string, err: unknown): never {
    const f = (err as { httpFailure?: HttpFailure }).httpFailure ?? failureOf(err);
    throw new KubeRequestError(doing, f.status, f.message, { cause: err });
  }

  private async write(key: string, doing: string, fn: () => Promise<{ metadata?: { resourceVersion?: string } } | unknown>): Promise<WriteOutcome> {
    try {
      const res = (await this.call(key, fn)) as { metadata?: { resourceVersion?: string } } | undefined;
      const rv = res?.metadata?.resourceVersion;
      return rv ? { kind: 'ok', resourceVersion: rv } : { kind: 'ok' };
    } catch (err) {
      if (this.opts.signal?.aborted) throw err;
      const f = (err as { httpFailure?: HttpFailure }).httpFailure ?? failureOf(err);
      if (f.status === 409) return { kind: 'conflict', message: f.message };
      if (f.status === 404) return { kind: 'notFound' };
      return { kind: 'error', error: new KubeRequestError(doing, f.status, f.message, { cause: err }) };
    }
  }

  async listNodes(): Promise<V1Node[]> {
    try {
      return await this.list('list nodes', (c) => this.core.listNode({ limit: this.opts.pageSize, ...(c ? { _continue: c } : {}) }), { resource: 'nodes', path: '/api/v1/nodes' });
    } catch (err) {
      this.rethrow('listing nodes', err);
    }
  }

  /** Pods of all namespaces, or of one node with `fieldSelector: spec.nodeName=NODE`. */
  async listPods(opts: { fieldSelector?: string; labelSelector?: string } = {}): Promise<V1Pod[]> {
    try {
      return await this.list('list pods', (c) => this.core.listPodForAllNamespaces({ limit: this.opts.pageSize, ...opts, ...(c ? { _continue: c } : {}) }), {
        resource: 'pods',
        path: '/api/v1/pods',
        ...opts,
      });
    } catch (err) {
      this.rethrow(`listing pods${opts.fieldSelector ? ` (${opts.fieldSelector})` : ''}`, err);
    }
  }

  async listPodDisruptionBudgets(): Promise<V1PodDisruptionBudget[]> {
    try {
      return await this.list(
        'list poddisruptionbudgets',
        (c) => this.policy.listPodDisruptionBudgetForAllNamespaces({ limit: this.opts.pageSize, ...(c ? { _continue: c } : {}) }),
        { resource: 'poddisruptionbudgets', path: '/apis/policy/v1/poddisruptionbudgets' },
      );
    } catch (err) {
      this.rethrow('listing poddisruptionbudgets', err);
    }
  }

  async listMaintenances(): Promise<NodeMaintenance[]> {
    try {
      return await this.list('list nodemaintenances', async (c) => {
        const res = (await this.custom.listClusterCustomObject({
          group: GROUP,
          version: VERSION,
          plural: NODE_MAINTENANCE_PLURAL,
          limit: this.opts.pageSize,
          ...(c ? { _continue: c } : {}),
        })) as { items: NodeMaintenance[]; metadata?: { continue?: string; resourceVersion?: string } };
        // kmaint never reads managedFields; not keeping them is a third of a 10,000-request list's memory.
        for (const nm of res.items) delete (nm.metadata as { managedFields?: unknown }).managedFields;
        return res;
      }, { resource: NODE_MAINTENANCE_PLURAL, path: `/apis/${GROUP}/${VERSION}/${NODE_MAINTENANCE_PLURAL}` });
    } catch (err) {
      this.rethrow('listing nodemaintenances', err);
    }
  }

  /** The `default` MaintenanceOperatorConfig in `namespace`, or undefined when there is none. */
  async getConfig(namespace: string): Promise<MaintenanceOperatorConfig | undefined> {
    try {
      return (await this.call('get maintenanceoperatorconfigs', () =>
        this.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: CONFIG_PLURAL, name: CONFIG_NAME }),
      )) as MaintenanceOperatorConfig;
    } catch (err) {
      const f = (err as { httpFailure?: HttpFailure }).httpFailure;
      if (f?.status === 404) return undefined;
      this.rethrow(`reading MaintenanceOperatorConfig ${namespace}/${CONFIG_NAME}`, err);
    }
  }

  /** Merge patch of NodeMaintenance metadata, preconditioned on `resourceVersion`. */
  patchMaintenance(namespace: string, name: string, resourceVersion: string, patch: Record<string, unknown>): Promise<WriteOutcome> {
    const meta = (patch['metadata'] ?? {}) as Record<string, unknown>;
    const body = { ...patch, metadata: { ...meta, resourceVersion } };
    return this.write('patch nodemaintenances', `patching NodeMaintenance ${namespace}/${name}`, () =>
      this.custom.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace, plural: NODE_MAINTENANCE_PLURAL, name, body, fieldManager: this.opts.fieldManager },
        mergePatch,
      ),
    );
  }

  /**
   * Replaces `status` whole (JSON patch on the status subresource), preconditioned on `resourceVersion`:
   * the patched object carries that resourceVersion, so the server answers 409 if the object moved.
   */
  writeMaintenanceStatus(namespace: string, name: string, resourceVersion: string, status: NodeMaintenanceStatus): Promise<WriteOutcome> {
    const body = [
      { op: 'replace', path: '/metadata/resourceVersion', value: resourceVersion },
      { op: 'add', path: '/status', value: status },
    ];
    return this.write('patch nodemaintenances/status', `writing status of NodeMaintenance ${namespace}/${name}`, () =>
      this.custom.patchNamespacedCustomObjectStatus(
        { group: GROUP, version: VERSION, namespace, plural: NODE_MAINTENANCE_PLURAL, name, body, fieldManager: this.opts.fieldManager },
        jsonPatch,
      ),
    );
  }

  writeConfigStatus(namespace: string, name: string, resourceVersion: string, conditions: Condition[]): Promise<WriteOutcome> {
    return this.write('patch maintenanceoperatorconfigs/status', `writing status of MaintenanceOperatorConfig ${namespace}/${name}`, () =>
      this.custom.patchNamespacedCustomObjectStatus(
        { group: GROUP, version: VERSION, namespace, plural: CONFIG_PLURAL, name, body: { metadata: { resourceVersion }, status: { conditions } }, fieldManager: this.opts.fieldManager },
        mergePatch,
      ),
    );
  }

  deleteMaintenance(namespace: string, name: string, preconditions: { uid?: string; resourceVersion?: string }): Promise<WriteOutcome> {
    return this.write('delete nodemaintenances', `deleting NodeMaintenance ${namespace}/${name}`, () =>
      this.custom.deleteNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: NODE_MAINTENANCE_PLURAL,
        name,
        body: { preconditions },
      }),
    );
  }

  /** Sets spec.unschedulable, preconditioned on the node's resourceVersion. */
  /** Cordon or uncordon, with `annotations` (null = remove) in the same merge patch. */
  setUnschedulable(name: string, resourceVersion: string, unschedulable: boolean, annotations?: Record<string, string | null>): Promise<WriteOutcome> {
    const metadata = annotations === undefined ? { resourceVersion } : { resourceVersion, annotations };
    return this.write('patch nodes', `${unschedulable ? 'cordoning' : 'uncordoning'} node ${name}`, () =>
      this.core.patchNode(
        { name, body: { metadata, spec: { unschedulable: unschedulable ? true : null } }, fieldManager: this.opts.fieldManager },
        mergePatch,
      ),
    );
  }

  /**
   * POST pods/eviction. A 429 (budget) or 500 "more than one PodDisruptionBudget" is `blocked`. With `uid`, only that
   * pod: one recreated under the same name since it was read (a StatefulSet's, perhaps on another node) answers 409,
   * a `conflict`, and is left alone.
   */
  async evictPod(namespace: string, name: string, uid?: string): Promise<WriteOutcome> {
    try {
      this.count('create pods/eviction');
      await this.core.createNamespacedPodEviction({
        namespace,
        name,
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace }, ...(uid ? { deleteOptions: { preconditions: { uid } } } : {}) },
      });
      return { kind: 'ok' };
    } catch (err) {
      const f = failureOf(err);
      if (f.status === 429) return { kind: 'blocked', message: f.message };
      if (f.status === 404) return { kind: 'notFound' };
      if (f.status === 409) return { kind: 'conflict', message: f.message };
      if (f.status === 500 && f.message.includes('more than one PodDisruptionBudget')) return { kind: 'blocked', message: f.message };
      this.countError('create pods/eviction');
      return { kind: 'error', error: new KubeRequestError(`evicting pod ${namespace}/${name}`, f.status, f.message, { cause: err }) };
    }
  }

  /** DELETE a pod; with `uid`, only that pod (one recreated under the same name answers 409, a `conflict`). */
  deletePod(namespace: string, name: string, gracePeriodSeconds?: number, uid?: string): Promise<WriteOutcome> {
    return this.write('delete pods', `deleting pod ${namespace}/${name}`, () =>
      this.core.deleteNamespacedPod({
        namespace,
        name,
        ...(gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {}),
        ...(uid ? { body: { preconditions: { uid }, ...(gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {}) } } : {}),
      }),
    );
  }

  createEvent(event: EventRequest): Promise<WriteOutcome> {
    const suffix = `${event.now.getTime().toString(16)}${Math.floor(this.opts.random() * 0xffff).toString(16)}`;
    const body = eventBody(event, suffix);
    return this.write('create events', `recording event ${event.reason} on ${event.involved.namespace}/${event.involved.name}`, () =>
      // client-node types the timestamps as Date but sends what it is given: RFC 3339 strings go on the wire as they are.
      this.core.createNamespacedEvent({ namespace: event.namespace, body: body as unknown as CoreV1Event }),
    );
  }

  async getLease(namespace: string, name: string): Promise<V1Lease | undefined> {
    try {
      return await this.call('get leases', () => this.coordination.readNamespacedLease({ namespace, name }));
    } catch (err) {
      const f = (err as { httpFailure?: HttpFailure }).httpFailure;
      if (f?.status === 404) return undefined;
      this.rethrow(`reading lease ${namespace}/${name}`, err);
    }
  }

  /** One key of a Secret, decoded; undefined when the Secret or the key is absent (spec.slurm.tokenSecret). */
  async getSecretKey(namespace: string, name: string, key: string): Promise<string | undefined> {
    try {
      const secret = await this.call('get secrets', () => this.core.readNamespacedSecret({ namespace, name }));
      const value = secret.data?.[key];
      return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
    } catch (err) {
      const f = (err as { httpFailure?: HttpFailure }).httpFailure;
      if (f?.status === 404) return undefined;
      this.rethrow(`reading secret ${namespace}/${name}`, err);
    }
  }

  createLease(namespace: string, lease: V1Lease): Promise<WriteOutcome> {
    return this.writeLease('create leases', `creating lease ${namespace}/${lease.metadata?.name ?? ''}`, namespace, lease, () =>
      this.coordination.createNamespacedLease({ namespace, body: lease }),
    );
  }

  /** PUT of a lease read earlier (its resourceVersion is the precondition). */
  replaceLease(namespace: string, lease: V1Lease): Promise<WriteOutcome> {
    const name = lease.metadata?.name ?? '';
    return this.writeLease('update leases', `updating lease ${namespace}/${name}`, namespace, lease, () =>
      this.coordination.replaceNamespacedLease({ namespace, name, body: lease }),
    );
  }

  /**
   * A lease write retried after an attempt whose answer was lost (connection closed, 5xx) may meet its own first
   * attempt: the retry's 409 is then about our write. Read the lease back; our holder and renew time on it mean the
   * write landed. Otherwise one lost answer left the lease held by a pass that believed it lost, and every pass of that
   * function waited out the lease (test/faults.test.ts, issue 8).
   */
  private async writeLease(key: string, doing: string, namespace: string, lease: V1Lease, fn: () => Promise<V1Lease>): Promise<WriteOutcome> {
    let answerLost = false;
    const out = await this.write(key, doing, async () => {
      try {
        return await fn();
      } catch (err) {
        const { status } = failureOf(err);
        if (status !== 429 && isRetryable(status)) answerLost = true;
        throw err;
      }
    });
    if (out.kind !== 'conflict' || !answerLost) return out;
    let current: V1Lease | undefined;
    try {
      current = await this.getLease(namespace, lease.metadata?.name ?? '');
    } catch {
      // The read-back failed (counted in counts.errors like every failed request): the 409 stands as the outcome, and
      // the next pass decides again on what the lease then says.
      return out;
    }
    const time = (t: unknown): number => (t === undefined || t === null ? NaN : new Date(t as string).getTime());
    if (current?.spec?.holderIdentity !== lease.spec?.holderIdentity || time(current?.spec?.renewTime) !== time(lease.spec?.renewTime)) return out;
    const rv = current?.metadata?.resourceVersion;
    return rv ? { kind: 'ok', resourceVersion: rv } : { kind: 'ok' };
  }

  /** POST of a NodeMaintenance (the handshake's request); one of that name already there is a `conflict` (409 AlreadyExists). */
  createMaintenance(namespace: string, body: NodeMaintenance): Promise<WriteOutcome> {
    return this.write('create nodemaintenances', `creating NodeMaintenance ${namespace}/${body.metadata.name}`, () =>
      this.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: NODE_MAINTENANCE_PLURAL, body, fieldManager: this.opts.fieldManager }),
    );
  }

  /** Merge patch of a Node's annotations (null deletes a key), preconditioned on the Node's `resourceVersion`. */
  patchNodeAnnotations(name: string, resourceVersion: string, annotations: Record<string, string | null>): Promise<WriteOutcome> {
    return this.write('patch nodes', `annotating node ${name}`, () =>
      this.core.patchNode({ name, body: { metadata: { resourceVersion, annotations } }, fieldManager: this.opts.fieldManager }, mergePatch),
    );
  }

  /** Whether namespace `name` exists (GET, 404 = no); other failures throw. */
  async namespaceExists(name: string): Promise<boolean> {
    try {
      await this.call('get namespaces', () => this.core.readNamespace({ name }));
      return true;
    } catch (err) {
      const f = (err as { httpFailure?: HttpFailure }).httpFailure;
      if (f?.status === 404) return false;
      this.rethrow(`reading namespace ${name}`, err);
    }
  }

  /** The Leases of one namespace, all pages. */
  // Static, so that they are not verbs of a client (sim/whatif's LocalKubeClient overrides every verb); a client that
  // records no LIST versions (that one) has nothing to watch, and the runtime then polls.
  /** A mark for `listedSince`. */
  static listMark(client: KubeClient): number {
    return client.listSeq;
  }

  /** The latest read of each LIST `client` made after `mark`. */
  static listedSince(client: KubeClient, mark: number): ListedVersion[] {
    return [...client.listVersions.values()].filter((l) => l.seq > mark);
  }

  /** Waits until an object of one of `targets` changes, `timeoutMs` passes or the client's signal aborts (watch-change.ts). */
  static watchForChange(client: KubeClient, targets: readonly ListedVersion[], timeoutMs: number): Promise<WatchOutcome> {
    return watchForChange(client.kubeConfig, targets, timeoutMs, { ...(client.opts.signal ? { signal: client.opts.signal } : {}), count: (key) => client.count(key) });
  }

  async listLeases(namespace: string): Promise<V1Lease[]> {
    try {
      return await this.list('list leases', (c) => this.coordination.listNamespacedLease({ namespace, limit: this.opts.pageSize, ...(c ? { _continue: c } : {}) }));
    } catch (err) {
      this.rethrow(`listing leases in ${namespace}`, err);
    }
  }

  /** DELETE of a Lease, preconditioned on `resourceVersion` (a lease someone else took in between is a `conflict`). */
  deleteLease(namespace: string, name: string, resourceVersion: string): Promise<WriteOutcome> {
    return this.write('delete leases', `deleting lease ${namespace}/${name}`, () =>
      this.coordination.deleteNamespacedLease({ namespace, name, body: { preconditions: { resourceVersion } } }),
    );
  }
}
