// Public surface of shared/lifecycle: the drainer's and cleanup's pure planners and budget accounting.
export { planDrainer, unreadableSelectorMessage } from './plan-drainer.ts';
export type { DrainerPlan, DrainerSnapshot } from './plan-drainer.ts';
export { planCleanup } from './cleanup.ts';
export { cordonOwnership, cordonIsOurs, sayTheirCordon } from './cordon-owner.ts';
export type { CordonOwnership } from './cordon-owner.ts';
export type { CleanupConfig, CleanupPlan, CleanupSnapshot } from './cleanup.ts';
export { BudgetLedger, budgetKey, budgetNumbers, budgetsToExplain } from './budgets.ts';
export type { BudgetDecision, BudgetToExplain } from './budgets.ts';
export { diagnoseBudget } from './budget-diagnosis.ts';
export type { BudgetClass, BudgetDiagnosis } from './budget-diagnosis.ts';
export { MEDIK8S_LEASE_SECONDS, cordonedBy, holderFor, leaseExpiry, needsMedik8sLeases, nodeLeaseName, viewLease } from './node-lease.ts';
export type { LeaseView, Medik8sLeases } from './node-lease.ts';
export { conditionChanges, desiredNodeConditions, nodeConditionMessage, nodesCordoned, phasesAfter, planNodeConditions, removalsBeforeUncordons } from './node-conditions.ts';
export type { DesiredCondition, NodeConditionsInput } from './node-conditions.ts';
export { OUT_OF_SERVICE_EFFECT, deadFor, releaseOutOfServiceTaint, reportDeadNode } from './dead-node.ts';
export type { DeadNodeReport, OutOfServiceConfig } from './dead-node.ts';
export { findNodeOrphans, orphanLiveKey, planOrphanSweep, recordOwner } from './orphan-sweep.ts';
export type { NodeOrphan } from './orphan-sweep.ts';
