// Budget math: how many requests may start now and how many more Nodes may become unavailable. Pure, fails closed.
import type { AdmissionRules } from '#config';
import type { SchedulingState } from './state.ts';

/**
 * Disruption limits, already resolved to absolute numbers by the config loader (percentages are of all Nodes:
 * maxParallelOperations rounded up, maxUnavailable rounded down, as upstream). No rounding happens here.
 */
export interface SchedulingLimits {
  /** null: the configured value could not be used; nothing is admitted. */
  maxParallelOperations: number | null;
  /** 'unlimited' when unset; null: the configured value could not be used; nothing is admitted. */
  maxUnavailable: number | 'unlimited' | null;
  /** Why a limit is null, one sentence each; carried into every wait message. */
  problems?: string[];
  /**
   * Admission closed as a whole (kmaint's CRDs not in force, shared/pass/crd-schema.ts): every candidate waits with this
   * reason, whatever the limits say. Absent: admission as the limits decide.
   */
  closed?: string;
  /** Pools, zone limit and windows (kmaint extensions); absent: the two limits above alone, exactly as upstream. */
  admission?: AdmissionRules;
  /** spec.releaseDelaySeconds (release-delay.ts): after a release nothing is admitted for this long; absent or 0: off. */
  releaseDelaySeconds?: number;
}

export type SchedulingBudget =
  | { kind: 'invalid'; problem: string }
  | {
      kind: 'valid';
      maxParallelOperations: number;
      maxUnavailable: number | 'unlimited';
      /** |nodesUnderMaintenance| */
      inProgress: number;
      /** |nodesUnavailable ∪ nodesUnderMaintenance| */
      unavailable: number;
      /** min(max(0, maxParallelOperations − inProgress), number of Nodes) */
      availableSlots: number;
      /** unlimited: availableSlots; else max(0, maxUnavailable − unavailable) */
      canBecomeUnavailable: number;
    };

export type ValidBudget = Extract<SchedulingBudget, { kind: 'valid' }>;

function isCount(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

/** Upstream's step 1 and 2. Any value that is not a non-negative integer makes the budget invalid (fail closed). */
export function computeBudget(state: SchedulingState, limits: SchedulingLimits): SchedulingBudget {
  const { maxParallelOperations, maxUnavailable } = limits;
  if (maxParallelOperations === null || maxUnavailable === null) {
    const problems = limits.problems?.filter((p) => p !== '') ?? [];
    const which = maxParallelOperations === null ? 'maxParallelOperations' : 'maxUnavailable';
    return { kind: 'invalid', problem: problems.length > 0 ? problems.join('; ') : `${which} could not be resolved` };
  }
  if (!isCount(maxParallelOperations)) {
    return { kind: 'invalid', problem: `maxParallelOperations ${maxParallelOperations} is not a non-negative integer` };
  }
  if (maxUnavailable !== 'unlimited' && !isCount(maxUnavailable)) {
    return { kind: 'invalid', problem: `maxUnavailable ${maxUnavailable} is not a non-negative integer` };
  }

  const inProgress = state.nodesUnderMaintenance.size;
  const unavailable = new Set([...state.nodesUnavailable, ...state.nodesUnderMaintenance]).size;
  const availableSlots = Math.min(Math.max(0, maxParallelOperations - inProgress), state.nodes.size);
  const canBecomeUnavailable = maxUnavailable === 'unlimited' ? availableSlots : Math.max(0, maxUnavailable - unavailable);
  return { kind: 'valid', maxParallelOperations, maxUnavailable, inProgress, unavailable, availableSlots, canBecomeUnavailable };
}
