// ObjectMeta rules shared by every kind: names and generateName, what create sets, what updates may not change,
// the field order the real server writes, and timestamps.
import { rfc3339Seconds } from '../../shared/api/index.ts';
import { randomUUID } from 'node:crypto';
import { fieldErrors, type FieldError } from './errors.ts';
import { isObject, sortKeysDeep, type Json, type JsonObject } from './json-value.ts';
import type { KindInfo } from './kinds.ts';

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/** Name rules per kind: namespaces are RFC 1123 labels, services DNS-1035 labels, everything else subdomains. */
export function nameErrors(kind: KindInfo, name: string): FieldError[] {
  const errs: FieldError[] = [];
  const [re, msg, max] =
    kind.resource === 'namespaces' && !kind.group ? [LABEL, LABEL_MSG, 63] : kind.resource === 'services' && !kind.group ? [DNS1035, DNS1035_MSG, 63] : [SUBDOMAIN, SUBDOMAIN_MSG, 253];
  if (name.length > max) errs.push(fieldErrors.invalid('metadata.name', name, `must be no more than ${max} characters`));
  if (!re.test(name)) errs.push(fieldErrors.invalid('metadata.name', name, msg));
  return errs;
}

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** generateName plus five random characters, the prefix cut to leave room (names.SimpleNameGenerator). */
export function generateName(prefix: string, random: () => number): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += GENERATE_ALPHABET[Math.floor(random() * GENERATE_ALPHABET.length)];
  return `${prefix.slice(0, 63 - 5)}${suffix}`;
}

export function metaOf(obj: JsonObject): JsonObject {
  const m = obj['metadata'];
  if (isObject(m)) return m;
  const created: JsonObject = {};
  obj['metadata'] = created;
  return created;
}

/** Sets what the server owns on create: uid, creationTimestamp, generation; clears deletion fields. */
export function prepareCreateMeta(kind: KindInfo, meta: JsonObject, namespace: string, now: number): void {
  if (kind.namespaced) meta['namespace'] = namespace;
  else delete meta['namespace'];
  meta['uid'] = randomUUID();
  // Placeholder so the key keeps its place in the written order; the store sets the value.
  meta['resourceVersion'] = '';
  delete meta['selfLink'];
  delete meta['deletionTimestamp'];
  delete meta['deletionGracePeriodSeconds'];
  delete meta['managedFields'];
  meta['creationTimestamp'] = rfc3339Seconds(now);
  if (kind.tracksGeneration) meta['generation'] = 1;
  else delete meta['generation'];
}

const SERVER_OWNED = ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'namespace'] as const;

/** Keeps the fields an update may not change from the stored object's metadata. */
export function carryServerMeta(next: JsonObject, old: JsonObject): void {
  for (const k of SERVER_OWNED) {
    if (old[k] === undefined) delete next[k];
    else next[k] = old[k] as Json;
  }
  delete next['managedFields'];
  delete next['selfLink'];
}

/** The fields of ObjectMeta; anything else under metadata is an unknown field the decoder drops. */
const OBJECT_META_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** Drops unknown metadata fields and returns their paths (`metadata.bogus`), in key order. */
export function dropUnknownMeta(meta: JsonObject): string[] {
  const unknown = Object.keys(meta)
    .filter((k) => !OBJECT_META_FIELDS.has(k))
    .sort();
  for (const k of unknown) delete meta[k];
  return unknown.map((k) => `metadata.${k}`);
}

const META_ORDER = [
  'name',
  'generateName',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
];

function ordered(obj: JsonObject, order: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const k of order) if (obj[k] !== undefined) out[k] = obj[k] as Json;
  for (const [k, v] of Object.entries(obj)) if (!(k in out)) out[k] = v;
  return out;
}

/**
 * The object as the real server writes it: built-in kinds as `kind, apiVersion, metadata, ...` with metadata
 * fields in ObjectMeta's order; custom resources with every key sorted (Go map order).
 */
export function normalise(kind: KindInfo, obj: JsonObject, apiVersion: string): JsonObject {
  obj['apiVersion'] = apiVersion;
  obj['kind'] = kind.kind;
  const meta = metaOf(obj);
  for (const k of ['labels', 'annotations']) {
    const m = meta[k];
    if (isObject(m) && Object.keys(m).length === 0) delete meta[k];
  }
  if (Array.isArray(meta['finalizers']) && meta['finalizers'].length === 0) delete meta['finalizers'];
  if (Array.isArray(meta['ownerReferences']) && meta['ownerReferences'].length === 0) delete meta['ownerReferences'];
  if (kind.custom) return sortKeysDeep(obj) as JsonObject;
  const out = ordered(obj, ['kind', 'apiVersion', 'metadata']);
  out['metadata'] = ordered(meta, META_ORDER);
  return out;
}

/** The parts of an object that make a new generation: everything except metadata and (with the subresource) status. */
export function specPart(kind: KindInfo, obj: JsonObject): JsonObject {
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = obj;
  if (kind.hasStatus) delete rest['status'];
  return rest;
}
