// Proves the zod schemas and the CRDs in crds/ agree field by field, and pins both to the upstream values.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { DEFAULT_REAP_PREDICATE, DEFAULT_UNHEALTHY_PREDICATE, maintenanceOperatorConfigSchema, nodeMaintenanceSchema } from './schemas.ts';

type SchemaNode = { [key: string]: unknown };

interface Facets {
  type: string;
  format?: string;
  required?: string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  pattern?: string;
  default?: unknown;
}

const INT32_MAX = 2_147_483_647;
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

function isNode(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function child(node: SchemaNode, key: string, path: string): SchemaNode {
  const value = node[key];
  if (!isNode(value)) throw new Error(`${path}: "${key}" is not an object`);
  return value;
}

function loadCrd(file: string): SchemaNode {
  const doc: unknown = parse(readFileSync(`${REPO_ROOT}crds/${file}`, 'utf8'));
  if (!isNode(doc)) throw new Error(`crds/${file} is not a YAML mapping`);
  return doc;
}

function crdVersion(crd: SchemaNode): SchemaNode {
  const versions = child(crd, 'spec', 'crd').versions;
  if (!Array.isArray(versions) || versions.length !== 1 || !isNode(versions[0])) throw new Error('expected exactly one version');
  return versions[0];
}

function openApiSchema(crd: SchemaNode): SchemaNode {
  return child(child(crdVersion(crd), 'schema', 'version'), 'openAPIV3Schema', 'schema');
}

/** Copies the shared numeric/string facets that both trees spell the same way. */
function commonFacets(node: SchemaNode, facets: Facets): void {
  for (const key of ['minimum', 'maximum', 'minLength', 'maxLength', 'maxItems'] as const) {
    const value = node[key];
    if (typeof value === 'number') facets[key] = value;
  }
  if (Array.isArray(node.enum)) facets.enum = node.enum;
  if (Array.isArray(node.required)) facets.required = node.required.map(String).sort();
  if ('default' in node) facets.default = node.default;
  // `\/` and `/` are the same regex in JS and RE2; RegExp#source escapes the slash.
  if (typeof node.pattern === 'string') facets.pattern = node.pattern.replaceAll('\\/', '/');
}

function isIntOrStringAnyOf(anyOf: unknown): boolean {
  return (
    Array.isArray(anyOf) &&
    anyOf.length === 2 &&
    isNode(anyOf[0]) &&
    anyOf[0].type === 'integer' &&
    isNode(anyOf[1]) &&
    anyOf[1].type === 'string'
  );
}

/** Keys the walkers understand; any other key is a validation this test would miss, so it fails instead. */
const CRD_KEYS = new Set([
  'type', 'format', 'description', 'example', 'properties', 'items', 'additionalProperties', 'required', 'enum', 'default', 'anyOf',
  'minimum', 'maximum', 'minLength', 'maxLength', 'maxItems', 'pattern',
  'x-kubernetes-int-or-string', 'x-kubernetes-validations', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys',
]);
const ZOD_KEYS = new Set([
  'type', 'format', 'properties', 'items', 'required', 'enum', 'default', 'anyOf',
  'minimum', 'maximum', 'minLength', 'maxLength', 'maxItems', 'pattern', 'additionalProperties', 'propertyNames',
]);

/** A map (`additionalProperties` is a schema): its values are compared at `path{}`. */
function isMap(node: SchemaNode): boolean {
  return isNode(node.additionalProperties);
}

function checkKeys(node: SchemaNode, known: Set<string>, path: string): void {
  const unknown = Object.keys(node).filter((key) => !known.has(key));
  if (unknown.length > 0) throw new Error(`${path}: keys this test does not compare: ${unknown.join(', ')}`);
}

function crdFacets(node: SchemaNode, path: string): Facets {
  checkKeys(node, CRD_KEYS, path);
  if (node['x-kubernetes-int-or-string'] === true) {
    if ('type' in node) throw new Error(`${path}: int-or-string must not carry a type`);
    if ('anyOf' in node && !isIntOrStringAnyOf(node.anyOf)) throw new Error(`${path}: int-or-string anyOf must be [integer, string]`);
    const facets: Facets = { type: 'int-or-string' };
    commonFacets(node, facets);
    return facets;
  }
  // A structural schema gives every node a type.
  if (typeof node.type !== 'string') throw new Error(`${path}: no type (not a structural schema)`);
  const facets: Facets = { type: node.type };
  if (typeof node.format === 'string') facets.format = node.format;
  commonFacets(node, facets);
  return facets;
}

function zodFacets(node: SchemaNode, path: string): Facets {
  checkKeys(node, ZOD_KEYS, path);
  // z.record(z.string(), …) spells out that keys are strings; JSON object keys always are.
  if ('propertyNames' in node && JSON.stringify(node.propertyNames) !== '{"type":"string"}') throw new Error(`${path}: keys other than strings`);
  if ('anyOf' in node) {
    if (!isIntOrStringAnyOf(node.anyOf)) throw new Error(`${path}: a union other than integer|string`);
    const facets: Facets = { type: 'int-or-string' };
    commonFacets(node, facets);
    return facets;
  }
  if (typeof node.type !== 'string') throw new Error(`${path}: zod node without a type`);
  const facets: Facets = { type: node.type };
  commonFacets(node, facets);
  if (node.type === 'integer') {
    // zod spells the CRD's integer formats as bounds.
    if (facets.maximum === INT32_MAX) facets.format = 'int32';
    else if (facets.maximum === Number.MAX_SAFE_INTEGER) facets.format = 'int64';
    else throw new Error(`${path}: integer with unexpected maximum ${String(facets.maximum)}`);
    delete facets.maximum;
    if (facets.minimum === Number.MIN_SAFE_INTEGER) delete facets.minimum;
  }
  if (node.format === 'date-time') {
    // zod implements the format with its own pattern; the CRD names only the format.
    facets.format = 'date-time';
    delete facets.pattern;
  } else if (typeof node.format === 'string') {
    throw new Error(`${path}: unexpected zod format ${node.format}`);
  }
  return facets;
}

/** Every node under `root` keyed by field path (`a.b`, `list[]`, `list[].x`, `map{}`). */
function flatten(root: SchemaNode, rootPath: string, facetsOf: (node: SchemaNode, path: string) => Facets): Map<string, Facets> {
  const out = new Map<string, Facets>();
  const visit = (node: SchemaNode, path: string): void => {
    out.set(path, facetsOf(node, path));
    if (isNode(node.properties)) {
      for (const [name, sub] of Object.entries(node.properties)) {
        if (!isNode(sub)) throw new Error(`${path}.${name}: not a schema`);
        visit(sub, `${path}.${name}`);
      }
    }
    if (isNode(node.items)) visit(node.items, `${path}[]`);
    if (isNode(node.additionalProperties)) visit(node.additionalProperties, `${path}{}`);
  };
  visit(root, rootPath);
  return out;
}

/** Human lines naming each field where the two trees disagree; empty when they agree. */
function differences(crd: Map<string, Facets>, zod: Map<string, Facets>): string[] {
  const lines: string[] = [];
  for (const path of new Set([...crd.keys(), ...zod.keys()])) {
    const a = crd.get(path);
    const b = zod.get(path);
    if (a === undefined) lines.push(`${path}: only in zod`);
    else if (b === undefined) lines.push(`${path}: only in the CRD`);
    else {
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof Facets>) {
        if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) {
          lines.push(`${path}: ${key} is ${JSON.stringify(a[key])} in the CRD but ${JSON.stringify(b[key])} in zod`);
        }
      }
    }
  }
  return lines;
}

const CONDITION_ITEM: Record<string, Facets> = {
  '': { type: 'object', required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'] },
  '.lastTransitionTime': { type: 'string', format: 'date-time' },
  '.message': { type: 'string', maxLength: 32768 },
  '.observedGeneration': { type: 'integer', format: 'int64', minimum: 0 },
  '.reason': { type: 'string', minLength: 1, maxLength: 1024, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' },
  '.status': { type: 'string', enum: ['True', 'False', 'Unknown'] },
  '.type': {
    type: 'string',
    maxLength: 316,
    pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
  },
};

function conditionsAt(prefix: string): Record<string, Facets> {
  return Object.fromEntries(Object.entries(CONDITION_ITEM).map(([suffix, facets]) => [`${prefix}[]${suffix}`, facets]));
}

const NODE_NAME_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
const REQUESTOR_ID_PATTERN = '^([a-z0-9A-Z]([-a-z0-9A-Z]*[a-z0-9A-Z])?(\\.[a-z0-9A-Z]([-a-z0-9A-Z]*[a-z0-9A-Z])?)*)$';

/** The upstream fact sheet, sections 1.1, 1.2 and 2, as facets. */
const EXPECTED_NODE_MAINTENANCE: Record<string, Facets> = {
  spec: { type: 'object', required: ['nodeName', 'requestorID'] },
  'spec.requestorID': { type: 'string', minLength: 2, maxLength: 63, pattern: REQUESTOR_ID_PATTERN },
  // Issue 40: kmaint's bounds on what a requestor writes (upstream has none); a node name as the API server's.
  'spec.additionalRequestors': { type: 'array', maxItems: 64 },
  'spec.additionalRequestors[]': { type: 'string', maxLength: 63 },
  'spec.nodeName': { type: 'string', maxLength: 253, pattern: NODE_NAME_PATTERN },
  'spec.cordon': { type: 'boolean', default: true },
  'spec.waitForPodCompletion': { type: 'object' },
  'spec.waitForPodCompletion.podSelector': { type: 'string', maxLength: 4096 },
  'spec.waitForPodCompletion.timeoutSeconds': { type: 'integer', format: 'int32', minimum: 0, default: 0 },
  'spec.drainSpec': { type: 'object' },
  'spec.drainSpec.force': { type: 'boolean', default: false },
  'spec.drainSpec.podSelector': { type: 'string', maxLength: 4096 },
  'spec.drainSpec.timeoutSeconds': { type: 'integer', format: 'int32', minimum: 0, default: 300 },
  'spec.drainSpec.deleteEmptyDir': { type: 'boolean', default: false },
  'spec.drainSpec.podEvictionFilters': { type: 'array', maxItems: 32 },
  'spec.drainSpec.podEvictionFilters[]': { type: 'object' },
  'spec.drainSpec.podEvictionFilters[].byResourceNameRegex': { type: 'string', maxLength: 1024 },
  // Issue 45 point 3: a kmaint extension on the request's drainSpec only (an upstream CRD prunes it).
  'spec.drainSpec.freeDevices': { type: 'object' },
  'spec.drainSpec.freeDevices.dra': { type: 'boolean', default: true },
  'spec.drainSpec.freeDevices.resources': { type: 'array', maxItems: 32 },
  'spec.drainSpec.freeDevices.resources[]': { type: 'string', minLength: 1, maxLength: 253 },
  'spec.drainSpec.freeDevices.podSelector': { type: 'string', maxLength: 4096 },
  'spec.drainSpec.freeDevices.keep': { type: 'array', maxItems: 16 },
  'spec.drainSpec.freeDevices.keep[]': { type: 'string', maxLength: 4096 },
  status: { type: 'object' },
  'status.conditions': { type: 'array' },
  ...conditionsAt('status.conditions'),
  'status.waitForCompletion': { type: 'array' },
  'status.waitForCompletion[]': { type: 'string' },
  'status.drain': { type: 'object', required: ['drainProgress', 'evictionPods', 'totalPods'] },
  'status.drain.totalPods': { type: 'integer', format: 'int32', minimum: 0 },
  'status.drain.evictionPods': { type: 'integer', format: 'int32', minimum: 0 },
  'status.drain.drainProgress': { type: 'integer', format: 'int32', minimum: 0 },
  'status.drain.waitForEviction': { type: 'array' },
  'status.drain.waitForEviction[]': { type: 'string' },
};

const WINDOW_DURATION = '^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$';

/** kmaint's own window fields, the same under spec.windows[] and spec.pools[].windows[]. */
function windowsAt(prefix: string): Record<string, Facets> {
  return {
    [prefix]: { type: 'array' },
    [`${prefix}[]`]: { type: 'object', required: ['duration', 'schedule'] },
    [`${prefix}[].schedule`]: { type: 'string', minLength: 1 },
    [`${prefix}[].duration`]: { type: 'string', pattern: WINDOW_DURATION },
    [`${prefix}[].timeZone`]: { type: 'string', minLength: 1 },
  };
}

/** The handshake's drainSpec template: the NodeMaintenance drainSpec, field for field, under `prefix`. */
function nodeHandshakeAt(prefix: string): Record<string, Facets> {
  return {
    [prefix]: { type: 'object' },
    ...Object.fromEntries(
      Object.entries(EXPECTED_NODE_MAINTENANCE)
        // freeDevices is the request's alone (issue 45 point 3): the config's drainSpec templates do not carry it.
        .filter(([path]) => path.startsWith('spec.drainSpec') && !path.startsWith('spec.drainSpec.freeDevices'))
        .map(([path, facets]) => [`${prefix}.${path.slice('spec.'.length)}`, facets]),
    ),
  };
}

/** The reaper (issue 9): spec.reaper with node-reaper's defaults and the reap drainSpec. */
const REAPER_EXTENSION: Record<string, Facets> = {
  'spec.reaper': { type: 'object' },
  'spec.reaper.enabled': { type: 'boolean', default: false },
  'spec.reaper.dryRun': { type: 'boolean', default: true },
  'spec.reaper.reapPredicate': { type: 'string', minLength: 1, default: DEFAULT_REAP_PREDICATE },
  'spec.reaper.unhealthyPredicate': { type: 'string', minLength: 1, default: DEFAULT_UNHEALTHY_PREDICATE },
  'spec.reaper.unhealthyForSeconds': { type: 'integer', format: 'int32', minimum: 0, default: 300 },
  'spec.reaper.maxNodesUnhealthy': { type: 'int-or-string', default: 1 },
  'spec.reaper.maxNodesUnhealthyInSameZone': { type: 'int-or-string', default: 1 },
  'spec.reaper.newNodeGracePeriodSeconds': { type: 'integer', format: 'int32', minimum: 0, default: 300 },
  'spec.reaper.drainTimeoutSeconds': { type: 'integer', format: 'int32', minimum: 0, default: 310 },
  'spec.reaper.forceRetryOnError': { type: 'boolean', default: true },
  'spec.reaper.skipReaping': { type: 'boolean', default: false },
  'spec.reaper.joinExistingRequests': { type: 'boolean', default: false },
  'spec.reaper.provider': { type: 'string', enum: ['providerID', 'none'], default: 'providerID' },
  'spec.reaper.repair': { type: 'object', required: ['ladder'] },
  'spec.reaper.repair.ladder': { type: 'array', maxItems: 8 },
  'spec.reaper.repair.ladder[]': { type: 'object', required: ['remedy'] },
  'spec.reaper.repair.ladder[].when': { type: 'string', minLength: 1, default: 'true' },
  'spec.reaper.repair.ladder[].remedy': { type: 'string', enum: ['reboot', 'replace', 'quarantine'] },
  'spec.reaper.repair.ladder[].timeoutSeconds': { type: 'integer', format: 'int32', minimum: 0, default: 600 },
  'spec.reaper.repair.maxConcurrentPerPool': { type: 'integer', format: 'int32', minimum: 1, default: 1 },
  'spec.reaper.repair.poolLabel': { type: 'string', minLength: 1, maxLength: 317, default: 'kmaint.io/pool' },
  'spec.reaper.repair.historyWindowSeconds': { type: 'integer', format: 'int32', minimum: 1, default: 604800 },
  'spec.reaper.repair.repeatLimit': { type: 'integer', format: 'int32', minimum: 0, default: 2 },
  'spec.reaper.devicesFrom': { type: 'string', minLength: 1 },
  ...Object.fromEntries(Object.entries(nodeHandshakeAt('spec.reaper')).filter(([path]) => path.startsWith('spec.reaper.drainSpec'))),
};

/** Slurm-aware drain (issue 10): spec.slurm. */
const SLURM_EXTENSION: Record<string, Facets> = {
  'spec.slurm': { type: 'object' },
  'spec.slurm.enabled': { type: 'boolean', default: false },
  'spec.slurm.url': { type: 'string', minLength: 1 },
  'spec.slurm.allowInsecureHttp': { type: 'boolean', default: false },
  'spec.slurm.apiVersion': { type: 'string', enum: ['auto', 'v0.0.40', 'v0.0.41', 'v0.0.42'], default: 'auto' },
  'spec.slurm.tokenEnv': { type: 'string', minLength: 1 },
  'spec.slurm.tokenSecret': { type: 'object', required: ['name'] },
  'spec.slurm.tokenSecret.name': { type: 'string', minLength: 1 },
  'spec.slurm.tokenSecret.key': { type: 'string', minLength: 1, default: 'auth-token' },
  'spec.slurm.tokenSecretArn': { type: 'string', minLength: 1 },
  'spec.slurm.reasonPrefix': { type: 'string', minLength: 1, default: 'kmaint:' },
  'spec.slurm.mode': { type: 'string', enum: ['pod', 'node'], default: 'pod' },
  'spec.slurm.podSelector': { type: 'string' },
  'spec.slurm.workerNamespaces': { type: 'array' },
  'spec.slurm.workerNamespaces[]': { type: 'string', maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
  'spec.slurm.nameFrom': { type: 'string', enum: ['hostname', 'name', 'label', 'annotation'], default: 'hostname' },
  'spec.slurm.nameKey': { type: 'string', minLength: 1 },
  'spec.slurm.drainTimeoutSeconds': { type: 'integer', format: 'int32', minimum: 0, default: 0 },
  'spec.slurm.whenUnreachable': { type: 'string', enum: ['wait', 'evict'], default: 'wait' },
  'spec.slurm.reservationsPerNamespace': { type: 'integer', format: 'int32', minimum: 0, default: 10 },
};

/** DRA-aware eviction filters (issue 20): spec.draResourceNames. */
const DRA_EXTENSION: Record<string, Facets> = {
  'spec.draResourceNames': { type: 'array' },
  'spec.draResourceNames[]': { type: 'object', required: ['driver', 'resourceNames'] },
  'spec.draResourceNames[].driver': { type: 'string', minLength: 1 },
  'spec.draResourceNames[].resourceNames': { type: 'array' },
  'spec.draResourceNames[].resourceNames[]': { type: 'string' },
};

/** kmaint extensions of the config spec (issue 7): optional fields an upstream object never carries. */
const KMAINT_CONFIG_EXTENSIONS: Record<string, Facets> = {
  'spec.pools': { type: 'array' },
  'spec.pools[]': { type: 'object', required: ['name', 'nodeSelector'] },
  'spec.pools[].name': { type: 'string', maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
  'spec.pools[].nodeSelector': { type: 'object' },
  'spec.pools[].nodeSelector.matchLabels': { type: 'object' },
  'spec.pools[].nodeSelector.matchLabels{}': { type: 'string' },
  'spec.pools[].nodeSelector.matchExpressions': { type: 'array' },
  'spec.pools[].nodeSelector.matchExpressions[]': { type: 'object', required: ['key', 'operator'] },
  'spec.pools[].nodeSelector.matchExpressions[].key': { type: 'string' },
  'spec.pools[].nodeSelector.matchExpressions[].operator': { type: 'string', enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] },
  'spec.pools[].nodeSelector.matchExpressions[].values': { type: 'array' },
  'spec.pools[].nodeSelector.matchExpressions[].values[]': { type: 'string' },
  'spec.pools[].maxParallelOperations': { type: 'int-or-string' },
  'spec.pools[].maxUnavailable': { type: 'int-or-string' },
  ...windowsAt('spec.pools[].windows'),
  ...nodeHandshakeAt('spec.pools[].nodeHandshake'),
  'spec.maxUnavailablePerZone': { type: 'int-or-string' },
  'spec.zoneLabel': { type: 'string', minLength: 1 },
  ...windowsAt('spec.windows'),
  ...nodeHandshakeAt('spec.nodeHandshake'),
  'spec.nodeHandshake.protocol': { type: 'string', enum: ['kmaint', 'sriov-network-operator'], default: 'kmaint' },
  'spec.nodeHandshake.sriovNetworkOperator': { type: 'object' },
  'spec.nodeHandshake.sriovNetworkOperator.namespace': { type: 'string', minLength: 1, maxLength: 63, default: 'sriov-network-operator' },
  'spec.nodeHandshake.sriovNetworkOperator.resourcePrefix': { type: 'string', minLength: 1, default: 'openshift.io' },
  ...REAPER_EXTENSION,
  ...SLURM_EXTENSION,
  ...DRA_EXTENSION,
  // Issue 20: KEP-5683 node conditions; absent means on.
  'spec.nodeConditions': { type: 'boolean' },
  'spec.outOfServiceTaint': { type: 'object' },
  'spec.outOfServiceTaint.enabled': { type: 'boolean' },
  'spec.outOfServiceTaint.afterNotReadySeconds': { type: 'integer', format: 'int32', minimum: 0 },
  // The reboot step (issue 43).
  'spec.reboot': { type: 'object' },
  'spec.reboot.method': { type: 'string', enum: ['job', 'ec2'] },
  'spec.reboot.timeoutSeconds': { type: 'integer', format: 'int32', minimum: 1 },
  'spec.reboot.job': { type: 'object' },
  'spec.reboot.job.image': { type: 'string', minLength: 1, maxLength: 1024 },
  'spec.reboot.job.command': { type: 'array', maxItems: 64 },
  'spec.reboot.job.command[]': { type: 'string', minLength: 1, maxLength: 4096 },
  'spec.reboot.job.privileged': { type: 'boolean' },
  'spec.reboot.job.hostPID': { type: 'boolean' },
  'spec.maintenancePlannedLeadSeconds': { type: 'integer', format: 'int32', minimum: 0 },
  // Issue 34: the drainer's and cleanup's named node reads on large clusters.
  'spec.namedReadsFromNodes': { type: 'integer', format: 'int32', minimum: 0 },
  'spec.fullReadEverySeconds': { type: 'integer', format: 'int32', minimum: 0 },
  'spec.upstreamOperatorNamespace': { type: 'string', minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
  // Issue 43: kured's blockers as admission gates.
  'spec.rebootBlockers': { type: 'object' },
  'spec.rebootBlockers.blockingPodSelector': { type: 'string', minLength: 1 },
  'spec.rebootBlockers.alerts': { type: 'object', required: ['url'] },
  'spec.rebootBlockers.alerts.url': { type: 'string', minLength: 1 },
  'spec.rebootBlockers.alerts.api': { type: 'string', enum: ['alertmanager', 'prometheus'], default: 'alertmanager' },
  'spec.rebootBlockers.alerts.nameRegexp': { type: 'string', minLength: 1 },
  'spec.rebootBlockers.alerts.ignoreNameRegexp': { type: 'string', minLength: 1 },
  'spec.rebootBlockers.alerts.firingOnly': { type: 'boolean', default: true },
  'spec.rebootBlockers.alerts.timeoutSeconds': { type: 'integer', format: 'int32', minimum: 1, default: 5 },
  // Issue 43 point 2: the reboot sentinel's Node condition.
  'spec.rebootSentinel': { type: 'object' },
  'spec.rebootSentinel.conditionType': { type: 'string', minLength: 1, maxLength: 316 },
  // Issue 44 point 1: validation before return to service.
  'spec.validation': { type: 'object', required: ['job'] },
  'spec.validation.nodeSelector': { type: 'object' },
  'spec.validation.nodeSelector.matchLabels': { type: 'object' },
  'spec.validation.nodeSelector.matchLabels{}': { type: 'string' },
  'spec.validation.nodeSelector.matchExpressions': { type: 'array' },
  'spec.validation.nodeSelector.matchExpressions[]': { type: 'object', required: ['key', 'operator'] },
  'spec.validation.nodeSelector.matchExpressions[].key': { type: 'string' },
  'spec.validation.nodeSelector.matchExpressions[].operator': { type: 'string', enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] },
  'spec.validation.nodeSelector.matchExpressions[].values': { type: 'array' },
  'spec.validation.nodeSelector.matchExpressions[].values[]': { type: 'string' },
  'spec.validation.job': { type: 'object', required: ['image'] },
  'spec.validation.job.image': { type: 'string', minLength: 1, maxLength: 1024 },
  'spec.validation.job.command': { type: 'array', maxItems: 64 },
  'spec.validation.job.command[]': { type: 'string', minLength: 1, maxLength: 4096 },
  'spec.validation.job.args': { type: 'array', maxItems: 256 },
  'spec.validation.job.args[]': { type: 'string', maxLength: 4096 },
  'spec.validation.job.env': { type: 'array', maxItems: 64 },
  'spec.validation.job.env[]': { type: 'object', required: ['name', 'value'] },
  'spec.validation.job.env[].name': { type: 'string', minLength: 1, maxLength: 256 },
  'spec.validation.job.env[].value': { type: 'string', maxLength: 4096 },
  'spec.validation.job.resources': { type: 'object' },
  'spec.validation.job.resources.requests': { type: 'object' },
  'spec.validation.job.resources.requests{}': { type: 'string' },
  'spec.validation.job.resources.limits': { type: 'object' },
  'spec.validation.job.resources.limits{}': { type: 'string' },
  'spec.validation.job.privileged': { type: 'boolean' },
  'spec.validation.job.serviceAccountName': { type: 'string', minLength: 1, maxLength: 253 },
  'spec.validation.timeoutSeconds': { type: 'integer', format: 'int32', minimum: 1 },
  'spec.validation.onFailure': { type: 'string', enum: ['keepCordoned', 'uncordon'] },
  // Issue 43 point 3: kured's --lock-release-delay.
  'spec.releaseDelaySeconds': { type: 'integer', format: 'int32', minimum: 0 },
  // Issue 21: gangs by node label, and when a waiting gang holds freed slots.
  'spec.gangNodeLabel': { type: 'string', minLength: 1 },
  'spec.gangReserveAfterSeconds': { type: 'integer', format: 'int32', minimum: 0 },
  // Issue 40: a node-label gang incomplete this long starts as the requests that exist.
  'spec.gangIncompleteAdmitAfterSeconds': { type: 'integer', format: 'int32', minimum: 0 },
  // Issue 21: cloud scheduled events, read by the reaper pass.
  'spec.cloudEvents': { type: 'object' },
  'spec.cloudEvents.enabled': { type: 'boolean', default: false },
  'spec.cloudEvents.codes': { type: 'array' },
  'spec.cloudEvents.codes[]': { type: 'string', enum: ['instance-reboot', 'system-reboot', 'system-maintenance', 'instance-retirement', 'instance-stop'] },
  ...Object.fromEntries(Object.entries(nodeHandshakeAt('spec.cloudEvents')).filter(([path]) => path.startsWith('spec.cloudEvents.drainSpec'))),
  'spec.cloudEvents.moveIntoWindows': { type: 'object' },
  'spec.cloudEvents.moveIntoWindows.leadSeconds': { type: 'integer', format: 'int32', minimum: 0 },
};

const EXPECTED_CONFIG: Record<string, Facets> = {
  spec: { type: 'object' },
  'spec.maxParallelOperations': { type: 'int-or-string', default: 1 },
  'spec.maxUnavailable': { type: 'int-or-string' },
  'spec.logLevel': { type: 'string', enum: ['debug', 'info', 'error'], default: 'info' },
  'spec.maxNodeMaintenanceTimeSeconds': { type: 'integer', format: 'int32', minimum: 0, default: 3600 },
  ...KMAINT_CONFIG_EXTENSIONS,
  status: { type: 'object' },
  'status.conditions': { type: 'array' },
  ...conditionsAt('status.conditions'),
};

const KINDS = [
  {
    kind: 'NodeMaintenance',
    file: 'nodemaintenances.maintenance.nvidia.com.yaml',
    schema: nodeMaintenanceSchema,
    expected: EXPECTED_NODE_MAINTENANCE,
  },
  {
    kind: 'MaintenanceOperatorConfig',
    file: 'maintenanceoperatorconfigs.maintenance.nvidia.com.yaml',
    schema: maintenanceOperatorConfigSchema,
    expected: EXPECTED_CONFIG,
  },
];

function treesOf(file: string, schema: z.ZodType): { crd: Map<string, Facets>; zod: Map<string, Facets>; crdRoot: SchemaNode; zodRoot: SchemaNode } {
  const crdRoot = openApiSchema(loadCrd(file));
  const zodRoot: SchemaNode = z.toJSONSchema(schema, { io: 'input' });
  const crd = new Map<string, Facets>();
  const zod = new Map<string, Facets>();
  for (const top of ['spec', 'status']) {
    const crdTop = child(child(crdRoot, 'properties', 'crd'), top, 'crd');
    const zodTop = child(child(zodRoot, 'properties', 'zod'), top, 'zod');
    for (const [path, facets] of flatten(crdTop, top, crdFacets)) crd.set(path, facets);
    for (const [path, facets] of flatten(zodTop, top, zodFacets)) zod.set(path, facets);
  }
  return { crd, zod, crdRoot, zodRoot };
}

describe.each(KINDS)('$kind: CRD and zod schema', ({ file, schema, expected }) => {
  const { crd, zod, crdRoot, zodRoot } = treesOf(file, schema);

  it('have the same top-level fields', () => {
    const names = (root: SchemaNode, label: string) => Object.keys(child(root, 'properties', label)).sort();
    expect(names(crdRoot, 'crd')).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    expect(names(zodRoot, 'zod')).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    expect(child(child(crdRoot, 'properties', 'crd'), 'metadata', 'crd')).toEqual({ type: 'object' });
  });

  it('agree at every field of spec and status', () => {
    expect(differences(crd, zod)).toEqual([]);
  });

  it('hold exactly the upstream fields (plus the kmaint extensions listed)', () => {
    expect([...crd.keys()].sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))('%s has the upstream type and validation', (path, facets) => {
    expect(crd.get(path), `${path} in the CRD`).toEqual(facets);
    expect(zod.get(path), `${path} in zod`).toEqual(facets);
  });

  it('rejects unknown keys in every spec and status object (zod)', () => {
    const loose: string[] = [];
    const visit = (node: SchemaNode, path: string): void => {
      if (node.type === 'object' && node.additionalProperties !== false && !isMap(node)) loose.push(path);
      if (isNode(node.properties)) for (const [name, sub] of Object.entries(node.properties)) if (isNode(sub)) visit(sub, `${path}.${name}`);
      if (isNode(node.items)) visit(node.items, `${path}[]`);
    };
    for (const top of ['spec', 'status']) visit(child(child(zodRoot, 'properties', 'zod'), top, 'zod'), top);
    expect(loose).toEqual([]);
  });
});

/** Extensions the CRD carries that JSON Schema cannot: CEL rules and list types. */
function extensionsOf(file: string, key: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const visit = (node: SchemaNode, path: string): void => {
    if (key in node) out[path] = node[key];
    if (isNode(node.properties)) for (const [name, sub] of Object.entries(node.properties)) if (isNode(sub)) visit(sub, path ? `${path}.${name}` : name);
    if (isNode(node.items)) visit(node.items, `${path}[]`);
  };
  visit(openApiSchema(loadCrd(file)), '');
  return out;
}

const IMMUTABLE = [{ rule: 'self == oldSelf', message: 'Value is immutable' }];
const NM_FILE = 'nodemaintenances.maintenance.nvidia.com.yaml';
const CONFIG_FILE = 'maintenanceoperatorconfigs.maintenance.nvidia.com.yaml';

describe('CRD-only validation', () => {
  it.each([
    { file: NM_FILE, key: 'x-kubernetes-validations', expected: { 'spec.requestorID': IMMUTABLE, 'spec.nodeName': IMMUTABLE } },
    { file: NM_FILE, key: 'x-kubernetes-list-type', expected: { 'spec.additionalRequestors': 'set', 'status.conditions': 'map' } },
    { file: NM_FILE, key: 'x-kubernetes-list-map-keys', expected: { 'status.conditions': ['type'] } },
    { file: CONFIG_FILE, key: 'x-kubernetes-validations', expected: {} },
    {
      file: CONFIG_FILE,
      key: 'x-kubernetes-list-type',
      expected: { 'spec.pools': 'map', 'spec.draResourceNames': 'map', 'spec.draResourceNames[].resourceNames': 'set', 'spec.cloudEvents.codes': 'set', 'spec.slurm.workerNamespaces': 'set', 'status.conditions': 'map' },
    },
    { file: CONFIG_FILE, key: 'x-kubernetes-list-map-keys', expected: { 'spec.pools': ['name'], 'spec.draResourceNames': ['driver'], 'status.conditions': ['type'] } },
    {
      file: CONFIG_FILE,
      key: 'x-kubernetes-int-or-string',
      expected: {
        'spec.maxParallelOperations': true,
        'spec.maxUnavailable': true,
        'spec.pools[].maxParallelOperations': true,
        'spec.pools[].maxUnavailable': true,
        'spec.maxUnavailablePerZone': true,
        'spec.reaper.maxNodesUnhealthy': true,
        'spec.reaper.maxNodesUnhealthyInSameZone': true,
      },
    },
  ])('$file: $key exactly where upstream has it', ({ file, key, expected }) => {
    expect(extensionsOf(file, key)).toEqual(expected);
  });
});

describe('CRD definitions', () => {
  it.each([
    {
      file: NM_FILE,
      names: {
        kind: 'NodeMaintenance',
        listKind: 'NodeMaintenanceList',
        plural: 'nodemaintenances',
        singular: 'nodemaintenance',
        shortNames: ['nm'],
      },
    },
    {
      file: CONFIG_FILE,
      names: {
        kind: 'MaintenanceOperatorConfig',
        listKind: 'MaintenanceOperatorConfigList',
        plural: 'maintenanceoperatorconfigs',
        singular: 'maintenanceoperatorconfig',
      },
    },
  ])('$names.kind: namespaced v1alpha1 with a status subresource', ({ file, names }) => {
    const crd = loadCrd(file);
    const spec = child(crd, 'spec', 'crd');
    expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(crd.kind).toBe('CustomResourceDefinition');
    expect(child(crd, 'metadata', 'crd').name).toBe(`${names.plural}.maintenance.nvidia.com`);
    expect(spec.group).toBe('maintenance.nvidia.com');
    expect(spec.scope).toBe('Namespaced');
    expect(spec.names).toEqual(names);
    const version = crdVersion(crd);
    expect([version.name, version.served, version.storage]).toEqual(['v1alpha1', true, true]);
    expect(version.subresources).toEqual({ status: {} });
  });

  it('NodeMaintenance: printer columns (Failed fixed to RequestorFailed, Waiting and Age added) and selectable fields', () => {
    const version = crdVersion(loadCrd(NM_FILE));
    expect(version.additionalPrinterColumns).toEqual([
      { name: 'Node', type: 'string', jsonPath: '.spec.nodeName' },
      { name: 'Requestor', type: 'string', jsonPath: '.spec.requestorID' },
      { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
      { name: 'Phase', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].reason" },
      { name: 'Waiting', type: 'string', jsonPath: ".status.conditions[?(@.type=='kmaint.io/Waiting')].reason" },
      { name: 'Failed', type: 'string', jsonPath: ".status.conditions[?(@.type=='RequestorFailed')].status" },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ]);
    expect(version.selectableFields).toEqual([{ jsonPath: '.spec.nodeName' }, { jsonPath: '.spec.requestorID' }]);
  });

  it('MaintenanceOperatorConfig: no printer columns or selectable fields', () => {
    const version = crdVersion(loadCrd(CONFIG_FILE));
    expect(version.additionalPrinterColumns).toBeUndefined();
    expect(version.selectableFields).toBeUndefined();
  });
});

const aSpec = { requestorID: 'example.com', nodeName: 'node-1' };
const aMeta = { name: 'nm-1', namespace: 'default' };
const aCondition = { type: 'Ready', status: 'False', reason: 'Pending', message: '', lastTransitionTime: '2026-01-02T03:04:05Z' };

describe('zod behaviour matches the API server', () => {
  it.each([
    ['ab', 'two characters is the minimum'],
    ['a.b', 'single-character labels'],
    ['Example-1.io', 'upper case and inner dashes'],
    ['a', 'one character is too short'],
    ['-ab', 'a label starts alphanumeric'],
    ['ab-', 'a label ends alphanumeric'],
    ['a..b', 'empty label'],
    ['a_b', 'underscore'],
    ['a'.repeat(63), '63 characters is the maximum'],
    ['a'.repeat(64), '64 characters is too long'],
  ])('requestorID %j (%s): zod agrees with RE2 on the CRD pattern and lengths', (requestorID) => {
    const apiServerAccepts = requestorID.length >= 2 && requestorID.length <= 63 && RE2JS.matches(REQUESTOR_ID_PATTERN, requestorID);
    const zodAccepts = nodeMaintenanceSchema.safeParse({ metadata: aMeta, spec: { ...aSpec, requestorID } }).success;
    expect(zodAccepts).toBe(apiServerAccepts);
  });

  it.each([
    { rule: 'defaults cordon to true', spec: aSpec, expected: { ...aSpec, cordon: true } },
    { rule: 'keeps an explicit cordon false', spec: { ...aSpec, cordon: false }, expected: { ...aSpec, cordon: false } },
    {
      rule: 'defaults drainSpec fields',
      spec: { ...aSpec, drainSpec: {} },
      expected: { ...aSpec, cordon: true, drainSpec: { force: false, timeoutSeconds: 300, deleteEmptyDir: false } },
    },
    {
      rule: 'keeps an explicit drain timeout 0',
      spec: { ...aSpec, drainSpec: { timeoutSeconds: 0 } },
      expected: { ...aSpec, cordon: true, drainSpec: { force: false, timeoutSeconds: 0, deleteEmptyDir: false } },
    },
    {
      rule: 'defaults the wait timeout to 0',
      spec: { ...aSpec, waitForPodCompletion: { podSelector: 'app=x' } },
      expected: { ...aSpec, cordon: true, waitForPodCompletion: { podSelector: 'app=x', timeoutSeconds: 0 } },
    },
  ])('NodeMaintenance spec $rule', ({ spec, expected }) => {
    expect(nodeMaintenanceSchema.parse({ metadata: aMeta, spec }).spec).toEqual(expected);
  });

  it.each([
    { rule: 'duplicate additionalRequestors (list-type set)', patch: { spec: { ...aSpec, additionalRequestors: ['a', 'a'] } } },
    { rule: 'duplicate condition types (list-type map)', patch: { status: { conditions: [aCondition, aCondition] } } },
    { rule: 'an unknown spec key', patch: { spec: { ...aSpec, cordonn: true } } },
    { rule: 'an unknown drainSpec key', patch: { spec: { ...aSpec, drainSpec: { timeoutSecond: 5 } } } },
    { rule: 'an unknown status key', patch: { status: { phase: 'Ready' } } },
    { rule: 'a negative drain timeout', patch: { spec: { ...aSpec, drainSpec: { timeoutSeconds: -1 } } } },
    { rule: 'a drain timeout beyond int32', patch: { spec: { ...aSpec, drainSpec: { timeoutSeconds: 2 ** 31 } } } },
    { rule: 'a condition status outside True/False/Unknown', patch: { status: { conditions: [{ ...aCondition, status: 'true' }] } } },
    { rule: 'a condition time that is not RFC 3339', patch: { status: { conditions: [{ ...aCondition, lastTransitionTime: 'yesterday' }] } } },
    { rule: 'drain status without drainProgress', patch: { status: { drain: { totalPods: 1, evictionPods: 1 } } } },
    { rule: 'a missing nodeName', patch: { spec: { requestorID: 'example.com' } } },
  ])('NodeMaintenance rejects $rule', ({ patch }) => {
    expect(nodeMaintenanceSchema.safeParse({ metadata: aMeta, spec: aSpec, ...patch }).success).toBe(false);
  });

  it('keeps metadata fields it does not model', () => {
    const metadata = { ...aMeta, managedFields: [{ manager: 'kubectl' }], generateName: 'nm-' };
    expect(nodeMaintenanceSchema.parse({ metadata, spec: aSpec }).metadata).toEqual(metadata);
  });

  it.each([
    { rule: 'fills every default', spec: {}, expected: { maxParallelOperations: 1, logLevel: 'info', maxNodeMaintenanceTimeSeconds: 3600 } },
    {
      rule: 'keeps int-or-string values as written',
      spec: { maxParallelOperations: '10%', maxUnavailable: 2 },
      expected: { maxParallelOperations: '10%', maxUnavailable: 2, logLevel: 'info', maxNodeMaintenanceTimeSeconds: 3600 },
    },
  ])('MaintenanceOperatorConfig $rule', ({ spec, expected }) => {
    expect(maintenanceOperatorConfigSchema.parse({ metadata: aMeta, spec }).spec).toEqual(expected);
  });

  it.each([
    { rule: 'a fractional maxParallelOperations', spec: { maxParallelOperations: 1.5 } },
    { rule: 'a boolean maxUnavailable', spec: { maxUnavailable: true } },
    { rule: 'an unknown log level', spec: { logLevel: 'warn' } },
    { rule: 'a negative maxNodeMaintenanceTimeSeconds', spec: { maxNodeMaintenanceTimeSeconds: -1 } },
    { rule: 'an unknown key', spec: { maxParalelOperations: 2 } },
  ])('MaintenanceOperatorConfig rejects $rule', ({ spec }) => {
    expect(maintenanceOperatorConfigSchema.safeParse({ metadata: aMeta, spec }).success).toBe(false);
  });
});

describe('zod behaviour of the kmaint config extensions matches the CRD', () => {
  const pool = { name: 'gpu', nodeSelector: { matchLabels: { 'kmaint.io/pool': 'gpu' } } };
  const window = { schedule: '0 2 * * SAT', duration: '4h' };

  it('accepts pools, a zone limit and windows as written, adding no defaults', () => {
    const spec = {
      pools: [{ ...pool, maxUnavailable: 1, windows: [{ ...window, timeZone: 'Europe/Berlin' }] }, { name: 'cpu', nodeSelector: {}, maxParallelOperations: '25%' }],
      maxUnavailablePerZone: '50%',
      zoneLabel: 'example.com/rack',
      windows: [{ schedule: '0/15 * * * *', duration: '1h30m0s' }],
    };
    expect(maintenanceOperatorConfigSchema.parse({ metadata: aMeta, spec }).spec).toEqual({ ...spec, maxParallelOperations: 1, logLevel: 'info', maxNodeMaintenanceTimeSeconds: 3600 });
  });

  it('accepts handshake drainSpec templates cluster-wide and per pool, filling the drainSpec defaults as the CRD does', () => {
    const spec = {
      nodeHandshake: { drainSpec: { podSelector: 'sriov=true' } },
      pools: [{ ...pool, nodeHandshake: { drainSpec: { force: true, podEvictionFilters: [{ byResourceNameRegex: 'nvidia.com/.*' }] } } }, { name: 'cpu', nodeSelector: {}, nodeHandshake: {} }],
    };
    expect(maintenanceOperatorConfigSchema.parse({ metadata: aMeta, spec }).spec).toEqual({
      nodeHandshake: { drainSpec: { podSelector: 'sriov=true', force: false, timeoutSeconds: 300, deleteEmptyDir: false }, protocol: 'kmaint' },
      pools: [
        { ...pool, nodeHandshake: { drainSpec: { force: true, podEvictionFilters: [{ byResourceNameRegex: 'nvidia.com/.*' }], timeoutSeconds: 300, deleteEmptyDir: false } } },
        { name: 'cpu', nodeSelector: {}, nodeHandshake: {} },
      ],
      maxParallelOperations: 1,
      logLevel: 'info',
      maxNodeMaintenanceTimeSeconds: 3600,
    });
  });

  it.each([
    { rule: 'an unknown nodeHandshake key', spec: { nodeHandshake: { rebootDrainSpec: {} } } },
    { rule: 'an unknown key in the handshake drainSpec', spec: { nodeHandshake: { drainSpec: { timeoutSecond: 5 } } } },
    { rule: 'a negative handshake drain timeout in a pool', spec: { pools: [{ ...pool, nodeHandshake: { drainSpec: { timeoutSeconds: -1 } } }] } },
    { rule: 'duplicate pool names (list-type map, key name)', spec: { pools: [pool, pool] } },
    { rule: 'a pool without nodeSelector', spec: { pools: [{ name: 'gpu' }] } },
    { rule: 'a pool name that is not a DNS label', spec: { pools: [{ ...pool, name: 'GPU_pool' }] } },
    { rule: 'a pool name of 64 characters', spec: { pools: [{ ...pool, name: 'a'.repeat(64) }] } },
    { rule: 'a Gt operator', spec: { pools: [{ name: 'gpu', nodeSelector: { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] } }] } },
    { rule: 'an unknown selector key', spec: { pools: [{ name: 'gpu', nodeSelector: { matchFields: [] } }] } },
    { rule: 'a fractional pool limit', spec: { pools: [{ ...pool, maxUnavailable: 0.5 }] } },
    { rule: 'a window without duration', spec: { windows: [{ schedule: '0 2 * * *' }] } },
    { rule: 'a duration in seconds', spec: { windows: [{ ...window, duration: '90s' }] } },
    { rule: 'an empty schedule', spec: { windows: [{ ...window, schedule: '' }] } },
    { rule: 'an empty zone label', spec: { zoneLabel: '' } },
  ])('rejects $rule', ({ spec }) => {
    expect(maintenanceOperatorConfigSchema.safeParse({ metadata: aMeta, spec }).success).toBe(false);
  });

  it.each([
    ['30m', true],
    ['4h', true],
    ['1h30m', true],
    ['1h30m0s', true],
    ['90s', false],
    ['1h30', false],
    ['', false],
  ])('duration %j matches the CRD pattern (RE2): %s', (duration, accepted) => {
    expect(RE2JS.matches('^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$', duration)).toBe(accepted);
    expect(maintenanceOperatorConfigSchema.safeParse({ metadata: aMeta, spec: { windows: [{ ...window, duration }] } }).success).toBe(accepted);
  });
});
