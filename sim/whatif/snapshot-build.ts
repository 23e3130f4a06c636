// Builds a cluster snapshot from what the API server lists: keeps placement, owners, resources, grace periods and
// budgets; drops everything a simulation does not need (images, commands, env, secrets, other annotations).
import { namespacedName } from '../../shared/api/index.ts';
import type { ResourceV1ResourceClaim, V1Container, V1Node, V1Pod, V1PodDisruptionBudget, V1Toleration } from '@kubernetes/client-node';
import { deviceId, devicesHeldBy, indexClaims, type ClaimIndex } from '../../shared/drain/index.ts';
import type { DeviceResourceSlice } from '../../shared/kube/index.ts';
import type { MaintenanceOperatorConfig } from '../../shared/api/index.ts';
import {
  SNAPSHOT_API_VERSION,
  SNAPSHOT_FORMAT_VERSION,
  SNAPSHOT_KIND,
  validateSnapshot,
  type ClusterSnapshot,
  type SnapshotContainer,
  type SnapshotNode,
  type SnapshotPdb,
  type SnapshotPod,
  type SnapshotSlice,
} from './snapshot-schema.ts';

const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
/** Kubernetes' default when a pod does not say. */
const DEFAULT_GRACE_SECONDS = 30;

export interface LiveLists {
  nodes: readonly V1Node[];
  pods: readonly V1Pod[];
  pdbs: readonly V1PodDisruptionBudget[];
  config?: MaintenanceOperatorConfig | undefined;
  /** Namespace the config was read from. */
  configNamespace: string;
  /** DRA (issue 45): the ResourceSlices and ResourceClaims; absent when they could not be read. */
  slices?: readonly DeviceResourceSlice[];
  claims?: readonly ResourceV1ResourceClaim[];
}

function byName<T>(key: (t: T) => string): (a: T, b: T) => number {
  return (a, b) => {
    const x = key(a);
    const y = key(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };
}

function plain(map: Readonly<Record<string, unknown>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out[k] = String(v);
  return out;
}

export function snapshotNode(n: V1Node): SnapshotNode {
  return {
    name: n.metadata?.name ?? '',
    labels: plain(n.metadata?.labels),
    unschedulable: n.spec?.unschedulable === true,
    taints: (n.spec?.taints ?? []).map((t) => ({ key: t.key, ...(t.value ? { value: t.value } : {}), effect: t.effect as 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' })),
    allocatable: plain(n.status?.allocatable ?? n.status?.capacity),
    ready: n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
  };
}

function container(c: V1Container): SnapshotContainer {
  const requests = c.resources?.requests;
  const limits = c.resources?.limits;
  return {
    name: c.name,
    ...(requests && Object.keys(requests).length > 0 ? { requests: plain(requests) } : {}),
    ...(limits && Object.keys(limits).length > 0 ? { limits: plain(limits) } : {}),
  };
}

function phaseOf(p: V1Pod): SnapshotPod['phase'] {
  const phase = p.status?.phase;
  return phase === 'Running' || phase === 'Succeeded' || phase === 'Failed' || phase === 'Unknown' ? phase : 'Pending';
}

/** What the API server's DefaultTolerationSeconds admission adds to every pod: left out, it adds them back. */
function isDefaultToleration(t: V1Toleration): boolean {
  return (t.key === 'node.kubernetes.io/not-ready' || t.key === 'node.kubernetes.io/unreachable') && t.operator === 'Exists' && t.effect === 'NoExecute' && t.tolerationSeconds === 300;
}

/** The devices `p` holds through its allocated claims reserved for it, `driver/pool/device`, sorted, no repeats. */
function heldDevices(p: V1Pod, claims: ClaimIndex | undefined): string[] {
  return claims === undefined ? [] : [...new Set(devicesHeldBy(p, claims).map(deviceId))].sort();
}

/** Node-local slices of listed nodes, one entry each: node, driver, pool and the device names, sorted. */
function snapshotSlices(slices: readonly DeviceResourceSlice[], nodes: ReadonlySet<string>): SnapshotSlice[] {
  const out: SnapshotSlice[] = [];
  for (const sl of slices) {
    const node = sl.spec?.nodeName;
    const driver = sl.spec?.driver;
    const pool = sl.spec?.pool?.name;
    if (!node || !driver || !pool || !nodes.has(node)) continue;
    out.push({ node, driver, pool, devices: (sl.spec?.devices ?? []).map((d) => d.name ?? '').filter((n) => n !== '').sort() });
  }
  return out.sort(byName((e) => `${e.node}\u0000${e.driver}\u0000${e.pool}`));
}

/** The pod without what every pod has by default (priority 0, restartPolicy Always, the default tolerations). */
export function snapshotPod(p: V1Pod, claims?: ClaimIndex): SnapshotPod {
  const devices = heldDevices(p, claims);
  const spec = p.spec;
  const tolerations = (spec?.tolerations ?? []).filter((t) => !isDefaultToleration(t));
  const owner = p.metadata?.ownerReferences?.find((o) => o.controller === true);
  const required = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return {
    namespace: p.metadata?.namespace ?? '',
    name: p.metadata?.name ?? '',
    ...(spec?.nodeName ? { nodeName: spec.nodeName } : {}),
    phase: phaseOf(p),
    ready: p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    labels: plain(p.metadata?.labels),
    ...(owner ? { owner: { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid } } : {}),
    mirror: Object.hasOwn(p.metadata?.annotations ?? {}, MIRROR_ANNOTATION),
    containers: (spec?.containers ?? []).map(container),
    ...(spec?.initContainers && spec.initContainers.length > 0 ? { initContainers: spec.initContainers.map(container) } : {}),
    terminationGracePeriodSeconds: spec?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS,
    emptyDirVolumes: (spec?.volumes ?? []).filter((v) => v.emptyDir !== undefined && v.emptyDir !== null).map((v) => v.name),
    ...(spec?.nodeSelector && Object.keys(spec.nodeSelector).length > 0 ? { nodeSelector: plain(spec.nodeSelector) } : {}),
    ...(tolerations.length > 0
      ? {
          tolerations: tolerations.map((t) => ({
            ...(t.key ? { key: t.key } : {}),
            ...(t.operator ? { operator: t.operator as 'Exists' | 'Equal' } : {}),
            ...(t.value ? { value: t.value } : {}),
            ...(t.effect ? { effect: t.effect as 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' } : {}),
            ...(t.tolerationSeconds !== undefined && t.tolerationSeconds !== null ? { tolerationSeconds: t.tolerationSeconds } : {}),
          })),
        }
      : {}),
    ...(required
      ? {
          nodeAffinity: {
            nodeSelectorTerms: required.nodeSelectorTerms.map((t) => ({
              ...(t.matchExpressions ? { matchExpressions: t.matchExpressions.map((e) => ({ key: e.key, operator: e.operator, ...(e.values ? { values: [...e.values] } : {}) })) } : {}),
              ...(t.matchFields ? { matchFields: t.matchFields.map((e) => ({ key: e.key, operator: e.operator, ...(e.values ? { values: [...e.values] } : {}) })) } : {}),
            })),
          },
        }
      : {}),
    ...(spec?.priority !== undefined && spec.priority !== null && spec.priority !== 0 ? { priority: spec.priority } : {}),
    ...(spec?.restartPolicy && spec.restartPolicy !== 'Always' ? { restartPolicy: spec.restartPolicy as 'OnFailure' | 'Never' } : {}),
    ...(devices.length > 0 && spec?.nodeName ? { devices } : {}),
  };
}

export function snapshotPdb(b: V1PodDisruptionBudget): SnapshotPdb {
  const sel = b.spec?.selector;
  return {
    namespace: b.metadata?.namespace ?? '',
    name: b.metadata?.name ?? '',
    selector:
      sel === undefined || sel === null
        ? null
        : {
            ...(sel.matchLabels ? { matchLabels: plain(sel.matchLabels) } : {}),
            ...(sel.matchExpressions ? { matchExpressions: sel.matchExpressions.map((e) => ({ key: e.key, operator: e.operator, ...(e.values ? { values: [...e.values] } : {}) })) } : {}),
          },
    ...(b.spec?.minAvailable !== undefined && b.spec.minAvailable !== null ? { minAvailable: b.spec.minAvailable } : {}),
    ...(b.spec?.maxUnavailable !== undefined && b.spec.maxUnavailable !== null ? { maxUnavailable: b.spec.maxUnavailable } : {}),
    ...(b.spec?.unhealthyPodEvictionPolicy ? { unhealthyPodEvictionPolicy: b.spec.unhealthyPodEvictionPolicy as 'IfHealthyBudget' | 'AlwaysAllow' } : {}),
  };
}

/**
 * The snapshot of live lists, sorted by name so two snapshots of the same cluster compare equal. Validated before it is
 * returned: what we write, we can read.
 */
export function buildSnapshot(lists: LiveLists, takenAt: Date, source: string): ClusterSnapshot {
  const nodeNames = new Set(lists.nodes.map((n) => n.metadata?.name ?? ''));
  const claims = lists.claims !== undefined ? indexClaims(lists.claims) : undefined;
  const slices = snapshotSlices(lists.slices ?? [], nodeNames);
  const snapshot: ClusterSnapshot = {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: SNAPSHOT_KIND,
    formatVersion: SNAPSHOT_FORMAT_VERSION,
    takenAt: takenAt.toISOString(),
    source,
    nodes: lists.nodes.map(snapshotNode).sort(byName((n) => n.name)),
    // Pods being deleted are about to go; pods on nodes not listed (a node just removed) are the pod GC's.
    pods: lists.pods
      .filter((p) => !p.metadata?.deletionTimestamp && (p.spec?.nodeName === undefined || nodeNames.has(p.spec.nodeName)))
      .map((p) => snapshotPod(p, claims))
      .sort(byName((p) => namespacedName(p))),
    podDisruptionBudgets: lists.pdbs.map(snapshotPdb).sort(byName((b) => namespacedName(b))),
    ...(slices.length > 0 ? { resourceSlices: slices } : {}),
    ...(lists.config ? { config: { namespace: lists.configNamespace, spec: lists.config.spec ?? {} } } : {}),
  };
  // Checked, but written as read: the config keeps only what the cluster's object says (no defaults filled in).
  validateSnapshot(snapshot, 'snapshot');
  return snapshot;
}
