// kmaint's KubeClient with its transport swapped for the sim API server's in-process verbs: the same passes, the
// same server rules (admission, preconditions, eviction budgets), no HTTP and no JSON round trip per request.
// What-if runs at 5,000 nodes make ~10^5 evictions; over loopback HTTP those alone took minutes. A verb added to
// KubeClient later and not overridden here still works: it goes over HTTP to the same sim API server.
import type { KubeConfig, V1Lease, V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { CONFIG_NAME, type Condition, type MaintenanceOperatorConfig, type NodeMaintenance, type NodeMaintenanceStatus } from '../../shared/api/index.ts';
import { eventBody, KubeClient, KubeRequestError, type WriteOutcome } from '../../shared/kube/index.ts';
import { ApiError, type Json, type JsonObject, type LocalApi, type ResourceRef, type SimContext } from '../apiserver/index.ts';
import { resourceNotFound } from '../apiserver/errors.ts';
import { listObjects } from '../apiserver/list.ts';
import { checkFieldLabels, parseFieldSelector, parseLabels } from '../apiserver/selectors.ts';
import { frozenObject, type Collection } from '../apiserver/store.ts';

const NODES: ResourceRef = { apiVersion: 'v1', resource: 'nodes' };
const NAMESPACES: ResourceRef = { apiVersion: 'v1', resource: 'namespaces' };
const PODS: ResourceRef = { apiVersion: 'v1', resource: 'pods' };
const EVENTS: ResourceRef = { apiVersion: 'v1', resource: 'events' };
const PDBS: ResourceRef = { apiVersion: 'policy/v1', resource: 'poddisruptionbudgets' };
const LEASES: ResourceRef = { apiVersion: 'coordination.k8s.io/v1', resource: 'leases' };
const MAINTENANCES: ResourceRef = { apiVersion: 'maintenance.nvidia.com/v1alpha1', resource: 'nodemaintenances' };
const CONFIGS: ResourceRef = { apiVersion: 'maintenance.nvidia.com/v1alpha1', resource: 'maintenanceoperatorconfigs' };

/** Plain JSON of what kmaint hands over (Date objects become their wire strings, as client-node would send them). */
function wire(value: unknown): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

/** What `written` reads of a write's result, from the resourceVersion alone. */
function withVersion(resourceVersion: string | undefined): { metadata: { resourceVersion?: string } } {
  return { metadata: resourceVersion === undefined ? {} : { resourceVersion } };
}

function codeOf(err: unknown): { code: number; message: string } {
  if (err instanceof ApiError) return { code: err.code, message: err.message };
  return { code: 0, message: err instanceof Error ? err.message : String(err) };
}

/**
 * Reads return the store's parsed, frozen copy of each version (parsed once, shared by every pass), as kmaint's
 * planners never modify what they read; writes go through the same verbs as HTTP requests would.
 */
export class LocalKubeClient extends KubeClient {
  /** Unfiltered LISTs by collection, with the collection's change count when they were read. */
  private readonly wholeLists = new WeakMap<Collection, { changes: number; items: readonly JsonObject[] }>();

  /** `kubeConfig` only satisfies the base class; no request leaves the process. */
  constructor(
    private readonly local: LocalApi,
    private readonly ctx: SimContext,
    kubeConfig: KubeConfig,
    private readonly pageSize = 500,
  ) {
    super(kubeConfig, { pageSize });
  }

  /** LIST with the server's selectors and order, answered from the frozen copies. */
  private read(ref: ResourceRef, opts: { fieldSelector?: string; labelSelector?: string } = {}): JsonObject[] {
    const [group, version] = ref.apiVersion.includes('/') ? (ref.apiVersion.split('/') as [string, string]) : ['', ref.apiVersion];
    const kind = this.ctx.kinds.lookup(group, version, ref.resource);
    if (!kind) throw resourceNotFound();
    const collection = this.ctx.store.collection(kind);
    const whole = !opts.fieldSelector && !opts.labelSelector;
    // Every pass lists all nodes (5,000 in a large what-if) and most passes change none: the same list again.
    const cached = whole ? this.wholeLists.get(collection) : undefined;
    if (cached && cached.changes === collection.changes) return cached.items.slice();
    const fields = parseFieldSelector(opts.fieldSelector ?? null);
    checkFieldLabels(kind, fields);
    // metadata.namespace=X selects what the namespace's key range holds: read that range, not every pod.
    const namespace = fields.find((f) => f.field === 'metadata.namespace' && !f.negate)?.value;
    const items = listObjects(this.ctx, kind, { filter: { namespace, labels: parseLabels(opts.labelSelector ?? null), fields } }).items.map(frozenObject);
    if (whole) this.wholeLists.set(collection, { changes: collection.changes, items });
    return whole ? items.slice() : items;
  }

  private readOne(ref: ResourceRef, namespace: string, name: string): JsonObject | undefined {
    const [group, version] = ref.apiVersion.includes('/') ? (ref.apiVersion.split('/') as [string, string]) : ['', ref.apiVersion];
    const kind = this.ctx.kinds.lookup(group, version, ref.resource);
    const stored = kind && this.ctx.store.get(kind, namespace, name);
    return stored ? frozenObject(stored) : undefined;
  }

  private tally(key: string, n = 1): void {
    this.counts.byVerb[key] = (this.counts.byVerb[key] ?? 0) + n;
  }

  /** A LIST counted once per page, as the paged client would send it. */
  private listed<T>(key: string, doing: string, fn: () => JsonObject[]): T[] {
    try {
      const items = fn();
      this.tally(key, Math.max(1, Math.ceil(items.length / this.pageSize)));
      return items as unknown as T[];
    } catch (err) {
      this.tally(key);
      this.counts.errors++;
      const { code, message } = codeOf(err);
      throw new KubeRequestError(doing, code, message, { cause: err });
    }
  }

  private written(key: string, doing: string, fn: () => { metadata?: unknown } | undefined): WriteOutcome {
    this.tally(key);
    try {
      const out = fn();
      const rv = (out?.metadata as { resourceVersion?: string } | undefined)?.resourceVersion;
      return rv ? { kind: 'ok', resourceVersion: rv } : { kind: 'ok' };
    } catch (err) {
      const { code, message } = codeOf(err);
      if (code === 409) return { kind: 'conflict', message };
      if (code === 404) return { kind: 'notFound' };
      this.counts.errors++;
      return { kind: 'error', error: new KubeRequestError(doing, code, message, { cause: err }) };
    }
  }

  override listNodes(): Promise<V1Node[]> {
    return Promise.resolve(this.listed('list nodes', 'listing nodes', () => this.read(NODES)));
  }

  override listPods(opts: { fieldSelector?: string; labelSelector?: string } = {}): Promise<V1Pod[]> {
    return Promise.resolve(this.listed('list pods', `listing pods${opts.fieldSelector ? ` (${opts.fieldSelector})` : ''}`, () => this.read(PODS, opts)));
  }

  override listPodDisruptionBudgets(): Promise<V1PodDisruptionBudget[]> {
    return Promise.resolve(this.listed('list poddisruptionbudgets', 'listing poddisruptionbudgets', () => this.read(PDBS)));
  }

  override listMaintenances(): Promise<NodeMaintenance[]> {
    return Promise.resolve(this.listed('list nodemaintenances', 'listing nodemaintenances', () => this.read(MAINTENANCES)));
  }

  override getConfig(namespace: string): Promise<MaintenanceOperatorConfig | undefined> {
    this.tally('get maintenanceoperatorconfigs');
    try {
      return Promise.resolve(this.readOne(CONFIGS, namespace, CONFIG_NAME) as MaintenanceOperatorConfig | undefined);
    } catch (err) {
      this.counts.errors++;
      const { code, message } = codeOf(err);
      return Promise.reject(new KubeRequestError(`reading MaintenanceOperatorConfig ${namespace}/${CONFIG_NAME}`, code, message, { cause: err }));
    }
  }

  override patchMaintenance(namespace: string, name: string, resourceVersion: string, patch: Record<string, unknown>): Promise<WriteOutcome> {
    const meta = (patch['metadata'] ?? {}) as Record<string, unknown>;
    const body = wire({ ...patch, metadata: { ...meta, resourceVersion } });
    return Promise.resolve(this.written('patch nodemaintenances', `patching NodeMaintenance ${namespace}/${name}`, () => withVersion(this.local.patchVersion(MAINTENANCES, namespace, name, body, 'merge'))));
  }

  override writeMaintenanceStatus(namespace: string, name: string, resourceVersion: string, status: NodeMaintenanceStatus): Promise<WriteOutcome> {
    const body = wire([
      { op: 'replace', path: '/metadata/resourceVersion', value: resourceVersion },
      { op: 'add', path: '/status', value: status },
    ]);
    return Promise.resolve(
      this.written('patch nodemaintenances/status', `writing status of NodeMaintenance ${namespace}/${name}`, () => withVersion(this.local.patchVersion(MAINTENANCES, namespace, name, body, 'json', 'status'))),
    );
  }

  override writeConfigStatus(namespace: string, name: string, resourceVersion: string, conditions: Condition[]): Promise<WriteOutcome> {
    const body = wire({ metadata: { resourceVersion }, status: { conditions } });
    return Promise.resolve(
      this.written('patch maintenanceoperatorconfigs/status', `writing status of MaintenanceOperatorConfig ${namespace}/${name}`, () => this.local.patch(CONFIGS, namespace, name, body, 'merge', 'status')),
    );
  }

  override deleteMaintenance(namespace: string, name: string, preconditions: { uid?: string; resourceVersion?: string }): Promise<WriteOutcome> {
    return Promise.resolve(
      this.written('delete nodemaintenances', `deleting NodeMaintenance ${namespace}/${name}`, () => this.local.delete(MAINTENANCES, namespace, name, { preconditions }).object),
    );
  }

  override setUnschedulable(name: string, resourceVersion: string, unschedulable: boolean, annotations?: Record<string, string | null>): Promise<WriteOutcome> {
    const body = wire({ metadata: annotations === undefined ? { resourceVersion } : { resourceVersion, annotations }, spec: { unschedulable: unschedulable ? true : null } });
    return Promise.resolve(this.written('patch nodes', `${unschedulable ? 'cordoning' : 'uncordoning'} node ${name}`, () => withVersion(this.local.patchVersion(NODES, '', name, body, 'merge'))));
  }

  override evictPod(namespace: string, name: string, uid?: string): Promise<WriteOutcome> {
    this.tally('create pods/eviction');
    try {
      this.local.evict(namespace, name, uid ? { preconditions: { uid } } : undefined);
      return Promise.resolve({ kind: 'ok' });
    } catch (err) {
      const { code, message } = codeOf(err);
      if (code === 429) return Promise.resolve({ kind: 'blocked', message });
      if (code === 404) return Promise.resolve({ kind: 'notFound' });
      if (code === 409) return Promise.resolve({ kind: 'conflict', message });
      if (code === 500 && message.includes('more than one PodDisruptionBudget')) return Promise.resolve({ kind: 'blocked', message });
      this.counts.errors++;
      return Promise.resolve({ kind: 'error', error: new KubeRequestError(`evicting pod ${namespace}/${name}`, code, message, { cause: err }) });
    }
  }

  override deletePod(namespace: string, name: string, gracePeriodSeconds?: number, uid?: string): Promise<WriteOutcome> {
    return Promise.resolve(
      this.written('delete pods', `deleting pod ${namespace}/${name}`, () =>
        this.local.delete(PODS, namespace, name, { ...(gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {}), ...(uid ? { preconditions: { uid } } : {}) }).object,
      ),
    );
  }

  override createEvent(event: Parameters<KubeClient['createEvent']>[0]): Promise<WriteOutcome> {
    const body = wire(eventBody(event, `${event.now.getTime().toString(16)}${(this.counts.byVerb['create events'] ?? 0).toString(16)}`));
    return Promise.resolve(
      this.written('create events', `recording event ${event.reason} on ${event.involved.namespace}/${event.involved.name}`, () => withVersion(this.local.createVersion(EVENTS, event.namespace, body))),
    );
  }

  override getLease(namespace: string, name: string): Promise<V1Lease | undefined> {
    this.tally('get leases');
    return Promise.resolve(this.readOne(LEASES, namespace, name) as V1Lease | undefined);
  }

  override createLease(namespace: string, lease: V1Lease): Promise<WriteOutcome> {
    return Promise.resolve(this.written('create leases', `creating lease ${namespace}/${lease.metadata?.name ?? ''}`, () => this.local.create(LEASES, namespace, wire(lease))));
  }

  override replaceLease(namespace: string, lease: V1Lease): Promise<WriteOutcome> {
    const name = lease.metadata?.name ?? '';
    return Promise.resolve(this.written('update leases', `updating lease ${namespace}/${name}`, () => this.local.update(LEASES, namespace, name, wire(lease))));
  }

  override listLeases(namespace: string): Promise<V1Lease[]> {
    return Promise.resolve(this.listed<V1Lease>('list leases', `listing leases in ${namespace}`, () => this.read(LEASES).filter((l) => (l['metadata'] as { namespace?: string } | undefined)?.namespace === namespace)));
  }

  override deleteLease(namespace: string, name: string, resourceVersion: string): Promise<WriteOutcome> {
    return Promise.resolve(this.written('delete leases', `deleting lease ${namespace}/${name}`, () => this.local.delete(LEASES, namespace, name, { preconditions: { resourceVersion } }).object));
  }

  /** A snapshot holds no Secrets: spec.slurm.tokenSecret reads as absent, so what-if runs never reach Slurm. */
  override getSecretKey(_namespace: string, _name: string, _key: string): Promise<string | undefined> {
    this.tally('get secrets');
    return Promise.resolve(undefined);
  }

  override namespaceExists(name: string): Promise<boolean> {
    this.tally('get namespaces');
    return Promise.resolve(this.readOne(NAMESPACES, '', name) !== undefined);
  }

  override createMaintenance(namespace: string, body: NodeMaintenance): Promise<WriteOutcome> {
    return Promise.resolve(this.written('create nodemaintenances', `creating NodeMaintenance ${namespace}/${body.metadata.name}`, () => this.local.create(MAINTENANCES, namespace, wire(body))));
  }

  override patchNodeAnnotations(name: string, resourceVersion: string, annotations: Record<string, string | null>): Promise<WriteOutcome> {
    return Promise.resolve(this.written('patch nodes', `annotating node ${name}`, () => this.local.patch(NODES, '', name, { metadata: { resourceVersion, annotations } }, 'merge')));
  }
}

/** Every verb of KubeClient: a verb added there and missing here fails to compile (it would silently go over HTTP). */
const _OVERRIDDEN = [
  'listNodes',
  'listPods',
  'listPodDisruptionBudgets',
  'listMaintenances',
  'getConfig',
  'patchMaintenance',
  'writeMaintenanceStatus',
  'writeConfigStatus',
  'deleteMaintenance',
  'setUnschedulable',
  'evictPod',
  'deletePod',
  'createEvent',
  'getLease',
  'createLease',
  'replaceLease',
  'listLeases',
  'deleteLease',
  'namespaceExists',
  'getSecretKey',
  'createMaintenance',
  'patchNodeAnnotations',
] as const satisfies ReadonlyArray<keyof KubeClient>;
type Verb = Exclude<keyof KubeClient, 'counts'>;
type NotOverridden = Exclude<Verb, (typeof _OVERRIDDEN)[number]>;
/** The parameters each override declares are exactly the base verb's (an added parameter must be handled here). */
type SameParameters = { [V in Verb]: Parameters<KubeClient[V]> extends Parameters<LocalKubeClient[V]> ? (Parameters<LocalKubeClient[V]> extends Parameters<KubeClient[V]> ? true : V) : V }[Verb];
type Differing = Exclude<SameParameters, true>;
export const LOCAL_CLIENT_COVERS_KUBECLIENT: [NotOverridden] extends [never] ? ([Differing] extends [never] ? true : Differing) : NotOverridden = true;
