// CustomResourceDefinitions: the kinds a CRD serves, the status the API server gives it, loading CRD files.
import { rfc3339Seconds } from '../../shared/api/index.ts';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { fieldErrors, type FieldError } from './errors.ts';
import { arrayAt, isObject, objectAt, stringAt, type Json, type JsonObject } from './json-value.ts';
import { customKind, type KindInfo } from './kinds.ts';

interface CrdNames {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
}

function namesOf(spec: JsonObject): CrdNames {
  const n = objectAt(spec, 'names') ?? {};
  const kind = stringAt(n, 'kind') ?? '';
  const strings = (k: string) => (arrayAt(n, k) ?? []).filter((s): s is string => typeof s === 'string');
  return {
    plural: stringAt(n, 'plural') ?? '',
    singular: stringAt(n, 'singular') ?? kind.toLowerCase(),
    kind,
    listKind: stringAt(n, 'listKind') ?? `${kind}List`,
    shortNames: strings('shortNames'),
    categories: strings('categories'),
  };
}

/** Checks what the simulated server relies on and returns the kinds of the served versions. */
export function crdKinds(crd: JsonObject): { kinds: KindInfo[]; errors: FieldError[] } {
  const spec = objectAt(crd, 'spec') ?? {};
  const name = stringAt(objectAt(crd, 'metadata'), 'name') ?? '';
  const names = namesOf(spec);
  const group = stringAt(spec, 'group') ?? '';
  const errors: FieldError[] = [];
  if (!group) errors.push(fieldErrors.required('spec.group'));
  if (!names.plural) errors.push(fieldErrors.required('spec.names.plural'));
  if (!names.kind) errors.push(fieldErrors.required('spec.names.kind'));
  if (group && names.plural && name !== `${names.plural}.${group}`) errors.push(fieldErrors.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  const versions = (arrayAt(spec, 'versions') ?? []).filter(isObject);
  if (versions.length === 0) errors.push(fieldErrors.required('spec.versions', 'must have exactly one version marked as storage version'));
  else if (versions.filter((v) => v['storage'] === true).length !== 1) errors.push(fieldErrors.invalid('spec.versions', versions.length, 'must have exactly one version marked as storage version'));
  if (!['Namespaced', 'Cluster'].includes(stringAt(spec, 'scope') ?? '')) errors.push(fieldErrors.notSupported('spec.scope', stringAt(spec, 'scope') ?? '', ['Cluster', 'Namespaced']));
  if (errors.length > 0) return { kinds: [], errors };
  return { kinds: versions.filter((v) => v['served'] === true).map((v) => customKind(name, spec, v, names)), errors };
}

function condition(type: string, reason: string, message: string, at: string, previous: JsonObject[]): JsonObject {
  const before = previous.find((c) => c['type'] === type && c['status'] === 'True');
  return { type, status: 'True', lastTransitionTime: stringAt(before, 'lastTransitionTime') ?? at, reason, message };
}

/** NamesAccepted and Established at once (no conflicts are checked), accepted names, stored versions. */
export function crdStatus(crd: JsonObject, now: number): JsonObject {
  const spec = objectAt(crd, 'spec') ?? {};
  const names = namesOf(spec);
  const previous = (arrayAt(objectAt(crd, 'status'), 'conditions') ?? []).filter(isObject);
  const at = rfc3339Seconds(now);
  const storage = (arrayAt(spec, 'versions') ?? []).filter(isObject).find((v) => v['storage'] === true);
  const accepted: JsonObject = { plural: names.plural, singular: names.singular };
  if (names.shortNames.length > 0) accepted['shortNames'] = names.shortNames;
  accepted['kind'] = names.kind;
  accepted['listKind'] = names.listKind;
  if (names.categories.length > 0) accepted['categories'] = names.categories;
  const stored = arrayAt(objectAt(crd, 'status'), 'storedVersions') ?? [];
  const storageName = stringAt(storage, 'name');
  return {
    conditions: [condition('NamesAccepted', 'NoConflicts', 'no conflicts found', at, previous), condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted', at, previous)],
    acceptedNames: accepted,
    storedVersions: storageName && !stored.includes(storageName) ? [...stored, storageName] : stored,
  };
}

/** CRD defaults the API server applies that the sim reads (conversion strategy). */
export function defaultCrd(crd: JsonObject): void {
  const spec = objectAt(crd, 'spec');
  if (spec && spec['conversion'] === undefined) spec['conversion'] = { strategy: 'None' };
}

/** CRD objects from YAML files or directories of them (every `*.yaml`/`*.yml`/`*.json` document of kind CRD). */
export function readCrdFiles(paths: readonly string[]): JsonObject[] {
  const out: JsonObject[] = [];
  for (const p of paths) {
    const files = statSync(p).isDirectory()
      ? readdirSync(p)
          .filter((f) => /\.(ya?ml|json)$/.test(f))
          .sort()
          .map((f) => join(p, f))
      : [p];
    for (const f of files) {
      for (const doc of parseAllDocuments(readFileSync(f, 'utf8'))) {
        if (doc.errors.length > 0) throw new Error(`reading CRD file ${f}: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
        const value = doc.toJS() as Json;
        if (isObject(value) && value['kind'] === 'CustomResourceDefinition') out.push(value);
      }
    }
  }
  return out;
}
