// The admission walk (upstream step 6) with upstream's flaw fixed: a request skipped for the availability
// budget does not use up a slot, so a lower-ranked request on an already-unavailable Node can still start.
import type { NodeMaintenance } from '#api';
import type { ValidBudget } from './limits.ts';
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
}

/**
 * Walks every winner, best first. A slot is spent only on admission. A request on a Node that is already
 * unavailable takes a slot but no availability budget; one on an available Node also needs
 * canBecomeUnavailable > 0, otherwise it is skipped and the walk goes on.
 */
export function admitRanked(state: SchedulingState, budget: ValidBudget, winners: readonly NodeMaintenance[]): AdmissionResult {
  let slotsLeft = budget.availableSlots;
  let canBecomeUnavailableLeft = budget.canBecomeUnavailable;
  let newlyUnavailable = 0;
  const admitted: Admission[] = [];
  const skipped: NodeMaintenance[] = [];

  for (const maintenance of winners) {
    if (slotsLeft === 0) {
      skipped.push(maintenance);
      continue;
    }
    const nodeAlreadyUnavailable = state.nodesUnavailable.has(maintenance.spec.nodeName);
    if (!nodeAlreadyUnavailable) {
      if (canBecomeUnavailableLeft === 0) {
        skipped.push(maintenance);
        continue;
      }
      canBecomeUnavailableLeft -= 1;
      newlyUnavailable += 1;
    }
    slotsLeft -= 1;
    admitted.push({
      maintenance,
      message: admittedMessage({
        slot: budget.inProgress + admitted.length + 1,
        maxParallelOperations: budget.maxParallelOperations,
        nodeAlreadyUnavailable,
        unavailable: budget.unavailable + newlyUnavailable,
        maxUnavailable: budget.maxUnavailable,
      }),
    });
  }
  return { admitted, skipped, slotsLeft, canBecomeUnavailableLeft };
}

/**
 * Why a candidate that was not admitted waits, judged on the state after this pass's admissions (so the
 * next pass, which sees them in progress, says the same). With a slot left, a request still waiting must be
 * on an available Node with the availability budget spent.
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
