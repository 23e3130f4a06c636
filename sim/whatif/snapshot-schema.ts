// The cluster snapshot `kmaint snapshot` writes and `kmaint simulate --from` reads: version 1 of a documented JSON
// shape, validated by zod on load. It keeps only what a simulated maintenance needs — no Secrets, no container
// images, commands, arguments or environment, no annotations but the static-pod marker.
import { errorMessage } from '../../shared/errors/index.ts';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { maintenanceOperatorConfigSpecSchema, namespacedName } from '../../shared/api/index.ts';
import { parseDeviceList } from '../../shared/devices/index.ts';

export const SNAPSHOT_API_VERSION = 'kmaint.io/v1alpha1';
export const SNAPSHOT_KIND = 'ClusterSnapshot';
/** Bumped on any change a reader of an older snapshot could misread. */
export const SNAPSHOT_FORMAT_VERSION = 1;

const stringMap = z.record(z.string(), z.string());
/** Resource quantities as Kubernetes writes them ("250m", "1Gi", "8"). */
const quantities = z.record(z.string(), z.string());
const intOrString = z.union([z.int(), z.string()]);

const taintSchema = z.strictObject({
  key: z.string().min(1),
  value: z.string().optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
});

const tolerationSchema = z.strictObject({
  key: z.string().optional(),
  operator: z.enum(['Exists', 'Equal']).optional(),
  value: z.string().optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
  tolerationSeconds: z.int().optional(),
});

const selectorRequirementSchema = z.strictObject({ key: z.string(), operator: z.string(), values: z.array(z.string()).optional() });

const labelSelectorSchema = z.strictObject({
  matchLabels: stringMap.optional(),
  matchExpressions: z.array(selectorRequirementSchema).optional(),
});

/** Required node affinity only: the preferred terms only score, and the simulated scheduler ignores them. */
const nodeAffinitySchema = z.strictObject({
  nodeSelectorTerms: z.array(
    z.strictObject({
      matchExpressions: z.array(selectorRequirementSchema).optional(),
      matchFields: z.array(selectorRequirementSchema).optional(),
    }),
  ),
});

export const snapshotNodeSchema = z.strictObject({
  name: z.string().min(1),
  labels: stringMap,
  unschedulable: z.boolean(),
  taints: z.array(taintSchema),
  /** status.allocatable (capacity when the node reports no allocatable). */
  allocatable: quantities,
  /** The Ready condition is True. */
  ready: z.boolean(),
});

const containerSchema = z.strictObject({
  name: z.string().min(1),
  requests: quantities.optional(),
  limits: quantities.optional(),
});

const ownerSchema = z.strictObject({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  name: z.string().min(1),
  /** Groups the pods of one controller; the simulation gives the controller a new uid. */
  uid: z.string().min(1),
});

export const snapshotPodSchema = z.strictObject({
  namespace: z.string().min(1),
  name: z.string().min(1),
  /** Unset for a pod the scheduler has not placed. */
  nodeName: z.string().min(1).optional(),
  phase: z.enum(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']),
  ready: z.boolean(),
  labels: stringMap,
  /** The controller owner reference (controller: true), if any. */
  owner: ownerSchema.optional(),
  /** A static pod's API copy (annotation kubernetes.io/config.mirror): drains skip it. */
  mirror: z.boolean(),
  /** Resources only: no image, command, arguments or environment. */
  containers: z.array(containerSchema).min(1),
  initContainers: z.array(containerSchema).optional(),
  terminationGracePeriodSeconds: z.int().min(0),
  /** Names of emptyDir volumes (a drain needs deleteEmptyDir for them). */
  emptyDirVolumes: z.array(z.string()),
  nodeSelector: stringMap.optional(),
  tolerations: z.array(tolerationSchema).optional(),
  nodeAffinity: nodeAffinitySchema.optional(),
  priority: z.int().optional(),
  restartPolicy: z.enum(['Always', 'OnFailure', 'Never']).optional(),
  /**
   * DRA devices the pod holds (`driver/pool/device`): its allocated ResourceClaims reserved for it (issue 45). What a
   * device request's drain evicts it for; the claims themselves are not kept.
   */
  devices: z.array(z.string().min(1)).optional(),
});

/** A node's DRA devices as its ResourceSlices publish them (one entry per driver and pool): what a device request may name. */
export const snapshotSliceSchema = z.strictObject({
  node: z.string().min(1),
  driver: z.string().min(1),
  pool: z.string().min(1),
  /** Device names, sorted. */
  devices: z.array(z.string().min(1)),
});

export const snapshotPdbSchema = z.strictObject({
  namespace: z.string().min(1),
  name: z.string().min(1),
  /** null: the budget has no selector and selects nothing. */
  selector: labelSelectorSchema.nullable(),
  minAvailable: intOrString.optional(),
  maxUnavailable: intOrString.optional(),
  unhealthyPodEvictionPolicy: z.enum(['IfHealthyBudget', 'AlwaysAllow']).optional(),
});

export const snapshotSchema = z.strictObject({
  apiVersion: z.literal(SNAPSHOT_API_VERSION),
  kind: z.literal(SNAPSHOT_KIND),
  formatVersion: z.literal(SNAPSHOT_FORMAT_VERSION, { error: `formatVersion must be ${SNAPSHOT_FORMAT_VERSION} (this kmaint reads snapshot format ${SNAPSHOT_FORMAT_VERSION} only)` }),
  /** RFC 3339. */
  takenAt: z.string().min(1),
  /** Where it came from: the API server URL, or the generated profile. */
  source: z.string(),
  nodes: z.array(snapshotNodeSchema),
  /** Pods being deleted when the snapshot was taken are left out. */
  pods: z.array(snapshotPodSchema),
  podDisruptionBudgets: z.array(snapshotPdbSchema),
  /** Node-local ResourceSlices' devices (issue 45); absent in a snapshot of a cluster without DRA. */
  resourceSlices: z.array(snapshotSliceSchema).optional(),
  /** The MaintenanceOperatorConfig `default`, if the cluster has one. */
  config: z.strictObject({ namespace: z.string().min(1), spec: maintenanceOperatorConfigSpecSchema }).optional(),
});

export type ClusterSnapshot = z.infer<typeof snapshotSchema>;
export type SnapshotNode = z.infer<typeof snapshotNodeSchema>;
export type SnapshotPod = z.infer<typeof snapshotPodSchema>;
export type SnapshotPdb = z.infer<typeof snapshotPdbSchema>;
export type SnapshotSlice = z.infer<typeof snapshotSliceSchema>;
export type SnapshotContainer = z.infer<typeof containerSchema>;
export type SnapshotOwner = z.infer<typeof ownerSchema>;

/** A snapshot that cannot be used; `message` is one line naming the file and the first problem. */
export class SnapshotError extends Error {
  override name = 'SnapshotError';
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
  }
}

function issuePath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('').replace(/^\./, '');
}

/** Cross-checks zod cannot express: unique names, pods on nodes that exist. */
function consistencyProblem(s: ClusterSnapshot): string | undefined {
  const nodes = new Set<string>();
  for (const [i, n] of s.nodes.entries()) {
    if (nodes.has(n.name)) return `nodes[${i}].name: duplicate node "${n.name}"`;
    nodes.add(n.name);
  }
  const pods = new Set<string>();
  for (const [i, p] of s.pods.entries()) {
    const key = namespacedName(p);
    if (pods.has(key)) return `pods[${i}]: duplicate pod "${key}"`;
    pods.add(key);
    if (p.nodeName !== undefined && !nodes.has(p.nodeName)) return `pods[${i}].nodeName: node "${p.nodeName}" is not in the snapshot`;
    if (p.devices !== undefined && p.nodeName === undefined) return `pods[${i}].devices: a pod on no node holds no device`;
    const devices = p.devices !== undefined ? parseDeviceList(p.devices.join(',')) : undefined;
    if (devices?.kind === 'invalid') return `pods[${i}].devices: ${devices.problem}`;
  }
  for (const [i, sl] of (s.resourceSlices ?? []).entries()) {
    if (!nodes.has(sl.node)) return `resourceSlices[${i}].node: node "${sl.node}" is not in the snapshot`;
  }
  const pdbs = new Set<string>();
  for (const [i, b] of s.podDisruptionBudgets.entries()) {
    const key = namespacedName(b);
    if (pdbs.has(key)) return `podDisruptionBudgets[${i}]: duplicate budget "${key}"`;
    pdbs.add(key);
  }
  return undefined;
}

/** Validates parsed JSON; throws SnapshotError with a one-line reason prefixed by `source`. */
export function validateSnapshot(value: unknown, source: string): ClusterSnapshot {
  const parsed = snapshotSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? issuePath(issue.path) : '';
    throw new SnapshotError(`${source}: not a kmaint cluster snapshot: ${where ? `${where}: ` : ''}${issue?.message ?? 'invalid'}`);
  }
  const problem = consistencyProblem(parsed.data);
  if (problem) throw new SnapshotError(`${source}: not a usable cluster snapshot: ${problem}`);
  return parsed.data;
}

/** Reads and validates a snapshot file. */
export function readSnapshotFile(path: string): ClusterSnapshot {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new SnapshotError(`${path}: cannot read the snapshot: ${errorMessage(err)}`, { cause: err });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new SnapshotError(`${path}: not JSON: ${errorMessage(err).split('\n')[0]}`, { cause: err });
  }
  return validateSnapshot(value, path);
}
