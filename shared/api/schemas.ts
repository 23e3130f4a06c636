// zod schemas of the maintenance.nvidia.com/v1alpha1 objects, mirroring crds/ field by field (schemas.test.ts proves it).
//
// Spec and status objects are strict (unknown keys rejected), as the API server prunes them anyway;
// metadata is loose so a read-modify-write never drops fields kmaint does not model.
// CRD defaults are applied when parsing (`.default(x).optional()`), yet the inferred types keep those
// fields optional: objects built in code, or written by a Go client (omitempty), may still lack them.
import { z } from 'zod';
import { rebootSchema } from './reboot-schema.ts';
import { EC2_SCHEDULED_EVENT_CODES } from './constants.ts';
import { FREE_DEVICES_MAX_KEEP, FREE_DEVICES_MAX_RESOURCES } from './devices-draining.ts';

/** Largest value of a Go int32 (`format: int32` in the CRDs). */
const INT32_MAX = 2_147_483_647;

/** `^…$` from the upstream CRD: dot-separated labels, alphanumeric at both ends, dashes inside. */
export const REQUESTOR_ID_PATTERN = /^([a-z0-9A-Z]([-a-z0-9A-Z]*[a-z0-9A-Z])?(\.[a-z0-9A-Z]([-a-z0-9A-Z]*[a-z0-9A-Z])?)*)$/;
/** A Node's name: a DNS-1123 subdomain (lower-case alphanumerics, `-` and `.`, alphanumeric at both ends of each label). */
export const NODE_NAME_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** Longest Node name (a DNS-1123 subdomain). */
export const NODE_NAME_MAX = 253;

/** Whether `name` can be a Node's name: the only names kmaint puts in a selector or reads by name. */
export function isNodeName(name: string): boolean {
  return name.length <= NODE_NAME_MAX && NODE_NAME_PATTERN.test(name);
}

/**
 * Issue 40: bounds on what a requestor writes in a NodeMaintenance spec, in the CRD and in kmaint's own check (the
 * upstream CRDs, which may be installed instead, have none). Each far above what an honest request needs.
 */
export const REQUEST_LIMITS = Object.freeze({
  /** spec.additionalRequestors: requestor IDs sharing the request. */
  additionalRequestors: 64,
  /** waitForPodCompletion.podSelector and drainSpec.podSelector: a label selector. */
  podSelectorLength: 4096,
  /** drainSpec.podEvictionFilters. */
  podEvictionFilters: 32,
  /** drainSpec.podEvictionFilters[].byResourceNameRegex. */
  regexLength: 1024,
});

/** metav1.Condition `type`: CamelCase, optionally prefixed by a DNS subdomain and a slash. */
const CONDITION_TYPE_PATTERN = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/;
/** metav1.Condition `reason`: starts with a letter; letters, digits, `_`, `,`, `:`. */
const CONDITION_REASON_PATTERN = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/** A CRD `integer, format: int32, minimum: 0` field. */
function nonNegativeInt32() {
  return z.int().min(0).max(INT32_MAX);
}

/** `x-kubernetes-list-type: set`: the API server rejects duplicate items. */
function stringSet() {
  return z.array(z.string()).refine((items) => new Set(items).size === items.length, {
    message: 'duplicate items are not allowed (list-type set)',
  });
}

export const intOrStringSchema = z.union([z.int(), z.string()], {
  error: 'expected an integer or a string such as "10%"',
});

export const ownerReferenceSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string(),
  uid: z.string(),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});

export const objectMetaSchema = z.looseObject({
  name: z.string(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.int().optional(),
  creationTimestamp: z.string().optional(),
  deletionTimestamp: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  finalizers: z.array(z.string()).optional(),
  ownerReferences: z.array(ownerReferenceSchema).optional(),
});

/** The standard metav1.Condition. */
export const conditionSchema = z.strictObject({
  type: z.string().max(316).regex(CONDITION_TYPE_PATTERN),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().min(1).max(1024).regex(CONDITION_REASON_PATTERN),
  message: z.string().max(32768),
  lastTransitionTime: z.iso.datetime({ offset: true }),
  observedGeneration: z.int().min(0).optional(),
});

/** `x-kubernetes-list-type: map` keyed by `type`: one condition per type. */
const conditionListSchema = z.array(conditionSchema).refine(
  (conditions) => new Set(conditions.map((c) => c.type)).size === conditions.length,
  { message: 'duplicate condition types are not allowed (list-type map, key type)' },
);

export const podEvictionFilterSchema = z.strictObject({
  byResourceNameRegex: z.string().max(REQUEST_LIMITS.regexLength).optional(),
});

export const drainSpecSchema = z.strictObject({
  force: z.boolean().default(false).optional(),
  podSelector: z.string().max(REQUEST_LIMITS.podSelectorLength).optional(),
  timeoutSeconds: nonNegativeInt32().default(300).optional(),
  deleteEmptyDir: z.boolean().default(false).optional(),
  podEvictionFilters: z.array(podEvictionFilterSchema).max(REQUEST_LIMITS.podEvictionFilters).optional(),
});

/**
 * kmaint extension (issue 45 point 3), on a NodeMaintenance's drainSpec only: the drain also frees every user of the
 * node's devices, DaemonSet pods included, behind a NoSchedule taint (shared/drain/device-users.ts). An upstream CRD
 * prunes it: the drain is then the plain one.
 */
export const freeDevicesSchema = z.strictObject({
  dra: z.boolean().default(true).optional(),
  resources: z.array(z.string().min(1).max(253)).max(FREE_DEVICES_MAX_RESOURCES).optional(),
  podSelector: z.string().max(REQUEST_LIMITS.podSelectorLength).optional(),
  keep: z.array(z.string().max(REQUEST_LIMITS.podSelectorLength)).max(FREE_DEVICES_MAX_KEEP).optional(),
});

/** A NodeMaintenance's drainSpec: the shared drainSpec plus what only a request may ask for. */
export const requestDrainSpecSchema = drainSpecSchema.extend({
  freeDevices: freeDevicesSchema.optional(),
});

export const waitForPodCompletionSpecSchema = z.strictObject({
  podSelector: z.string().max(REQUEST_LIMITS.podSelectorLength).optional(),
  timeoutSeconds: nonNegativeInt32().default(0).optional(),
});

export const nodeMaintenanceSpecSchema = z.strictObject({
  requestorID: z.string().min(2).max(63).regex(REQUESTOR_ID_PATTERN),
  additionalRequestors: z.array(z.string().max(63)).max(REQUEST_LIMITS.additionalRequestors).refine((items) => new Set(items).size === items.length, {
    message: 'duplicate items are not allowed (list-type set)',
  }).optional(),
  nodeName: z.string().max(NODE_NAME_MAX).regex(NODE_NAME_PATTERN, { error: 'not a Node name (a DNS-1123 subdomain: lower-case letters, digits, \'-\' and \'.\')' }),
  cordon: z.boolean().default(true).optional(),
  waitForPodCompletion: waitForPodCompletionSpecSchema.optional(),
  drainSpec: requestDrainSpecSchema.optional(),
});

export const drainStatusSchema = z.strictObject({
  totalPods: nonNegativeInt32(),
  evictionPods: nonNegativeInt32(),
  drainProgress: nonNegativeInt32(),
  waitForEviction: z.array(z.string()).optional(),
});

export const nodeMaintenanceStatusSchema = z.strictObject({
  conditions: conditionListSchema.optional(),
  waitForCompletion: z.array(z.string()).optional(),
  drain: drainStatusSchema.optional(),
});

export const nodeMaintenanceSchema = z.strictObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: objectMetaSchema,
  spec: nodeMaintenanceSpecSchema,
  status: nodeMaintenanceStatusSchema.optional(),
});

export const logLevelSchema = z.enum(['debug', 'info', 'error']);

/** A pool name: a DNS-1123 label, as it appears in wait messages (`pool gpu: …`). */
export const POOL_NAME_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A window length as metav1.Duration prints hours and minutes (`30m`, `4h`, `1h30m`, `1h30m0s`), as Karpenter's budgets. */
export const WINDOW_DURATION_PATTERN = /^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$/;

/** metav1.LabelSelectorRequirement; operator syntax and label syntax are checked when the config loads. */
export const labelSelectorRequirementSchema = z.strictObject({
  key: z.string(),
  operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
  values: z.array(z.string()).optional(),
});

/** metav1.LabelSelector: matchLabels and matchExpressions ANDed; an empty selector selects every Node. */
export const labelSelectorSchema = z.strictObject({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z.array(labelSelectorRequirementSchema).optional(),
});

/** kmaint extension: new requests start only while a window is open: from each cron start for `duration`. */
export const maintenanceWindowSchema = z.strictObject({
  schedule: z.string().min(1),
  duration: z.string().regex(WINDOW_DURATION_PATTERN),
  timeZone: z.string().min(1).optional(),
});

/**
 * kmaint extension: how the node-annotation handshake drains. `drainSpec` is the template of the requests created
 * for `kmaint.io/desired-state: Drain_Required` (Reboot_Required always drains every pod it may).
 */
export const nodeHandshakeSchema = z.strictObject({
  drainSpec: drainSpecSchema.optional(),
});

/**
 * kmaint extension: the cluster-wide handshake, which also says which protocol kmaint speaks besides its own
 * kmaint.io keys: `sriov-network-operator` makes it the SR-IOV network operator's external drainer (README
 * "Alongside the SR-IOV network operator").
 */
export const clusterNodeHandshakeSchema = z.strictObject({
  drainSpec: drainSpecSchema.optional(),
  protocol: z.enum(['kmaint', 'sriov-network-operator']).default('kmaint').optional(),
  sriovNetworkOperator: z
    .strictObject({
      namespace: z.string().min(1).max(63).default('sriov-network-operator').optional(),
      resourcePrefix: z.string().min(1).default('openshift.io').optional(),
    })
    .optional(),
});

/** kmaint extension: a pool of Nodes chosen by selector, with limits that narrow the cluster-wide ones. */
export const maintenancePoolSchema = z.strictObject({
  name: z.string().max(63).regex(POOL_NAME_PATTERN),
  nodeSelector: labelSelectorSchema,
  maxParallelOperations: intOrStringSchema.optional(),
  maxUnavailable: intOrStringSchema.optional(),
  windows: z.array(maintenanceWindowSchema).optional(),
  nodeHandshake: nodeHandshakeSchema.optional(),
});

/** `x-kubernetes-list-type: map` keyed by `name`: one pool per name. */
const poolListSchema = z.array(maintenancePoolSchema).refine((pools) => new Set(pools.map((p) => p.name)).size === pools.length, {
  message: 'duplicate pool names are not allowed (list-type map, key name)',
});

/** The seed's reapPredicate in CEL: not cordoned, not a master, Ready not True (absent counts as Unknown). */
export const DEFAULT_REAP_PREDICATE =
  "!cordoned && labels[?'kubernetes.io/role'].orValue('') != 'master' && conditions[?'Ready'].orValue('Unknown') != 'True'";
/**
 * The seed's unhealthyPredicate in CEL. OutOfDisk is left out: Kubernetes stopped reporting it (1.13), and the seed's
 * `!= 'False'` on an absent condition would count every Node unhealthy. Absent pressure conditions count as False.
 */
export const DEFAULT_UNHEALTHY_PREDICATE =
  "cordoned || conditions[?'MemoryPressure'].orValue('False') != 'False' || conditions[?'DiskPressure'].orValue('False') != 'False' || conditions[?'Ready'].orValue('Unknown') != 'True'";

/** kmaint extension (issue 44): one rung of the repair ladder: the remedy for Nodes its CEL matches. */
export const repairRungSchema = z.strictObject({
  when: z.string().min(1).default('true').optional(),
  remedy: z.enum(['reboot', 'replace', 'quarantine']),
  timeoutSeconds: nonNegativeInt32().default(600).optional(),
});

/** kmaint extension (issue 44): the reaper's repair ladder, per-pool cap and fault history. */
export const repairSchema = z.strictObject({
  ladder: z.array(repairRungSchema).max(8),
  maxConcurrentPerPool: z.int().min(1).max(INT32_MAX).default(1).optional(),
  poolLabel: z.string().min(1).max(317).default('kmaint.io/pool').optional(),
  historyWindowSeconds: z.int().min(1).max(INT32_MAX).default(604800).optional(),
  repeatLimit: nonNegativeInt32().default(2).optional(),
});

/** kmaint extension: the unhealthy-node reaper (issue 9). Off unless `enabled`; defaults mirror node-reaper's. */
export const reaperSchema = z.strictObject({
  enabled: z.boolean().default(false).optional(),
  dryRun: z.boolean().default(true).optional(),
  reapPredicate: z.string().min(1).default(DEFAULT_REAP_PREDICATE).optional(),
  unhealthyPredicate: z.string().min(1).default(DEFAULT_UNHEALTHY_PREDICATE).optional(),
  unhealthyForSeconds: nonNegativeInt32().default(300).optional(),
  maxNodesUnhealthy: intOrStringSchema.default(1).optional(),
  maxNodesUnhealthyInSameZone: intOrStringSchema.default(1).optional(),
  newNodeGracePeriodSeconds: nonNegativeInt32().default(300).optional(),
  drainSpec: drainSpecSchema.optional(),
  drainTimeoutSeconds: nonNegativeInt32().default(310).optional(),
  forceRetryOnError: z.boolean().default(true).optional(),
  skipReaping: z.boolean().default(false).optional(),
  joinExistingRequests: z.boolean().default(false).optional(),
  provider: z.enum(['providerID', 'none']).default('providerID').optional(),
  repair: repairSchema.optional(),
  /** kmaint extension (issue 45): CEL over the Node giving `driver/pool/device` strings; non-empty: a device request. */
  devicesFrom: z.string().min(1).optional(),
});

/**
 * kmaint extension (issue 21): the reaper pass files one request per Node whose EC2 instance has a scheduled event of
 * one of `codes`, deadline the event's NotBefore, and deletes it once the event completed or went. Off unless `enabled`.
 */
export const cloudEventsSchema = z.strictObject({
  enabled: z.boolean().default(false).optional(),
  codes: z.array(z.enum(EC2_SCHEDULED_EVENT_CODES)).refine((items) => new Set(items).size === items.length, {
    message: 'duplicate items are not allowed (list-type set)',
  }).optional(),
  drainSpec: drainSpecSchema.optional(),
  /**
   * kmaint extension (issue 44): move each event that allows it (one with a NotBeforeDeadline) into the next maintenance
   * window before its deadline, leadSeconds after a window opened (time to drain inside it). Absent: events stay put.
   */
  moveIntoWindows: z.strictObject({ leadSeconds: nonNegativeInt32().optional() }).optional(),
});

/** kmaint extension (issue 10): drain Slurm nodes through slurmrestd before evicting their workers. Off unless `enabled`. */
export const slurmSchema = z.strictObject({
  enabled: z.boolean().default(false).optional(),
  url: z.string().min(1).optional(),
  /** Issue 31: an http:// url is refused (the token would travel in clear text) unless this is true. */
  allowInsecureHttp: z.boolean().default(false).optional(),
  apiVersion: z.enum(['auto', 'v0.0.40', 'v0.0.41', 'v0.0.42']).default('auto').optional(),
  tokenEnv: z.string().min(1).optional(),
  tokenSecret: z.strictObject({ name: z.string().min(1), key: z.string().min(1).default('auth-token').optional() }).optional(),
  tokenSecretArn: z.string().min(1).optional(),
  reasonPrefix: z.string().min(1).default('kmaint:').optional(),
  mode: z.enum(['pod', 'node']).default('pod').optional(),
  podSelector: z.string().optional(),
  /**
   * Issue 31: pod mode takes as Slurm workers only pods in these namespaces (Slinky's NodeSet pods: the slurm namespace).
   * Unset: the slurm namespace only (shared/slurm/settings.ts DEFAULT_WORKER_NAMESPACES), and the Valid condition says so.
   */
  workerNamespaces: z.array(z.string().max(63).regex(POOL_NAME_PATTERN)).refine((items) => new Set(items).size === items.length, {
    message: 'duplicate items are not allowed (list-type set)',
  }).optional(),
  nameFrom: z.enum(['hostname', 'name', 'label', 'annotation']).default('hostname').optional(),
  nameKey: z.string().min(1).optional(),
  drainTimeoutSeconds: nonNegativeInt32().default(0).optional(),
  whenUnreachable: z.enum(['wait', 'evict']).default('wait').optional(),
  /** Issue 40: kmaint reservations the requests of one namespace may hold at a time (one per node, for its next request). */
  reservationsPerNamespace: nonNegativeInt32().default(10).optional(),
});

/** kmaint extension (issue 20): the resource names each DRA driver's devices answer to in podEvictionFilters. */
export const draResourceNameSchema = z.strictObject({
  driver: z.string().min(1),
  resourceNames: stringSet(),
});

const draResourceNameListSchema = z.array(draResourceNameSchema).refine((items) => new Set(items.map((i) => i.driver)).size === items.length, {
  message: 'duplicate drivers are not allowed (list-type map, key driver)',
});

/** kmaint extension (issue 43): spec.rebootSentinel, the Node condition that asks for a reboot (shared/reboot/sentinel.ts). */
export const rebootSentinelSchema = z.strictObject({
  /** A Node condition type (a qualified name). @default RebootRequired */
  conditionType: z.string().min(1).max(316).optional(),
});

/**
 * kmaint extension (issue 44): spec.validation, a Job run on a released node before kmaint uncordons it
 * (shared/validation/, shared/lifecycle/validate-release.ts). Present = on for the Nodes `nodeSelector` selects.
 */
export const validationSchema = z.strictObject({
  /** Which Nodes are validated; absent or empty = every Node. */
  nodeSelector: labelSelectorSchema.optional(),
  /** The one-shot Job's container: the user's image and command (DCGM diagnostics, an NCCL test). */
  job: z.strictObject({
    image: z.string().min(1).max(1024),
    command: z.array(z.string().min(1).max(4096)).max(64).optional(),
    args: z.array(z.string().max(4096)).max(256).optional(),
    env: z.array(z.strictObject({ name: z.string().min(1).max(256), value: z.string().max(4096) })).max(64).optional(),
    resources: z.strictObject({ requests: z.record(z.string(), z.string()).optional(), limits: z.record(z.string(), z.string()).optional() }).optional(),
    privileged: z.boolean().optional(),
    serviceAccountName: z.string().min(1).max(253).optional(),
  }),
  /** From issuing the Job to its success; past it the validation has failed (TimedOut). @default 1800 */
  timeoutSeconds: z.int().min(1).max(2_147_483_647).optional(),
  /** `keepCordoned`: a failed node stays cordoned; `uncordon`: it is marked (condition, event) and uncordoned. @default keepCordoned */
  onFailure: z.enum(['keepCordoned', 'uncordon']).optional(),
});

/**
 * kmaint extension (issue 43): kured's blockers as admission gates. Pods matching `blockingPodSelector` on a Node keep
 * its requests from being admitted; firing alerts read from `alerts.url` (Alertmanager /api/v2/alerts or Prometheus
 * /api/v1/alerts) whose name matches `nameRegexp` and not `ignoreNameRegexp` (RE2) hold every admission; an alerts API
 * that cannot be read within `timeoutSeconds` holds every admission too (fail closed).
 */
export const rebootBlockersSchema = z.strictObject({
  blockingPodSelector: z.string().min(1).optional(),
  alerts: z.strictObject({
    url: z.string().min(1),
    api: z.enum(['alertmanager', 'prometheus']).default('alertmanager').optional(),
    nameRegexp: z.string().min(1).optional(),
    ignoreNameRegexp: z.string().min(1).optional(),
    firingOnly: z.boolean().default(true).optional(),
    timeoutSeconds: z.number().int().min(1).max(INT32_MAX).default(5).optional(),
  }).optional(),
});

export const maintenanceOperatorConfigSpecSchema = z.strictObject({
  maxParallelOperations: intOrStringSchema.default(1).optional(),
  maxUnavailable: intOrStringSchema.optional(),
  logLevel: logLevelSchema.default('info').optional(),
  maxNodeMaintenanceTimeSeconds: nonNegativeInt32().default(3600).optional(),
  pools: poolListSchema.optional(),
  maxUnavailablePerZone: intOrStringSchema.optional(),
  zoneLabel: z.string().min(1).optional(),
  windows: z.array(maintenanceWindowSchema).optional(),
  /** kmaint extension (issue 21): a node label whose value makes a gang of the requests on the nodes sharing it (e.g. nvidia.com/gpu.clique). */
  gangNodeLabel: z.string().min(1).optional(),
  /** kmaint extension (issue 21): after this long waiting, a gang that would fit once the requests in progress finish holds freed slots. */
  gangReserveAfterSeconds: nonNegativeInt32().optional(),
  /**
   * kmaint extension (issue 40): a node-label gang with nodes of its clique that no request names starts as the requests
   * that exist once its oldest waiting request is this many seconds old; absent = 3600.
   */
  gangIncompleteAdmitAfterSeconds: nonNegativeInt32().optional(),
  nodeHandshake: clusterNodeHandshakeSchema.optional(),
  reaper: reaperSchema.optional(),
  cloudEvents: cloudEventsSchema.optional(),
  slurm: slurmSchema.optional(),
  draResourceNames: draResourceNameListSchema.optional(),
  /** kmaint extension (issue 20): set the KEP-5683 node lifecycle conditions on nodes under maintenance; absent = on. */
  nodeConditions: z.boolean().optional(),
  /**
   * kmaint extension (issue 20): a node under maintenance NotReady for afterNotReadySeconds with pods stuck Terminating
   * gets node.kubernetes.io/out-of-service=nodeshutdown:NoExecute when enabled (off by default: the control plane then
   * force-deletes its pods and detaches their volumes, right only for a node that is really off).
   */
  outOfServiceTaint: z.strictObject({ enabled: z.boolean().optional(), afterNotReadySeconds: nonNegativeInt32().optional() }).optional(),
  /**
   * kmaint extension (issue 21): a request waiting on its kmaint.io/not-before has its node show MaintenancePlanned this
   * many seconds before that time (advance notice); absent = 3600.
   */
  maintenancePlannedLeadSeconds: nonNegativeInt32().optional(),
  /**
   * kmaint extension (issue 34): from this many nodes (as the last full read counted them) the drainer and cleanup read
   * only the Nodes their requests name between full reads; absent = 5000.
   */
  namedReadsFromNodes: nonNegativeInt32().optional(),
  /** kmaint extension (issue 34): how often the drainer and cleanup read every Node on such a cluster; absent = 600. */
  fullReadEverySeconds: nonNegativeInt32().optional(),
  /**
   * kmaint extension (issue 40): the namespace the upstream operator runs in; only there does its own-pod label exempt
   * a pod from drains. Absent = DEFAULT_UPSTREAM_OPERATOR_NAMESPACE.
   */
  upstreamOperatorNamespace: z.string().min(1).max(63).regex(POOL_NAME_PATTERN).optional(),
  rebootBlockers: rebootBlockersSchema.optional(),
  /** kmaint extension (issue 43): how the drainer reboots the node of a request annotated kmaint.io/reboot=true. */
  reboot: rebootSchema.optional(),
  /**
   * kmaint extension (issue 43): present = the scheduler pass files a reboot request (`reboot-<node>`, kmaint.io/reboot)
   * for every Node whose condition `conditionType` is True, and deletes it once Ready and the condition is cleared.
   */
  rebootSentinel: rebootSentinelSchema.optional(),
  /** kmaint extension (issue 44): validate a released node with a Job before it is uncordoned. */
  validation: validationSchema.optional(),
  /**
   * kmaint extension (issue 43, kured's --lock-release-delay): after an admitted request is released (deleted, its node
   * back in service), nothing is admitted for this many seconds. Absent or 0 = off.
   */
  releaseDelaySeconds: nonNegativeInt32().optional(),
});

export const maintenanceOperatorConfigStatusSchema = z.strictObject({
  conditions: conditionListSchema.optional(),
});

export const maintenanceOperatorConfigSchema = z.strictObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: objectMetaSchema,
  spec: maintenanceOperatorConfigSpecSchema.optional(),
  status: maintenanceOperatorConfigStatusSchema.optional(),
});
