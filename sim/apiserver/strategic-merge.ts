// Strategic merge patch for built-in kinds: lists merge by the key Kubernetes' Go types declare, other lists are
// replaced; `$patch`, `$retainKeys`, `$deleteFromPrimitiveList/` and `$setElementOrder/` directives.
import { patchRejected } from './errors.ts';
import { clone, deepEqual, isObject, type Json, type JsonObject } from './json-value.ts';

/**
 * Lists with patchStrategy "merge" in k8s.io/api core, apps, policy, batch and meta types, by field name, with
 * their patchMergeKey ('' = a list of primitives merged as a set). containerStatuses and taints are not here:
 * the real server replaces them whole.
 */
const MERGE_KEYS: Readonly<Record<string, string>> = {
  addresses: 'type',
  allocatedResourcesStatus: 'name',
  conditions: 'type',
  containers: 'name',
  env: 'name',
  ephemeralContainers: 'name',
  finalizers: '',
  hostAliases: 'ip',
  hostIPs: 'ip',
  imagePullSecrets: 'name',
  initContainers: 'name',
  ownerReferences: 'uid',
  podCIDRs: '',
  podIPs: 'ip',
  ports: 'containerPort',
  resourceClaims: 'name',
  resourceClaimStatuses: 'name',
  schedulingGates: 'name',
  secrets: 'name',
  topologySpreadConstraints: 'topologyKey',
  volumeDevices: 'devicePath',
  volumeMounts: 'mountPath',
  volumes: 'name',
};

function mergeKeyFor(field: string, patchItems: readonly Json[], current: readonly Json[]): string | undefined {
  const key = MERGE_KEYS[field];
  // Service ports merge by `port`, container ports by `containerPort`.
  if (field === 'ports') {
    const sample = [...patchItems, ...current].find(isObject);
    return sample && !('containerPort' in sample) ? 'port' : key;
  }
  return key;
}

function mergeObjects(target: JsonObject, patch: JsonObject): JsonObject | undefined {
  const directive = patch['$patch'];
  if (directive === 'delete') return undefined;
  if (directive === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return stripDirectives(rest) as JsonObject;
  }
  const out: JsonObject = { ...target };
  const retain = patch['$retainKeys'];
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith('$setElementOrder/')) continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      const list = out[field];
      if (Array.isArray(list) && Array.isArray(v)) out[field] = list.filter((x) => !v.some((d) => deepEqual(d, x)));
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    const cur = out[k];
    if (Array.isArray(v)) {
      out[k] = Array.isArray(cur) ? mergeLists(k, cur, v) : stripDirectives(v.filter((x) => !(isObject(x) && x['$patch'] === 'delete')));
    } else if (isObject(v)) {
      const merged = mergeObjects(isObject(cur) ? cur : {}, v);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    } else {
      out[k] = clone(v);
    }
  }
  if (Array.isArray(retain)) {
    for (const k of Object.keys(out)) if (!retain.includes(k)) delete out[k];
  }
  return out;
}

function mergeLists(field: string, current: readonly Json[], patch: readonly Json[]): Json[] {
  const key = mergeKeyFor(field, patch, current);
  if (key === undefined) return stripDirectives([...patch]) as Json[];
  if (patch.some((p) => isObject(p) && p['$patch'] === 'replace')) {
    return stripDirectives(patch.filter((p) => !(isObject(p) && p['$patch'] === 'replace'))) as Json[];
  }
  if (key === '') {
    const out = [...current];
    for (const p of patch) if (!out.some((c) => deepEqual(c, p))) out.push(clone(p));
    return out;
  }
  const out: Json[] = [...current];
  for (const p of patch) {
    if (!isObject(p)) throw patchRejected();
    const id = p[key];
    const index = out.findIndex((c) => isObject(c) && deepEqual(c[key], id));
    if (p['$patch'] === 'delete') {
      if (index >= 0) out.splice(index, 1);
      continue;
    }
    if (index >= 0) {
      const merged = mergeObjects(out[index] as JsonObject, p);
      if (merged === undefined) out.splice(index, 1);
      else out[index] = merged;
    } else {
      out.push(stripDirectives(p));
    }
  }
  return out;
}

function stripDirectives(value: Json): Json {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith('$')) continue;
    if (v !== null) out[k] = stripDirectives(v);
  }
  return out;
}

/** Applies a strategic merge patch to `target` (not modified). */
export function strategicMergePatch(target: JsonObject, patch: Json | undefined): JsonObject {
  if (!isObject(patch)) throw patchRejected();
  return mergeObjects(target, patch) ?? {};
}
