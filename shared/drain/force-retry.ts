// forceRetryOnError, the drainer's hook for reap requests: once a reap request's drain times out, the pods still to
// evict are deleted with grace period 0 instead (the Node is about to be terminated anyway), and the request says so.
// Only the reaper's own reap requests with the force-retry annotation qualify: recognised as the reaper recognises
// them (kmaint's namespace, the name it computes, its label and requestorID), never by strings a requestor can copy.
import { shortList } from '../text/index.ts';
import type { V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_REAPER_FORCE_RETRY, EVENT_REASON_FORCE_DELETED, isReapRequest, podRef } from '#api';
import type { Action, MaintenanceRef, NodeMaintenance } from '#api';

export interface ForcedDeletes {
  /** deletePod (grace period 0) for each pod, then a Warning event on the request. */
  actions: Action[];
  /** The part of the Ready condition message that says what was done. */
  message: string;
}

/** `namespace`: kmaint's (undefined when the caller does not know it: then no request qualifies, failing closed). */
export function forceRetryApplies(nm: NodeMaintenance, namespace: string | undefined): boolean {
  return namespace !== undefined && isReapRequest(nm, namespace) && nm.metadata.annotations?.[ANNOTATION_REAPER_FORCE_RETRY] === 'true';
}

/**
 * For a timed-out drain of `nm`: undefined unless forceRetryOnError applies to it in kmaint's `namespace` (then the
 * drainer evicts as usual); else the deletes replacing the evictions of `pods`, in their order. Pure.
 */
export function reapForceDeletes(nm: NodeMaintenance, pods: readonly V1Pod[], ref: MaintenanceRef, timeoutSeconds: number, namespace: string | undefined): ForcedDeletes | undefined {
  if (!forceRetryApplies(nm, namespace) || pods.length === 0) return undefined;
  const names = pods.map((p) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`);
  const message = `forceRetryOnError: deleted ${pods.length} pod${pods.length === 1 ? '' : 's'} with grace period 0 after the drain timeout of ${timeoutSeconds} s: ${shortList(names, 5)}`;
  const actions: Action[] = pods.map((p) => ({
    kind: 'deletePod',
    pod: podRef(p),
    maintenance: ref,
    gracePeriodSeconds: 0,
    reason: `forceRetryOnError: drain timed out after ${timeoutSeconds} s`,
  }));
  actions.push({
    kind: 'emitEvent',
    target: { kind: 'NodeMaintenance', namespace: ref.namespace, name: ref.name, ...(ref.uid ? { uid: ref.uid } : {}) },
    type: 'Warning',
    eventReason: EVENT_REASON_FORCE_DELETED,
    message,
    reason: 'forceRetryOnError',
  });
  return { actions, message };
}
