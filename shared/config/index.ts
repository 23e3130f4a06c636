// Public surface of shared/config: loading the MaintenanceOperatorConfig and resolving int-or-percent limits.
export { DEFAULT_CONFIG, loadConfig } from './load.ts';
export type { LoadedConfig, ResolvedConfig } from './load.ts';
export { resolveIntOrPercent } from './int-or-percent.ts';
export type { IntOrPercentResult } from './int-or-percent.ts';
