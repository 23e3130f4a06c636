// Public surface of shared/scheduling: the pure scheduler (state, budget, scopes, gates, ranking, admission, plan, invariants).
export type { SchedulingState } from './state.ts';
export { buildSchedulingState, isNodeUnavailable } from './state.ts';
// The NodeMaintenance model lives in shared/api; re-exported for callers outside shared/ not yet moved to #api
// (sim/demo, sim/whatif, test/whatif-testbed.test.ts). Code in shared/ and cli/ imports it from #api.
export type { ReadyConditionValue } from '#api';
export { isBeingDeleted, isInProgress, isUnscheduled, maintenanceKey, maintenancePhase, readyCondition, rfc3339Seconds, withReadyCondition } from '#api';
export type { SchedulingLimits, SchedulingBudget, ValidBudget } from './limits.ts';
export { computeBudget } from './limits.ts';
export type { Ranker, NodeWinners } from './rank.ts';
export { RANKERS, FEWER_PENDING_CAP, rankCandidates, firstPerNode } from './rank.ts';
export type { Admission, AdmissionResult } from './admit.ts';
export { admitRanked, limitWaitReason } from './admit.ts';
export { waitReason, waitingMessage, admittedMessage } from './wait-reasons.ts';
export type { SchedulingPlan } from './plan.ts';
export { planScheduling } from './plan.ts';
export { checkSchedulingInvariants } from './invariants.ts';
export { missedDeadline, planDeadlineReports } from './deadlines.ts';
export type { PoolMembership, PoolOverlap } from './pools.ts';
export type { PoolScope, ScopeCount, ScopeLimit, Scopes, ZoneScope } from './scopes.ts';
export type { WindowStatus } from '#config';
export type { Gate, Tally } from './gates.ts';
// For `kmaint explain`: every gate with the counts it reads, on the tally after a pass's admissions.
export { GATES, notBeforeRefusal, startTally, recordAdmission } from './gates.ts';
export type { Refusal, RefusalKind } from './refusal.ts';
export type { SchedulerInputs, SchedulerSources } from './inputs.ts';
export { schedulerInputs } from './inputs.ts';
export { resolveScopes } from './scopes.ts';
export { SchedulingInvariantError } from './errors.ts';
export type { Gang, Gangs } from './gangs.ts';
export { findGangs, gangNameOf } from './gangs.ts';
export type { GangIdentity } from './gang-membership.ts';
// The drainer holds a gang's admitted members until the whole gang is admitted (issue 30), by the same membership rule.
export { gangIdentityOf, isKmaintRequest } from './gang-membership.ts';
export type { GangAdmission } from './admit.ts';
export type { ExternalPool, ExternalPools } from './external-pools.ts';
export type { AlertsRead, Blockers } from './blockers.ts';
// spec.releaseDelaySeconds (issue 43 point 3): the gate's reads, and the end of a release's delay cleanup holds to.
export type { ReleaseDelay } from './release-delay.ts';
export { loadReleaseDelaySeconds, releaseDelayEnd, releaseDelayHoldText } from './release-delay.ts';
// Issue 40: which waiting requests can start now on their own account; only these hold a Node (plan, reaper, explain).
export type { StartNow } from './start-now.ts';
export { nextOnNode, requestsHoldingNodes, startableNow } from './start-now.ts';
export { gangAdmittedIncompleteMessage } from './wait-reasons.ts';
// kmaint's record of its admissions on the Node (issue 40): the drainer, cleanup and the orphan sweep read it.
export type { AdmissionStanding } from './admission-record.ts';
export { admissionRecord, admissionRecordDrop, admissionRecordOf, admissionRecordOwner, admissionStanding, foldIntoAdmissionRecords, holdsAdmission } from './admission-record.ts';
