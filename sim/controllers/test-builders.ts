// Fixtures for the controllers' planner tests: builders with defaults, a fixed clock, and an action checker.
import type {
  V1DaemonSet,
  V1Deployment,
  V1Job,
  V1Node,
  V1OwnerReference,
  V1Pod,
  V1PodDisruptionBudget,
  V1ReplicaSet,
  V1StatefulSet,
  V1Taint,
  V1Toleration,
} from '@kubernetes/client-node';
import { expect } from 'vitest';
import type { ControllerAction } from './actions.ts';

export const NOW = new Date('2026-03-01T12:00:00Z');
export const ago = (seconds: number): Date => new Date(NOW.getTime() - seconds * 1000);

export function aNode(o: { name: string; labels?: Record<string, string>; taints?: V1Taint[]; unschedulable?: boolean; cpu?: string; memory?: string; pods?: string; ready?: boolean; extra?: Record<string, string> }): V1Node {
  const allocatable = { cpu: o.cpu ?? '4', memory: o.memory ?? '16Gi', pods: o.pods ?? '110', ...o.extra };
  return {
    metadata: { name: o.name, uid: `uid-${o.name}`, labels: { 'kubernetes.io/hostname': o.name, ...o.labels } },
    spec: { ...(o.taints ? { taints: o.taints } : {}), ...(o.unschedulable ? { unschedulable: true } : {}) },
    status: { allocatable, capacity: allocatable, conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
  };
}

export function ownerRef(kind: string, name: string, uid = `uid-${name}`): V1OwnerReference {
  const apiVersion = kind === 'Job' ? 'batch/v1' : 'apps/v1';
  return { apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true };
}

export interface PodInput {
  name: string;
  namespace?: string;
  node?: string;
  owner?: V1OwnerReference;
  labels?: Record<string, string>;
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  ready?: boolean;
  deleting?: boolean;
  created?: Date;
  requests?: Record<string, string>;
  limits?: Record<string, string>;
  tolerations?: V1Toleration[];
  nodeSelector?: Record<string, string>;
  pinnedTo?: string;
  priority?: number;
}

export function aPod(o: PodInput): V1Pod {
  const phase = o.phase ?? (o.node ? 'Running' : 'Pending');
  const ready = o.ready ?? phase === 'Running';
  return {
    metadata: {
      name: o.name,
      namespace: o.namespace ?? 'web',
      uid: `uid-${o.name}`,
      labels: o.labels ?? { app: 'web' },
      creationTimestamp: o.created ?? ago(600),
      ...(o.deleting ? { deletionTimestamp: ago(1) } : {}),
      ...(o.owner ? { ownerReferences: [o.owner] } : {}),
    },
    spec: {
      containers: [{ name: 'main', image: 'pause', resources: { requests: o.requests ?? { cpu: '100m', memory: '128Mi' }, ...(o.limits ? { limits: o.limits } : {}) } }],
      ...(o.node ? { nodeName: o.node } : {}),
      ...(o.tolerations ? { tolerations: o.tolerations } : {}),
      ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}),
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...(o.pinnedTo
        ? { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [o.pinnedTo] }] }] } } } }
        : {}),
    },
    status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

const template = (labels: Record<string, string>, image = 'pause') => ({ metadata: { labels }, spec: { containers: [{ name: 'main', image }] } });

export function aReplicaSet(o: { name: string; namespace?: string; replicas: number; owner?: V1OwnerReference; hash?: string; image?: string; status?: V1ReplicaSet['status'] }): V1ReplicaSet {
  const labels = { app: 'web', ...(o.hash ? { 'pod-template-hash': o.hash } : {}) };
  return {
    metadata: { name: o.name, namespace: o.namespace ?? 'web', uid: `uid-${o.name}`, generation: 1, labels, ...(o.owner ? { ownerReferences: [o.owner] } : {}) },
    spec: { replicas: o.replicas, selector: { matchLabels: labels }, template: template(labels, o.image) },
    ...(o.status ? { status: o.status } : {}),
  };
}

export function aDeployment(o: { name: string; namespace?: string; replicas?: number; status?: V1Deployment['status'] }): V1Deployment {
  return {
    metadata: { name: o.name, namespace: o.namespace ?? 'web', uid: `uid-${o.name}`, generation: 1 },
    spec: { ...(o.replicas !== undefined ? { replicas: o.replicas } : {}), selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }) },
    ...(o.status ? { status: o.status } : {}),
  };
}

export function aStatefulSet(o: { name: string; replicas: number; parallel?: boolean }): V1StatefulSet {
  return {
    metadata: { name: o.name, namespace: 'data', uid: `uid-${o.name}`, generation: 1 },
    spec: { replicas: o.replicas, serviceName: o.name, selector: { matchLabels: { app: o.name } }, template: template({ app: o.name }), ...(o.parallel ? { podManagementPolicy: 'Parallel' } : {}) },
  };
}

export function aDaemonSet(o: { name: string; nodeSelector?: Record<string, string>; tolerations?: V1Toleration[] }): V1DaemonSet {
  return {
    metadata: { name: o.name, namespace: 'ops', uid: `uid-${o.name}`, generation: 1 },
    spec: {
      selector: { matchLabels: { app: o.name } },
      template: { metadata: { labels: { app: o.name } }, spec: { containers: [{ name: 'main', image: 'pause' }], ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}), ...(o.tolerations ? { tolerations: o.tolerations } : {}) } },
    },
  };
}

export function aJob(o: { name: string; completions?: number; parallelism?: number; backoffLimit?: number; status?: V1Job['status'] }): V1Job {
  return {
    metadata: { name: o.name, namespace: 'batch', uid: `uid-${o.name}`, generation: 1 },
    spec: {
      ...(o.completions !== undefined ? { completions: o.completions } : {}),
      ...(o.parallelism !== undefined ? { parallelism: o.parallelism } : {}),
      ...(o.backoffLimit !== undefined ? { backoffLimit: o.backoffLimit } : {}),
      template: { metadata: { labels: { app: o.name } }, spec: { containers: [{ name: 'main', image: 'pause' }], restartPolicy: 'Never' } },
    },
    ...(o.status ? { status: o.status } : {}),
  };
}

export function aPdb(o: { name?: string; namespace?: string; minAvailable?: number | string; maxUnavailable?: number | string; selector?: Record<string, string> | null; generation?: number; status?: V1PodDisruptionBudget['status'] }): V1PodDisruptionBudget {
  return {
    metadata: { name: o.name ?? 'web', namespace: o.namespace ?? 'web', uid: 'uid-pdb', generation: o.generation ?? 1, resourceVersion: '7' },
    spec: {
      ...(o.selector === null ? {} : { selector: { matchLabels: o.selector ?? { app: 'web' } } }),
      ...(o.minAvailable !== undefined ? { minAvailable: o.minAvailable } : {}),
      ...(o.maxUnavailable !== undefined ? { maxUnavailable: o.maxUnavailable } : {}),
    },
    ...(o.status ? { status: o.status } : {}),
  };
}

/** What every plan must satisfy: a reason on each action, controller owners on new pods, no object touched twice. */
export function checkActions(actions: readonly ControllerAction[]): void {
  const touched = new Set<string>();
  for (const a of actions) {
    expect(a.reason, `reason of ${a.kind}`).not.toBe('');
    if (a.kind === 'createPod') {
      const owners = a.pod.metadata?.ownerReferences ?? [];
      expect(owners.filter((o) => o.controller === true)).toHaveLength(1);
      expect(a.pod.metadata?.name ?? a.pod.metadata?.generateName).toBeTruthy();
    }
    const key =
      a.kind === 'deletePod' || a.kind === 'bindPod' || a.kind === 'markUnschedulable'
        ? `pod ${a.pod.namespace}/${a.pod.name}`
        : a.kind === 'patchStatus'
          ? `${a.resource} ${a.target.namespace}/${a.target.name}`
          : a.kind === 'scaleReplicaSet'
            ? `rs ${a.replicaSet.namespace}/${a.replicaSet.name}`
            : undefined;
    if (key) {
      expect(touched.has(key), `${key} touched twice`).toBe(false);
      touched.add(key);
    }
  }
}

/** One line per action, the form tests compare. */
export function summarize(actions: readonly ControllerAction[]): string[] {
  return actions.map((a) => {
    switch (a.kind) {
      case 'createPod':
        return `create ${a.pod.metadata?.name ?? `${a.pod.metadata?.generateName ?? ''}*`}`;
      case 'deletePod':
        return `delete ${a.pod.name}`;
      case 'bindPod':
        return `bind ${a.pod.name} ${a.node}`;
      case 'markUnschedulable':
        return `unschedulable ${a.pod.name}: ${a.message}`;
      case 'createReplicaSet':
        return `create rs ${a.replicaSet.metadata?.name ?? ''}`;
      case 'scaleReplicaSet':
        return `scale ${a.replicaSet.name} ${a.replicas}`;
      case 'patchStatus':
        return `status ${a.resource} ${a.target.name}`;
      case 'updatePdbStatus':
        return `pdb ${a.pdb.metadata?.name ?? ''}`;
    }
  });
}
