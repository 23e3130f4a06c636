// Node status and Lease bodies the simulated kubelet writes: conditions, heartbeats, capacity.
import { rfc3339Seconds } from '../../shared/api/index.ts';
import { V1MicroTime, type V1Lease, type V1Node } from '@kubernetes/client-node';

export const LEASE_NAMESPACE = 'kube-node-lease';
export const LEASE_DURATION_SECONDS = 40;

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface WantedCondition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
}

/** A condition as last sent, with the time its status last changed. */
export interface SentCondition extends WantedCondition {
  lastTransitionMs: number;
}

/** What the simulation says about one node's health. */
export interface NodeHealth {
  ready: boolean;
  notReadyReason?: string;
  notReadyMessage?: string;
  /** Added by setNodeCondition; a type here replaces the kubelet's own condition of that type. */
  extra: ReadonlyMap<string, WantedCondition>;
}

/** The kubelet's own conditions (Ready and the three pressures), then the extras, by type. */
export function wantedConditions(health: NodeHealth): WantedCondition[] {
  const own: WantedCondition[] = [
    { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
    { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
    { type: 'PIDPressure', status: 'False', reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
    health.ready
      ? { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }
      : {
          type: 'Ready',
          status: 'False',
          reason: health.notReadyReason ?? 'KubeletNotReady',
          message: health.notReadyMessage ?? 'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady',
        },
  ];
  const merged = own.map((c) => health.extra.get(c.type) ?? c);
  for (const [type, c] of health.extra) if (!own.some((o) => o.type === type)) merged.push(c);
  return merged;
}

/** Keeps lastTransitionTime for conditions whose status did not change. */
export function nextConditions(previous: readonly SentCondition[], wanted: readonly WantedCondition[], now: number): SentCondition[] {
  return wanted.map((c) => {
    const before = previous.find((p) => p.type === c.type);
    return { ...c, lastTransitionMs: before && before.status === c.status ? before.lastTransitionMs : now };
  });
}

/**
 * A strategic-merge patch for the node's status. Conditions merge by type, so conditions other
 * writers added survive. `full` adds capacity, allocatable, addresses and nodeInfo (first post).
 */
export function nodeStatusPatch(node: V1Node, conditions: readonly SentCondition[], now: number, full: boolean): { status: Record<string, unknown> } {
  const heartbeat = rfc3339Seconds(now);
  const status: Record<string, unknown> = {
    conditions: conditions.map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      lastHeartbeatTime: heartbeat,
      lastTransitionTime: rfc3339Seconds(c.lastTransitionMs),
    })),
  };
  if (full) {
    const s = node.status ?? {};
    if (s.capacity) status.capacity = s.capacity;
    if (s.allocatable) status.allocatable = s.allocatable;
    if (s.addresses) status.addresses = s.addresses;
    if (s.nodeInfo) status.nodeInfo = s.nodeInfo;
    if (s.daemonEndpoints) status.daemonEndpoints = s.daemonEndpoints;
  }
  return { status };
}

/** The node manifest to POST, as a kubelet registers: no conditions yet, they come with the first status patch. */
export function nodeForCreate(node: V1Node): V1Node {
  const meta = node.metadata ?? {};
  const { conditions: _conditions, ...status } = node.status ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: meta.name ?? '', labels: meta.labels ?? {}, ...(meta.annotations ? { annotations: meta.annotations } : {}) },
    spec: node.spec ?? {},
    status,
  };
}

/** RFC 3339 with microseconds: metav1.MicroTime refuses fewer fraction digits. */
export function formatMicroTime(ms: number): string {
  return new V1MicroTime(ms).toISOString();
}

export function leaseForCreate(nodeName: string, nodeUid: string | undefined, now: number): V1Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: nodeName,
      namespace: LEASE_NAMESPACE,
      ...(nodeUid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: nodeUid }] } : {}),
    },
    spec: { holderIdentity: nodeName, leaseDurationSeconds: LEASE_DURATION_SECONDS, renewTime: new V1MicroTime(now) },
  };
}

/** A merge patch renewing the lease: one write per heartbeat, no read. */
export function leaseRenewPatch(nodeName: string, now: number): { spec: Record<string, unknown> } {
  return { spec: { holderIdentity: nodeName, leaseDurationSeconds: LEASE_DURATION_SECONDS, renewTime: formatMicroTime(now) } };
}

export function internalIp(node: V1Node): string | undefined {
  return node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
}

/** Start times spread evenly over one interval, so N nodes do not all write in the same tick. */
export function spreadOffset(index: number, count: number, intervalMs: number): number {
  return count <= 0 ? 0 : Math.floor((index * intervalMs) / count);
}
