// JSON values as the simulated API server stores and patches them: types, guards, deep copy and equality.

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object at `key`, or undefined when it is absent or not an object. */
export function objectAt(parent: JsonObject | undefined, key: string): JsonObject | undefined {
  const v = parent?.[key];
  return isObject(v) ? v : undefined;
}

export function stringAt(parent: JsonObject | undefined, key: string): string | undefined {
  const v = parent?.[key];
  return typeof v === 'string' ? v : undefined;
}

export function numberAt(parent: JsonObject | undefined, key: string): number | undefined {
  const v = parent?.[key];
  return typeof v === 'number' ? v : undefined;
}

export function arrayAt(parent: JsonObject | undefined, key: string): Json[] | undefined {
  const v = parent?.[key];
  return Array.isArray(v) ? v : undefined;
}

/** Labels and annotations: string values only, as the API server keeps them. */
export function stringMapAt(parent: JsonObject | undefined, key: string): Record<string, string> {
  const v = objectAt(parent, key);
  const out: Record<string, string> = {};
  if (!v) return out;
  for (const [k, val] of Object.entries(v)) if (typeof val === 'string') out[k] = val;
  return out;
}

export function clone<T extends Json>(value: T): T {
  return structuredClone(value);
}

export function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => deepEqual(v, b[i]));
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
}

/** A copy with object keys sorted at every level, as Go serialises unstructured objects (custom resources). */
export function sortKeysDeep(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const k of Object.keys(value).sort()) out[k] = sortKeysDeep(value[k] as Json);
  return out;
}

/** Parses a request body; undefined for an empty body. Throws SyntaxError on bad JSON. */
export function parseJson(text: string): Json | undefined {
  if (text.trim() === '') return undefined;
  return JSON.parse(text) as Json;
}
