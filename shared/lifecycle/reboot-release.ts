// On release (issue 43): the reboot Job recorded on the request goes with it. The record names it, so cleanup needs no
// read and no config; a Job already gone is what the delete wanted, and a Node deleted first took its Job along (owner).
import { ANNOTATION_REBOOT_ISSUED } from '../api/index.ts';
import { rebootJobName } from '../reboot/index.ts';
import type { Action, MaintenanceRef, NodeMaintenance } from '../api/index.ts';

/**
 * The reboot Job `kmaint.io/reboot-issued` names, as namespace and name; undefined when no Job was issued. Only the
 * name kmaint gives this very request's Job (from its uid) counts: a record edited to name another Job never makes
 * cleanup delete that Job.
 */
export function recordedRebootJob(nm: NodeMaintenance): { namespace: string; name: string } | undefined {
  const match = /^job ([a-z0-9-]{1,63})\/([a-z0-9-]{1,63})$/.exec(nm.metadata.annotations?.[ANNOTATION_REBOOT_ISSUED] ?? '');
  const uid = nm.metadata.uid;
  if (!match || uid === undefined || match[2] !== rebootJobName(uid)) return undefined;
  return { namespace: match[1] as string, name: match[2] as string };
}

/** The delete of the request's reboot Job, when one was issued; in the request's unit, before its finalizer goes. */
export function releaseRebootJob(nm: NodeMaintenance, ref: MaintenanceRef): Action[] {
  const job = recordedRebootJob(nm);
  return job ? [{ kind: 'deleteRebootJob', job, maintenance: ref, reason: `${ref.namespace}/${ref.name} released: its reboot Job goes with it` }] : [];
}
