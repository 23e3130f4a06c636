// Public surface of shared/config: loading the MaintenanceOperatorConfig and resolving int-or-percent limits.
export { DEFAULT_CONFIG, loadLimits } from './load.ts';
export type { LoadedConfig, ResolvedConfig } from './load.ts';
export { resolveIntOrPercent } from './int-or-percent.ts';
export type { IntOrPercentResult } from './int-or-percent.ts';
export { DEFAULT_GANG_INCOMPLETE_ADMIT_AFTER_SECONDS, DEFAULT_GANG_RESERVE_AFTER_SECONDS, loadAdmissionRules } from './admission.ts';
export type { AdmissionRules, LoadedAdmission, PoolRules } from './admission.ts';
export { DEFAULT_WINDOW_TIME_ZONE, compileWindows, normaliseCron, windowDurationMs } from './windows.ts';
export type { MaintenanceWindow, NormalisedCron, WindowSet } from './windows.ts';
export { windowStatus } from './window-status.ts';
export type { WindowStatus } from './window-status.ts';
export { loadDraResourceNames } from './dra.ts';
export type { LoadedDraResourceNames } from './dra.ts';
