// Create, update (PUT) and patch with the real server's semantics: resourceVersion preconditions, status
// subresources, defaulting and validation, generation, no-op writes, and finalizers ending a deletion.
import { admitCreate, admitUpdate } from './admission.ts';
import { defaultBuiltin } from './builtin-defaults.ts';
import type { SimContext } from './context.ts';
import { crdKinds } from './crds.ts';
import { alreadyExists, badRequest, conflict, fieldErrors, forbidden, invalid, notFound, unsupportedMediaType, type FieldError } from './errors.ts';
import { deepEqual, isObject, numberAt, objectAt, stringAt, type Json, type JsonObject } from './json-value.ts';
import { apiVersionOf, keyOf, type KindInfo } from './kinds.ts';
import { carryServerMeta, dropUnknownMeta, generateName, metaOf, nameErrors, normalise, prepareCreateMeta, specPart } from './object-meta.ts';
import { jsonPatch, mergePatch } from './patch.ts';
import { defaultAndPrune } from './schema-defaults.ts';
import { validateCustom } from './schema-validation.ts';
import type { StoredObject } from './store.ts';
import { truncateTimes } from './wire-time.ts';
import { strategicMergePatch } from './strategic-merge.ts';

/** The `fieldValidation` query parameter: what to do with fields the kind does not declare. */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface WriteOptions {
  /** dryRun=All: everything but the store write. */
  dryRun?: boolean;
  /** Unknown fields are dropped; Warn reports them as warnings, Strict refuses the write. @default 'Warn' */
  fieldValidation?: FieldValidation;
}

export interface WriteResult {
  object: JsonObject;
  stored: StoredObject | undefined;
  /** The write ended a deletion (last finalizer removed): the object is gone. */
  deleted?: boolean;
  /** Warning texts for the response (`unknown field "spec.x"`), with fieldValidation=Warn. */
  warnings?: string[];
}

function gr(kind: KindInfo): { group: string; resource: string } {
  return { group: kind.group, resource: kind.resource };
}

function requireObject(body: Json | undefined): JsonObject {
  if (!isObject(body)) throw badRequest('the request body must be a JSON object');
  return body;
}

/**
 * `fieldValidation` on the fields dropped as unknown: Strict refuses them as the decoder does (400 on create and
 * update, 422 on a patch, whose result is decoded), Warn returns them as warnings, Ignore says nothing.
 */
function unknownFieldWarnings(kind: KindInfo, obj: JsonObject, unknown: readonly string[], options: WriteOptions & { fromPatch?: boolean }): string[] {
  const mode = options.fieldValidation ?? 'Warn';
  if (unknown.length === 0 || mode === 'Ignore') return [];
  const texts = unknown.map((f) => `unknown field "${f}"`);
  if (mode === 'Strict') {
    const detail = `strict decoding error: ${texts.join(', ')}`;
    if (options.fromPatch) throw invalid('', '', '', [fieldErrors.invalid('patch', JSON.stringify(obj), detail)]);
    throw badRequest(`${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: ${detail}`);
  }
  return texts;
}

/**
 * Drops unknown fields (metadata's for every kind, the schema's for custom resources), defaults and validates a
 * kind's object; throws 400 (strict decoding) or 422 Invalid, else returns the unknown-field warnings.
 */
function defaultAndValidate(kind: KindInfo, obj: JsonObject, old: JsonObject | undefined, extra: FieldError[], options: WriteOptions & { fromPatch?: boolean }): string[] {
  const name = stringAt(metaOf(obj), 'name') ?? '';
  const unknown = dropUnknownMeta(metaOf(obj));
  const errs: FieldError[] = [...extra];
  let warnings: string[];
  if (kind.custom) {
    unknown.push(...defaultAndPrune(obj, kind.custom.schema));
    warnings = unknownFieldWarnings(kind, obj, unknown, options);
    errs.push(...validateCustom(obj, old, kind.custom.schema));
  } else {
    warnings = unknownFieldWarnings(kind, obj, unknown, options);
    defaultBuiltin(kind, obj);
    truncateTimes(obj);
  }
  if (errs.length > 0) throw invalid(kind.kind, kind.group, name, errs);
  return warnings;
}

export function namespaceGate(ctx: SimContext, kind: KindInfo, namespace: string, name: string): void {
  if (!kind.namespaced) return;
  const nsKind = ctx.kinds.lookup('', 'v1', 'namespaces');
  const ns = nsKind && ctx.store.get(nsKind, '', namespace);
  if (!ns) throw notFound({ group: '', resource: 'namespaces' }, namespace);
  if (ns.json.includes('"deletionTimestamp"')) throw forbidden(gr(kind), name, `unable to create new content in namespace ${namespace} because it is being terminated`);
}

export function createObject(ctx: SimContext, kind: KindInfo, namespace: string, body: Json | undefined, options: WriteOptions = {}): WriteResult {
  const obj = structuredClone(requireObject(body));
  const meta = metaOf(obj);
  const bodyNs = stringAt(meta, 'namespace');
  if (kind.namespaced && bodyNs && bodyNs !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  let name = stringAt(meta, 'name') ?? '';
  const prefix = stringAt(meta, 'generateName');
  if (!name && prefix) {
    do name = generateName(prefix, ctx.random);
    while (ctx.store.get(kind, namespace, name));
    meta['name'] = name;
  }
  if (!name) throw invalid(kind.kind, kind.group, '', [fieldErrors.required('metadata.name', 'name or generateName is required')]);
  namespaceGate(ctx, kind, namespace, name);
  prepareCreateMeta(kind, meta, namespace, ctx.clock.now());
  const errs = [...nameErrors(kind, name), ...admitCreate(ctx, kind, obj)];
  const warnings = defaultAndValidate(kind, obj, undefined, errs, options);
  if (ctx.store.get(kind, kind.namespaced ? namespace : '', name)) throw alreadyExists(gr(kind), name);
  const normalised = normalise(kind, obj, apiVersionOf(kind));
  const extra = warnings.length > 0 ? { warnings } : {};
  if (options.dryRun) return { object: normalised, stored: undefined, ...extra };
  const stored = ctx.store.put(kind, normalised);
  afterWrite(ctx, kind, normalised);
  return { object: normalised, stored, ...extra };
}

/** Side effects of a stored write: a CRD (re)defines what is served; a new namespace gets its default SA. */
function afterWrite(ctx: SimContext, kind: KindInfo, obj: JsonObject): void {
  const key = keyOf(kind);
  if (key === 'apiextensions.k8s.io/customresourcedefinitions') {
    const name = stringAt(metaOf(obj), 'name') ?? '';
    const kinds = crdKinds(obj).kinds;
    ctx.kinds.setCustom(name, kinds);
    if (kinds[0]) ctx.store.reindex(kinds[0]);
  }
  if (key === 'namespaces') {
    const sa = ctx.kinds.lookup('', 'v1', 'serviceaccounts');
    const ns = stringAt(metaOf(obj), 'name') ?? '';
    if (sa && !ctx.store.get(sa, ns, 'default') && !objectAt(metaOf(obj), 'deletionTimestamp')) {
      createObject(ctx, sa, ns, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: ns } });
    }
  }
}

function resourceVersionOf(obj: JsonObject): string | undefined {
  const rv = metaOf(obj)['resourceVersion'];
  return typeof rv === 'string' && rv !== '' ? rv : undefined;
}

/**
 * PUT, or the second half of a PATCH (`fromPatch`: the patched object). `subresource` is '' or 'status'.
 * A stale metadata.resourceVersion in the body is a 409; an unchanged object is not written again.
 */
export function updateObject(
  ctx: SimContext,
  kind: KindInfo,
  namespace: string,
  name: string,
  body: Json | undefined,
  subresource: '' | 'status',
  options: WriteOptions & { fromPatch?: boolean } = {},
): WriteResult {
  const existing = ctx.store.get(kind, namespace, name);
  if (!existing) throw notFound(gr(kind), name);
  const incoming = options.fromPatch ? requireObject(body) : structuredClone(requireObject(body));
  const inMeta = metaOf(incoming);
  const bodyName = stringAt(inMeta, 'name');
  if (bodyName !== undefined && bodyName !== name) throw badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
  const rv = resourceVersionOf(incoming);
  if (rv !== undefined && rv !== String(existing.resourceVersion)) throw conflict(gr(kind), name);
  if (rv === undefined && !options.fromPatch && kind.custom) {
    // The real server names the resource here, not the kind.
    throw invalid(kind.resource, kind.group, name, [fieldErrors.invalid('metadata.resourceVersion', 0, 'must be specified for an update')]);
  }
  const old = JSON.parse(existing.json) as JsonObject;
  const oldMeta = metaOf(old);
  let next: JsonObject;
  if (subresource === 'status') {
    next = structuredClone(old);
    if (incoming['status'] === undefined) delete next['status'];
    else next['status'] = incoming['status'];
  } else {
    next = incoming;
    inMeta['name'] = name;
    carryServerMeta(inMeta, oldMeta);
    if (kind.hasStatus) {
      if (old['status'] === undefined) delete next['status'];
      else next['status'] = old['status'];
    }
  }
  const nextMeta = metaOf(next);
  const errs = admitUpdate(ctx, kind, next, old, subresource);
  if (stringAt(oldMeta, 'deletionTimestamp')) {
    const before = new Set((Array.isArray(oldMeta['finalizers']) ? oldMeta['finalizers'] : []).map(String));
    const added = (Array.isArray(nextMeta['finalizers']) ? nextMeta['finalizers'] : []).map(String).filter((f) => !before.has(f));
    if (added.length > 0) {
      const error = fieldErrors.forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`);
      // The generic metadata check and the kind's own update validation both report it (the message says it once).
      errs.push(error, error);
    }
  }
  const warnings = defaultAndValidate(kind, next, old, errs, options);
  const extra = warnings.length > 0 ? { warnings } : {};
  if (kind.tracksGeneration && !deepEqual(specPart(kind, next), specPart(kind, old))) nextMeta['generation'] = (numberAt(oldMeta, 'generation') ?? 0) + 1;
  nextMeta['resourceVersion'] = String(existing.resourceVersion);
  const normalised = normalise(kind, next, apiVersionOf(kind));
  if (deepEqual(normalised, normalise(kind, old, apiVersionOf(kind)))) return { object: old, stored: existing, ...extra };
  if (options.dryRun) return { object: normalised, stored: undefined, ...extra };
  const finalizers = Array.isArray(nextMeta['finalizers']) ? nextMeta['finalizers'] : [];
  if (stringAt(oldMeta, 'deletionTimestamp') && finalizers.length === 0 && (numberAt(oldMeta, 'deletionGracePeriodSeconds') ?? 0) === 0) {
    ctx.store.remove(kind, namespace, name);
    return { object: normalised, stored: undefined, deleted: true, ...extra };
  }
  const stored = ctx.store.put(kind, normalised);
  afterWrite(ctx, kind, normalised);
  return { object: normalised, stored, ...extra };
}

export const PATCH_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

function acceptedPatchTypes(kind: KindInfo): string[] {
  const types: string[] = [PATCH_TYPES.json, PATCH_TYPES.merge, PATCH_TYPES.apply];
  if (!kind.custom) types.push(PATCH_TYPES.strategic);
  return types;
}

/** PATCH: the patch is applied to the stored object; metadata.resourceVersion in the result is a precondition. */
export function patchObject(
  ctx: SimContext,
  kind: KindInfo,
  namespace: string,
  name: string,
  contentType: string,
  body: Json | undefined,
  subresource: '' | 'status',
  options: WriteOptions = {},
): WriteResult {
  const type = contentType.split(';')[0]?.trim() ?? '';
  const accepted = acceptedPatchTypes(kind);
  if (!accepted.includes(type) || type === PATCH_TYPES.apply) throw unsupportedMediaType(accepted);
  const existing = ctx.store.get(kind, namespace, name);
  if (!existing) throw notFound(gr(kind), name);
  const current = JSON.parse(existing.json) as JsonObject;
  let patched: Json;
  if (type === PATCH_TYPES.json) patched = jsonPatch(current, body);
  else if (type === PATCH_TYPES.merge) {
    if (!isObject(body)) throw badRequest('error decoding patch: the patch must be a JSON object');
    patched = mergePatch(current, body);
  } else patched = strategicMergePatch(current, body);
  if (!isObject(patched)) throw badRequest('the patched object must be a JSON object');
  return updateObject(ctx, kind, namespace, name, patched, subresource, { ...options, fromPatch: true });
}
