// Public surface of shared/api: wire constants and object shapes.
export * from './constants.ts';
export type * from './types.ts';
export type * from './actions.ts';
export { describeAction, maintenanceRef } from './actions.ts';
export {
  REQUESTOR_ID_PATTERN,
  conditionSchema,
  drainSpecSchema,
  drainStatusSchema,
  intOrStringSchema,
  logLevelSchema,
  maintenanceOperatorConfigSchema,
  maintenanceOperatorConfigSpecSchema,
  maintenanceOperatorConfigStatusSchema,
  nodeMaintenanceSchema,
  nodeMaintenanceSpecSchema,
  nodeMaintenanceStatusSchema,
  objectMetaSchema,
  ownerReferenceSchema,
  podEvictionFilterSchema,
  waitForPodCompletionSpecSchema,
} from './schemas.ts';
