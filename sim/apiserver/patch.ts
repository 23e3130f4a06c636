// JSON merge patch (RFC 7386) and JSON patch (RFC 6902), with the API server's failure modes.
import { badRequest, patchRejected } from './errors.ts';
import { clone, deepEqual, isObject, type Json, type JsonObject } from './json-value.ts';

export function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return clone(patch);
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

interface JsonPatchOp {
  op: string;
  path: string;
  value?: Json;
  from?: string;
}

function decodePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw patchRejected();
  return pointer
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parseOps(body: Json | undefined): JsonPatchOp[] {
  if (!Array.isArray(body)) {
    throw badRequest(`error decoding patch: json: cannot unmarshal ${body === undefined ? 'null' : isObject(body) ? 'object' : typeof body} into Go value of type []handlers.jsonPatchOp`);
  }
  return body.map((raw) => {
    if (!isObject(raw) || typeof raw['op'] !== 'string' || typeof raw['path'] !== 'string') throw patchRejected();
    const op: JsonPatchOp = { op: raw['op'], path: raw['path'] };
    if ('value' in raw) op.value = raw['value'] as Json;
    if (typeof raw['from'] === 'string') op.from = raw['from'];
    return op;
  });
}

/** The container holding the last path segment; throws 422 when a parent is missing. */
function parentOf(doc: Json, parts: readonly string[]): Json[] | JsonObject {
  let cur: Json = doc;
  for (const p of parts.slice(0, -1)) {
    if (Array.isArray(cur)) {
      const i = Number(p);
      if (!Number.isInteger(i) || i < 0 || i >= cur.length) throw patchRejected();
      cur = cur[i] as Json;
    } else if (isObject(cur)) {
      if (!Object.hasOwn(cur, p)) throw patchRejected();
      cur = cur[p] as Json;
    } else {
      throw patchRejected();
    }
  }
  if (!Array.isArray(cur) && !isObject(cur)) throw patchRejected();
  return cur;
}

function getAt(doc: Json, parts: readonly string[]): Json {
  if (parts.length === 0) return doc;
  const parent = parentOf(doc, parts);
  const last = parts[parts.length - 1] as string;
  if (Array.isArray(parent)) {
    const i = Number(last);
    if (!Number.isInteger(i) || i < 0 || i >= parent.length) throw patchRejected();
    return parent[i] as Json;
  }
  if (!Object.hasOwn(parent, last)) throw patchRejected();
  return parent[last] as Json;
}

function addAt(doc: Json, parts: readonly string[], value: Json, replace: boolean): Json {
  if (parts.length === 0) return value;
  const parent = parentOf(doc, parts);
  const last = parts[parts.length - 1] as string;
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(i) || i < 0 || i > parent.length || (replace && i === parent.length)) throw patchRejected();
    if (replace) parent[i] = value;
    else parent.splice(i, 0, value);
  } else {
    // The API server's JSON patch also lets `replace` create a missing object key.
    parent[last] = value;
  }
  return doc;
}

function removeAt(doc: Json, parts: readonly string[]): Json {
  if (parts.length === 0) throw patchRejected();
  const parent = parentOf(doc, parts);
  const last = parts[parts.length - 1] as string;
  if (Array.isArray(parent)) {
    const i = Number(last);
    if (!Number.isInteger(i) || i < 0 || i >= parent.length) throw patchRejected();
    parent.splice(i, 1);
  } else {
    if (!Object.hasOwn(parent, last)) throw patchRejected();
    delete parent[last];
  }
  return doc;
}

/** Applies a JSON patch to a copy of `target`. Every failing operation is a 422, as on the API server. */
export function jsonPatch(target: Json, body: Json | undefined): Json {
  let doc = clone(target);
  for (const op of parseOps(body)) {
    const parts = decodePointer(op.path);
    switch (op.op) {
      case 'add':
        if (!('value' in op)) throw patchRejected();
        doc = addAt(doc, parts, clone(op.value as Json), false);
        break;
      case 'replace':
        if (!('value' in op)) throw patchRejected();
        doc = addAt(doc, parts, clone(op.value as Json), true);
        break;
      case 'remove':
        doc = removeAt(doc, parts);
        break;
      case 'test':
        if (!deepEqual(getAt(doc, parts), op.value ?? null)) throw patchRejected();
        break;
      case 'copy':
      case 'move': {
        if (op.from === undefined) throw patchRejected();
        const fromParts = decodePointer(op.from);
        const value = clone(getAt(doc, fromParts));
        if (op.op === 'move') doc = removeAt(doc, fromParts);
        doc = addAt(doc, parts, value, false);
        break;
      }
      default:
        throw patchRejected();
    }
  }
  return doc;
}
