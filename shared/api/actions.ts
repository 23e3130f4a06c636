// What planners ask for: one discriminated union of idempotent writes, each with the reason it was chosen.
// Only shared/pass applies actions. The actions serving one NodeMaintenance (its own writes, its node's
// cordon, its pods' evictions, its events) form a unit applied in plan order, so "record, then mutate"
// holds; units run concurrently. The applier threads the resourceVersion each write returns into the next
// write to that object. A failed write to the NodeMaintenance or its Node stops the rest of the unit.
import type { Condition, NodeMaintenance, NodeMaintenanceStatus } from './types.ts';

/** Identifies a NodeMaintenance and the resourceVersion the plan saw. */
export interface MaintenanceRef {
  namespace: string;
  name: string;
  uid?: string;
  resourceVersion: string;
}

/** The reference a plan keeps to `nm`: its identity and the resourceVersion the plan saw. */
export function maintenanceRef(nm: NodeMaintenance): MaintenanceRef {
  return {
    namespace: nm.metadata.namespace ?? '',
    name: nm.metadata.name,
    ...(nm.metadata.uid !== undefined ? { uid: nm.metadata.uid } : {}),
    resourceVersion: nm.metadata.resourceVersion ?? '',
  };
}

export interface NodeRef {
  name: string;
  resourceVersion: string;
}

export interface PodRef {
  namespace: string;
  name: string;
  uid?: string;
}

export type Action =
  /** Replace the NodeMaintenance status (status subresource). `phaseFrom`/`phaseTo` set when the Ready reason changes. */
  | { kind: 'writeStatus'; target: MaintenanceRef; status: NodeMaintenanceStatus; phaseFrom?: string; phaseTo?: string; reason: string }
  /** Merge-patch NodeMaintenance metadata: annotations (null deletes), finalizer add/remove, Node owner reference. */
  | {
      kind: 'patchMaintenanceMeta';
      target: MaintenanceRef;
      annotations?: Record<string, string | null>;
      addFinalizer?: boolean;
      removeFinalizer?: boolean;
      ownerNode?: { name: string; uid: string };
      reason: string;
    }
  | { kind: 'cordonNode'; node: NodeRef; maintenance: MaintenanceRef; reason: string }
  | { kind: 'uncordonNode'; node: NodeRef; maintenance: MaintenanceRef; reason: string }
  /** Evict through pods/eviction (respects PodDisruptionBudgets). */
  | { kind: 'evictPod'; pod: PodRef; maintenance: MaintenanceRef; reason: string }
  /** Plain delete: finished pods, which need no budget check. */
  | { kind: 'deletePod'; pod: PodRef; maintenance: MaintenanceRef; gracePeriodSeconds?: number; reason: string }
  /** Replace the MaintenanceOperatorConfig's status conditions (problems with its values). */
  | { kind: 'writeConfigStatus'; target: { namespace: string; name: string; resourceVersion: string }; conditions: Condition[]; reason: string }
  /** Delete a NodeMaintenance (garbage collection). */
  | { kind: 'deleteMaintenance'; target: MaintenanceRef; reason: string }
  /** An event on a NodeMaintenance (or on the config object when `target.kind` says so). */
  | {
      kind: 'emitEvent';
      target: { kind: 'NodeMaintenance' | 'MaintenanceOperatorConfig'; namespace: string; name: string; uid?: string };
      type: 'Normal' | 'Warning';
      eventReason: string;
      message: string;
      reason: string;
    };

export type ActionKind = Action['kind'];

/** One line for dry runs, logs and events. */
export function describeAction(action: Action): string {
  switch (action.kind) {
    case 'writeStatus':
      return `status ${action.target.namespace}/${action.target.name}${action.phaseTo !== undefined ? ` ${action.phaseFrom || '(new)'} -> ${action.phaseTo}` : ''}: ${action.reason}`;
    case 'patchMaintenanceMeta':
      return `patch ${action.target.namespace}/${action.target.name}${action.addFinalizer ? ' +finalizer' : ''}${action.removeFinalizer ? ' -finalizer' : ''}${action.ownerNode ? ' +owner' : ''}${action.annotations ? ` annotations ${Object.keys(action.annotations).join(',')}` : ''}: ${action.reason}`;
    case 'cordonNode':
      return `cordon node ${action.node.name}: ${action.reason}`;
    case 'uncordonNode':
      return `uncordon node ${action.node.name}: ${action.reason}`;
    case 'evictPod':
      return `evict pod ${action.pod.namespace}/${action.pod.name}: ${action.reason}`;
    case 'deletePod':
      return `delete pod ${action.pod.namespace}/${action.pod.name}: ${action.reason}`;
    case 'deleteMaintenance':
      return `delete ${action.target.namespace}/${action.target.name}: ${action.reason}`;
    case 'writeConfigStatus':
      return `status MaintenanceOperatorConfig ${action.target.namespace}/${action.target.name}: ${action.reason}`;
    case 'emitEvent':
      return `event ${action.type} ${action.eventReason} on ${action.target.namespace}/${action.target.name}: ${action.message}`;
  }
}
