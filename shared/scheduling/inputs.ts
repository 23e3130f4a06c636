// What the scheduler decides on, assembled once: the scheduling state of a snapshot and the limits of the loaded
// config. The scheduler pass and `kmaint explain` both call this, so explain judges a request on exactly the pass's inputs.
import type { V1Node } from '@kubernetes/client-node';
import type { NodeMaintenance } from '#api';
import type { LoadedConfig } from '#config';
import type { ExternalPools } from './external-pools.ts';
import type { SchedulingLimits } from './limits.ts';
import { buildSchedulingState, type SchedulingState } from './state.ts';

export interface SchedulerSources {
  nodes: readonly V1Node[];
  maintenances: readonly NodeMaintenance[];
  /** The config as loaded for this pass (loadConfig). */
  loaded: LoadedConfig;
  /** kmaint's namespace (its own requests are told by it); absent: none is kmaint's own. */
  kmaintNamespace?: string;
  /** Pools another system limits (the SR-IOV network operator's), as the pass read them; absent: none. */
  externalPools?: ExternalPools;
  /** Admission closed as a whole (foreign CRDs, shared/pass/crd-schema.ts): the refusal every candidate waits with. */
  closedBecause?: string;
}

export interface SchedulerInputs {
  state: SchedulingState;
  limits: SchedulingLimits;
}

/** The scheduler's limits from the loaded config; `closedBecause` closes admission as a whole, requests in flight go on. */
export function schedulingLimits(loaded: LoadedConfig, closedBecause?: string): SchedulingLimits {
  const { admission } = loaded.config;
  return {
    maxParallelOperations: loaded.config.maxParallelOperations,
    maxUnavailable: loaded.config.maxUnavailable,
    problems: loaded.problems,
    ...(closedBecause !== undefined ? { closed: closedBecause } : {}),
    ...(admission !== undefined ? { admission } : {}),
  };
}

/** The state and limits planScheduling takes. Pure. */
export function schedulerInputs(src: SchedulerSources): SchedulerInputs {
  const state = buildSchedulingState({
    nodes: src.nodes,
    maintenances: src.maintenances,
    ...(src.kmaintNamespace !== undefined ? { kmaintNamespace: src.kmaintNamespace } : {}),
    ...(src.externalPools !== undefined ? { externalPools: src.externalPools } : {}),
  });
  return { state, limits: schedulingLimits(src.loaded, src.closedBecause) };
}
