// Public surface of shared/runtime: how passes are driven.
export { RUN_BACKOFF, runUntilIdle } from './until-idle.ts';
export { nextWait, runRounds } from './round-loop.ts';
export type { BackoffSettings, RoundLoopOptions, RoundLoopResult, RoundOutcome } from './round-loop.ts';
export type { RunOptions, RunSummary } from './until-idle.ts';
export { runWithinBudget } from './lambda-run.ts';
export type { BudgetRunOptions, BudgetRunSummary, ChainOutcome, ChainStarter, PassRunner } from './lambda-run.ts';
export { decideChain } from './chain.ts';
export type { ChainDecision, ChainFacts, ChainSettings } from './chain.ts';
export { abortableSleep } from './sleep.ts';
export type { Sleep } from './sleep.ts';
