// What a release that cannot go on says on its request: while cleanup holds the finalizer because Slurm state it made
// cannot be released (spec.slurm off or invalid, slurmrestd unreachable), the request's Ready message names the reason
// and the way out, so `kubectl get nm` and `kmaint status` show why it does not go. One write when the reason changes.
import { readyCondition, withReadyCondition } from '../api/index.ts';
import type { Action, MaintenanceRef, NodeMaintenance } from '../api/index.ts';

/** Prefix of the Ready message of a request whose release is held. */
export const RELEASE_HELD_PREFIX = 'releasing: ';

/**
 * The status write that puts `why` into the Ready message, status and reason kept; undefined when it is there already,
 * or when the request has no Ready condition (it never reached the scheduler, so kmaint made nothing to hold it). Pure.
 */
export function sayReleaseHeld(nm: NodeMaintenance, ref: MaintenanceRef, why: string, now: Date): Action | undefined {
  const ready = readyCondition(nm);
  if (ready === undefined) return undefined;
  const status = withReadyCondition(nm, { status: ready.status === 'True' ? 'True' : 'False', reason: ready.reason, message: `${RELEASE_HELD_PREFIX}${why}` }, now);
  return status ? { kind: 'writeStatus', target: ref, status, reason: `release held: ${why}` } : undefined;
}
