// The shapes of kmaint's objects as they travel over the wire, inferred from the zod schemas (metadata kept loose on purpose).
import type { z } from 'zod';
import type {
  conditionSchema,
  drainSpecSchema,
  drainStatusSchema,
  freeDevicesSchema,
  intOrStringSchema,
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
  requestDrainSpecSchema,
  waitForPodCompletionSpecSchema,
} from './schemas.ts';

export type OwnerReference = z.infer<typeof ownerReferenceSchema>;
export type ObjectMeta = z.infer<typeof objectMetaSchema>;
export type Condition = z.infer<typeof conditionSchema>;
export type PodEvictionFilter = z.infer<typeof podEvictionFilterSchema>;
export type DrainSpec = z.infer<typeof drainSpecSchema>;
export type FreeDevicesSpec = z.infer<typeof freeDevicesSchema>;
/** A NodeMaintenance's drainSpec: DrainSpec plus freeDevices. */
export type RequestDrainSpec = z.infer<typeof requestDrainSpecSchema>;
export type WaitForPodCompletionSpec = z.infer<typeof waitForPodCompletionSpecSchema>;
export type NodeMaintenanceSpec = z.infer<typeof nodeMaintenanceSpecSchema>;
export type DrainStatus = z.infer<typeof drainStatusSchema>;
export type NodeMaintenanceStatus = z.infer<typeof nodeMaintenanceStatusSchema>;
export type NodeMaintenance = z.infer<typeof nodeMaintenanceSchema>;
export type IntOrString = z.infer<typeof intOrStringSchema>;
export type LogLevel = z.infer<typeof logLevelSchema>;
export type MaintenanceOperatorConfigSpec = z.infer<typeof maintenanceOperatorConfigSpecSchema>;
export type MaintenanceOperatorConfigStatus = z.infer<typeof maintenanceOperatorConfigStatusSchema>;
export type MaintenanceOperatorConfig = z.infer<typeof maintenanceOperatorConfigSchema>;
export type LabelSelectorSpec = z.infer<typeof labelSelectorSchema>;
export type MaintenanceWindowSpec = z.infer<typeof maintenanceWindowSchema>;
export type MaintenancePoolSpec = z.infer<typeof maintenancePoolSchema>;
export type NodeHandshakeSpec = z.infer<typeof nodeHandshakeSchema>;
export type ReaperSpec = z.infer<typeof reaperSchema>;
