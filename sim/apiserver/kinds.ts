// The resource kinds the simulated API server serves: built-in ones as a table, custom ones from their CRDs.
import type { JsonObject } from './json-value.ts';

export interface SubresourceInfo {
  name: string;
  /** Response kind; group/version default to the parent's (discovery shows them empty then). */
  kind: string;
  group?: string;
  version?: string;
  verbs: readonly string[];
}

export interface PrinterColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  jsonPath: string;
}

/** What a CRD adds to a kind: its schema (defaults, pruning, validation), printer columns, selectable fields. */
export interface CustomServing {
  crdName: string;
  schema: JsonObject | undefined;
  printerColumns: readonly PrinterColumn[];
  /** JSON paths such as `.spec.nodeName`; the field label is the path without its leading dot. */
  selectableFields: readonly string[];
}

export interface KindInfo {
  readonly group: string;
  readonly version: string;
  /** Plural, lower case: the URL segment. */
  readonly resource: string;
  readonly kind: string;
  readonly listKind: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly string[];
  readonly subresources: readonly SubresourceInfo[];
  /** A status subresource: the main endpoint keeps the stored status, `/status` writes only status. */
  readonly hasStatus: boolean;
  /** metadata.generation starts at 1 and grows with each spec change. */
  readonly tracksGeneration: boolean;
  /** DELETE answers with the object (pods, services, ...) rather than a success Status. */
  readonly returnsDeletedObject: boolean;
  /** Field selector labels besides metadata.name and metadata.namespace. */
  readonly fieldLabels: readonly string[];
  readonly custom?: CustomServing;
}

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;
const STATUS_VERBS = ['get', 'patch', 'update'] as const;

/** `pods`, `apps/deployments`, `maintenance.nvidia.com/nodemaintenances`. */
export function kindKey(group: string, resource: string): string {
  return group ? `${group}/${resource}` : resource;
}

export function keyOf(info: Pick<KindInfo, 'group' | 'resource'>): string {
  return kindKey(info.group, info.resource);
}

export function apiVersionOf(info: Pick<KindInfo, 'group' | 'version'>): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
}

interface BuiltinSpec {
  group: string;
  /** @default the group's version in VERSIONS */
  version?: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  generation?: boolean;
  returnsDeletedObject?: boolean;
  verbs?: readonly string[];
  extraSubresources?: SubresourceInfo[];
  fieldLabels?: string[];
}

const VERSIONS: Record<string, string> = {
  '': 'v1',
  apps: 'v1',
  batch: 'v1',
  policy: 'v1',
  'coordination.k8s.io': 'v1',
  'apiextensions.k8s.io': 'v1',
  'resource.k8s.io': 'v1',
};

const BUILTINS: readonly BuiltinSpec[] = [
  { group: '', resource: 'namespaces', kind: 'Namespace', namespaced: false, shortNames: ['ns'], status: true, returnsDeletedObject: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], fieldLabels: ['status.phase'] },
  { group: '', resource: 'nodes', kind: 'Node', namespaced: false, shortNames: ['no'], status: true, fieldLabels: ['spec.unschedulable'] },
  {
    group: '',
    resource: 'pods',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    status: true,
    generation: true,
    returnsDeletedObject: true,
    extraSubresources: [
      { name: 'binding', kind: 'Binding', verbs: ['create'] },
      { name: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] },
    ],
    fieldLabels: ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'],
  },
  {
    group: '',
    resource: 'events',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    fieldLabels: ['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type'],
  },
  { group: '', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'], returnsDeletedObject: true },
  { group: '', resource: 'services', kind: 'Service', namespaced: true, shortNames: ['svc'], categories: ['all'], status: true, returnsDeletedObject: true },
  { group: '', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] },
  { group: '', resource: 'secrets', kind: 'Secret', namespaced: true, fieldLabels: ['type'] },
  { group: 'apps', resource: 'deployments', kind: 'Deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'], status: true, generation: true },
  { group: 'apps', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true, shortNames: ['rs'], categories: ['all'], status: true, generation: true, fieldLabels: ['status.replicas'] },
  { group: 'apps', resource: 'statefulsets', kind: 'StatefulSet', namespaced: true, shortNames: ['sts'], categories: ['all'], status: true, generation: true },
  { group: 'apps', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true, shortNames: ['ds'], categories: ['all'], status: true, generation: true },
  { group: 'batch', resource: 'jobs', kind: 'Job', namespaced: true, categories: ['all'], status: true, generation: true, returnsDeletedObject: true, fieldLabels: ['status.successful'] },
  { group: 'policy', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true, shortNames: ['pdb'], status: true, generation: true },
  { group: 'coordination.k8s.io', resource: 'leases', kind: 'Lease', namespaced: true },
  // DRA objects are stored and served, nothing more: no scheduler here allocates claims (README "GPU clusters with DRA").
  { group: 'resource.k8s.io', resource: 'resourceclaims', kind: 'ResourceClaim', namespaced: true, status: true, generation: true },
  { group: 'resource.k8s.io', resource: 'resourceclaimtemplates', kind: 'ResourceClaimTemplate', namespaced: true },
  { group: 'resource.k8s.io', resource: 'deviceclasses', kind: 'DeviceClass', namespaced: false, generation: true },
  { group: 'resource.k8s.io', resource: 'resourceslices', kind: 'ResourceSlice', namespaced: false, fieldLabels: ['spec.nodeName', 'spec.driver'] },
  // Device taints (KEP-5055) as the testbed serves them: Kubernetes 1.35 with DRADeviceTaints, DRADeviceTaintRules and
  // resource.k8s.io/v1alpha3 on; kmaint writes one per device of a device request (issue 45). Nothing here applies them.
  { group: 'resource.k8s.io', version: 'v1alpha3', resource: 'devicetaintrules', kind: 'DeviceTaintRule', namespaced: false, status: true, generation: true, returnsDeletedObject: true },
  { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false, shortNames: ['crd', 'crds'], categories: ['api-extensions'], status: true, generation: true },
];

function fromSpec(s: BuiltinSpec): KindInfo {
  const version = s.version ?? VERSIONS[s.group] ?? 'v1';
  const subresources: SubresourceInfo[] = [...(s.extraSubresources ?? [])];
  if (s.status) subresources.push({ name: 'status', kind: s.kind, verbs: STATUS_VERBS });
  subresources.sort((a, b) => (a.name < b.name ? -1 : 1));
  return {
    group: s.group,
    version,
    resource: s.resource,
    kind: s.kind,
    listKind: `${s.kind}List`,
    singular: s.kind.toLowerCase(),
    namespaced: s.namespaced,
    shortNames: s.shortNames ?? [],
    categories: s.categories ?? [],
    verbs: s.verbs ?? ALL_VERBS,
    subresources,
    hasStatus: s.status ?? false,
    tracksGeneration: s.generation ?? false,
    returnsDeletedObject: s.returnsDeletedObject ?? false,
    fieldLabels: s.fieldLabels ?? [],
  };
}

export const BUILTIN_KINDS: readonly KindInfo[] = BUILTINS.map(fromSpec);

/** The kind a CRD version serves; `spec` is the CRD's spec, already checked to carry names and the version. */
export function customKind(crdName: string, spec: JsonObject, version: JsonObject, names: { plural: string; singular: string; kind: string; listKind: string; shortNames: string[]; categories: string[] }): KindInfo {
  const subresources = version['subresources'];
  const hasStatus = typeof subresources === 'object' && subresources !== null && !Array.isArray(subresources) && 'status' in subresources;
  const schemaHolder = version['schema'];
  const schema = typeof schemaHolder === 'object' && schemaHolder !== null && !Array.isArray(schemaHolder) ? (schemaHolder['openAPIV3Schema'] as JsonObject | undefined) : undefined;
  const columns = Array.isArray(version['additionalPrinterColumns']) ? (version['additionalPrinterColumns'] as JsonObject[]) : [];
  const selectable = Array.isArray(version['selectableFields']) ? (version['selectableFields'] as JsonObject[]) : [];
  const group = String(spec['group'] ?? '');
  return {
    group,
    version: String(version['name'] ?? ''),
    resource: names.plural,
    kind: names.kind,
    listKind: names.listKind,
    singular: names.singular,
    namespaced: spec['scope'] !== 'Cluster',
    shortNames: names.shortNames,
    categories: names.categories,
    verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
    subresources: hasStatus ? [{ name: 'status', kind: names.kind, group, version: String(version['name'] ?? ''), verbs: STATUS_VERBS }] : [],
    hasStatus,
    tracksGeneration: true,
    returnsDeletedObject: false,
    fieldLabels: selectable.map((f) => String(f['jsonPath'] ?? '').replace(/^\./, '')),
    custom: {
      crdName,
      schema,
      printerColumns: columns.map((c) => ({
        name: String(c['name'] ?? ''),
        type: String(c['type'] ?? 'string'),
        format: String(c['format'] ?? ''),
        description: typeof c['description'] === 'string' ? c['description'] : `Custom resource definition column (in JSONPath format): ${String(c['jsonPath'] ?? '')}`,
        priority: typeof c['priority'] === 'number' ? c['priority'] : 0,
        jsonPath: String(c['jsonPath'] ?? ''),
      })),
      selectableFields: selectable.map((f) => String(f['jsonPath'] ?? '')),
    },
  };
}
