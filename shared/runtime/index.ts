// Public surface of shared/runtime: how passes are driven.
export { runUntilIdle } from './until-idle.ts';
export type { RunOptions, RunSummary } from './until-idle.ts';
export { runWithinBudget } from './lambda-run.ts';
export type { BudgetRunOptions, BudgetRunSummary, ChainOutcome, ChainStarter, PassRunner } from './lambda-run.ts';
export { decideChain } from './chain.ts';
export type { ChainDecision, ChainFacts, ChainSettings } from './chain.ts';
export { abortableSleep } from './sleep.ts';
export type { Sleep } from './sleep.ts';
