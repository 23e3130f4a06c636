// Public surface of shared/api: wire constants, object shapes and the NodeMaintenance model (key, phase, Ready condition).
export * from './constants.ts';
export * from './slinky.ts';
export * from './devices-draining.ts';
export type * from './types.ts';
export type * from './actions.ts';
export { describeAction, maintenanceRef, podRef } from './actions.ts';
export type { OrderedWrites, RequestWrites, WriteOrderFacts, WriteUnit } from './write-order.ts';
export { orderWrites, removalsBeforeUncordons, requestUnit, stopsUnit, sweepConditionsFirst, unitKey, writeUnits } from './write-order.ts';
export type { ReadyConditionValue } from './maintenance.ts';
export {
  isBeingDeleted,
  isInProgress,
  isUnscheduled,
  maintenanceKey,
  maintenancePhase,
  namespacedName,
  readyCondition,
  validationAttemptId,
  waitingOn,
  withReadyCondition,
} from './maintenance.ts';
export { microTime, rfc3339Seconds } from './wire-time.ts';
export { DRAIN_STARTED_PHASES, DRAINED_PHASES, DRAINER_PHASES, PHASES_NEEDING_PODS, WAITING_PHASES } from './phases.ts';
export {
  POOL_NAME_PATTERN,
  REQUESTOR_ID_PATTERN,
  NODE_NAME_MAX,
  NODE_NAME_PATTERN,
  REQUEST_LIMITS,
  isNodeName,
  WINDOW_DURATION_PATTERN,
  conditionSchema,
  drainSpecSchema,
  freeDevicesSchema,
  requestDrainSpecSchema,
  drainStatusSchema,
  intOrStringSchema,
  labelSelectorRequirementSchema,
  labelSelectorSchema,
  logLevelSchema,
  maintenanceOperatorConfigSchema,
  maintenanceOperatorConfigSpecSchema,
  maintenanceOperatorConfigStatusSchema,
  maintenancePoolSchema,
  maintenanceWindowSchema,
  nodeHandshakeSchema,
  nodeMaintenanceSchema,
  nodeMaintenanceSpecSchema,
  nodeMaintenanceStatusSchema,
  objectMetaSchema,
  ownerReferenceSchema,
  podEvictionFilterSchema,
  reaperSchema,
  repairRungSchema,
  repairSchema,
  rebootSentinelSchema,
  slurmSchema,
  validationSchema,
  DEFAULT_REAP_PREDICATE,
  DEFAULT_UNHEALTHY_PREDICATE,
  waitForPodCompletionSpecSchema,
} from './schemas.ts';
export { rebootSchema } from './reboot-schema.ts';
export type { NodeConditionView } from './node-conditions.ts';
export { isOwnNodeCondition, maintenanceMarkedByOthers } from './node-conditions.ts';
export type { RequestTime } from './request-timing.ts';
export { parseRfc3339, requestDeadline, requestNotBefore } from './request-timing.ts';
export type { SriovNetworkNodeState, SriovNetworkPoolConfig } from './sriov.ts';
export { KMAINT_FIELD_MANAGER } from './field-manager.ts';
export { cloudEventRequestName, handshakeRequestName, isKmaintNodeRequest, isReapRequest, nodeRequestName, reapRequestName, rebootRequestName, sriovRequestName } from './kmaint-requests.ts';
