// SR-IOV requests outliving their protocol: once spec.nodeHandshake.protocol is no longer sriov-network-operator (or
// the config is gone: every feature at its default), nothing answers the operator's daemon for them any more, and
// their GC-ignore annotation keeps their Nodes cordoned forever. The scheduler deletes kmaint's own (cleanup then
// uncordons as for any request). A config that does not pass its schema says nothing about the protocol: fail closed,
// delete nothing (a read error never gets here: the pass stops before planning).
import { maintenanceOperatorConfigSchema, maintenanceRef } from '#api';
import type { Action, NodeMaintenance } from '#api';
import { isOwnSriovRequest } from './sriov-plan.ts';

/** Whether config object `obj` selects the SR-IOV protocol, does not (absent config: not), or cannot be read. */
export function sriovProtocolOf(obj: unknown): 'on' | 'off' | 'unreadable' {
  if (obj === undefined || obj === null) return 'off';
  const parsed = maintenanceOperatorConfigSchema.safeParse(obj);
  if (!parsed.success) return 'unreadable';
  return parsed.data.spec?.nodeHandshake?.protocol === 'sriov-network-operator' ? 'on' : 'off';
}

/** With the protocol off: a delete of each of kmaint's own SR-IOV requests in `namespace` not being deleted already. Pure. */
export function planSriovRequestsOff(maintenances: readonly NodeMaintenance[], namespace: string): Action[] {
  return maintenances
    .filter((nm) => isOwnSriovRequest(nm, namespace) && !nm.metadata.deletionTimestamp)
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))
    .map((nm) => ({
      kind: 'deleteMaintenance',
      target: maintenanceRef(nm),
      reason: `node ${nm.spec.nodeName}: spec.nodeHandshake.protocol is no longer sriov-network-operator, so no SR-IOV drain is served`,
    }));
}
