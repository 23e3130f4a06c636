// What the scheduler decides on, assembled once: the scheduling state of a snapshot and the limits of the config
// parsed once for the pass (shared/pass/config.ts schedulingLimitsOf). The scheduler pass and `kmaint explain` both call this, so explain judges a request on exactly the pass's inputs.
import type { V1Node } from '@kubernetes/client-node';
import type { NodeMaintenance } from '#api';
import type { ExternalPools } from './external-pools.ts';
import type { SchedulingLimits } from './limits.ts';
import { buildSchedulingState, type SchedulingState } from './state.ts';
import type { Blockers } from './blockers.ts';
import type { DeviceView } from '../devices/index.ts';
import { releaseDelayOf } from './release-delay.ts';

export interface SchedulerSources {
  nodes: readonly V1Node[];
  maintenances: readonly NodeMaintenance[];
  /** The limits of the pass's config (schedulingLimitsOf), admission closed as a whole when foreign CRDs say so. */
  limits: SchedulingLimits;
  /** kmaint's namespace (its own requests are told by it); absent: none is kmaint's own. */
  kmaintNamespace?: string;
  /** Pools another system limits (the SR-IOV network operator's), as the pass read them; absent: none. */
  externalPools?: ExternalPools;
  /** kured's blockers (spec.rebootBlockers) as the pass read them; absent: none. */
  blockers?: Blockers;
  /** What the pass read for device requests (issue 45); absent: not read (no device request waits). */
  devices?: DeviceView;
}

export interface SchedulerInputs {
  state: SchedulingState;
  limits: SchedulingLimits;
}

/** The state and limits planScheduling takes. Pure. */
export function schedulerInputs(src: SchedulerSources): SchedulerInputs {
  const releaseDelay = releaseDelayOf(src.maintenances, src.limits.releaseDelaySeconds ?? 0);
  const state = buildSchedulingState({
    nodes: src.nodes,
    maintenances: src.maintenances,
    ...(src.kmaintNamespace !== undefined ? { kmaintNamespace: src.kmaintNamespace } : {}),
    ...(src.externalPools !== undefined ? { externalPools: src.externalPools } : {}),
    ...(src.blockers !== undefined ? { blockers: src.blockers } : {}),
    ...(src.devices !== undefined ? { devices: src.devices } : {}),
    ...(releaseDelay !== undefined ? { releaseDelay } : {}),
  });
  return { state, limits: src.limits };
}
