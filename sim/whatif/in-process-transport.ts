// kmaint's KubeClient over the sim API server's in-process verbs: the same client (bodies, paging, outcomes, request
// counts), the same server rules (admission, preconditions, eviction budgets), no HTTP and no JSON round trip per
// answer. What-if runs at 5,000 nodes make ~10^5 evictions; over loopback HTTP those alone took minutes.
import { errorMessage } from '../../shared/errors/index.ts';
import type { ApiResource, DeleteBody, KubeTransport, ListPage, ListQuery, ObjectTarget, PatchBody, WriteAnswer } from '../../shared/kube/index.ts';
import { apiVersionOf, HttpFailureError } from '../../shared/kube/index.ts';
import { ApiError, type Json, type JsonObject, type LocalApi, type ResourceRef, type SimContext } from '../apiserver/index.ts';
import { rawFailure, resourceNotFound } from '../apiserver/errors.ts';
import { listObjects } from '../apiserver/list.ts';
import { checkFieldLabels, parseFieldSelector, parseLabels } from '../apiserver/selectors.ts';
import { frozenObject, type Collection } from '../apiserver/store.ts';

/** Plain JSON of what kmaint hands over (Date objects become their wire strings, as client-node would send them). */
function wire(value: unknown): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

function answer(resourceVersion: unknown): WriteAnswer {
  return typeof resourceVersion === 'string' ? { resourceVersion } : {};
}

/** The primitive's answer, or its failure as the HTTP transport would reject with it. */
function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    const status = err instanceof ApiError ? err.code : 0;
    return Promise.reject(new HttpFailureError({ status, message: errorMessage(err), retryAfter: undefined }, { cause: err }));
  }
}

/**
 * Reads answer with the store's parsed, frozen copy of each version (parsed once, shared by every pass), as kmaint's
 * planners never modify what they read; writes go through the same verbs as HTTP requests would. LISTs carry no
 * resourceVersion: nothing is watched in-process (the what-if engine decides when passes run).
 */
export class InProcessTransport implements KubeTransport {
  /** Unfiltered LISTs by collection, with the collection's change count when they were read. */
  private readonly wholeLists = new WeakMap<Collection, { changes: number; items: readonly JsonObject[] }>();
  /** The rest of a LIST read whole and handed out a page at a time, by continue token. */
  private readonly rest = new Map<string, JsonObject[]>();
  private tokens = 0;

  constructor(
    private readonly local: LocalApi,
    private readonly ctx: SimContext,
  ) {}

  private ref(r: ApiResource): ResourceRef {
    return { apiVersion: apiVersionOf(r), resource: r.plural };
  }

  /** LIST with the server's selectors and order, answered from the frozen copies. */
  private read(r: ApiResource, q: ListQuery): JsonObject[] {
    const kind = this.ctx.kinds.lookup(r.group, r.version, r.plural);
    if (!kind) throw resourceNotFound();
    const collection = this.ctx.store.collection(kind);
    const whole = !q.fieldSelector && !q.labelSelector && q.namespace === undefined;
    // Every pass lists all nodes (5,000 in a large what-if) and most passes change none: the same list again.
    const cached = whole ? this.wholeLists.get(collection) : undefined;
    if (cached && cached.changes === collection.changes) return cached.items.slice();
    const fields = parseFieldSelector(q.fieldSelector ?? null);
    checkFieldLabels(kind, fields);
    // metadata.namespace=X selects what the namespace's key range holds: read that range, not every pod.
    const namespace = q.namespace ?? fields.find((f) => f.field === 'metadata.namespace' && !f.negate)?.value;
    const items = listObjects(this.ctx, kind, { filter: { namespace, labels: parseLabels(q.labelSelector ?? null), fields } }).items.map(frozenObject);
    if (whole) this.wholeLists.set(collection, { changes: collection.changes, items });
    return whole ? items.slice() : items;
  }

  listPage(r: ApiResource, q: ListQuery): Promise<ListPage> {
    return settle(() => {
      const items = q.continue === undefined ? this.read(r, q) : this.rest.get(q.continue);
      if (!items) throw rawFailure(410, `continue token ${q.continue ?? ''} is not one this transport gave`);
      if (q.continue !== undefined) this.rest.delete(q.continue);
      if (items.length <= q.limit) return { items };
      const token = `page-${++this.tokens}`;
      this.rest.set(token, items.slice(q.limit));
      return { items: items.slice(0, q.limit), continue: token };
    });
  }

  get(t: ObjectTarget): Promise<unknown> {
    return settle(() => {
      const kind = this.ctx.kinds.lookup(t.resource.group, t.resource.version, t.resource.plural);
      const stored = kind && this.ctx.store.get(kind, t.namespace ?? '', t.name);
      if (!stored) throw resourceNotFound();
      return frozenObject(stored);
    });
  }

  create(r: ApiResource, namespace: string | undefined, body: object): Promise<WriteAnswer> {
    return settle(() => answer(this.local.createVersion(this.ref(r), namespace ?? '', wire(body))));
  }

  replace(t: ObjectTarget, body: object): Promise<WriteAnswer> {
    return settle(() => answer((this.local.update(this.ref(t.resource), t.namespace ?? '', t.name, wire(body))['metadata'] as JsonObject | undefined)?.['resourceVersion']));
  }

  patch(t: ObjectTarget, patch: PatchBody): Promise<WriteAnswer> {
    return settle(() => answer(this.local.patchVersion(this.ref(t.resource), t.namespace ?? '', t.name, wire(patch.body), patch.type, t.subresource ?? '')));
  }

  delete(t: ObjectTarget, body: DeleteBody): Promise<WriteAnswer> {
    return settle(() => answer((this.local.delete(this.ref(t.resource), t.namespace ?? '', t.name, body).object['metadata'] as JsonObject | undefined)?.['resourceVersion']));
  }

  evict(namespace: string, name: string, body: object): Promise<void> {
    return settle(() => this.local.evict(namespace, name, (body as { deleteOptions?: JsonObject }).deleteOptions));
  }

  /** Never asked: no LIST here has a version to watch from. */
  watch(): Promise<'refused'> {
    return Promise.resolve('refused');
  }
}
