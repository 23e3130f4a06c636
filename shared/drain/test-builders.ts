// Test fixtures: one pod per call with kubectl-drain-relevant knobs; everything else fixed so results are exact.
import type { ResourceV1ResourceClaim, V1Container, V1OwnerReference, V1Pod } from '@kubernetes/client-node';
import { MIRROR_POD_ANNOTATION } from './pod-facts.ts';

export interface PodOptions {
  name: string;
  /** @default 'default' */
  namespace?: string;
  /** @default 'Running' */
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Kind of the controller owner; 'none' for a bare pod, 'non-controller' for an owner without controller: true. @default 'ReplicaSet' */
  owner?: 'ReplicaSet' | 'StatefulSet' | 'Job' | 'DaemonSet' | 'Node' | 'none' | 'non-controller';
  /** Resource names requested by the single regular container. */
  requests?: string[];
  /** Resource names only in that container's limits. */
  limits?: string[];
  /** Resource names requested by an init container. */
  initRequests?: string[];
  emptyDir?: boolean;
  mirror?: boolean;
  /** Sets metadata.deletionTimestamp. */
  terminating?: boolean;
  nodeName?: string;
  /**
   * spec.resourceClaims entries: `claim` names a ResourceClaim directly; `generated` is a template entry whose claim the
   * resourceclaim controller created with that name (status.resourceClaimStatuses); `generated: null` one not created yet.
   */
  claims?: Array<{ name: string; claim: string } | { name: string; generated: string | null }>;
}

const FIXED_TIME = new Date('2026-01-01T00:00:00Z');

function quantities(names: readonly string[] | undefined): Record<string, string> | undefined {
  return names === undefined ? undefined : Object.fromEntries(names.map((name) => [name, '1']));
}

function ownerReferences(name: string, owner: NonNullable<PodOptions['owner']>): V1OwnerReference[] | undefined {
  if (owner === 'none') return undefined;
  const reference = (kind: string, controller: boolean): V1OwnerReference => ({
    apiVersion: kind === 'Node' ? 'v1' : kind === 'Job' ? 'batch/v1' : 'apps/v1',
    kind,
    name: `${name}-owner`,
    uid: `uid-${name}-owner`,
    controller,
  });
  return owner === 'non-controller' ? [reference('ConfigMap', false)] : [reference(owner, true)];
}

export function aPod(options: PodOptions): V1Pod {
  const requests = quantities(options.requests);
  const limits = quantities(options.limits);
  const main: V1Container = {
    name: 'main',
    image: 'registry.example/app:1',
    ...(requests !== undefined || limits !== undefined
      ? { resources: { ...(requests !== undefined ? { requests } : {}), ...(limits !== undefined ? { limits } : {}) } }
      : {}),
  };
  const initRequests = quantities(options.initRequests);
  const annotations = { ...options.annotations, ...(options.mirror === true ? { [MIRROR_POD_ANNOTATION]: 'hash-1' } : {}) };
  const owners = ownerReferences(options.name, options.owner ?? 'ReplicaSet');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: options.name,
      namespace: options.namespace ?? 'default',
      uid: `uid-${options.name}`,
      ...(options.labels !== undefined ? { labels: options.labels } : {}),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ...(owners !== undefined ? { ownerReferences: owners } : {}),
      ...(options.terminating === true ? { deletionTimestamp: FIXED_TIME } : {}),
    },
    spec: {
      nodeName: options.nodeName ?? 'worker-01',
      containers: [main],
      ...(initRequests !== undefined ? { initContainers: [{ name: 'init', image: 'registry.example/init:1', resources: { requests: initRequests } }] } : {}),
      ...(options.emptyDir === true ? { volumes: [{ name: 'scratch', emptyDir: {} }] } : {}),
      ...(options.claims !== undefined
        ? { resourceClaims: options.claims.map((c) => ('claim' in c ? { name: c.name, resourceClaimName: c.claim } : { name: c.name, resourceClaimTemplateName: `${c.name}-template` })) }
        : {}),
    },
    status: {
      phase: options.phase ?? 'Running',
      ...(options.claims?.some((c) => 'generated' in c) === true
        ? { resourceClaimStatuses: options.claims.flatMap((c) => ('generated' in c ? [{ name: c.name, ...(c.generated !== null ? { resourceClaimName: c.generated } : {}) }] : [])) }
        : {}),
    },
  };
}

export interface ClaimOptions {
  name: string;
  /** @default 'default' */
  namespace?: string;
  /** The device class of its one request `gpu`. @default 'gpu.nvidia.com' */
  deviceClassName?: string;
  /** Allocated devices, each `<driver>/<pool>/<device>`; absent: not allocated. */
  devices?: string[];
  /** Names of the pods it is reserved for (uid `uid-<name>`, as aPod sets it). @default [] */
  reservedFor?: string[];
}

/** A ResourceClaim as the scheduler leaves it: one request `gpu`, and, when `devices` is set, its allocation. */
export function aClaim(options: ClaimOptions): ResourceV1ResourceClaim {
  const results = (options.devices ?? []).map((id) => {
    const [driver = '', pool = '', device = ''] = id.split('/');
    return { request: 'gpu', driver, pool, device };
  });
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: { name: options.name, namespace: options.namespace ?? 'default', uid: `uid-${options.name}` },
    spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: options.deviceClassName ?? 'gpu.nvidia.com' } }] } },
    status: {
      ...(options.devices !== undefined ? { allocation: { devices: { results } } } : {}),
      ...(options.reservedFor !== undefined ? { reservedFor: options.reservedFor.map((pod) => ({ resource: 'pods', name: pod, uid: `uid-${pod}` })) } : {}),
    },
  };
}
