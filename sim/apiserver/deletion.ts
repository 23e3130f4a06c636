// DELETE with the real server's rules: uid/resourceVersion preconditions, pods' graceful deletion (only pods bound
// to a node and not finished wait for their kubelet), finalizers keeping objects, namespaces and CRDs emptied.
import { rfc3339Seconds } from '../../shared/api/index.ts';
import type { SimContext } from './context.ts';
import { badRequest, conflict, fieldErrors, invalid, notFound, type FieldError } from './errors.ts';
import { isObject, numberAt, objectAt, stringAt, type Json, type JsonObject } from './json-value.ts';
import { keyOf, type KindInfo } from './kinds.ts';
import { metaOf } from './object-meta.ts';
import { matchesFilter, type ObjectFilter } from './selectors.ts';

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  /** Orphan and Foreground add the `orphan` or `foregroundDeletion` finalizer the garbage collector acts on. */
  propagationPolicy?: PropagationPolicy;
}

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';
const POLICIES: readonly string[] = ['Foreground', 'Background', 'Orphan'];
/** The finalizers the garbage collector removes once it has orphaned, or deleted, the object's dependents. */
export const GC_FINALIZERS = { Orphan: 'orphan', Foreground: 'foregroundDeletion' } as const;

/** DeleteOptions.propagationPolicy and the older orphanDependents, validated as the server does (422). */
function parsePolicy(body: JsonObject | undefined, query: URLSearchParams): PropagationPolicy | undefined {
  const policy = body?.['propagationPolicy'] ?? query.get('propagationPolicy') ?? undefined;
  const orphanQuery = query.get('orphanDependents');
  const orphan = body?.['orphanDependents'] ?? (orphanQuery !== null ? orphanQuery === 'true' : undefined);
  const refuse = (e: FieldError): never => {
    throw invalid('DeleteOptions', 'meta.k8s.io', '', [e]);
  };
  if (policy !== undefined && policy !== null && (typeof policy !== 'string' || !POLICIES.includes(policy))) refuse(fieldErrors.notSupported('propagationPolicy', policy, [...POLICIES, 'nil']));
  if (typeof policy === 'string' && typeof orphan === 'boolean') refuse(fieldErrors.invalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
  if (typeof policy === 'string') return policy as PropagationPolicy;
  return typeof orphan === 'boolean' ? (orphan ? 'Orphan' : 'Background') : undefined;
}

/** Kinds whose dependents are orphaned when no policy is given (DefaultGarbageCollectionPolicy, seen on the testbed). */
const ORPHAN_BY_DEFAULT: ReadonlySet<string> = new Set(['batch/jobs', 'replicationcontrollers']);

export interface DeleteResult {
  /** The object as last stored (with deletionTimestamp when graceful or held by finalizers). */
  object: JsonObject;
  /** Gone from the store (false: marked for deletion and kept). */
  deleted: boolean;
}

/** DeleteOptions from the body (if any) and the query (`gracePeriodSeconds`, `dryRun`). */
export function parseDeleteOptions(body: Json | undefined, query: URLSearchParams): DeleteOptions {
  const options: DeleteOptions = {};
  if (body !== undefined && !isObject(body)) throw badRequest('the request body must be a DeleteOptions object');
  const grace = body?.['gracePeriodSeconds'] ?? (query.get('gracePeriodSeconds') !== null ? Number(query.get('gracePeriodSeconds')) : undefined);
  if (typeof grace === 'number' && Number.isFinite(grace)) options.gracePeriodSeconds = grace;
  const pre = objectAt(body, 'preconditions');
  if (pre) {
    options.preconditions = {};
    const uid = stringAt(pre, 'uid');
    const rv = stringAt(pre, 'resourceVersion');
    if (uid !== undefined) options.preconditions.uid = uid;
    if (rv !== undefined) options.preconditions.resourceVersion = rv;
  }
  const dry = body?.['dryRun'] ?? query.getAll('dryRun');
  if (Array.isArray(dry) && dry.includes('All')) options.dryRun = true;
  const policy = parsePolicy(body, query);
  if (policy) options.propagationPolicy = policy;
  return options;
}

function preconditionConflict(kind: KindInfo, name: string, detail: string): Error {
  return conflict({ group: kind.group, resource: kind.kind }, name, detail);
}

/** The grace period a pod gets (podStrategy.CheckGracefulDelete). */
function podGracePeriod(pod: JsonObject, requested: number | undefined): number {
  const spec = objectAt(pod, 'spec') ?? {};
  let period = requested ?? numberAt(spec, 'terminationGracePeriodSeconds') ?? 0;
  if (!stringAt(spec, 'nodeName')) period = 0;
  const phase = stringAt(objectAt(pod, 'status'), 'phase');
  if (phase === 'Succeeded' || phase === 'Failed') period = 0;
  return period < 0 ? 1 : period;
}

function finalizersOf(meta: JsonObject): Json[] {
  return Array.isArray(meta['finalizers']) ? meta['finalizers'] : [];
}

export function deleteObject(ctx: SimContext, kind: KindInfo, namespace: string, name: string, options: DeleteOptions = {}): DeleteResult {
  const existing = ctx.store.get(kind, namespace, name);
  if (!existing) throw notFound({ group: kind.group, resource: kind.resource }, name);
  const pre = options.preconditions;
  if (pre?.uid !== undefined && pre.uid !== existing.uid) {
    throw preconditionConflict(kind, name, `the UID in the precondition (${pre.uid}) does not match the UID in record (${existing.uid}). The object might have been deleted and then recreated`);
  }
  if (pre?.resourceVersion !== undefined && pre.resourceVersion !== String(existing.resourceVersion)) {
    throw preconditionConflict(kind, name, `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${existing.resourceVersion}). The object might have been modified`);
  }
  if (keyOf(kind) === 'namespaces') return deleteNamespace(ctx, kind, name, options);
  const obj = JSON.parse(existing.json) as JsonObject;
  const meta = metaOf(obj);
  const now = ctx.clock.now();
  const requested = options.gracePeriodSeconds !== undefined && options.gracePeriodSeconds < 0 ? 1 : options.gracePeriodSeconds;
  const deleting = stringAt(meta, 'deletionTimestamp');
  const currentGrace = numberAt(meta, 'deletionGracePeriodSeconds');
  let changed = false;
  const policy = options.propagationPolicy ?? (ORPHAN_BY_DEFAULT.has(keyOf(kind)) ? 'Orphan' : 'Background');
  const gcFinalizer = policy === 'Background' ? undefined : GC_FINALIZERS[policy];
  if (!deleting && gcFinalizer && ctx.admission.garbageCollection === true && !finalizersOf(meta).includes(gcFinalizer)) meta['finalizers'] = [...finalizersOf(meta), gcFinalizer];
  if (deleting && currentGrace !== undefined && currentGrace > 0) {
    // Already terminating gracefully: only a shorter grace period changes anything.
    if (requested === undefined || requested >= currentGrace) return { object: obj, deleted: false };
    let period = requested;
    let at = Date.parse(deleting) - currentGrace * 1000 + period * 1000;
    if (at < now) {
      at = now;
      if (period !== 0) period = 1;
    }
    meta['deletionTimestamp'] = rfc3339Seconds(at);
    meta['deletionGracePeriodSeconds'] = period;
    changed = true;
  } else if (!deleting && keyOf(kind) === 'pods') {
    const period = podGracePeriod(obj, requested);
    meta['deletionTimestamp'] = rfc3339Seconds(now + period * 1000);
    meta['deletionGracePeriodSeconds'] = period;
    if (typeof meta['generation'] === 'number') meta['generation'] += 1;
    changed = true;
  }
  const grace = numberAt(meta, 'deletionGracePeriodSeconds') ?? 0;
  if (grace > 0 || (finalizersOf(meta).length > 0)) {
    if (!stringAt(meta, 'deletionTimestamp')) {
      meta['deletionTimestamp'] = rfc3339Seconds(now);
      meta['deletionGracePeriodSeconds'] = 0;
      if (typeof meta['generation'] === 'number') meta['generation'] += 1;
      changed = true;
    }
    if (!changed || options.dryRun) return { object: obj, deleted: false };
    // put stamps the resourceVersion into obj, which then reads as the stored text would parse (strings and
    // numbers only were changed): no need to parse it back.
    ctx.store.put(kind, obj);
    return { object: obj, deleted: false };
  }
  if (options.dryRun) return { object: obj, deleted: true };
  // A pod is always deleted gracefully, even with a grace period of 0: the server stores the deletionTimestamp (watchers
  // see MODIFIED) and only then removes it (DELETED), as the real registry does for a graceful delete that is due now.
  if (changed && keyOf(kind) === 'pods') ctx.store.put(kind, obj);
  if (keyOf(kind) === 'apiextensions.k8s.io/customresourcedefinitions') dropCustomResources(ctx, name);
  ctx.store.remove(kind, namespace, name);
  if (kind.namespaced) finalizeNamespaceIfEmpty(ctx, namespace);
  return { object: obj, deleted: true };
}

/** Every custom resource of a deleted CRD goes with it, then the kinds stop being served. */
function dropCustomResources(ctx: SimContext, crdName: string): void {
  for (const kind of ctx.kinds.customKinds(crdName).slice(0, 1)) {
    const c = ctx.store.collection(kind);
    for (const o of [...c.objects.values()]) ctx.store.remove(kind, o.namespace, o.name);
    ctx.store.dropCollection(kind);
  }
  ctx.kinds.removeCustom(crdName);
}

const NAMESPACE_PURGING = 'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.';

/** Marks the namespace Terminating, deletes its content (pods gracefully), and purges it once it is empty. */
function deleteNamespace(ctx: SimContext, kind: KindInfo, name: string, options: DeleteOptions): DeleteResult {
  const existing = ctx.store.get(kind, '', name);
  const obj = JSON.parse(existing?.json ?? '{}') as JsonObject;
  const meta = metaOf(obj);
  if (stringAt(meta, 'deletionTimestamp')) throw conflict({ group: '', resource: 'namespaces' }, name, NAMESPACE_PURGING);
  meta['deletionTimestamp'] = rfc3339Seconds(ctx.clock.now());
  obj['status'] = { phase: 'Terminating' };
  if (options.dryRun) return { object: obj, deleted: false };
  const stored = ctx.store.put(kind, obj);
  for (const k of ctx.kinds.all()) {
    if (!k.namespaced) continue;
    for (const o of objectsInNamespace(ctx, k, name)) {
      try {
        // As the namespace controller: dependents go in the background, whatever the kind's default.
        deleteObject(ctx, k, name, o, { propagationPolicy: 'Background' });
      } catch {
        // Deleted meanwhile (a CRD's resources go with it): nothing left to do.
      }
    }
  }
  finalizeNamespaceIfEmpty(ctx, name);
  return { object: JSON.parse(stored.json) as JsonObject, deleted: false };
}

function objectsInNamespace(ctx: SimContext, kind: KindInfo, namespace: string): string[] {
  const c = ctx.store.collection(kind);
  const keys = c.keysInOrder();
  const out: string[] = [];
  for (let i = c.lowerBound(`${namespace}/`); i < keys.length && (keys[i] as string).startsWith(`${namespace}/`); i++) {
    const o = c.objects.get(keys[i] as string);
    if (o) out.push(o.name);
  }
  return out;
}

/** A Terminating namespace disappears once no namespaced object is left in it. */
export function finalizeNamespaceIfEmpty(ctx: SimContext, namespace: string): void {
  const nsKind = ctx.kinds.lookup('', 'v1', 'namespaces');
  const ns = nsKind && ctx.store.get(nsKind, '', namespace);
  if (!nsKind || !ns || !ns.json.includes('"deletionTimestamp"')) return;
  for (const k of ctx.kinds.all()) if (k.namespaced && objectsInNamespace(ctx, k, namespace).length > 0) return;
  ctx.store.remove(nsKind, '', namespace);
}

/** DELETE on a collection: each selected object is deleted as by DELETE; returns what each delete returned. */
export function deleteCollection(ctx: SimContext, kind: KindInfo, filter: ObjectFilter, options: DeleteOptions): JsonObject[] {
  const c = ctx.store.collection(kind);
  const targets = [...c.objects.values()].filter((o) => matchesFilter(kind, filter, o));
  const out: JsonObject[] = [];
  for (const o of targets) {
    try {
      out.push(deleteObject(ctx, kind, o.namespace, o.name, { ...options, preconditions: undefined } as DeleteOptions).object);
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}
