// Public surface of shared/pass: one pass of one function, and the pieces it is made of.
export { runPass } from './run-pass.ts';
export { emptyPassSummary, PASS_FUNCTIONS } from './summary.ts';
export { reaperModeOf } from './reaper-pass.ts';
export type { PassLogger, PassOptions } from './options.ts';
export { PASSES, planPass } from './passes.ts';
export type { PassDefinition, PassPlan, PassStart, PlanInput, PlanState } from './passes.ts';
export type { PassFunction, PassSummary, PassWait } from './summary.ts';
export { applyActions } from './apply.ts';
export type { ApplyOptions, ApplyResult } from './apply.ts';
export { acquirePassLease, releasePassLease } from './lease.ts';
export type { LeaseOutcome } from './lease.ts';
export { planConfigReport, describeOverlaps, OVERLAP_NODES_NAMED } from './config-report.ts';
export type { ConfigReportExtras } from './config-report.ts';
export { countReleases, HeldLeases } from './held-leases.ts';
export type { HeldLeasesOptions } from './held-leases.ts';
export { PassRound } from './round.ts';
export { readBase } from './snapshot.ts';
export type { BaseSnapshot } from './snapshot.ts';
