// The simulated server's verbs in-process, without HTTP: the same rules (admission, defaults, validation,
// conflicts, graceful deletion, eviction) for helpers that need speed, e.g. seeding 150,000 pods at once.
// Failures throw ApiError with the Status the HTTP API would answer. Requests here are not counted.
import { bindPod } from './binding.ts';
import type { SimContext } from './context.ts';
import { deleteObject, type DeleteOptions } from './deletion.ts';
import { resourceNotFound } from './errors.ts';
import { evictPod } from './eviction.ts';
import type { Json, JsonObject } from './json-value.ts';
import type { KindInfo } from './kinds.ts';
import { listObjects } from './list.ts';
import { checkFieldLabels, parseFieldSelector, parseLabels, type ObjectFilter } from './selectors.ts';
import type { EventType } from './store.ts';
import { eventFor } from './watch.ts';
import { createObject, patchObject, PATCH_TYPES, updateObject, type WriteResult } from './writes.ts';

/** Which collection: `apiVersion` as in manifests (`v1`, `apps/v1`, `maintenance.nvidia.com/v1alpha1`). */
export interface ResourceRef {
  apiVersion: string;
  resource: string;
}

export interface LocalListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export type LocalPatchType = keyof typeof PATCH_TYPES;

function parse(text: string): JsonObject {
  return JSON.parse(text) as JsonObject;
}

/** The resourceVersion a write's result reads as, without parsing the stored text (put stamps it there). */
function versionOf(r: WriteResult): string | undefined {
  if (r.stored) return String(r.stored.resourceVersion);
  const rv = (r.object['metadata'] as { resourceVersion?: unknown } | undefined)?.resourceVersion;
  return typeof rv === 'string' ? rv : undefined;
}

export class LocalApi {
  constructor(private readonly ctx: SimContext) {}

  private kind(ref: ResourceRef): KindInfo {
    const [group, version] = ref.apiVersion.includes('/') ? (ref.apiVersion.split('/') as [string, string]) : ['', ref.apiVersion];
    const kind = this.ctx.kinds.lookup(group, version, ref.resource);
    if (!kind) throw resourceNotFound();
    return kind;
  }

  private filter(kind: KindInfo, options: LocalListOptions): ObjectFilter {
    const fields = parseFieldSelector(options.fieldSelector ?? null);
    checkFieldLabels(kind, fields);
    return { namespace: kind.namespaced ? options.namespace : undefined, labels: parseLabels(options.labelSelector ?? null), fields };
  }

  create(ref: ResourceRef, namespace: string, obj: Json): JsonObject {
    const r = createObject(this.ctx, this.kind(ref), namespace, obj);
    return r.stored ? parse(r.stored.json) : r.object;
  }

  /** create, for callers that need no copy of the result: the resourceVersion it was stored with. */
  createVersion(ref: ResourceRef, namespace: string, obj: Json): string | undefined {
    return versionOf(createObject(this.ctx, this.kind(ref), namespace, obj));
  }

  /** patch, for callers that need no copy of the result: the resourceVersion the object has after it. */
  patchVersion(ref: ResourceRef, namespace: string, name: string, patch: Json, type: LocalPatchType = 'merge', subresource: '' | 'status' = ''): string | undefined {
    return versionOf(patchObject(this.ctx, this.kind(ref), namespace, name, PATCH_TYPES[type], patch, subresource));
  }

  get(ref: ResourceRef, namespace: string, name: string): JsonObject | undefined {
    const stored = this.ctx.store.get(this.kind(ref), namespace, name);
    return stored ? parse(stored.json) : undefined;
  }

  list(ref: ResourceRef, options: LocalListOptions = {}): JsonObject[] {
    const kind = this.kind(ref);
    return listObjects(this.ctx, kind, { filter: this.filter(kind, options) }).items.map((o) => parse(o.json));
  }

  update(ref: ResourceRef, namespace: string, name: string, obj: Json, subresource: '' | 'status' = ''): JsonObject {
    const r = updateObject(this.ctx, this.kind(ref), namespace, name, obj, subresource);
    return r.stored ? parse(r.stored.json) : r.object;
  }

  patch(ref: ResourceRef, namespace: string, name: string, patch: Json, type: LocalPatchType = 'merge', subresource: '' | 'status' = ''): JsonObject {
    const r = patchObject(this.ctx, this.kind(ref), namespace, name, PATCH_TYPES[type], patch, subresource);
    return r.stored ? parse(r.stored.json) : r.object;
  }

  /** Returns the object as last stored; `deleted` false when graceful deletion or finalizers keep it. */
  delete(ref: ResourceRef, namespace: string, name: string, options: DeleteOptions = {}): { object: JsonObject; deleted: boolean } {
    return deleteObject(this.ctx, this.kind(ref), namespace, name, options);
  }

  evict(namespace: string, name: string, deleteOptions?: JsonObject): void {
    evictPod(this.ctx, namespace, name, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace }, ...(deleteOptions ? { deleteOptions } : {}) });
  }

  bind(namespace: string, name: string, nodeName: string): void {
    bindPod(this.ctx, namespace, name, { metadata: { name, namespace }, target: { apiVersion: 'v1', kind: 'Node', name: nodeName } });
  }

  /**
   * Calls `listener` synchronously for every later change the selectors see (objects entering or leaving
   * them as ADDED/DELETED, as a watch does). Returns the function that stops it.
   */
  watch(ref: ResourceRef, listener: (type: EventType, object: JsonObject) => void, options: LocalListOptions = {}): () => void {
    const kind = this.kind(ref);
    const filter = this.filter(kind, options);
    return this.ctx.store.subscribe((e) => {
      if (e.kind.group !== kind.group || e.kind.resource !== kind.resource) return;
      const type = eventFor(kind, filter, e);
      if (type) listener(type, parse(e.object.json));
    });
  }

  /** The current resourceVersion of the whole store. */
  get resourceVersion(): string {
    return String(this.ctx.store.resourceVersion);
  }
}
