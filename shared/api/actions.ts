// What planners ask for: one discriminated union of idempotent writes, each with the reason it was chosen.
// Only shared/pass applies actions. The actions serving one NodeMaintenance (its own writes, its node's
// cordon, its pods' evictions, its events) form a unit applied in plan order, so "record, then mutate"
// holds; units run concurrently. The applier threads the resourceVersion each write returns into the next
// write to that object. A failed write to the NodeMaintenance or its Node stops the rest of the unit.
import { namespacedName } from './maintenance.ts';
import type { Condition, NodeMaintenance, NodeMaintenanceSpec, NodeMaintenanceStatus } from './types.ts';

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

/** A pod as read: evictions and deletes carry its uid, so a pod recreated under the same name is never touched. */
export function podRef(p: { metadata?: { namespace?: string; name?: string; uid?: string } }): PodRef {
  return { namespace: p.metadata?.namespace ?? '', name: p.metadata?.name ?? '', ...(p.metadata?.uid ? { uid: p.metadata.uid } : {}) };
}

/**
 * A coordination.k8s.io Lease to write as a whole: created when `resourceVersion` is absent, else replaced with
 * that resourceVersion as the precondition. `owner` becomes the Lease's owner reference to its Node.
 */
export interface NodeLeaseWrite {
  namespace: string;
  name: string;
  resourceVersion?: string;
  holder: string;
  durationSeconds: number;
  /** MicroTime strings (RFC 3339 with microseconds). */
  acquireTime: string;
  renewTime: string;
  transitions: number;
  owner: { name: string; uid: string };
}

/**
 * A DeviceTaintRule to create for a device request (issue 45, shared/devices): its name, the one device it selects, the
 * request (`namespace/name`) and the Node that owns it.
 */
export interface DeviceTaintRuleWrite {
  readonly name: string;
  readonly device: { readonly driver: string; readonly pool: string; readonly device: string };
  readonly request: string;
  readonly owner?: { readonly name: string; readonly uid: string };
}

/** A Node taint as written. */
export interface NodeTaint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

/** One Node condition as written (times as RFC 3339 strings). */
export interface NodeConditionWrite {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  lastHeartbeatTime: string;
}

/** The one-shot Job that reboots a node (issue 43): its pod is pinned to the node and tolerates every taint. */
export interface RebootJob {
  namespace: string;
  name: string;
  nodeName: string;
  /** The Node's uid: the Job is owned by the Node, so it goes with a deleted Node. */
  nodeUid?: string;
  image: string;
  command: string[];
  privileged: boolean;
  hostPID: boolean;
  /** namespace/name of the request it serves, as an annotation for people reading the Job. */
  request: string;
}

/** The cloud instance behind a Node that a rebootInstance action reboots (issue 43, spec.reboot.method ec2). */
export interface RebootInstance {
  /** The Node's spec.providerID, e.g. aws:///eu-west-1a/i-0123456789abcdef0: its prefix chooses the provider. */
  providerID: string;
  instanceId: string;
  nodeName: string;
}

/** A scheduled event of a cloud instance to move (issue 44, spec.cloudEvents.moveIntoWindows). */
export interface InstanceEventMove {
  /** The Node's spec.providerID: its prefix chooses the provider. */
  providerID: string;
  instanceId: string;
  eventId: string;
  nodeName: string;
  /** The new start, RFC 3339 to the second. */
  notBefore: string;
}

/** The validation Job's container as spec.validation.job gives it (issue 44); defaults resolved (shared/validation). */
export interface ValidationJobSpec {
  image: string;
  command: string[];
  args: string[];
  env: Array<{ name: string; value: string }>;
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  privileged: boolean;
  serviceAccountName?: string;
}

/** The one-shot Job that validates a released node before its uncordon (issue 44): pinned, tolerating kmaint's taints only. */
export interface ValidationJob {
  namespace: string;
  name: string;
  nodeName: string;
  /** The Node's uid: the Job is owned by the Node, so it goes with a deleted Node. */
  nodeUid?: string;
  spec: ValidationJobSpec;
  /** namespace/name of the request whose release it validates, as an annotation for people reading the Job. */
  request: string;
}

export type Action =
  /** Replace the NodeMaintenance status (status subresource). `phaseFrom`/`phaseTo` set when the Ready reason changes. */
  | { kind: 'writeStatus'; target: MaintenanceRef; status: NodeMaintenanceStatus; phaseFrom?: string; phaseTo?: string; reason: string }
  /** Merge-patch a NodeMaintenance: annotations (null deletes), finalizer add/remove, Node owner reference, additionalRequestors. */
  | {
      kind: 'patchMaintenanceMeta';
      target: MaintenanceRef;
      annotations?: Record<string, string | null>;
      addFinalizer?: boolean;
      removeFinalizer?: boolean;
      ownerNode?: { name: string; uid: string };
      /** Replaces spec.additionalRequestors whole, preconditioned like every other write (a conflict is decided again next pass). */
      additionalRequestors?: string[];
      reason: string;
    }
  /** `annotations` (null = remove) go in the same patch: the record of who cordoned is never apart from the cordon. */
  | { kind: 'cordonNode'; node: NodeRef; maintenance: MaintenanceRef; reason: string; annotations?: Record<string, string | null> }
  | { kind: 'uncordonNode'; node: NodeRef; maintenance: MaintenanceRef; reason: string; annotations?: Record<string, string | null> }
  /** Evict through pods/eviction (respects PodDisruptionBudgets). */
  | { kind: 'evictPod'; pod: PodRef; maintenance: MaintenanceRef; reason: string }
  /** Plain delete: finished pods, which need no budget check. */
  | { kind: 'deletePod'; pod: PodRef; maintenance: MaintenanceRef; gracePeriodSeconds?: number; reason: string }
  /** Replace the MaintenanceOperatorConfig's status conditions (problems with its values). */
  | { kind: 'writeConfigStatus'; target: { namespace: string; name: string; resourceVersion: string }; conditions: Condition[]; reason: string }
  /** Delete a NodeMaintenance (garbage collection, or a handshake request its Node no longer wants). */
  | { kind: 'deleteMaintenance'; target: MaintenanceRef; reason: string }
  /** Create a NodeMaintenance (a handshake request). An object of that name already there is a conflict, decided again next pass. */
  | {
      kind: 'createMaintenance';
      target: { namespace: string; name: string };
      labels: Record<string, string>;
      annotations: Record<string, string>;
      spec: NodeMaintenanceSpec;
      reason: string;
    }
  /**
   * Merge-patch a Node's annotations (null deletes), preconditioned on the resourceVersion the plan saw. With
   * `maintenance` the write joins that request's unit, after its own writes; without, it is a unit of its own.
   * `record`: the annotations record an act outside the cluster already done (the reaper's termination). Refused 409,
   * such a write goes again on a fresh read of the same Node (same uid) whatever else changed on it: what it records
   * happened, and a record lost would have the next pass do it again. A Node recreated under the name is not written.
   */
  | { kind: 'patchNodeAnnotations'; node: NodeRef; annotations: Record<string, string | null>; maintenance?: MaintenanceRef; record?: true; reason: string }
  /**
   * Merge-patch annotations of the SR-IOV network operator's SriovNetworkNodeState `target` (its `current-state`, and
   * missing keys created as Idle), preconditioned on the resourceVersion the plan saw. With `maintenance` the write
   * joins that request's unit, after its own writes.
   */
  | { kind: 'patchSriovNodeState'; target: { namespace: string; name: string; resourceVersion: string }; annotations: Record<string, string>; maintenance?: MaintenanceRef; reason: string }
  /**
   * Replace a Node's spec.taints with `taints` (a merge patch replaces the list whole), `annotations` (null deletes) in
   * the same patch, preconditioned on the resourceVersion the plan saw: the record of who tainted never apart from it.
   */
  | { kind: 'setNodeTaints'; node: NodeRef; taints: NodeTaint[]; annotations: Record<string, string | null>; maintenance: MaintenanceRef; reason: string }
  /**
   * Strategic-merge-patch a Node's status conditions (merged by type; `remove` types deleted), preconditioned on the
   * resourceVersion the plan saw. With `maintenance` the write joins that request's unit, after its own writes.
   */
  | { kind: 'patchNodeConditions'; node: NodeRef; set: NodeConditionWrite[]; remove: string[]; maintenance?: MaintenanceRef; reason: string }
  /**
   * An event on a NodeMaintenance, the config object or a Node, as `target.kind` says (a Node's `namespace` is ''). With
   * `maintenance`, a Node event says what a write of that request's unit did: it joins that unit, after the write, and
   * is said only if the write landed (a write refused and planned again by the next pass is not announced twice).
   */
  | {
      kind: 'emitEvent';
      target: { kind: 'NodeMaintenance' | 'MaintenanceOperatorConfig' | 'Node'; namespace: string; name: string; uid?: string };
      type: 'Normal' | 'Warning';
      eventReason: string;
      message: string;
      maintenance?: MaintenanceRef;
      reason: string;
    }
  /** Take or renew the medik8s node lease for a request, before its node is cordoned (joins the request's unit). */
  | { kind: 'takeNodeLease'; lease: NodeLeaseWrite; maintenance: MaintenanceRef; reason: string }
  /** Give the medik8s node lease back: delete it, preconditioned on the resourceVersion the plan saw. */
  | { kind: 'releaseNodeLease'; lease: { namespace: string; name: string; resourceVersion: string }; maintenance: MaintenanceRef; reason: string }
  /** Create the reboot Job (issue 43), after the request's patch recording that it is issued, in the same unit. */
  | { kind: 'createRebootJob'; job: RebootJob; maintenance: MaintenanceRef; reason: string }
  /** Delete the reboot Job and its pod (propagation Background); one already gone is fine. */
  | { kind: 'deleteRebootJob'; job: { namespace: string; name: string }; maintenance: MaintenanceRef; reason: string }
  /** Reboot the Node's cloud instance (EC2 RebootInstances), after the request's patch recording that it is issued, in the same unit. */
  | { kind: 'rebootInstance'; instance: RebootInstance; maintenance: MaintenanceRef; reason: string }
  /** Move an instance's scheduled event (EC2 ModifyInstanceEventStartTime), after the write of its request recording the move, in the request's unit. */
  | { kind: 'moveInstanceEvent'; move: InstanceEventMove; request: { namespace: string; name: string }; reason: string }
  /** Create a device request's DeviceTaintRule (issue 45), after the request's patch recording its name, in the same unit; one already there is fine. */
  | { kind: 'createDeviceTaintRule'; rule: DeviceTaintRuleWrite; maintenance: MaintenanceRef; reason: string }
  /** Delete a DeviceTaintRule the request recorded; one already gone is fine. */
  | { kind: 'deleteDeviceTaintRule'; name: string; maintenance: MaintenanceRef; reason: string }
  /** Create the validation Job (issue 44), after the node patch recording it, in the released request's unit. */
  | { kind: 'createValidationJob'; job: ValidationJob; maintenance: MaintenanceRef; reason: string }
  /** Delete a validation Job and its pod (propagation Background); one already gone is fine. */
  | { kind: 'deleteValidationJob'; job: { namespace: string; name: string }; maintenance: MaintenanceRef; reason: string };

export type ActionKind = Action['kind'];

/** " key=value -key" for a node patch's annotations, "" without any. */
function annotationList(annotations: Record<string, string | null> | undefined): string {
  if (annotations === undefined) return '';
  return ` ${Object.entries(annotations)
    .map(([key, value]) => (value === null ? `-${key}` : `${key}=${value}`))
    .join(' ')}`;
}

/** One line for dry runs, logs and events. */
export function describeAction(action: Action): string {
  switch (action.kind) {
    case 'writeStatus':
      return `status ${action.target.namespace}/${action.target.name}${action.phaseTo !== undefined ? ` ${action.phaseFrom || '(new)'} -> ${action.phaseTo}` : ''}: ${action.reason}`;
    case 'patchMaintenanceMeta':
      return `patch ${action.target.namespace}/${action.target.name}${action.addFinalizer ? ' +finalizer' : ''}${action.removeFinalizer ? ' -finalizer' : ''}${action.ownerNode ? ' +owner' : ''}${action.additionalRequestors ? ` additionalRequestors=[${action.additionalRequestors.join(',')}]` : ''}${action.annotations ? ` annotations ${Object.keys(action.annotations).join(',')}` : ''}: ${action.reason}`;
    case 'cordonNode':
      return `cordon node ${action.node.name}${annotationList(action.annotations)}: ${action.reason}`;
    case 'uncordonNode':
      return `uncordon node ${action.node.name}${annotationList(action.annotations)}: ${action.reason}`;
    case 'evictPod':
      return `evict pod ${action.pod.namespace}/${action.pod.name}: ${action.reason}`;
    case 'deletePod':
      return `delete pod ${action.pod.namespace}/${action.pod.name}: ${action.reason}`;
    case 'deleteMaintenance':
      return `delete ${action.target.namespace}/${action.target.name}: ${action.reason}`;
    case 'writeConfigStatus':
      return `status MaintenanceOperatorConfig ${action.target.namespace}/${action.target.name}: ${action.reason}`;
    case 'createMaintenance':
      return `create ${action.target.namespace}/${action.target.name} for node ${action.spec.nodeName}: ${action.reason}`;
    case 'patchNodeAnnotations':
      return `annotate node ${action.node.name}${annotationList(action.annotations)}: ${action.reason}`;
    case 'patchSriovNodeState':
      return `annotate SriovNetworkNodeState ${action.target.namespace}/${action.target.name}${annotationList(action.annotations)}: ${action.reason}`;
    case 'setNodeTaints':
      return `taints of node ${action.node.name} = [${action.taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`).join(', ')}]${annotationList(action.annotations)}: ${action.reason}`;
    case 'patchNodeConditions':
      return `conditions of node ${action.node.name}${action.set.map((c) => ` ${c.type}=${c.status}/${c.reason}`).join('')}${action.remove.map((t) => ` -${t}`).join('')}: ${action.reason}`;
    case 'takeNodeLease':
      return `take lease ${action.lease.namespace}/${action.lease.name} as ${action.lease.holder} for ${action.lease.durationSeconds} s: ${action.reason}`;
    case 'releaseNodeLease':
      return `release lease ${action.lease.namespace}/${action.lease.name}: ${action.reason}`;
    case 'createRebootJob':
      return `create reboot Job ${action.job.namespace}/${action.job.name} on node ${action.job.nodeName}: ${action.reason}`;
    case 'deleteRebootJob':
      return `delete reboot Job ${action.job.namespace}/${action.job.name}: ${action.reason}`;
    case 'rebootInstance':
      return `reboot instance ${action.instance.instanceId} of node ${action.instance.nodeName}: ${action.reason}`;
    case 'moveInstanceEvent':
      return `move event ${action.move.eventId} of instance ${action.move.instanceId} (node ${action.move.nodeName}) to ${action.move.notBefore}: ${action.reason}`;
    case 'createDeviceTaintRule':
      return `create DeviceTaintRule ${action.rule.name} (NoSchedule on ${action.rule.device.driver}/${action.rule.device.pool}/${action.rule.device.device}): ${action.reason}`;
    case 'deleteDeviceTaintRule':
      return `delete DeviceTaintRule ${action.name}: ${action.reason}`;
    case 'createValidationJob':
      return `create validation Job ${action.job.namespace}/${action.job.name} on node ${action.job.nodeName}: ${action.reason}`;
    case 'deleteValidationJob':
      return `delete validation Job ${action.job.namespace}/${action.job.name}: ${action.reason}`;
    case 'emitEvent':
      return `event ${action.type} ${action.eventReason} on ${action.target.kind === 'Node' ? `node ${action.target.name}` : namespacedName(action.target)}: ${action.message}`;
  }
}
