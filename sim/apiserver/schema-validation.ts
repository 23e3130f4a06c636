// OpenAPI v3 validation of custom resources with kube-openapi's messages, plus the one CEL rule kmaint's CRDs
// use (`self == oldSelf`, a transition rule). Errors come in property order, `required` after the properties.
import { fieldErrors, type FieldError } from './errors.ts';
import { deepEqual, isObject, type Json, type JsonObject } from './json-value.ts';
import { hasValidationRules, type Schema } from './schema-defaults.ts';

function typeName(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

function typeMatches(expected: string, value: Json): boolean {
  const actual = typeName(value);
  if (expected === 'number') return actual === 'number' || actual === 'integer';
  return expected === actual;
}

function child(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

const BLOCKING: ReadonlySet<FieldError['type']> = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);

function enumValues(schema: Schema): string[] | undefined {
  const e = schema['enum'];
  if (!Array.isArray(e)) return undefined;
  return e.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
}

function checkScalar(value: Json, schema: Schema, path: string, errs: FieldError[]): void {
  if (typeof value === 'string') {
    const max = schema['maxLength'];
    const min = schema['minLength'];
    const pattern = schema['pattern'];
    if (typeof max === 'number' && [...value].length > max) errs.push(fieldErrors.tooLong(path, max));
    if (typeof min === 'number' && [...value].length < min) errs.push(fieldErrors.invalid(path, value, `${path} in body should be at least ${min} chars long`));
    if (typeof pattern === 'string' && !new RegExp(pattern, 'u').test(value)) errs.push(fieldErrors.invalid(path, value, `${path} in body should match '${pattern}'`));
  }
  if (typeof value === 'number') {
    const min = schema['minimum'];
    const max = schema['maximum'];
    const exMin = schema['exclusiveMinimum'] === true;
    const exMax = schema['exclusiveMaximum'] === true;
    if (typeof min === 'number' && (exMin ? value <= min : value < min)) {
      errs.push(fieldErrors.invalid(path, value, `${path} in body should be greater than ${exMin ? '' : 'or equal to '}${min}`));
    }
    if (typeof max === 'number' && (exMax ? value >= max : value > max)) {
      errs.push(fieldErrors.invalid(path, value, `${path} in body should be less than ${exMax ? '' : 'or equal to '}${max}`));
    }
  }
  const values = enumValues(schema);
  if (values && !(schema['enum'] as Json[]).some((e) => deepEqual(e, value))) errs.push(fieldErrors.notSupported(path, value, values));
}

function validateNode(value: Json, schema: Schema, path: string, errs: FieldError[]): void {
  if (value === null && schema['nullable'] === true) return;
  if (schema['x-kubernetes-int-or-string'] === true) {
    if (typeof value !== 'string' && !(typeof value === 'number' && Number.isInteger(value))) {
      const t = typeName(value);
      errs.push(fieldErrors.typeInvalid(path, t, `${path} in body must be of type integer,string: "${t}"`));
      // The anyOf branches report too: the failed anyOf, then the first branch's type.
      const first = Array.isArray(schema['anyOf']) ? schema['anyOf'][0] : undefined;
      if (isObject(first) && typeof first['type'] === 'string') {
        errs.push(fieldErrors.invalid('<nil>', '', `"${path}" must validate at least one schema (anyOf)`));
        errs.push(fieldErrors.typeInvalid(path, t, `${path} in body must be of type ${first['type']}: "${t}"`));
      }
    }
    return;
  }
  const type = schema['type'];
  if (typeof type === 'string' && !typeMatches(type, value)) {
    errs.push(fieldErrors.typeInvalid(path, typeName(value), `${path} in body must be of type ${type}: "${typeName(value)}"`));
    return;
  }
  checkScalar(value, schema, path, errs);
  if (Array.isArray(value)) {
    const items = schema['items'];
    const minItems = schema['minItems'];
    if (typeof minItems === 'number' && value.length < minItems) errs.push(fieldErrors.invalid(path, value.length, `${path} in body should have at least ${minItems} items`));
    const maxItems = schema['maxItems'];
    if (typeof maxItems === 'number' && value.length > maxItems) errs.push(fieldErrors.tooMany(path, value.length, maxItems));
    if (isObject(items)) value.forEach((item, i) => validateNode(item, items, `${path}[${i}]`, errs));
    return;
  }
  if (!isObject(value)) return;
  const props = isObject(schema['properties']) ? schema['properties'] : {};
  const additional = isObject(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
  for (const k of Object.keys(value).sort()) {
    const prop = props[k];
    if (isObject(prop)) validateNode(value[k] as Json, prop, child(path, k), errs);
    else if (additional) validateNode(value[k] as Json, additional, child(path, k), errs);
  }
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  for (const r of required) if (typeof r === 'string' && !Object.hasOwn(value, r)) errs.push(fieldErrors.required(child(path, r)));
}

/** Transition rules along object properties: `self == oldSelf` fails when an existing value changes. */
function checkRules(value: Json | undefined, old: Json | undefined, schema: Schema, path: string, errs: FieldError[]): void {
  const rules = Array.isArray(schema['x-kubernetes-validations']) ? schema['x-kubernetes-validations'] : [];
  for (const rule of rules) {
    if (!isObject(rule) || value === undefined || old === undefined) continue;
    const text = typeof rule['rule'] === 'string' ? rule['rule'].replace(/\s+/g, ' ').trim() : '';
    if (text !== 'self == oldSelf') continue;
    if (!deepEqual(value, old)) {
      const message = typeof rule['message'] === 'string' ? rule['message'] : `failed rule: ${text}`;
      errs.push(fieldErrors.invalid(path, value, message));
    }
  }
  if (!isObject(value) || !isObject(schema['properties'])) return;
  const props = schema['properties'];
  for (const k of Object.keys(value).sort()) {
    const prop = props[k];
    if (isObject(prop)) checkRules(value[k], isObject(old) ? old[k] : undefined, prop, child(path, k), errs);
  }
}

/**
 * Validates a custom resource (without apiVersion/kind/metadata) against its schema; `old` is the stored
 * object on updates. CEL rules run only when no blocking error was found, as on the API server.
 */
export function validateCustom(obj: JsonObject, old: JsonObject | undefined, schema: Schema | undefined): FieldError[] {
  if (!schema) return [];
  const { apiVersion: _a, kind: _k, metadata: _m, ...body } = obj;
  const errs: FieldError[] = [];
  validateNode(body, schema, '', errs);
  if (!hasValidationRules(schema)) return errs;
  if (errs.some((e) => BLOCKING.has(e.type))) {
    errs.push(fieldErrors.invalid('<nil>', null, 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation'));
    return errs;
  }
  if (old) {
    const { apiVersion: _oa, kind: _ok, metadata: _om, ...oldBody } = old;
    checkRules(body, oldBody, schema, '', errs);
  }
  return errs;
}
