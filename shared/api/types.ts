// The shapes of kmaint's objects as they travel over the wire (metadata kept loose on purpose).

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }>;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface PodEvictionFilter {
  byResourceNameRegex?: string;
}

export interface DrainSpec {
  force?: boolean;
  podSelector?: string;
  timeoutSeconds?: number;
  deleteEmptyDir?: boolean;
  podEvictionFilters?: PodEvictionFilter[];
}

export interface WaitForPodCompletionSpec {
  podSelector?: string;
  timeoutSeconds?: number;
}

export interface NodeMaintenanceSpec {
  requestorID: string;
  additionalRequestors?: string[];
  nodeName: string;
  cordon?: boolean;
  waitForPodCompletion?: WaitForPodCompletionSpec;
  drainSpec?: DrainSpec;
}

export interface DrainStatus {
  totalPods: number;
  evictionPods: number;
  drainProgress: number;
  waitForEviction?: string[];
}

export interface NodeMaintenanceStatus {
  conditions?: Condition[];
  waitForCompletion?: string[];
  drain?: DrainStatus;
}

export interface NodeMaintenance {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: NodeMaintenanceSpec;
  status?: NodeMaintenanceStatus;
}

export type IntOrString = number | string;

export interface MaintenanceOperatorConfigSpec {
  maxParallelOperations?: IntOrString;
  maxUnavailable?: IntOrString;
  logLevel?: 'debug' | 'info' | 'error';
  maxNodeMaintenanceTimeSeconds?: number;
}

export interface MaintenanceOperatorConfig {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: MaintenanceOperatorConfigSpec;
  status?: { conditions?: Condition[] };
}
