// Public surface of sim/whatif: cluster snapshots and the what-if simulation of a rolling maintenance.
export {
  SNAPSHOT_API_VERSION,
  SNAPSHOT_FORMAT_VERSION,
  SNAPSHOT_KIND,
  SnapshotError,
  readSnapshotFile,
  snapshotSchema,
  validateSnapshot,
  type ClusterSnapshot,
  type SnapshotNode,
  type SnapshotPdb,
  type SnapshotPod,
  type SnapshotSlice,
} from './snapshot-schema.ts';
export { buildSnapshot, type LiveLists } from './snapshot-build.ts';
export { readClusterSnapshot } from './snapshot-read.ts';
export { profileSnapshot, type ProfileSnapshotOptions } from './profile-snapshot.ts';
export { simulate, WhatIfError, WHATIF_DRAIN_SPEC, WHATIF_NAMESPACE, WHATIF_REQUESTOR, type SimulateOptions } from './run.ts';
export type { AdmissionEntry, BudgetWait, WhatIfReport } from './report.ts';
export type { DeviceHolderEntry } from './observer.ts';
export { idealMakespan, limitScopes, type IdealInput, type LimitScope } from './ideal.ts';
