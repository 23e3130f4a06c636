// Structural-schema defaulting and pruning of custom resources, as apiextensions-apiserver does on every write.
import { clone, isObject, type Json, type JsonObject } from './json-value.ts';

export type Schema = JsonObject;

function propertiesOf(schema: Schema | undefined): JsonObject | undefined {
  const p = schema?.['properties'];
  return isObject(p) ? p : undefined;
}

function additionalOf(schema: Schema | undefined): Schema | undefined {
  const a = schema?.['additionalProperties'];
  return isObject(a) ? a : undefined;
}

function itemsOf(schema: Schema | undefined): Schema | undefined {
  const i = schema?.['items'];
  return isObject(i) ? i : undefined;
}

/** Sets every missing property that has a `default`, then recurses (defaults of defaults apply too). */
function applyDefaults(value: Json, schema: Schema | undefined): void {
  if (!schema) return;
  if (isObject(value)) {
    const props = propertiesOf(schema);
    if (props) {
      for (const [k, prop] of Object.entries(props)) {
        if (!isObject(prop) || !('default' in prop)) continue;
        const nullable = prop['nullable'] === true;
        if (!Object.hasOwn(value, k) || (value[k] === null && !nullable)) value[k] = clone(prop['default'] as Json);
      }
    }
    for (const [k, v] of Object.entries(value)) {
      const prop = props?.[k];
      if (isObject(prop)) applyDefaults(v, prop);
      else applyDefaults(v, additionalOf(schema));
    }
  } else if (Array.isArray(value)) {
    for (const item of value) applyDefaults(item, itemsOf(schema));
  }
}

/**
 * Drops fields the schema does not declare (unless it preserves unknown fields), recursively, and appends their
 * paths to `dropped` (`spec.bogus`, `spec.items[0].x`) in key order, as the API server reports unknown fields.
 */
function prune(value: Json, schema: Schema | undefined, embedded: boolean, path: string, dropped: string[]): void {
  if (!schema) return;
  if (isObject(value)) {
    const props = propertiesOf(schema);
    const additional = additionalOf(schema);
    const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true || schema['additionalProperties'] === true;
    for (const k of Object.keys(value).sort()) {
      if (embedded && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      const prop = props?.[k];
      const at = path ? `${path}.${k}` : k;
      if (isObject(prop)) prune(value[k] as Json, prop, prop['x-kubernetes-embedded-resource'] === true, at, dropped);
      else if (additional) prune(value[k] as Json, additional, additional['x-kubernetes-embedded-resource'] === true, at, dropped);
      else if (!preserve) {
        delete value[k];
        dropped.push(at);
      }
    }
  } else if (Array.isArray(value)) {
    const items = itemsOf(schema);
    value.forEach((item, i) => prune(item, items, items?.['x-kubernetes-embedded-resource'] === true, `${path}[${i}]`, dropped));
  }
}

/**
 * Defaults and prunes a custom resource in place and returns the paths of the unknown fields it dropped. At the
 * root, apiVersion, kind and metadata are the API server's, not the schema's: they are neither pruned nor defaulted.
 */
export function defaultAndPrune(obj: JsonObject, schema: Schema | undefined): string[] {
  if (!schema) return [];
  const { apiVersion, kind, metadata, ...rest } = obj;
  const body: JsonObject = rest;
  const unknown: string[] = [];
  prune(body, schema, false, '', unknown);
  applyDefaults(body, schema);
  // Defaults never carry unknown fields a client sent; what this pass drops is not reported.
  prune(body, schema, false, '', []);
  for (const k of Object.keys(obj)) delete obj[k];
  if (apiVersion !== undefined) obj['apiVersion'] = apiVersion;
  if (kind !== undefined) obj['kind'] = kind;
  if (metadata !== undefined) obj['metadata'] = metadata;
  Object.assign(obj, body);
  return unknown;
}

/** Whether any node of the schema carries x-kubernetes-validations (CEL rules). */
export function hasValidationRules(schema: Json | undefined): boolean {
  if (Array.isArray(schema)) return schema.some(hasValidationRules);
  if (!isObject(schema)) return false;
  if (Array.isArray(schema['x-kubernetes-validations']) && schema['x-kubernetes-validations'].length > 0) return true;
  return Object.entries(schema).some(([k, v]) => k !== 'default' && k !== 'example' && k !== 'enum' && hasValidationRules(v));
}
