// The in-memory object store: objects kept as JSON text, one global resourceVersion, key order for paging,
// a pods-by-node index, and a bounded event history that watches replay from.
import type { JsonObject } from './json-value.ts';
import { keyOf, type KindInfo } from './kinds.ts';
import { fieldValuesOf, type Selectable } from './selectors.ts';
import { stringMapAt, objectAt, stringAt } from './json-value.ts';

/** One stored version of an object. Immutable: a write replaces the record. */
export interface StoredObject extends Selectable {
  /** `namespace/name` for namespaced kinds, `name` otherwise; the list order is this key's byte order. */
  readonly key: string;
  readonly uid: string;
  readonly resourceVersion: number;
  readonly json: string;
}

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  readonly type: EventType;
  readonly kind: KindInfo;
  /** The new version; for DELETED the last version, stamped with the deletion's resourceVersion. */
  readonly object: StoredObject;
  /** The version before a MODIFIED or DELETED event, so watches can tell objects leaving their selector. */
  readonly previous: StoredObject | undefined;
  /**
   * ADDED and MODIFIED, to in-process listeners only: the object `put` was given, which `object.json` was written
   * from. Read it while the event is delivered, never keep or change it (its writer may go on changing it), and only
   * where it reads as the parsed text would (writers of pods store plain JSON values). Saves a parse per event.
   */
  readonly written?: JsonObject;
}

export function objectKey(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Keys kept in byte order lazily: appended as they come, deletions marked, compacted and sorted when read. */
class OrderedKeys {
  private readonly keys: string[] = [];
  /** Keys deleted but still in `keys` (compacted on the next read). */
  private readonly removed = new Set<string>();
  private unsorted = false;

  add(key: string): void {
    if (this.removed.delete(key)) return;
    const last = this.keys[this.keys.length - 1];
    if (last !== undefined && last > key) this.unsorted = true;
    this.keys.push(key);
  }

  remove(key: string): void {
    this.removed.add(key);
  }

  /** The keys in byte order. TimSort makes the usual case (a sorted prefix and a few new keys) close to linear. */
  sorted(): readonly string[] {
    if (this.removed.size > 0) {
      let w = 0;
      for (const k of this.keys) if (!this.removed.has(k)) this.keys[w++] = k;
      this.keys.length = w;
      this.removed.clear();
    }
    if (this.unsorted) {
      this.keys.sort();
      this.unsorted = false;
    }
    return this.keys;
  }
}

/** Index of the first key >= `from` in sorted `keys`. */
export function lowerBound(keys: readonly string[], from: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) < from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * All objects of one kind, with their keys in order for paging, the keys of each namespace in order (a namespace's
 * LIST reads only its own keys: a what-if at 150,000 pods re-sorted every pod key for each namespaced LIST), and
 * for pods an index by spec.nodeName.
 */
export class Collection {
  readonly objects = new Map<string, StoredObject>();
  private readonly all = new OrderedKeys();
  private readonly byNamespace = new Map<string, OrderedKeys>();
  readonly byNode: Map<string, Set<string>> | undefined;
  private readonly nodeFieldIndex: number;
  /** Bumped on every set and delete: a reader's cached view of the collection is current while it holds. */
  changes = 0;
  /**
   * label key -> value -> object keys, for the label keys LIST selectors have asked for by equality (made on the
   * first such LIST, kept up to date after): a what-if's drainer lists a budget's 200 pods out of 13,000 in their
   * namespace every pass.
   */
  private readonly byLabel = new Map<string, Map<string, Set<string>>>();

  constructor(readonly kind: KindInfo) {
    this.nodeFieldIndex = kind.fieldLabels.indexOf('spec.nodeName');
    this.byNode = this.nodeFieldIndex >= 0 ? new Map() : undefined;
  }

  get size(): number {
    return this.objects.size;
  }

  private nodeOf(o: StoredObject | undefined): string | undefined {
    return o && this.nodeFieldIndex >= 0 ? o.fields[this.nodeFieldIndex] : undefined;
  }

  private namespaceKeys(namespace: string): OrderedKeys {
    let keys = this.byNamespace.get(namespace);
    if (!keys) this.byNamespace.set(namespace, (keys = new OrderedKeys()));
    return keys;
  }

  set(o: StoredObject): StoredObject | undefined {
    this.changes++;
    const before = this.objects.get(o.key);
    if (!before) {
      this.all.add(o.key);
      if (this.kind.namespaced) this.namespaceKeys(o.namespace).add(o.key);
    }
    this.objects.set(o.key, o);
    for (const [label, index] of this.byLabel) {
      const was = before && labelOf(before, label);
      const now = labelOf(o, label);
      if (was === now) continue;
      if (was !== undefined) removeFrom(index, was, o.key);
      if (now !== undefined) addTo(index, now, o.key);
    }
    const oldNode = this.nodeOf(before);
    const newNode = this.nodeOf(o);
    if (this.byNode && oldNode !== newNode) {
      if (oldNode !== undefined) this.byNode.get(oldNode)?.delete(o.key);
      if (newNode !== undefined) {
        let set = this.byNode.get(newNode);
        if (!set) this.byNode.set(newNode, (set = new Set()));
        set.add(o.key);
      }
    }
    return before;
  }

  delete(key: string): StoredObject | undefined {
    const before = this.objects.get(key);
    if (!before) return undefined;
    this.changes++;
    this.objects.delete(key);
    this.all.remove(key);
    if (this.kind.namespaced) this.namespaceKeys(before.namespace).remove(key);
    for (const [label, index] of this.byLabel) {
      const was = labelOf(before, label);
      if (was !== undefined) removeFrom(index, was, key);
    }
    const node = this.nodeOf(before);
    if (node !== undefined) {
      const set = this.byNode?.get(node);
      set?.delete(key);
      if (set?.size === 0) this.byNode?.delete(node);
    }
    return before;
  }

  /** Keys of the objects whose label `label` is `value` (unordered). */
  keysWithLabel(label: string, value: string): ReadonlySet<string> {
    let index = this.byLabel.get(label);
    if (!index) {
      index = new Map();
      for (const o of this.objects.values()) {
        const v = labelOf(o, label);
        if (v !== undefined) addTo(index, v, o.key);
      }
      this.byLabel.set(label, index);
    }
    return index.get(value) ?? EMPTY;
  }

  /** Keys in byte order, every one an object. */
  keysInOrder(): readonly string[] {
    return this.all.sorted();
  }

  /** The keys of one namespace in byte order, every one an object (namespaced kinds). */
  keysInNamespace(namespace: string): readonly string[] {
    return this.byNamespace.get(namespace)?.sorted() ?? [];
  }

  /** Index of the first key >= `from` in `keysInOrder()`. */
  lowerBound(from: string): number {
    return lowerBound(this.keysInOrder(), from);
  }
}

const EMPTY: ReadonlySet<string> = new Set();

function labelOf(o: StoredObject, label: string): string | undefined {
  return Object.hasOwn(o.labels, label) ? o.labels[label] : undefined;
}

function addTo(index: Map<string, Set<string>>, value: string, key: string): void {
  let keys = index.get(value);
  if (!keys) index.set(value, (keys = new Set()));
  keys.add(key);
}

function removeFrom(index: Map<string, Set<string>>, value: string, key: string): void {
  const keys = index.get(value);
  keys?.delete(key);
  if (keys?.size === 0) index.delete(value);
}

export interface StoreOptions {
  /** Events kept for watches to resume from; older resource versions get 410 Gone. @default 50000 */
  historySize?: number;
}

export class Store {
  private rv = 1000;
  private readonly collections = new Map<string, Collection>();
  private readonly history: StoreEvent[] = [];
  /** resourceVersion of history[0]; history is contiguous because every write takes the next version. */
  private historyStart = 1001;
  private readonly historySize: number;
  private readonly listeners = new Set<(e: StoreEvent) => void>();

  constructor(options: StoreOptions = {}) {
    this.historySize = options.historySize ?? 50_000;
  }

  get resourceVersion(): number {
    return this.rv;
  }

  collection(kind: KindInfo): Collection {
    const key = keyOf(kind);
    let c = this.collections.get(key);
    if (!c) this.collections.set(key, (c = new Collection(kind)));
    return c;
  }

  /** Re-derives selectable fields after a CRD update changed the kind (same objects, no events). */
  reindex(kind: KindInfo): void {
    const old = this.collections.get(keyOf(kind));
    if (!old) return;
    const c = new Collection(kind);
    for (const o of old.objects.values()) c.set(toStored(kind, JSON.parse(o.json) as JsonObject, o.resourceVersion));
    this.collections.set(keyOf(kind), c);
  }

  /** Forgets a kind entirely (its CRD was deleted); no events. */
  dropCollection(kind: KindInfo): void {
    this.collections.delete(keyOf(kind));
  }

  get(kind: KindInfo, namespace: string, name: string): StoredObject | undefined {
    return this.collections.get(keyOf(kind))?.objects.get(objectKey(namespace, name));
  }

  /** The next resourceVersion, for a write about to happen. */
  private nextVersion(): number {
    return ++this.rv;
  }

  /** Stores `obj` (its metadata.resourceVersion is overwritten) and emits ADDED or MODIFIED. */
  put(kind: KindInfo, obj: JsonObject): StoredObject {
    const rv = this.nextVersion();
    const meta = objectAt(obj, 'metadata') ?? {};
    meta['resourceVersion'] = String(rv);
    const stored = toStored(kind, obj, rv);
    const previous = this.collection(kind).set(stored);
    this.emit({ type: previous ? 'MODIFIED' : 'ADDED', kind, object: stored, previous }, obj);
    return stored;
  }

  /** Removes the object and emits DELETED with the last version stamped with a new resourceVersion. */
  remove(kind: KindInfo, namespace: string, name: string): StoredObject | undefined {
    const c = this.collections.get(keyOf(kind));
    const previous = c?.delete(objectKey(namespace, name));
    if (!previous) return undefined;
    const rv = this.nextVersion();
    const last = (kind.fieldLabels.includes('metadata.resourceVersion') ? undefined : restamped(previous, rv)) ?? toStored(kind, stamped(JSON.parse(previous.json) as JsonObject, rv), rv);
    this.emit({ type: 'DELETED', kind, object: last, previous });
    return last;
  }

  subscribe(listener: (e: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Events after `resourceVersion`, or undefined when they are no longer kept (410 Gone). */
  eventsSince(resourceVersion: number): readonly StoreEvent[] | undefined {
    if (resourceVersion >= this.rv) return [];
    if (resourceVersion + 1 < this.historyStart) return undefined;
    return this.history.slice(resourceVersion + 1 - this.historyStart);
  }

  /** Oldest resourceVersion a watch can still start from. */
  get oldestResourceVersion(): number {
    return this.historyStart - 1;
  }

  private emit(e: StoreEvent, written?: JsonObject): void {
    this.history.push(e);
    if (this.history.length > this.historySize * 1.1) {
      const drop = this.history.length - this.historySize;
      this.history.splice(0, drop);
      this.historyStart += drop;
    }
    const delivered = written ? { ...e, written } : e;
    for (const l of this.listeners) l(delivered);
  }
}

function stamped(obj: JsonObject, rv: number): JsonObject {
  (objectAt(obj, 'metadata') ?? {})['resourceVersion'] = String(rv);
  return obj;
}

/**
 * `o` with a new resourceVersion, its text changed in place instead of parsed and written again (a what-if deletes
 * 10^5 pods). Only when the text holds its resourceVersion exactly once, as stored; undefined otherwise.
 */
export function restamped(o: StoredObject, rv: number): StoredObject | undefined {
  const field = `"resourceVersion":"${o.resourceVersion}"`;
  const at = o.json.indexOf(field);
  if (at < 0 || o.json.indexOf(field, at + 1) >= 0) return undefined;
  const json = `${o.json.slice(0, at)}"resourceVersion":"${rv}"${o.json.slice(at + field.length)}`;
  return { ...o, resourceVersion: rv, json };
}

export function toStored(kind: KindInfo, obj: JsonObject, rv: number): StoredObject {
  const meta = objectAt(obj, 'metadata');
  const namespace = kind.namespaced ? (stringAt(meta, 'namespace') ?? '') : '';
  const name = stringAt(meta, 'name') ?? '';
  return {
    key: objectKey(namespace, name),
    namespace,
    name,
    uid: stringAt(meta, 'uid') ?? '',
    resourceVersion: rv,
    json: JSON.stringify(obj),
    labels: stringMapAt(meta, 'labels'),
    fields: fieldValuesOf(kind, obj),
  };
}

/** Parsed, deep-frozen copies of stored versions, made on first read (a write replaces the record, never the text). */
const frozen = new WeakMap<StoredObject, JsonObject>();

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}

/**
 * The object of a stored version, parsed once and deep-frozen, for in-process readers that only read (the
 * what-if's kmaint client lists 5,000 nodes every pass; parsing them each time was most of its cost). A reader
 * that tries to change it gets a TypeError instead of corrupting the cache.
 */
export function frozenObject(o: StoredObject): JsonObject {
  let obj = frozen.get(o);
  if (!obj) {
    obj = deepFreeze(JSON.parse(o.json) as JsonObject);
    frozen.set(o, obj);
  }
  return obj;
}
