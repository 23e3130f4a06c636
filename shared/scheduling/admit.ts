// The admission walk (upstream step 6) with upstream's flaw fixed: a request skipped for the availability
// budget does not use up a slot, so a lower-ranked request on an already-unavailable Node can still start.
// Each request passes the ordered GATES (windows, cluster limits, pool and zone limits) or waits on the first that refuses.
import { maintenanceKey, type NodeMaintenance } from '#api';
import { firstRefusal, recordAdmission, startTally } from './gates.ts';
import type { ValidBudget } from './limits.ts';
import { NO_SCOPES, type Scopes } from './scopes.ts';
import type { SchedulingState } from './state.ts';
import { admittedMessage, waitReason } from './wait-reasons.ts';

export interface Admission {
  maintenance: NodeMaintenance;
  /** The Ready condition message, e.g. 'admitted: slot 2 of 3, unavailable 4 of 5'. */
  message: string;
}

export interface AdmissionResult {
  /** In walk (rank) order. */
  admitted: Admission[];
  /** Walked but not admitted, in walk order. */
  skipped: NodeMaintenance[];
  slotsLeft: number;
  canBecomeUnavailableLeft: number;
  /**
   * Why each skipped request waits, by key: the first gate refusing it on the counts after the whole walk, so
   * the next pass, which sees this pass's admissions in progress, says the same.
   */
  why: ReadonlyMap<string, string>;
}

/**
 * Walks every winner, best first, through the gates. A slot is spent only on admission. A request on a Node
 * that is already unavailable takes a slot but no availability budget (in the cluster, its pool or its zone);
 * one on an available Node also needs availability budget in each, otherwise it is skipped and the walk goes on.
 * Without `scopes` only the cluster's two limits apply, exactly as upstream.
 */
export function admitRanked(state: SchedulingState, budget: ValidBudget, winners: readonly NodeMaintenance[], scopes: Scopes = NO_SCOPES): AdmissionResult {
  const tally = startTally(state, budget, scopes);
  const admitted: Admission[] = [];
  const skipped: Array<{ maintenance: NodeMaintenance; whyThen: string }> = [];

  for (const maintenance of winners) {
    const node = maintenance.spec.nodeName;
    const refusal = firstRefusal(tally, node);
    if (refusal !== undefined) {
      skipped.push({ maintenance, whyThen: refusal });
      continue;
    }
    const nodeAlreadyUnavailable = state.nodesUnavailable.has(node);
    recordAdmission(tally, node);
    admitted.push({
      maintenance,
      message: admittedMessage({
        slot: budget.inProgress + tally.admitted,
        maxParallelOperations: budget.maxParallelOperations,
        nodeAlreadyUnavailable,
        unavailable: budget.unavailable + tally.newlyUnavailable,
        maxUnavailable: budget.maxUnavailable,
      }),
    });
  }
  // Counts only tighten during the walk, so a request refused then is refused now; its earlier reason is the fallback.
  const why = new Map(skipped.map(({ maintenance, whyThen }) => [maintenanceKey(maintenance), firstRefusal(tally, maintenance.spec.nodeName) ?? whyThen]));
  return {
    admitted,
    skipped: skipped.map((s) => s.maintenance),
    slotsLeft: budget.availableSlots - tally.admitted,
    canBecomeUnavailableLeft: budget.canBecomeUnavailable - tally.newlyUnavailable,
    why,
  };
}

/**
 * Why a candidate that was not admitted waits on the cluster's own limits, judged on the state after this
 * pass's admissions (so the next pass, which sees them in progress, says the same). With a slot left, a
 * request still waiting on them must be on an available Node with the availability budget spent. The plan
 * reads `AdmissionResult.why`, which also covers windows, pools and zones; the texts are the same.
 */
export function limitWaitReason(state: SchedulingState, budget: ValidBudget, result: AdmissionResult): string {
  const inProgressAfter = budget.inProgress + result.admitted.length;
  if (result.slotsLeft === 0) return waitReason.maxParallelOperations(budget.maxParallelOperations, inProgressAfter);
  const admittedNodes = new Set(result.admitted.map((a) => a.maintenance.spec.nodeName));
  let cordonedOrNotReady = 0;
  for (const node of state.nodesUnavailable) {
    if (!state.nodesUnderMaintenance.has(node) && !admittedNodes.has(node)) cordonedOrNotReady += 1;
  }
  return waitReason.maxUnavailable(budget.maxUnavailable, inProgressAfter, cordonedOrNotReady);
}
