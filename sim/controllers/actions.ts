// What the simulated controllers' planners ask for: one union of API writes, each with the reason it was chosen.
import type { V1PodDisruptionBudget, V1Pod, V1ReplicaSet } from '@kubernetes/client-node';

export interface ObjectRef {
  namespace: string;
  name: string;
  uid?: string;
}

/** Workload kinds whose status subresource the controllers write. */
export type StatusResource = 'deployments' | 'replicasets' | 'statefulsets' | 'daemonsets' | 'jobs';

export type ControllerAction =
  /** Create a pod; with `metadata.generateName` and no name, the applier picks a name. */
  | { kind: 'createPod'; pod: V1Pod; reason: string }
  | { kind: 'deletePod'; pod: ObjectRef; reason: string }
  /** POST pods/binding. */
  | { kind: 'bindPod'; pod: ObjectRef; node: string; reason: string }
  /** PodScheduled=False, reason Unschedulable, with the scheduler's message. */
  | { kind: 'markUnschedulable'; pod: ObjectRef; message: string; reason: string }
  | { kind: 'createReplicaSet'; replicaSet: V1ReplicaSet; reason: string }
  | { kind: 'scaleReplicaSet'; replicaSet: ObjectRef; replicas: number; reason: string }
  /** Merge-patch a workload's status subresource. */
  | { kind: 'patchStatus'; resource: StatusResource; target: ObjectRef; status: Record<string, unknown>; reason: string }
  /** PUT the PodDisruptionBudget's status, preconditioned on the resourceVersion the plan saw. */
  | { kind: 'updatePdbStatus'; pdb: V1PodDisruptionBudget; reason: string };

export type ControllerActionKind = ControllerAction['kind'];

export function describeControllerAction(a: ControllerAction): string {
  switch (a.kind) {
    case 'createPod':
      return `create pod ${a.pod.metadata?.namespace ?? ''}/${a.pod.metadata?.name ?? `${a.pod.metadata?.generateName ?? ''}*`}: ${a.reason}`;
    case 'deletePod':
      return `delete pod ${a.pod.namespace}/${a.pod.name}: ${a.reason}`;
    case 'bindPod':
      return `bind pod ${a.pod.namespace}/${a.pod.name} to ${a.node}: ${a.reason}`;
    case 'markUnschedulable':
      return `pod ${a.pod.namespace}/${a.pod.name} unschedulable: ${a.message}`;
    case 'createReplicaSet':
      return `create replicaset ${a.replicaSet.metadata?.namespace ?? ''}/${a.replicaSet.metadata?.name ?? ''}: ${a.reason}`;
    case 'scaleReplicaSet':
      return `scale replicaset ${a.replicaSet.namespace}/${a.replicaSet.name} to ${a.replicas}: ${a.reason}`;
    case 'patchStatus':
      return `status ${a.resource} ${a.target.namespace}/${a.target.name}: ${a.reason}`;
    case 'updatePdbStatus':
      return `status poddisruptionbudget ${a.pdb.metadata?.namespace ?? ''}/${a.pdb.metadata?.name ?? ''}: ${a.reason}`;
  }
}

export function refOf(object: { metadata?: { namespace?: string; name?: string; uid?: string } }): ObjectRef {
  const m = object.metadata;
  return { namespace: m?.namespace ?? '', name: m?.name ?? '', ...(m?.uid ? { uid: m.uid } : {}) };
}
