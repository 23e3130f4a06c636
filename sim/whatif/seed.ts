// Loads a cluster snapshot into a fresh sim API server in-process (no HTTP): namespaces, nodes Ready, budgets,
// pods created and given the status they had, and kmaint's config. 150,000 pods take seconds this way.
import type { MaintenanceOperatorConfigSpec } from '../../shared/api/index.ts';
import { API_VERSION, CONFIG_KIND, CONFIG_NAME, rfc3339Seconds } from '../../shared/api/index.ts';
import type { Json, JsonObject, ResourceRef, SimApiServer } from '../apiserver/index.ts';
import { createObject } from '../apiserver/writes.ts';
import type { ClusterSnapshot, SnapshotContainer, SnapshotPod } from './snapshot-schema.ts';
import type { Controller } from './workloads.ts';
import { podClaimEntry, seedClaim, seedSlices } from './seed-devices.ts';

const REF = {
  namespaces: { apiVersion: 'v1', resource: 'namespaces' },
  nodes: { apiVersion: 'v1', resource: 'nodes' },
  pods: { apiVersion: 'v1', resource: 'pods' },
  pdbs: { apiVersion: 'policy/v1', resource: 'poddisruptionbudgets' },
  configs: { apiVersion: API_VERSION, resource: 'maintenanceoperatorconfigs' },
} satisfies Record<string, ResourceRef>;

const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';
const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

export interface SeededCluster {
  /** The controllers the pods name, with the active pods each keeps. */
  controllers: Controller[];
  /** One pod manifest per controller uid, to make replacements from. */
  templates: Map<string, JsonObject>;
}

function containers(list: readonly SnapshotContainer[]): Json[] {
  return list.map((c) => ({
    name: c.name,
    image: PAUSE_IMAGE,
    ...(c.requests || c.limits ? { resources: { ...(c.requests ? { requests: c.requests } : {}), ...(c.limits ? { limits: c.limits } : {}) } } : {}),
  }));
}

/** The pod as a manifest: what the snapshot kept, plus a pause image per container. */
export function podManifest(p: SnapshotPod, nodeUids: ReadonlyMap<string, string>): JsonObject {
  const owner = p.owner ? { ...p.owner, uid: p.owner.kind === 'Node' ? (nodeUids.get(p.owner.name) ?? p.owner.uid) : p.owner.uid, controller: true, blockOwnerDeletion: true } : undefined;
  const spec: JsonObject = {
    containers: containers(p.containers),
    terminationGracePeriodSeconds: p.terminationGracePeriodSeconds,
  };
  if (p.initContainers) spec['initContainers'] = containers(p.initContainers);
  if (p.nodeName) spec['nodeName'] = p.nodeName;
  if (p.emptyDirVolumes.length > 0) spec['volumes'] = p.emptyDirVolumes.map((name) => ({ name, emptyDir: {} }));
  if (p.nodeSelector) spec['nodeSelector'] = p.nodeSelector;
  if (p.tolerations) spec['tolerations'] = p.tolerations as Json;
  if (p.nodeAffinity) spec['affinity'] = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: p.nodeAffinity as Json } };
  if (p.priority !== undefined) spec['priority'] = p.priority;
  if (p.restartPolicy) spec['restartPolicy'] = p.restartPolicy;
  if (p.mirror) spec['automountServiceAccountToken'] = false;
  if (p.devices) spec['resourceClaims'] = podClaimEntry(p.name);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace: p.namespace,
      name: p.name,
      labels: p.labels,
      ...(p.mirror ? { annotations: { [MIRROR_ANNOTATION]: 'whatif' } } : {}),
      ...(owner ? { ownerReferences: [owner] } : {}),
    },
    spec,
  };
}

function podStatus(p: SnapshotPod, nowMs: number): JsonObject {
  const at = rfc3339Seconds(nowMs);
  const ready = p.ready ? 'True' : 'False';
  return {
    phase: p.phase,
    startTime: at,
    conditions: [
      { type: 'PodScheduled', status: 'True', lastTransitionTime: at },
      { type: 'Initialized', status: 'True', lastTransitionTime: at },
      { type: 'ContainersReady', status: ready, lastTransitionTime: at },
      { type: 'Ready', status: ready, lastTransitionTime: at },
    ],
  };
}

/**
 * Creates the snapshot's objects. Pods keep their names, nodes and owners (controllers are not created: the
 * what-if's workload controllers stand in for them); a running pod gets a Running status at once.
 */
export function seedSnapshot(
  api: SimApiServer,
  snapshot: ClusterSnapshot,
  /** kmaint's namespace (config and pass leases) and, if any, the config to create there. */
  kmaint: { namespace: string; spec?: MaintenanceOperatorConfigSpec | undefined },
  nowMs: number,
  /** Each pod as stored, so followers need not parse 150,000 of them again. */
  onPod: (pod: JsonObject) => void = () => undefined,
): SeededCluster {
  const local = api.local;
  const namespaces = new Set<string>([...snapshot.pods.map((p) => p.namespace), ...snapshot.podDisruptionBudgets.map((b) => b.namespace), kmaint.namespace]);
  for (const ns of [...namespaces].sort()) {
    if (!local.get(REF.namespaces, '', ns)) local.create(REF.namespaces, '', { metadata: { name: ns } });
  }
  const nodeUids = new Map<string, string>();
  const heartbeat = rfc3339Seconds(nowMs);
  for (const n of snapshot.nodes) {
    const created = local.create(REF.nodes, '', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: n.name, labels: n.labels },
      spec: { ...(n.unschedulable ? { unschedulable: true } : {}), ...(n.taints.length > 0 ? { taints: n.taints } : {}) },
      status: {
        allocatable: n.allocatable,
        capacity: n.allocatable,
        conditions: [{ type: 'Ready', status: n.ready ? 'True' : 'False', reason: n.ready ? 'KubeletReady' : 'KubeletNotReady', lastHeartbeatTime: heartbeat, lastTransitionTime: heartbeat }],
      },
    });
    nodeUids.set(n.name, (created['metadata'] as { uid?: string } | undefined)?.uid ?? '');
  }
  seedSlices(api, snapshot.resourceSlices ?? [], nodeUids);
  for (const b of snapshot.podDisruptionBudgets) {
    local.create(REF.pdbs, b.namespace, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { namespace: b.namespace, name: b.name },
      spec: {
        ...(b.selector ? { selector: b.selector as Json } : {}),
        ...(b.minAvailable !== undefined ? { minAvailable: b.minAvailable } : {}),
        ...(b.maxUnavailable !== undefined ? { maxUnavailable: b.maxUnavailable } : {}),
        ...(b.unhealthyPodEvictionPolicy ? { unhealthyPodEvictionPolicy: b.unhealthyPodEvictionPolicy } : {}),
      },
    });
  }

  const controllers = new Map<string, Controller>();
  const templates = new Map<string, JsonObject>();
  const podKind = api.context.kinds.lookup('', 'v1', 'pods');
  if (!podKind) throw new Error('the sim API server serves no pods');
  for (const p of snapshot.pods) {
    // Admission, defaults and validation as for any create (a dry run), then stored once with the status the pod
    // had: what a create followed by the kubelet's status update would leave, for one write instead of two.
    const created = createObject(api.context, podKind, p.namespace, podManifest(p, nodeUids), { dryRun: true }).object;
    if (p.nodeName && p.phase !== 'Pending') created['status'] = { ...(created['status'] as JsonObject | undefined), ...podStatus(p, nowMs) };
    api.context.store.put(podKind, created);
    if (p.devices) seedClaim(api, created, p.devices);
    onPod(created);
    const owner = p.owner;
    if (!owner || owner.kind === 'Node' || owner.kind === 'DaemonSet') continue;
    let c = controllers.get(owner.uid);
    if (!c) {
      c = { kind: owner.kind, namespace: p.namespace, name: owner.name, uid: owner.uid, replicas: 0 };
      controllers.set(owner.uid, c);
      templates.set(owner.uid, created);
    }
    if (p.phase !== 'Succeeded' && p.phase !== 'Failed') c.replicas++;
  }
  if (kmaint.spec) {
    local.create(REF.configs, kmaint.namespace, { apiVersion: API_VERSION, kind: CONFIG_KIND, metadata: { name: CONFIG_NAME, namespace: kmaint.namespace }, spec: kmaint.spec as Json });
  }
  return { controllers: [...controllers.values()], templates };
}
