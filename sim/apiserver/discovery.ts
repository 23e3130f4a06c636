// Discovery: /api, /apis (legacy and aggregated apidiscovery.k8s.io/v2, which kubectl asks for first),
// /api/v1 and /apis/{group}[/{version}] resource lists, /version.
import type { JsonObject } from './json-value.ts';
import { apiVersionOf, type KindInfo } from './kinds.ts';

export const AGGREGATED_CONTENT_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/** Whether the Accept header asks for aggregated discovery (kubectl and client-go do). */
export function wantsAggregated(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((part) => part.includes('as=APIGroupDiscoveryList') && part.includes('g=apidiscovery.k8s.io') && /v=v2(;|$)/.test(part.replace(/\s/g, '')));
}

/** Built-in groups in the order the real server lists them; CRD groups follow, sorted. */
const GROUP_ORDER = ['apps', 'batch', 'policy', 'apiextensions.k8s.io', 'coordination.k8s.io'];

function groupsOf(kinds: readonly KindInfo[]): Map<string, Map<string, KindInfo[]>> {
  const groups = new Map<string, Map<string, KindInfo[]>>();
  const sorted = [...kinds].sort((a, b) => {
    const ga = GROUP_ORDER.indexOf(a.group);
    const gb = GROUP_ORDER.indexOf(b.group);
    const ra = ga < 0 ? GROUP_ORDER.length : ga;
    const rb = gb < 0 ? GROUP_ORDER.length : gb;
    return ra - rb || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0) || (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0);
  });
  for (const k of sorted) {
    let versions = groups.get(k.group);
    if (!versions) groups.set(k.group, (versions = new Map()));
    const list = versions.get(k.version) ?? [];
    list.push(k);
    versions.set(k.version, list);
  }
  return groups;
}

function aggregatedResource(k: KindInfo): JsonObject {
  const custom = k.custom !== undefined;
  const r: JsonObject = {
    resource: k.resource,
    responseKind: { group: custom ? k.group : '', version: custom ? k.version : '', kind: k.kind },
    scope: k.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: k.singular,
    verbs: [...k.verbs],
  };
  if (k.shortNames.length > 0) r['shortNames'] = [...k.shortNames];
  if (k.categories.length > 0) r['categories'] = [...k.categories];
  if (k.subresources.length > 0) {
    r['subresources'] = k.subresources.map((s) => ({
      subresource: s.name,
      responseKind: { group: s.group ?? (custom ? k.group : ''), version: s.version ?? (custom ? k.version : ''), kind: s.kind },
      verbs: [...s.verbs],
    }));
  }
  return r;
}

function aggregatedGroup(name: string, versions: Map<string, KindInfo[]>): JsonObject {
  return {
    metadata: name ? { name } : {},
    versions: [...versions.entries()].map(([version, kinds]) => ({ version, resources: kinds.map(aggregatedResource), freshness: 'Current' })),
  };
}

/** GET /api or /apis with Accept for APIGroupDiscoveryList. */
export function aggregatedDiscovery(kinds: readonly KindInfo[], legacy: boolean): JsonObject {
  const groups = groupsOf(kinds);
  const items = [...groups.entries()].filter(([g]) => (legacy ? g === '' : g !== '')).map(([g, v]) => aggregatedGroup(g, v));
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}

export function apiVersions(serverAddress: string): JsonObject {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groupJson(name: string, versions: readonly string[]): JsonObject {
  const preferred = versions[0] ?? 'v1';
  return {
    name,
    versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${name}/${preferred}`, version: preferred },
  };
}

export function apiGroupList(kinds: readonly KindInfo[]): JsonObject {
  const groups = groupsOf(kinds);
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...groups.entries()].filter(([g]) => g !== '').map(([g, v]) => groupJson(g, [...v.keys()])),
  };
}

export function apiGroup(kinds: readonly KindInfo[], group: string): JsonObject | undefined {
  const versions = groupsOf(kinds).get(group);
  if (!versions) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupJson(group, [...versions.keys()]) };
}

/** GET /api/v1 or /apis/{group}/{version}: the APIResourceList, subresources as `pods/status` entries. */
export function apiResourceList(kinds: readonly KindInfo[], group: string, version: string): JsonObject | undefined {
  const served = kinds.filter((k) => k.group === group && k.version === version);
  if (served.length === 0) return undefined;
  const resources: JsonObject[] = [];
  for (const k of served) {
    const r: JsonObject = { name: k.resource, singularName: k.singular, namespaced: k.namespaced, kind: k.kind, verbs: [...k.verbs] };
    if (k.shortNames.length > 0) r['shortNames'] = [...k.shortNames];
    if (k.categories.length > 0) r['categories'] = [...k.categories];
    resources.push(r);
    for (const s of k.subresources) {
      const sub: JsonObject = { name: `${k.resource}/${s.name}`, singularName: '', namespaced: k.namespaced, kind: s.kind, verbs: [...s.verbs] };
      if (s.group) sub['group'] = s.group;
      if (s.version) sub['version'] = s.version;
      resources.push(sub);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf({ group, version }), resources };
}

export function versionInfo(): JsonObject {
  return {
    major: '1',
    minor: '35',
    emulationMajor: '1',
    emulationMinor: '35',
    minCompatibilityMajor: '1',
    minCompatibilityMinor: '34',
    gitVersion: 'v1.35.4-kmaint-sim',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'kmaint-sim',
    platform: `${process.platform}/${process.arch}`,
  };
}
