// Public surface of shared/runtime: how passes are driven.
export { runUntilIdle } from './until-idle.ts';
export type { RunOptions, RunSummary } from './until-idle.ts';
