// What kmaint asks of Kubernetes: a handful of verbs with typed outcomes over a transport of primitives
// (transport.ts; HTTP by default). Each verb builds its request body once; paging, retries (timing from retry.ts)
// and request accounting are here, not in the transport.
import { forEachBounded } from '../concurrency/index.ts';
import type { KubeConfig, ResourceV1ResourceClaim, V1CustomResourceDefinition, V1Job, V1Lease, V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { CONFIG_NAME, CONFIG_PLURAL, KMAINT_FIELD_MANAGER, GROUP, NODE_MAINTENANCE_PLURAL, SRIOV_GROUP, SRIOV_NODE_STATE_PLURAL, SRIOV_POOL_CONFIG_PLURAL, SRIOV_VERSION, VERSION } from '../api/index.ts';
import type { Condition, MaintenanceOperatorConfig, NodeConditionWrite, NodeMaintenance, NodeMaintenanceStatus, NodeTaint, SriovNetworkNodeState, SriovNetworkPoolConfig } from '../api/index.ts';
import { HttpFailureError, KubeRequestError, WriteFenceError } from './errors.ts';
import { eventBody, type EventRequest } from './event-body.ts';
import { fieldSelectorTerm } from './field-selector.ts';
import { HttpTransport, failureOf } from './http-transport.ts';
import { listPageSizeFrom, parseListPageSize } from './list-page-size.ts';
import { collectionPath, CRDS, DEVICE_TAINT_RULE_VERSIONS, DEVICE_TAINT_RULES, EVENTS, JOBS, LEASES, NAMESPACES, NODES, PDBS, PODS, RESOURCE_CLAIM_VERSIONS, RESOURCE_CLAIMS, RESOURCE_SLICES, SECRETS, type ApiResource, type KubeTransport, type ListPage, type ObjectTarget, type WriteAnswer } from './transport.ts';
import type { ListedVersion, WatchOutcome } from './watch-change.ts';
import { DEFAULT_RETRY, isRetryable, retryDelayMs, type RetryPolicy } from './retry.ts';
import { abortableSleep, type Sleep } from './sleep.ts';

/** A DeviceTaintRule as listed: the fields kmaint reads (its name, marks and the device it selects). */
export interface DeviceTaintRuleObject {
  metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { deviceSelector?: { driver?: string; pool?: string; device?: string } };
}

/** What kmaint reads of a ResourceSlice: which node's pool holds which devices of which driver. */
export interface DeviceResourceSlice {
  spec?: { driver?: string; nodeName?: string; pool?: { name?: string }; devices?: Array<{ name?: string }> };
}

const MAINTENANCES: ApiResource = { group: GROUP, version: VERSION, plural: NODE_MAINTENANCE_PLURAL, namespaced: true };
const CONFIGS: ApiResource = { group: GROUP, version: VERSION, plural: CONFIG_PLURAL, namespaced: true };
const SRIOV_NODE_STATES: ApiResource = { group: SRIOV_GROUP, version: SRIOV_VERSION, plural: SRIOV_NODE_STATE_PLURAL, namespaced: true };
const SRIOV_POOL_CONFIGS: ApiResource = { group: SRIOV_GROUP, version: SRIOV_VERSION, plural: SRIOV_POOL_CONFIG_PLURAL, namespaced: true };

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
  /** Page size of LIST calls, 1 to 10,000 (list-page-size.ts). @default KMAINT_LIST_PAGE_SIZE of the environment, else 500 */
  pageSize?: number;
  /** Injected sleep (tests, simulated clocks). */
  sleep?: Sleep;
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

/** One page asked for: the page, or why it could not be had. */
type PageOutcome = { page: ListPage } | { failure: unknown };

function pageOf(outcome: PageOutcome): ListPage {
  if ('failure' in outcome) throw outcome.failure;
  return outcome.page;
}

/** Restarts of one LIST after its continue token expired (410); a cluster compacting that often is reported, not chased. */
const LIST_RESTARTS = 2;

/**
 * Turns of the event loop a request asked for needs to be written to its kept-alive connection: client-node 2.0's
 * middleware chain and undici's fetch wrote it in the second (measured with undici's `undici:client:sendHeaders`
 * diagnostics channel on a loopback server); one more for margin. Fewer only loses the overlap, never a page.
 */
const REQUEST_LEAVES_TURNS = 3;

export class KubeClient {
  readonly counts: RequestCounts = { byVerb: {}, errors: 0, errorsByVerb: {}, retries: 0 };
  private readonly transport: KubeTransport;
  private readonly opts: Required<Omit<KubeClientOptions, 'signal'>> & { signal?: AbortSignal };
  /** Where each LIST was read, by path and selectors: what `watchForChange` watches from. */
  private readonly listVersions = new Map<string, ListedVersion>();
  private listSeq = 0;
  /** The resource.k8s.io version ResourceClaims were last listed at (listResourceClaims). */
  private claimVersion: string | undefined;
  /** Asked before every attempt of every write (retries included); throws WriteFenceError to refuse it. */
  private fence: (() => Promise<void>) | undefined;

  /** Over HTTP to the cluster `source` names, or over another transport (what-if's in-process one). */
  constructor(source: KubeConfig | KubeTransport, opts: KubeClientOptions = {}) {
    this.transport = 'listPage' in source ? source : new HttpTransport(source);
    this.opts = {
      retry: opts.retry ?? DEFAULT_RETRY,
      pageSize: opts.pageSize !== undefined ? parseListPageSize(String(opts.pageSize), 'pageSize') : listPageSizeFrom(process.env),
      sleep: opts.sleep ?? abortableSleep,
      random: opts.random ?? Math.random,
      fieldManager: opts.fieldManager ?? KMAINT_FIELD_MANAGER,
      ...(opts.signal ? { signal: opts.signal } : {}),
    };
  }

  /**
   * Installs `fence`, asked before every attempt of every write this client sends (retries included) but the
   * caller's own lease writes (`ownLease`); a fence that throws WriteFenceError stops that write and is rethrown to
   * the caller. Returns the function that removes it. One at a time: a pass installs its own for its writes.
   */
  fenceWrites(fence: () => Promise<void>): () => void {
    if (this.fence !== undefined) throw new WriteFenceError('a write fence is already installed on this client');
    this.fence = fence;
    return () => {
      if (this.fence === fence) this.fence = undefined;
    };
  }

  private count(key: string): void {
    this.counts.byVerb[key] = (this.counts.byVerb[key] ?? 0) + 1;
  }

  private countError(key: string): void {
    this.counts.errors++;
    this.counts.errorsByVerb[key] = (this.counts.errorsByVerb[key] ?? 0) + 1;
  }

  /**
   * Runs one request with retries on transient failures; other failures are rethrown as HttpFailureError. `signal`
   * ends the retries (the client's, or a LIST's that no longer wants a prefetched page). With `absentIsAnswer`, a 404
   * is the answer the caller reads (an object that is not there, a version of an optional API not served), not an API
   * error: it is rethrown but not counted in counts.errors.
   */
  private async call<T>(key: string, fn: () => Promise<T>, signal = this.opts.signal, absentIsAnswer = false, fenced = false): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      if (fenced && this.fence !== undefined) await this.fence();
      this.count(key);
      try {
        return await fn();
      } catch (err) {
        const f = failureOf(err);
        if (!isRetryable(f.status) || attempt >= this.opts.retry.attempts) {
          if (!(absentIsAnswer && f.status === 404)) this.countError(key);
          throw err instanceof HttpFailureError ? err : new HttpFailureError(f, { cause: err });
        }
        this.counts.retries++;
        await this.opts.sleep(retryDelayMs(attempt, this.opts.retry, f.retryAfter, this.opts.random()), signal);
      }
    }
  }

  /**
   * Every page of a LIST. A continue token the API server no longer honours (410 Expired: its resourceVersion was
   * compacted, after about five minutes) restarts the LIST from its first page, as client-go's pager falls back to a
   * full list: the pages read so far belong to an older snapshot and are dropped. At most LIST_RESTARTS times a LIST.
   *
   * Page k+1 is asked for as soon as page k's continue token is known, before page k's items are decoded (a node
   * page's decode is the transport's to defer: ListPage.itemsDeferred), so the API server serves the one while kmaint
   * decodes the other; never more than one page ahead, which is one page of text more in memory. A prefetched page
   * that is not wanted (the LIST failed meanwhile) is dropped unread and its retries stop.
   */
  private async list<T>(resource: ApiResource, doing: string, query: { namespace?: string; fieldSelector?: string; labelSelector?: string } = {}, absentIsAnswer = false): Promise<T[]> {
    const key = `list ${resource.plural}`;
    const abandoned = new AbortController();
    const signal = this.opts.signal ? AbortSignal.any([this.opts.signal, abandoned.signal]) : abandoned.signal;
    // A page's failure is carried as a value, thrown where the page is awaited: a page asked ahead and then abandoned
    // (the LIST failed on the page before) goes with its failure, which call() has counted, and the LIST reports its own.
    const ask = (cont: string | undefined): Promise<PageOutcome> =>
      this.call(key, () => this.transport.listPage(resource, { limit: this.opts.pageSize, ...query, ...(cont ? { continue: cont } : {}) }), signal, absentIsAnswer).then(
        (page): PageOutcome => ({ page }),
        (failure: unknown): PageOutcome => ({ failure }),
      );
    const items: T[] = [];
    /** The continue token `pending` was asked with (undefined: the first page). */
    let cont: string | undefined;
    let pending = ask(undefined);
    let restarts = 0;
    try {
      for (;;) {
        let page: ListPage;
        try {
          page = pageOf(await pending);
        } catch (err) {
          if (failureOf(err).status !== 410 || cont === undefined || restarts >= LIST_RESTARTS) throw err;
          restarts++;
          items.length = 0;
          cont = undefined;
          pending = ask(undefined);
          continue;
        }
        if (cont === undefined && page.resourceVersion && query.namespace === undefined) this.recordList(resource, query, page.resourceVersion);
        cont = page.continue || undefined;
        if (cont !== undefined) pending = ask(cont);
        items.push(...((await this.itemsOf(key, page)) as T[]));
        if (cont === undefined) return items;
      }
    } catch (err) {
      abandoned.abort();
      this.rethrow(doing, err);
    }
  }

  /**
   * A page's items; a deferred decode runs after REQUEST_LEAVES_TURNS turns of the event loop, in which the next page's
   * request (asked just before) leaves for the API server — the decode then holds the loop. A failed decode counts as a
   * failed request, as it did when the transport decoded inside the request.
   */
  private async itemsOf(key: string, page: ListPage): Promise<unknown[]> {
    if (!page.itemsDeferred) return page.items;
    for (let turn = 0; turn < REQUEST_LEAVES_TURNS; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      return page.items;
    } catch (err) {
      this.countError(key);
      throw err;
    }
  }

  private recordList(resource: ApiResource, query: { fieldSelector?: string; labelSelector?: string }, resourceVersion: string): void {
    const path = collectionPath(resource);
    const at = { resource: resource.plural, path, ...(query.fieldSelector ? { fieldSelector: query.fieldSelector } : {}), ...(query.labelSelector ? { labelSelector: query.labelSelector } : {}) };
    this.listVersions.set(`${path}?${query.fieldSelector ?? ''}&${query.labelSelector ?? ''}`, { ...at, resourceVersion, seq: ++this.listSeq });
  }

  /** GET of one object; undefined when it is not there (404). */
  private async getObject<T>(target: ObjectTarget, doing: string): Promise<T | undefined> {
    try {
      return (await this.call(`get ${target.resource.plural}`, () => this.transport.get(target), this.opts.signal, true)) as T;
    } catch (err) {
      if (failureOf(err).status === 404) return undefined;
      this.rethrow(doing, err);
    }
  }

  private rethrow(doing: string, err: unknown): never {
    const f = failureOf(err);
    throw new KubeRequestError(doing, f.status, f.message, { cause: err });
  }

  private async write(key: string, doing: string, fn: () => Promise<WriteAnswer>, fenced = true): Promise<WriteOutcome> {
    try {
      const { resourceVersion } = await this.call(key, fn, this.opts.signal, false, fenced);
      return resourceVersion ? { kind: 'ok', resourceVersion } : { kind: 'ok' };
    } catch (err) {
      if (this.opts.signal?.aborted || err instanceof WriteFenceError) throw err;
      const f = failureOf(err);
      if (f.status === 409) return { kind: 'conflict', message: f.message };
      if (f.status === 404) return { kind: 'notFound' };
      return { kind: 'error', error: new KubeRequestError(doing, f.status, f.message, { cause: err }) };
    }
  }

  listNodes(): Promise<V1Node[]> {
    return this.list(NODES, 'listing nodes');
  }

  /**
   * One Node by name; undefined when it is gone, exactly as a Node absent from listNodes. Asked as a LIST selecting that
   * one name (`fieldSelector=metadata.name=NAME`), not a GET: the API server answers it by key from its watch cache as
   * it would a GET, kmaint's RBAC already grants `list nodes` (not `get`), and the Node is decoded exactly as the Nodes
   * of a full LIST are (the same lean decoder), so a planner cannot tell the two reads apart.
   */
  async readNode(name: string): Promise<V1Node | undefined> {
    try {
      const page = await this.call('list nodes', () => this.transport.listPage(NODES, { limit: 1, fieldSelector: fieldSelectorTerm('metadata.name', name) }));
      return ((await this.itemsOf('list nodes', page)) as V1Node[]).find((n) => n.metadata?.name === name);
    } catch (err) {
      this.rethrow(`reading node ${name}`, err);
    }
  }

  /**
   * The Nodes named, one read each (readNode), at most `concurrency` in flight: those that exist, by name.
   * Any other failure throws, as a failed LIST does: a pass never plans on a partial read.
   */
  async readNodes(names: readonly string[], concurrency = 8): Promise<Map<string, V1Node>> {
    const found = new Map<string, V1Node>();
    await forEachBounded([...new Set(names)].sort(), { limit: concurrency }, async (name) => {
      const node = await this.readNode(name);
      if (node) found.set(name, node);
    });
    return found;
  }

  /** Pods of all namespaces, or of one node with `fieldSelector: spec.nodeName=NODE`. */
  listPods(opts: { fieldSelector?: string; labelSelector?: string } = {}): Promise<V1Pod[]> {
    return this.list(PODS, `listing pods${opts.fieldSelector ? ` (${opts.fieldSelector})` : ''}`, opts);
  }

  listPodDisruptionBudgets(): Promise<V1PodDisruptionBudget[]> {
    return this.list(PDBS, 'listing poddisruptionbudgets');
  }

  /**
   * Every DRA ResourceClaim of every namespace, all pages, from the newest resource.k8s.io version the API server
   * serves (RESOURCE_CLAIM_VERSIONS): a version it does not serve answers 404, and the next one is asked. The version
   * found is kept for this client's later LISTs. v1beta1 claims carry `deviceClassName` on the request itself, not
   * under `exactly` (drain/claims.ts reads both). No version served: DRA is off, so no claim exists ([]).
   */
  async listResourceClaims(): Promise<ResourceV1ResourceClaim[]> {
    const known = this.claimVersion;
    const versions = known !== undefined ? [known, ...RESOURCE_CLAIM_VERSIONS.filter((v) => v !== known)] : RESOURCE_CLAIM_VERSIONS;
    for (const version of versions) {
      try {
        const items = await this.list<ResourceV1ResourceClaim>({ ...RESOURCE_CLAIMS, version }, `listing resourceclaims (resource.k8s.io/${version})`, {}, true);
        this.claimVersion = version;
        return items;
      } catch (err) {
        if (!(err instanceof KubeRequestError) || err.status !== 404) throw err;
      }
    }
    return [];
  }

  /**
   * Every DRA ResourceSlice (resource.k8s.io/v1), all pages; a server that does not serve v1 (DRA off, or older than
   * 1.34) has none ([]). Read by the scheduler only while a device request waits (shared/devices).
   */
  listResourceSlices(): Promise<DeviceResourceSlice[]> {
    return this.list<DeviceResourceSlice>(RESOURCE_SLICES, 'listing resourceslices (resource.k8s.io/v1)', {}, true).catch((err: unknown) => {
      if (err instanceof KubeRequestError && err.status === 404) return [];
      throw err;
    });
  }

  /**
   * The DeviceTaintRules (KEP-5055) from the newest version served (DEVICE_TAINT_RULE_VERSIONS), or undefined when the
   * API server serves none: the answer the scheduler refuses a device request by (a cluster without device taints).
   */
  async listDeviceTaintRules(): Promise<{ version: string; rules: DeviceTaintRuleObject[] } | undefined> {
    for (const version of DEVICE_TAINT_RULE_VERSIONS) {
      try {
        const rules = await this.list<DeviceTaintRuleObject>({ ...DEVICE_TAINT_RULES, version }, `listing devicetaintrules (resource.k8s.io/${version})`, {}, true);
        return { version, rules };
      } catch (err) {
        if (!(err instanceof KubeRequestError) || err.status !== 404) throw err;
      }
    }
    return undefined;
  }

  /**
   * POST of a DeviceTaintRule in the newest version served: a 404 on the collection means that version is not served,
   * and the next is tried (the body's apiVersion is set to it). One of that name already there is a `conflict`; no
   * version served is `notFound`.
   */
  async createDeviceTaintRule(body: { metadata: { name: string } } & Record<string, unknown>): Promise<WriteOutcome> {
    for (const version of DEVICE_TAINT_RULE_VERSIONS) {
      const resource = { ...DEVICE_TAINT_RULES, version };
      const out = await this.write('create devicetaintrules', `creating DeviceTaintRule ${body.metadata.name} (resource.k8s.io/${version})`, () =>
        this.transport.create(resource, undefined, { ...body, apiVersion: `resource.k8s.io/${version}` }, this.opts.fieldManager),
      );
      if (out.kind !== 'notFound') return out;
    }
    return { kind: 'notFound' };
  }

  /** DELETE of a DeviceTaintRule in every version served; gone (or never served) in all of them is `notFound`. */
  async deleteDeviceTaintRule(name: string): Promise<WriteOutcome> {
    for (const version of DEVICE_TAINT_RULE_VERSIONS) {
      const out = await this.write('delete devicetaintrules', `deleting DeviceTaintRule ${name} (resource.k8s.io/${version})`, () => this.transport.delete({ resource: { ...DEVICE_TAINT_RULES, version }, name }, {}));
      if (out.kind !== 'notFound') return out;
    }
    return { kind: 'notFound' };
  }

  listMaintenances(): Promise<NodeMaintenance[]> {
    return this.list(MAINTENANCES, 'listing nodemaintenances');
  }

  /** The `default` MaintenanceOperatorConfig in `namespace`, or undefined when there is none. */
  getConfig(namespace: string): Promise<MaintenanceOperatorConfig | undefined> {
    return this.getObject({ resource: CONFIGS, namespace, name: CONFIG_NAME }, `reading MaintenanceOperatorConfig ${namespace}/${CONFIG_NAME}`);
  }

  private patch(key: string, doing: string, target: ObjectTarget, patch: Parameters<KubeTransport['patch']>[1]): Promise<WriteOutcome> {
    return this.write(key, doing, () => this.transport.patch(target, patch, this.opts.fieldManager));
  }

  /** Merge patch of NodeMaintenance metadata, preconditioned on `resourceVersion`. */
  patchMaintenance(namespace: string, name: string, resourceVersion: string, patch: Record<string, unknown>): Promise<WriteOutcome> {
    const meta = (patch['metadata'] ?? {}) as Record<string, unknown>;
    const body = { ...patch, metadata: { ...meta, resourceVersion } };
    return this.patch('patch nodemaintenances', `patching NodeMaintenance ${namespace}/${name}`, { resource: MAINTENANCES, namespace, name }, { type: 'merge', body });
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
    const target: ObjectTarget = { resource: MAINTENANCES, namespace, name, subresource: 'status' };
    return this.patch('patch nodemaintenances/status', `writing status of NodeMaintenance ${namespace}/${name}`, target, { type: 'json', body });
  }

  writeConfigStatus(namespace: string, name: string, resourceVersion: string, conditions: Condition[]): Promise<WriteOutcome> {
    const target: ObjectTarget = { resource: CONFIGS, namespace, name, subresource: 'status' };
    const body = { metadata: { resourceVersion }, status: { conditions } };
    return this.patch('patch maintenanceoperatorconfigs/status', `writing status of MaintenanceOperatorConfig ${namespace}/${name}`, target, { type: 'merge', body });
  }

  deleteMaintenance(namespace: string, name: string, preconditions: { uid?: string; resourceVersion?: string }): Promise<WriteOutcome> {
    return this.write('delete nodemaintenances', `deleting NodeMaintenance ${namespace}/${name}`, () => this.transport.delete({ resource: MAINTENANCES, namespace, name }, { preconditions }));
  }

  /** Cordon or uncordon, with `annotations` (null = remove) in the same merge patch, preconditioned on the node's resourceVersion. */
  setUnschedulable(name: string, resourceVersion: string, unschedulable: boolean, annotations?: Record<string, string | null>): Promise<WriteOutcome> {
    const metadata = annotations === undefined ? { resourceVersion } : { resourceVersion, annotations };
    const body = { metadata, spec: { unschedulable: unschedulable ? true : null } };
    return this.patch('patch nodes', `${unschedulable ? 'cordoning' : 'uncordoning'} node ${name}`, { resource: NODES, name }, { type: 'merge', body });
  }

  /**
   * POST pods/eviction. A 429 (budget) or 500 "more than one PodDisruptionBudget" is `blocked`. With `uid`, only that
   * pod: one recreated under the same name since it was read (a StatefulSet's, perhaps on another node) answers 409,
   * a `conflict`, and is left alone.
   */
  async evictPod(namespace: string, name: string, uid?: string): Promise<WriteOutcome> {
    const body = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace }, ...(uid ? { deleteOptions: { preconditions: { uid } } } : {}) };
    if (this.fence !== undefined) await this.fence();
    try {
      this.count('create pods/eviction');
      await this.transport.evict(namespace, name, body);
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
    const body = { ...(uid ? { preconditions: { uid } } : {}), ...(gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {}) };
    return this.write('delete pods', `deleting pod ${namespace}/${name}`, () => this.transport.delete({ resource: PODS, namespace, name }, body));
  }

  createEvent(event: EventRequest): Promise<WriteOutcome> {
    const suffix = `${event.now.getTime().toString(16)}${Math.floor(this.opts.random() * 0xffff).toString(16)}`;
    const body = eventBody(event, suffix);
    return this.write('create events', `recording event ${event.reason} on ${event.involved.namespace}/${event.involved.name}`, () => this.transport.create(EVENTS, event.namespace, body));
  }

  getLease(namespace: string, name: string): Promise<V1Lease | undefined> {
    return this.getObject({ resource: LEASES, namespace, name }, `reading lease ${namespace}/${name}`);
  }

  /** One key of a Secret, decoded; undefined when the Secret or the key is absent (spec.slurm.tokenSecret). */
  async getSecretKey(namespace: string, name: string, key: string): Promise<string | undefined> {
    const secret = await this.getObject<{ data?: Record<string, string> }>({ resource: SECRETS, namespace, name }, `reading secret ${namespace}/${name}`);
    const value = secret?.data?.[key];
    return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
  }

  /** POST of a lease. `ownLease`: the caller's own pass lease, written outside the write fence that guards it. */
  createLease(namespace: string, lease: V1Lease, opts: { ownLease?: boolean } = {}): Promise<WriteOutcome> {
    return this.writeLease('create leases', `creating lease ${namespace}/${lease.metadata?.name ?? ''}`, namespace, lease, () => this.transport.create(LEASES, namespace, lease), opts.ownLease !== true);
  }

  /** PUT of a lease read earlier (its resourceVersion is the precondition). `ownLease` as createLease's. */
  replaceLease(namespace: string, lease: V1Lease, opts: { ownLease?: boolean } = {}): Promise<WriteOutcome> {
    const name = lease.metadata?.name ?? '';
    return this.writeLease('update leases', `updating lease ${namespace}/${name}`, namespace, lease, () => this.transport.replace({ resource: LEASES, namespace, name }, lease), opts.ownLease !== true);
  }

  /**
   * A lease write retried after an attempt whose answer was lost (connection closed, 5xx) may meet its own first
   * attempt: the retry's 409 is then about our write. Read the lease back; our holder and renew time on it mean the
   * write landed. Otherwise one lost answer left the lease held by a pass that believed it lost, and every pass of that
   * function waited out the lease (test/faults.test.ts, issue 8).
   */
  private async writeLease(key: string, doing: string, namespace: string, lease: V1Lease, fn: () => Promise<WriteAnswer>, fenced: boolean): Promise<WriteOutcome> {
    let answerLost = false;
    const out = await this.write(
      key,
      doing,
      async () => {
        try {
          return await fn();
        } catch (err) {
          const { status } = failureOf(err);
          if (status !== 429 && isRetryable(status)) answerLost = true;
          throw err;
        }
      },
      fenced,
    );
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
      this.transport.create(MAINTENANCES, namespace, body, this.opts.fieldManager),
    );
  }

  /** A Node's spec.taints replaced whole, with `annotations` (null = remove) in the same merge patch, preconditioned on its resourceVersion. */
  setNodeTaints(name: string, resourceVersion: string, taints: readonly NodeTaint[], annotations: Record<string, string | null>): Promise<WriteOutcome> {
    const body = { metadata: { resourceVersion, annotations }, spec: { taints: taints.length > 0 ? taints : null } };
    return this.patch('patch nodes', `setting the taints of node ${name}`, { resource: NODES, name }, { type: 'merge', body });
  }

  /**
   * Strategic-merge patch of a Node's status conditions, preconditioned on the Node's `resourceVersion`: the listed
   * conditions merge by `type` (the kubelet's Ready and other writers' stay), and each type in `remove` is deleted.
   */
  patchNodeConditions(name: string, resourceVersion: string, set: readonly NodeConditionWrite[], remove: readonly string[]): Promise<WriteOutcome> {
    const conditions = [...set, ...remove.map((type) => ({ type, $patch: 'delete' }))];
    const body = { metadata: { resourceVersion }, status: { conditions } };
    return this.patch('patch nodes/status', `writing conditions of node ${name}`, { resource: NODES, name, subresource: 'status' }, { type: 'strategic', body });
  }

  /** Merge patch of a Node's annotations (null deletes a key), preconditioned on the Node's `resourceVersion`. */
  patchNodeAnnotations(name: string, resourceVersion: string, annotations: Record<string, string | null>): Promise<WriteOutcome> {
    return this.patch('patch nodes', `annotating node ${name}`, { resource: NODES, name }, { type: 'merge', body: { metadata: { resourceVersion, annotations } } });
  }

  /** The SR-IOV network operator's SriovNetworkNodeStates in its namespace: one LIST (spec.nodeHandshake.protocol). */
  listSriovNodeStates(namespace: string): Promise<SriovNetworkNodeState[]> {
    return this.list(SRIOV_NODE_STATES, `listing sriovnetworknodestates in ${namespace}`, { namespace });
  }

  /** The SR-IOV network operator's SriovNetworkPoolConfigs in its namespace: one LIST. */
  listSriovPoolConfigs(namespace: string): Promise<SriovNetworkPoolConfig[]> {
    return this.list(SRIOV_POOL_CONFIGS, `listing sriovnetworkpoolconfigs in ${namespace}`, { namespace });
  }

  /** Merge patch of a SriovNetworkNodeState's annotations, preconditioned on its `resourceVersion`. */
  patchSriovNodeState(namespace: string, name: string, resourceVersion: string, annotations: Record<string, string>): Promise<WriteOutcome> {
    const target: ObjectTarget = { resource: SRIOV_NODE_STATES, namespace, name };
    return this.patch('patch sriovnetworknodestates', `annotating SriovNetworkNodeState ${namespace}/${name}`, target, { type: 'merge', body: { metadata: { resourceVersion, annotations } } });
  }

  /** The CustomResourceDefinition `name`, or undefined when it is not installed (404); other failures throw. */
  getCrd(name: string): Promise<V1CustomResourceDefinition | undefined> {
    return this.getObject({ resource: CRDS, name }, `reading CustomResourceDefinition ${name}`);
  }

  /** Whether namespace `name` exists (GET, 404 = no); other failures throw. */
  async namespaceExists(name: string): Promise<boolean> {
    return (await this.getObject({ resource: NAMESPACES, name }, `reading namespace ${name}`)) !== undefined;
  }

  // Static, so that they are not verbs of a client; a client whose transport records no LIST versions (what-if's
  // in-process one) has nothing to watch, and the runtime then polls.
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
    return client.transport.watch(targets, timeoutMs, { ...(client.opts.signal ? { signal: client.opts.signal } : {}), count: (key) => client.count(key) });
  }

  /** The Leases of one namespace, all pages. */
  listLeases(namespace: string): Promise<V1Lease[]> {
    return this.list(LEASES, `listing leases in ${namespace}`, { namespace });
  }

  /** Every Job of a namespace, all pages (kmaint leftovers: the reboot and validation Jobs an uninstall left). */
  listJobs(namespace: string): Promise<V1Job[]> {
    return this.list(JOBS, `listing jobs in ${namespace}`, { namespace });
  }

  /** POST of a Job (the reboot Job, issue 43); one of that name already there is a `conflict` (409 AlreadyExists). */
  createJob(namespace: string, body: object & { metadata?: { name?: string } }): Promise<WriteOutcome> {
    return this.write('create jobs', `creating Job ${namespace}/${body.metadata?.name ?? ''}`, () => this.transport.create(JOBS, namespace, body, this.opts.fieldManager));
  }

  /** DELETE of a Job and, in the background, its pods; a Job already gone is `notFound`. */
  deleteJob(namespace: string, name: string): Promise<WriteOutcome> {
    return this.write('delete jobs', `deleting Job ${namespace}/${name}`, () => this.transport.delete({ resource: JOBS, namespace, name }, { propagationPolicy: 'Background' }));
  }

  /** DELETE of a Lease, preconditioned on `resourceVersion` (a lease someone else took in between is a `conflict`). */
  deleteLease(namespace: string, name: string, resourceVersion: string): Promise<WriteOutcome> {
    return this.write('delete leases', `deleting lease ${namespace}/${name}`, () => this.transport.delete({ resource: LEASES, namespace, name }, { preconditions: { resourceVersion } }));
  }
}
