// Public surface of shared/lifecycle: the drainer's and cleanup's pure planners and budget accounting.
export { planDrainer, DRAINER_PHASES, PHASES_NEEDING_PODS } from './drainer.ts';
export type { DrainerPlan, DrainerSnapshot } from './drainer.ts';
export { planCleanup } from './cleanup.ts';
export type { CleanupConfig, CleanupPlan, CleanupSnapshot } from './cleanup.ts';
export { BudgetLedger, budgetKey, budgetNumbers } from './budgets.ts';
export type { BudgetDecision } from './budgets.ts';
