// Cleanup's release step for spec.releaseDelaySeconds (issue 43 point 3, kured's --lock-release-delay): once a deleted,
// admitted request's node is back in service, cleanup records when (kmaint.io/released-at on the request) and keeps its
// finalizer until that time plus the delay, so the scheduler's `release delay` gate (shared/scheduling/release-delay.ts)
// sees it and admits nothing meanwhile. The record goes with the finalizer's own patch.
import { ANNOTATION_RELEASED_AT, Phase, PHASE_UNINITIALIZED, rfc3339Seconds } from '../api/index.ts';
import type { Action, MaintenanceRef, NodeMaintenance } from '../api/index.ts';
import { releaseDelayEnd, releaseDelayHoldText } from '../scheduling/index.ts';

export type ReleaseDelayVerdict =
  | { kind: 'go'; /** The record to drop with the finalizer, when there is one. */ drop: readonly string[] }
  | { kind: 'hold'; why: string; actions: readonly Action[] };

/**
 * Pure. With the delay off, for a request never admitted (it disrupted nothing: '' or Pending), or once the delay is
 * over: go (dropping the record if any). Without a record: write it (now) and hold. With one: hold until its time plus
 * the delay. A record that is not a time, or lies more than the delay ahead of the clock, is not believed (releaseDelayEnd):
 * go, so that no value can keep a request longer than twice the delay.
 */
export function releaseDelayHold(nm: NodeMaintenance, ref: MaintenanceRef, phase: string, seconds: number, now: Date): ReleaseDelayVerdict {
  const recorded = nm.metadata.annotations?.[ANNOTATION_RELEASED_AT];
  const drop = recorded === undefined ? [] : [ANNOTATION_RELEASED_AT];
  if (seconds <= 0 || phase === PHASE_UNINITIALIZED || phase === Phase.Pending) return { kind: 'go', drop };
  if (recorded === undefined) {
    const at = rfc3339Seconds(now);
    const why = releaseDelayHoldText(at, new Date(Date.parse(at) + seconds * 1000), seconds);
    return { kind: 'hold', why, actions: [{ kind: 'patchMaintenanceMeta', target: ref, annotations: { [ANNOTATION_RELEASED_AT]: at }, reason: `record the release of ${ref.namespace}/${ref.name}: ${why}` }] };
  }
  const end = releaseDelayEnd(recorded, seconds, now);
  return end === undefined ? { kind: 'go', drop } : { kind: 'hold', why: releaseDelayHoldText(recorded, end, seconds), actions: [] };
}
