// Every wire string kmaint shares with maintenance.nvidia.com/v1alpha1, plus kmaint's own kmaint.io/ keys.

export const GROUP = 'maintenance.nvidia.com';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const NODE_MAINTENANCE_KIND = 'NodeMaintenance';
export const NODE_MAINTENANCE_PLURAL = 'nodemaintenances';
export const CONFIG_KIND = 'MaintenanceOperatorConfig';
export const CONFIG_PLURAL = 'maintenanceoperatorconfigs';
export const CONFIG_NAME = 'default';
export const DEFAULT_NAMESPACE = 'kmaint';

export const FINALIZER = 'maintenance.nvidia.com/finalizer';

export const CONDITION_READY = 'Ready';
export const CONDITION_REQUESTOR_FAILED = 'RequestorFailed';

/** Reasons of the Ready condition; the reason is the phase. */
export const Phase = {
  Pending: 'Pending',
  Scheduled: 'Scheduled',
  Cordon: 'Cordon',
  WaitForPodCompletion: 'WaitForPodCompletion',
  Draining: 'Draining',
  Ready: 'Ready',
  RequestorFailed: 'RequestorFailed',
} as const;
export type Phase = (typeof Phase)[keyof typeof Phase];
/** The phase of an object that has no Ready condition yet. */
export const PHASE_UNINITIALIZED = '';

export const ANNOTATION_INITIAL_UNSCHEDULABLE = 'maintenance.nvidia.com/node-initial-state.unschedulable';
export const ANNOTATION_WAIT_POD_COMPLETION_START = 'maintenance.nvidia.com/wait-pod-completion-start-time';
export const ANNOTATION_READY_TIME = 'maintenance.nvidia.com/ready-time';
export const ANNOTATION_GC_IGNORE = 'maintenance.nvidia.com/garbage-collector.ignore';

/** kmaint extension: when the current drain window started (drain timeout clock). */
export const ANNOTATION_DRAIN_START = 'kmaint.io/drain-start-time';

/**
 * kmaint extension: on a NodeMaintenance the drainer holds, which kind of wait its Ready message tells (WaitKind), so
 * `kmaint explain` and the metrics read the kind, never the words. Written when the kind changes, removed when the hold
 * ends; requests written by an older kmaint carry the message only. Ready's reason stays the phase (upstream reads it).
 */
export const ANNOTATION_WAIT_KIND = 'kmaint.io/wait-kind';
/** The drainer's waits on other systems, the values of kmaint.io/wait-kind. */
export const WaitKind = {
  /** Another tool (medik8s) holds the node's lease, or it cannot be read: kmaint does not cordon. */
  NodeLease: 'node-lease',
  /** spec.slurm: the node's Slurm nodes are draining; their jobs must end. */
  SlurmDrain: 'slurm-drain',
  /** Slinky's NodeSet pods: Slinky has yet to drain the Slurm nodes. */
  SlinkyDrain: 'slinky-drain',
  /** Slinky's NodeSet pods: Slinky drains the Slurm nodes; their jobs must end. */
  SlinkyJobs: 'slinky-jobs',
  /** Slurm cannot be read or drained (slurmrestd, spec.slurm, a missing Slurm node). */
  SlurmProblem: 'slurm-problem',
  /** A dead node with pods stuck Terminating and no out-of-service taint (spec.outOfServiceTaint off). */
  DeadNode: 'dead-node',
  /** A dead node with the out-of-service taint on (or being added): the pod garbage collector deletes the pods. */
  DeadNodeTainted: 'dead-node-tainted',
} as const;
export type WaitKind = (typeof WaitKind)[keyof typeof WaitKind];
const WAIT_KINDS: ReadonlySet<string> = new Set(Object.values(WaitKind));
/** The kind an annotation value names, or undefined (absent, or written by a newer kmaint). */
export function waitKindOf(value: string | undefined): WaitKind | undefined {
  return value !== undefined && WAIT_KINDS.has(value) ? (value as WaitKind) : undefined;
}

/**
 * kmaint extension: the condition beside Ready on a request that waits to be admitted, or whose drain a
 * PodDisruptionBudget holds. Its reason names the gate (WaitingOn), so the metrics and `kmaint explain` read the gate,
 * never Ready's words. Written in the same status write as Ready, and gone with the first Ready write that is no such
 * wait (shared/api/maintenance.ts withReadyCondition). Upstream clients read Ready only and ignore it.
 */
export const CONDITION_WAITING = 'kmaint.io/Waiting';
/** The reasons of kmaint.io/Waiting: what a waiting request waits on. */
export const WaitingOn = {
  /** maxParallelOperations reached. */
  Parallel: 'Parallel',
  /** maxUnavailable reached. */
  Unavailable: 'Unavailable',
  /** A pool's limit reached, or a pool that admits nothing. */
  Pool: 'Pool',
  /** A zone's limit reached, or a zone that admits nothing. */
  Zone: 'Zone',
  /** A maintenance window closed, never open, or invalid. */
  Window: 'Window',
  /** The request's own kmaint.io/not-before, ahead or unreadable. */
  NotBefore: 'NotBefore',
  /** A gang that starts whole or not at all, or freed slots held for one. */
  Gang: 'Gang',
  /** Its Node is missing, or another request there is in progress or ranks first. */
  Node: 'Node',
  /** The config's limits cannot be used. */
  Config: 'Config',
  /** The release delay after an earlier maintenance (spec.releaseDelaySeconds). */
  ReleaseDelay: 'ReleaseDelay',
  /** kured's blockers: a pod on the node or a firing alert (spec.rebootBlockers). */
  Blocker: 'Blocker',
  /** A device request whose devices cannot be taken out of service alone. */
  Device: 'Device',
  /** Another system's pool (the SR-IOV operator's drain limit). */
  ExternalPool: 'ExternalPool',
  /** Admission closed as a whole: kmaint's CRDs are not in force. */
  Closed: 'Closed',
  /** A phase written into status that kmaint never admitted: back to Pending. */
  NotAdmitted: 'NotAdmitted',
  /** The drain: a PodDisruptionBudget refuses an eviction. */
  Budget: 'Budget',
} as const;
export type WaitingOn = (typeof WaitingOn)[keyof typeof WaitingOn];
const WAITING_ON: ReadonlySet<string> = new Set(Object.values(WaitingOn));
/** The gate a kmaint.io/Waiting reason names, or undefined (absent, or written by a newer kmaint). */
export function waitingOnOf(reason: string | undefined): WaitingOn | undefined {
  return reason !== undefined && WAITING_ON.has(reason) ? (reason as WaitingOn) : undefined;
}

export const EVENT_REASON_CONDITION_CHANGED = 'ConditionChanged';
export const EVENT_REASON_DRAIN_TIMEOUT = 'DrainTimeout';
export const EVENT_REASON_DRAIN_REFUSED = 'DrainRefused';
export const EVENT_REASON_EVICTION_BLOCKED = 'EvictionBlocked';
export const EVENT_REASON_INVALID_CONFIG = 'InvalidConfig';
/** Warning event on a NodeMaintenance that bypassed the CRD's validation (wrong types, no spec): kmaint leaves it alone. */
export const EVENT_REASON_INVALID_MAINTENANCE = 'InvalidNodeMaintenance';
/** Warning event on each request of a node-label gang admitted without requests on all its clique's nodes (issue 40). */
export const EVENT_REASON_GANG_ADMITTED_INCOMPLETE = 'GangAdmittedIncomplete';

/** Condition kmaint writes on the MaintenanceOperatorConfig when a value cannot be used. */
export const CONFIG_CONDITION_VALID = 'Valid';
/** Condition kmaint writes on the MaintenanceOperatorConfig while some Node is selected by more than one pool. */
export const CONFIG_CONDITION_POOLS_OVERLAP = 'PoolsOverlap';
/** Warning event on the MaintenanceOperatorConfig when the set of Nodes in several pools changes to a non-empty one. */
export const EVENT_REASON_POOLS_OVERLAP = 'PoolsOverlap';

/**
 * kmaint extension: the node-annotation handshake of the SR-IOV parallel-node-config design, for node-local agents
 * that may patch only their own Node. The agent writes the desired state (and optionally who it is); kmaint writes
 * the current state. Values are the design's, letter for letter.
 */
export const ANNOTATION_DESIRED_STATE = 'kmaint.io/desired-state';
export const ANNOTATION_CURRENT_STATE = 'kmaint.io/current-state';
/** The requestorID of the NodeMaintenance kmaint creates for the agent; DEFAULT_HANDSHAKE_REQUESTOR when unset. */
export const ANNOTATION_REQUESTOR = 'kmaint.io/requestor';
export const DEFAULT_HANDSHAKE_REQUESTOR = 'node-agent.kmaint.io';
/** Why kmaint refuses the Node's handshake; set and cleared by kmaint only, so each refusal is reported once. */
export const ANNOTATION_HANDSHAKE_PROBLEM = 'kmaint.io/handshake-problem';
/** On a NodeMaintenance kmaint created for the handshake; the value is the desired state it serves. */
export const LABEL_HANDSHAKE = 'kmaint.io/handshake';
/** Handshake requests are named this prefix + the Node's name (hashed when too long), in kmaint's namespace. */
export const HANDSHAKE_REQUEST_PREFIX = 'handshake-';
export const HandshakeState = {
  Idle: 'Idle',
  DrainRequired: 'Drain_Required',
  RebootRequired: 'Reboot_Required',
  Draining: 'Draining',
  DrainComplete: 'DrainComplete',
} as const;
export type HandshakeState = (typeof HandshakeState)[keyof typeof HandshakeState];
/** Warning event on the Node when its desired state cannot be served (invalid value, requestor or config). */
export const EVENT_REASON_HANDSHAKE_REFUSED = 'HandshakeRefused';

/**
 * The SR-IOV network operator's drain handshake (interop sheet §1.2, §1.6), spoken when
 * `spec.nodeHandshake.protocol` is `sriov-network-operator`: the config daemon's request on the Node, its copy and
 * the drainer's answer on the SriovNetworkNodeState (named after the Node, in the operator's namespace).
 */
export const SRIOV_GROUP = 'sriovnetwork.openshift.io';
export const SRIOV_VERSION = 'v1';
export const SRIOV_NODE_STATE_PLURAL = 'sriovnetworknodestates';
export const SRIOV_POOL_CONFIG_PLURAL = 'sriovnetworkpoolconfigs';
/** On the Node: the request (`Idle`, `Drain_Required`, `Reboot_Required`); the drainer reads this key. */
export const SRIOV_ANNOTATION_NODE_STATE = 'sriovnetwork.openshift.io/state';
/** On the SriovNetworkNodeState: the daemon's copy of the request. */
export const SRIOV_ANNOTATION_DESIRED_STATE = 'sriovnetwork.openshift.io/desired-state';
/** On the SriovNetworkNodeState: the drainer's answer (`Idle`, `Draining`, `DrainComplete`). */
export const SRIOV_ANNOTATION_CURRENT_STATE = 'sriovnetwork.openshift.io/current-state';
/** On the SriovNetworkNodeState, value "true": the daemon runs with USE_EXTERNAL_DRAINER, so an external drainer answers. */
export const SRIOV_ANNOTATION_EXTERNAL_DRAINER = 'sriovnetwork.openshift.io/use-external-drainer';
/** The operator's namespace and resource prefix (Helm `operator.resourcePrefix`) when the config names none. */
export const DEFAULT_SRIOV_NAMESPACE = 'sriov-network-operator';
export const DEFAULT_SRIOV_RESOURCE_PREFIX = 'openshift.io';
/** kmaint's requests for the SR-IOV handshake: `sriov-<node>` in kmaint's namespace, labelled with the state they serve. */
export const SRIOV_REQUEST_PREFIX = 'sriov-';
export const LABEL_SRIOV_HANDSHAKE = 'kmaint.io/sriov-handshake';
export const SRIOV_HANDSHAKE_REQUESTOR = 'sriov-network-operator.kmaint.io';
/** On the Node: why kmaint refuses its SR-IOV request (an unknown value, a name taken); removed once it does not. */
export const ANNOTATION_SRIOV_HANDSHAKE_PROBLEM = 'kmaint.io/sriov-handshake-problem';
/** The operator's drain timeout (pkg/drain/drainer.go), used for both requests. */
export const SRIOV_DRAIN_TIMEOUT_SECONDS = 90;

/** The well-known Node label naming a Node's zone; `spec.zoneLabel` may name another. */
export const DEFAULT_ZONE_LABEL = 'topology.kubernetes.io/zone';

/** Pods with this label are kmaint's own and are never evicted. */
export const OWN_POD_LABEL_KEY = 'app.kubernetes.io/name';
export const OWN_POD_LABEL_VALUE = 'kmaint';
/** The upstream operator's implicit drain exclusion, honoured too. */
export const UPSTREAM_OWN_POD_SELECTOR = 'app.kubernetes.io/component!=maintenance-operator-controller-manager';
/**
 * Issue 40: where that exclusion applies: the namespace the upstream operator runs in (spec.upstreamOperatorNamespace),
 * never a tenant's, whose pods could otherwise carry the label to escape every drain.
 */
export const DEFAULT_UPSTREAM_OPERATOR_NAMESPACE = 'nvidia-maintenance-operator';

export const DEFAULTS = {
  cordon: true,
  waitTimeoutSeconds: 0,
  drainTimeoutSeconds: 300,
  drainForce: false,
  drainDeleteEmptyDir: false,
  maxParallelOperations: 1,
  maxNodeMaintenanceTimeSeconds: 3600,
  logLevel: 'info',
} as const;

/** Warning event on a NodeMaintenance when the drainer must wait for the medik8s node lease before cordoning. */
export const EVENT_REASON_NODE_LEASE_HELD = 'NodeLeaseHeld';
/**
 * The medik8s node lease convention (medik8s/common lease manager, used by the node-maintenance-operator and the
 * remediation operators): a coordination.k8s.io Lease `node-<node name>` in this namespace, owned by the Node, whose
 * holderIdentity names the tool working on the node. kmaint takes it before cordoning when the namespace exists.
 */
export const MEDIK8S_LEASE_NAMESPACE = 'medik8s-leases';
export const MEDIK8S_LEASE_PREFIX = 'node-';
/** kmaint's holderIdentity on a medik8s node lease is this prefix + the NodeMaintenance's namespace/name. */
export const MEDIK8S_HOLDER_PREFIX = 'kmaint/';
/** On a NodeMaintenance: the medik8s lease kmaint took for it (namespace/name), so cleanup knows to release it. */
export const ANNOTATION_MEDIK8S_LEASE = 'kmaint.io/medik8s-lease';
/**
 * On a Node kmaint cordoned: who cordoned it (`kmaint/<namespace>/<name>` of the NodeMaintenance) and why. Cleanup
 * uncordons only a node whose record still names that request; another tool's record (or none) keeps the cordon.
 */
export const ANNOTATION_CORDONED_BY = 'kmaint.io/cordoned-by';
export const ANNOTATION_CORDON_REASON = 'kmaint.io/cordon-reason';
/**
 * On a Node: kmaint's record that its scheduler admitted a request for it (`<namespace>/<name>/<uid>` of the
 * NodeMaintenance), written in the request's own write unit before the status that says Scheduled (issue 40). The
 * drainer moves only a request this record names; requestors cannot write Nodes, so a phase set in status is never an
 * admission. Owner: shared/scheduling/admission-record.ts.
 */
export const ANNOTATION_ADMITTED = 'kmaint.io/admitted';

/** kmaint extension: the unhealthy-node reaper (issue 9). The requestorID of every reap request. */
export const REAPER_REQUESTOR = 'reaper.kmaint.io';
/** Reap requests are named this prefix + the Node's name (hashed when too long), in kmaint's namespace. */
export const REAP_REQUEST_PREFIX = 'reap-';
/** On a NodeMaintenance the reaper created (value "true"). */
export const LABEL_REAPER = 'kmaint.io/reaper';
/** On a reap request: the Node's spec.providerID when the request was made; the instance terminated once it is Ready. */
export const ANNOTATION_REAPER_PROVIDER_ID = 'kmaint.io/reaper-provider-id';
/** On a reap request: after its drain timeout, remaining pods are deleted with grace period 0 ("true"). */
export const ANNOTATION_REAPER_FORCE_RETRY = 'kmaint.io/reaper-force-retry-on-error';
/** On a Node: the reaper's last reason not to reap it, so each decision is reported once (set and cleared by kmaint). */
export const ANNOTATION_REAPER_DECISION = 'kmaint.io/reaper-decision';
/**
 * On a Node: when the reaper finished with it (instance terminated, or drained with provider none). Such a Node is
 * not reaped again while it lingers; remove the annotation to make it a candidate again.
 */
export const ANNOTATION_REAPED = 'kmaint.io/reaped';
/** Node events: a reason not to reap (Normal), the reap request created or another requestor's joined (Normal), termination results. */
export const EVENT_REASON_REAP_SKIPPED = 'ReapSkipped';
export const EVENT_REASON_REAP_REQUESTED = 'ReapRequested';
export const EVENT_REASON_REAP_JOINED = 'ReapJoined';
export const EVENT_REASON_INSTANCE_TERMINATED = 'InstanceTerminated';
export const EVENT_REASON_TERMINATION_FAILED = 'TerminationFailed';
/** On a reap request: pods deleted with grace period 0 after the drain timeout (forceRetryOnError). */
export const EVENT_REASON_FORCE_DELETED = 'ForceDeleted';
/**
 * On a NodeMaintenance: "true" once kmaint wrote its kmaint.io/cordoned-by record on the node for it. Informational
 * only: a requestor can write it, so cleanup decides by the record on the Node alone (README "Who lifts a cordon").
 */
export const ANNOTATION_CORDON_RECORDED = 'kmaint.io/cordon-recorded';

/**
 * The resource names each DRA driver's devices answer to in podEvictionFilters when spec.draResourceNames is absent.
 * NVIDIA's DRA GPU driver (and the DeviceClass it installs) is `gpu.nvidia.com`; its GPUs are the ones the device
 * plugin announces as `nvidia.com/gpu`, the name the upstream operator's requestors filter on (`nvidia.com/gpu-*`).
 */
export const DEFAULT_DRA_RESOURCE_NAMES: ReadonlyArray<{ readonly driver: string; readonly resourceNames: readonly string[] }> = Object.freeze([
  Object.freeze({ driver: 'gpu.nvidia.com', resourceNames: Object.freeze(['nvidia.com/gpu']) }),
]);

/**
 * KEP-5683 Node lifecycle conditions kmaint sets on a node under maintenance (spec.nodeConditions, on by default).
 * Plain Node status conditions; the 1.35 API server accepts any type, and the KEP lets any authorised writer set them.
 */
export const NodeCondition = {
  MaintenancePlanned: 'MaintenancePlanned',
  MaintenanceInProgress: 'MaintenanceInProgress',
  DrainInProgress: 'DrainInProgress',
  Drained: 'Drained',
} as const;
export type NodeCondition = (typeof NodeCondition)[keyof typeof NodeCondition];
export const NODE_CONDITION_TYPES: readonly NodeCondition[] = [NodeCondition.MaintenancePlanned, NodeCondition.MaintenanceInProgress, NodeCondition.DrainInProgress, NodeCondition.Drained];
/** CamelCase reasons of the node conditions kmaint writes (the KEP gives example categories, DrainCompleted among them). */
export const NodeConditionReason = {
  MaintenanceScheduled: 'MaintenanceScheduled',
  MaintenanceStarted: 'MaintenanceStarted',
  DrainNotStarted: 'DrainNotStarted',
  EvictingPods: 'EvictingPods',
  DrainCompleted: 'DrainCompleted',
} as const;
/**
 * Ownership of a node condition: its message starts with this. kmaint changes and removes only conditions whose
 * message starts so (the rest of the message names the request); another writer's condition of the same type is left.
 */
export const NODE_CONDITION_MESSAGE_PREFIX = 'kmaint: ';

/** KEP-2268 non-graceful node shutdown: the taint kmaint may add to a dead node under maintenance (spec.outOfServiceTaint). */
export const TAINT_OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';
/** The value NTH, CAPM3 and the KEP's example use; the control plane reads only the key. */
export const TAINT_OUT_OF_SERVICE_VALUE = 'nodeshutdown';
/** On the Node, in the taint's own patch: which request added the out-of-service taint (kmaint removes only that one). */
export const ANNOTATION_OUT_OF_SERVICE_BY = 'kmaint.io/out-of-service-by';
/** Warning event on a NodeMaintenance when kmaint adds the out-of-service taint to its dead node. */
export const EVENT_REASON_OUT_OF_SERVICE = 'OutOfServiceTaint';

// Issue 21: request-level keys for gangs, deadlines and advance notice. Parsed by shared/api/request-timing.ts.
/** Label on a NodeMaintenance: requests sharing its value are admitted together or not at all (a gang). */
export const LABEL_GANG = 'kmaint.io/gang';
/** Optional annotation on a gang's requests: how many requests the gang has, so a missing or deleted one is reported. */
export const ANNOTATION_GANG_SIZE = 'kmaint.io/gang-size';
/** On a NodeMaintenance: RFC 3339 time by which it should be Ready; nearer deadlines rank first. */
export const ANNOTATION_DEADLINE = 'kmaint.io/deadline';
/** On a NodeMaintenance: RFC 3339 time before which it is not admitted. */
export const ANNOTATION_NOT_BEFORE = 'kmaint.io/not-before';
/** On a NodeMaintenance: which deadline kmaint has warned about ("missed <value>" or "invalid <value>"), so each is reported once. */
export const ANNOTATION_DEADLINE_REPORTED = 'kmaint.io/deadline-reported';
/** Warning event on a NodeMaintenance not Ready by its kmaint.io/deadline. */
export const EVENT_REASON_DEADLINE_MISSED = 'DeadlineMissed';
/** Warning event on a NodeMaintenance whose kmaint.io/deadline or kmaint.io/not-before is not an RFC 3339 time. */
export const EVENT_REASON_INVALID_REQUEST_TIME = 'InvalidRequestTime';

// Issue 21 point 3: cloud scheduled events. The reaper pass files one request per Node whose EC2 instance has one.
/** The requestorID of every request filed for a cloud scheduled event; kmaint deletes only requests of this requestor. */
export const CLOUD_EVENTS_REQUESTOR = 'cloud-events.kmaint.io';
/** Such requests are named this prefix + the Node's name (hashed when too long), in kmaint's namespace. */
export const CLOUD_EVENT_REQUEST_PREFIX = 'cloud-event-';
/** On a NodeMaintenance filed for a cloud scheduled event (value "true"). */
export const LABEL_CLOUD_EVENT = 'kmaint.io/cloud-event';
/** On such a request: the events it stands for, one `<code> <event id> <NotBefore>` per line, earliest first. */
export const ANNOTATION_CLOUD_EVENTS = 'kmaint.io/cloud-events';
/** Node events: a request filed for a scheduled event (Normal), deleted once the event completed or went (Normal). */
export const EVENT_REASON_CLOUD_EVENT_FILED = 'CloudEventFiled';
export const EVENT_REASON_CLOUD_EVENT_GONE = 'CloudEventGone';
/** Warning on the config object: the instances' scheduled events could not be read this pass (nothing filed or deleted for them). */
export const EVENT_REASON_CLOUD_EVENTS_UNREAD = 'CloudEventsUnread';
// Issue 44 point 4: an EC2 event that allows it is moved into the next maintenance window (spec.cloudEvents.moveIntoWindows).
/** On a cloud event request: each move asked of EC2, one `<event id> <old NotBefore> -> <new NotBefore>` per line; never asked twice. */
export const ANNOTATION_CLOUD_EVENT_MOVES = 'kmaint.io/cloud-event-moves';
/** Node event (Normal): kmaint asked EC2 to move the instance's scheduled event into a maintenance window. */
export const EVENT_REASON_CLOUD_EVENT_MOVED = 'CloudEventMoved';
/** EC2 DescribeInstanceStatus event codes (interop-2026.md section 7.1), the default of spec.cloudEvents.codes. */
export const EC2_SCHEDULED_EVENT_CODES = ['instance-reboot', 'system-reboot', 'system-maintenance', 'instance-retirement', 'instance-stop'] as const;
export type Ec2ScheduledEventCode = (typeof EC2_SCHEDULED_EVENT_CODES)[number];

// Issue 22 point 3: foreign CRDs fail closed (shared/pass/crd-schema.ts).
/** The config's CustomResourceDefinition: the one CRD kmaint reads (one GET per run, RBAC by resourceNames). */
export const CONFIG_CRD_NAME = `${CONFIG_PLURAL}.${GROUP}`;
/** On kmaint's CRDs: the digest of their spec (charts/crd-schema.ts writes it); the upstream operator's CRDs lack it. */
export const CRD_SCHEMA_ANNOTATION = 'kmaint.io/crd-schema';
/** On the config object, value "true": admit on the upstream operator's CRD schema anyway (metadata is never pruned). */
export const ANNOTATION_ACCEPT_UPSTREAM_SCHEMA = 'kmaint.io/accept-upstream-schema';
/** Warning event on the config object when requests are refused because kmaint's CRDs are not in force. */
export const EVENT_REASON_FOREIGN_CRDS = 'ForeignCRDs';

// Issue 43 point 2: reboot when the node says so (kured's sentinel). node-problem-detector sets a Node condition (the
// chart's custom plugin config); the scheduler pass files one reboot request per Node with it (shared/reboot/sentinel.ts).
/** The requestorID of kmaint's sentinel reboot requests. */
export const REBOOT_SENTINEL_REQUESTOR = 'reboot-sentinel.kmaint.io';
/** Such requests are named this prefix + the Node's name (hashed when too long), in kmaint's namespace. */
export const REBOOT_REQUEST_PREFIX = 'reboot-';
/** On a NodeMaintenance filed for a Node's reboot-required condition (value "true"). */
export const LABEL_REBOOT_SENTINEL = 'kmaint.io/reboot-sentinel';
/** The Node condition type read by default: what the chart's node-problem-detector plugin sets (kmaint never writes it). */
export const DEFAULT_REBOOT_SENTINEL_CONDITION = 'RebootRequired';
/** Node events: a reboot request filed for the condition (Normal); deleted once Ready and the condition cleared (Normal). */
export const EVENT_REASON_REBOOT_REQUESTED = 'RebootRequested';
export const EVENT_REASON_REBOOT_DONE = 'RebootDone';

// Issue 31 point 1, issue 30 point 6: the requests kmaint files itself are recognised by where and by whom they were
// made (kmaint's namespace, the name kmaint computes, kmaint's label), never by a requestorID anyone can copy.
/** kmaint's own requestorIDs: never taken from a Node's kmaint.io/requestor (the handshake refuses them). */
export const RESERVED_REQUESTOR_IDS: readonly string[] = Object.freeze([REAPER_REQUESTOR, CLOUD_EVENTS_REQUESTOR, SRIOV_HANDSHAKE_REQUESTOR, REBOOT_SENTINEL_REQUESTOR]);
/**
 * On a Node: the request the reaper joined (`<namespace>/<name>/<uid>`), written with the join, in the same unit and
 * before it. Requestors cannot write Nodes, so a request listing reaper.kmaint.io without this record is not a join.
 */
export const ANNOTATION_REAPER_JOINED = 'kmaint.io/reaper-joined';
/** On a Node, with kmaint.io/reaper-joined: the Node's spec.providerID when the reaper joined; a Node with another is not terminated. */
export const ANNOTATION_REAPER_JOINED_PROVIDER_ID = 'kmaint.io/reaper-joined-provider-id';
/** Warning event on a Node: a termination the reaper refused (its request names an instance that is not the Node's). */
export const EVENT_REASON_REAP_REFUSED = 'ReapRefused';

/**
 * kmaint extension (issue 34): on the drainer's and cleanup's own pass Lease (`kmaint-<function>`, kmaint's namespace,
 * which no requestor can write), when that function last read every Node and how many it saw. Between such full reads
 * a pass on a large cluster reads only the Nodes its requests name (shared/pass/choose-node-read.ts).
 */
export const ANNOTATION_FULL_NODE_READ_TIME = 'kmaint.io/full-node-read-time';
export const ANNOTATION_FULL_NODE_READ_NODES = 'kmaint.io/full-node-read-nodes';

// Issue 43: the reboot step (shared/lifecycle/steps/reboot.ts). Every fact of a reboot lives on its request.
/** kmaint extension: "true" on a NodeMaintenance asks for a reboot of its node once drained; an upstream client ignores it. */
export const ANNOTATION_REBOOT = 'kmaint.io/reboot';
/** The Node's status.nodeInfo.bootID when kmaint issued the reboot: a different one means it rebooted. */
export const ANNOTATION_REBOOT_BOOT_ID = 'kmaint.io/reboot-boot-id';
/** When kmaint issued the reboot (RFC 3339): the clock of spec.reboot.timeoutSeconds. */
export const ANNOTATION_REBOOT_START = 'kmaint.io/reboot-start-time';
/** What kmaint issued (`job <namespace>/<name>`), recorded before it is sent: never sent twice. */
export const ANNOTATION_REBOOT_ISSUED = 'kmaint.io/reboot-issued';
/**
 * spec.releaseDelaySeconds (kured's --lock-release-delay): when cleanup found a deleted, admitted request released (its
 * node back in service), RFC 3339. Its finalizer stays until this time plus the delay; the scheduler admits nothing until
 * then (shared/scheduling/release-delay.ts). Goes with the request.
 */
export const ANNOTATION_RELEASED_AT = 'kmaint.io/released-at';
/** The Ready reason while the node reboots; only requests that ask for a reboot ever show it (not an upstream reason). */
export const PHASE_REBOOTING = 'Rebooting';
/** Warning event on a request whose node did not come back with a new boot ID and Ready within the timeout. */
export const EVENT_REASON_REBOOT_TIMEOUT = 'RebootTimeout';
/** On the reboot Job and its pod template ("true"): what the simulated kubelet recognises, instead of running it. */
export const LABEL_REBOOT_POD = 'kmaint.io/reboot';
/** The reboot Job is named this prefix + the request's uid, in kmaint's namespace: one Job per request, ever. */
export const REBOOT_JOB_PREFIX = 'kmaint-reboot-';

// Issue 44 points 2-3: the reaper's repair ladder (shared/reaper/repair-*.ts). Its state lives on the Node under this
// prefix; nothing else writes there.
/** Prefix of every annotation the repair ladder keeps on a Node. */
export const REPAIR_ANNOTATION_PREFIX = 'repair.kmaint.io/';
/** When kmaint first saw the Node match reapPredicate (RFC 3339), kept while it keeps matching: a moving lastTransitionTime does not reset it. */
export const ANNOTATION_REPAIR_UNHEALTHY_SINCE = 'repair.kmaint.io/unhealthy-since';
/** The rung in progress or last tried (JSON: rung index, remedy, state, at), written before its request is filed. */
export const ANNOTATION_REPAIR_RUNG = 'repair.kmaint.io/rung';
/** The repairs of the history window (JSON list, newest last, bounded), pruned by time. */
export const ANNOTATION_REPAIR_HISTORY = 'repair.kmaint.io/history';
/** Normal event on a Node: a repair rung's request was filed, or a reboot rung finished. */
export const EVENT_REASON_REPAIR = 'Repair';
/** Warning event on a Node: the ladder went past a rung (timed out, or repeat offender skipping the reboot). */
export const EVENT_REASON_REPAIR_ESCALATED = 'RepairEscalated';
// Issue 45: device-scoped requests (shared/devices/, docs/device-maintenance.md).
/**
 * kmaint extension: on a NodeMaintenance, the devices of its node it is for, as `driver/pool/device` entries separated
 * by commas (DRA's names, as the node's ResourceSlices publish them). The request then never cordons its node: kmaint
 * taints those devices (DeviceTaintRule, NoSchedule) and evicts only the pods holding them. An upstream client ignores it.
 */
export const ANNOTATION_DEVICES = 'kmaint.io/devices';
/** The DeviceTaintRules kmaint created for a device request (names, comma-separated), recorded before they are created. */
export const ANNOTATION_DEVICE_TAINT_RULES = 'kmaint.io/device-taint-rules';
/** On each DeviceTaintRule kmaint creates ("true"): what marks it as kmaint's. */
export const LABEL_DEVICE_MAINTENANCE = 'kmaint.io/device-maintenance';
/** On each DeviceTaintRule kmaint creates: the request it serves, `namespace/name`. */
export const ANNOTATION_DEVICE_RULE_REQUEST = 'kmaint.io/maintenance';
/** The key of the device taint kmaint's rules put on a device in maintenance (effect NoSchedule). */
export const DEVICE_TAINT_KEY = 'kmaint.io/maintenance';
/** kmaint's DeviceTaintRules are named this prefix + the request's uid + `-` + the device's index in the request. */
export const DEVICE_TAINT_RULE_PREFIX = 'kmaint-device-';
// Issue 44 point 1: validation before return to service (shared/validation/, shared/lifecycle/validate-release.ts).
// Every fact of a validation lives on its Node under this prefix, so any cleanup pass continues where another stopped.
export const VALIDATION_ANNOTATION_PREFIX = 'validation.kmaint.io/';
/** The validation Job of the node's current or last attempt, `namespace/name`. */
export const ANNOTATION_VALIDATION_JOB = 'validation.kmaint.io/job';
/** The request (`namespace/name/uid`) whose release that attempt validates: one attempt per request, ever. */
export const ANNOTATION_VALIDATION_FOR = 'validation.kmaint.io/for';
/** When the attempt was issued (RFC 3339): the clock of spec.validation.timeoutSeconds. */
export const ANNOTATION_VALIDATION_START = 'validation.kmaint.io/start-time';
/** `Failed` or `TimedOut` once the attempt failed; absent while it runs. */
export const ANNOTATION_VALIDATION_OUTCOME = 'validation.kmaint.io/outcome';
/** After a failure: whose cordon kmaint keeps (the kmaint.io/cordoned-by value it took over); a later pass releases it. */
export const ANNOTATION_VALIDATION_CORDONED_BY = 'validation.kmaint.io/cordoned-by';
/** kmaint extension on a NodeMaintenance: "skip" releases its node without validation. */
export const ANNOTATION_VALIDATION_OPT_OUT = 'kmaint.io/validation';
export const VALIDATION_OPT_OUT_VALUE = 'skip';
/** The Node condition of a failed or timed-out validation (True); removed when a later validation passes. */
export const CONDITION_VALIDATION_FAILED = 'KmaintValidationFailed';
export const ValidationFailedReason = { Failed: 'Failed', TimedOut: 'TimedOut' } as const;
export type ValidationFailedReason = (typeof ValidationFailedReason)[keyof typeof ValidationFailedReason];
/** Node events: a validation failed or timed out (Warning); one passed (Normal). */
export const EVENT_REASON_VALIDATION_FAILED = 'ValidationFailed';
export const EVENT_REASON_VALIDATION_PASSED = 'ValidationPassed';
/** On the validation Job and its pod template ("true"). */
export const LABEL_VALIDATION_POD = 'kmaint.io/validation-pod';
/** The validation Job is named this prefix + the request's uid, in kmaint's namespace. */
export const VALIDATION_JOB_PREFIX = 'kmaint-validate-';
/** The cordon's taint, the one taint of kmaint's the validation pod tolerates beside the out-of-service taint. */
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
