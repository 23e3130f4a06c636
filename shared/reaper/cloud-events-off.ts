// Cloud event requests outliving their feature: once spec.cloudEvents is off (or the config is gone: every feature at
// its default), no pass reads the events that would end them, and their GC-ignore annotation keeps their Nodes
// cordoned forever. kmaint's own are deleted (cleanup then uncordons as for any request). A config that does not pass
// its schema says nothing reliable about the switch, and spec.cloudEvents on but invalid is reported on the config:
// both fail closed, deleting nothing (a read error never gets here: the pass stops before planning).
import type { V1Node } from '@kubernetes/client-node';
import { EVENT_REASON_CLOUD_EVENT_GONE, maintenanceOperatorConfigSchema, maintenanceRef } from '#api';
import type { Action, NodeMaintenance } from '#api';
import { isOwnCloudEventRequest } from './own-requests.ts';

/** Whether config object `obj` turns cloud events on, off (absent config: off), or cannot be read as a whole. */
export function cloudEventsSwitchOf(obj: unknown): 'on' | 'off' | 'unreadable' {
  if (obj === undefined || obj === null) return 'off';
  const parsed = maintenanceOperatorConfigSchema.safeParse(obj);
  if (!parsed.success) return 'unreadable';
  return parsed.data.spec?.cloudEvents?.enabled === true ? 'on' : 'off';
}

const WHY = 'spec.cloudEvents is off, so its scheduled events are no longer read';

/** With cloud events off: a delete of each of kmaint's own cloud event requests in `namespace` (not being deleted), and a Node event. Pure. */
export function planCloudEventRequestsOff(nodes: readonly V1Node[], maintenances: readonly NodeMaintenance[], namespace: string): Action[] {
  const byName = new Map(nodes.map((n) => [n.metadata?.name ?? '', n]));
  return maintenances
    .filter((nm) => isOwnCloudEventRequest(nm, namespace) && !nm.metadata.deletionTimestamp)
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))
    .flatMap((nm): Action[] => {
      const node = byName.get(nm.spec.nodeName);
      const uid = node?.metadata?.uid;
      const deleted: Action = { kind: 'deleteMaintenance', target: maintenanceRef(nm), reason: `cloud event request for node ${nm.spec.nodeName}: ${WHY}` };
      if (node === undefined) return [deleted];
      const message = `deleted ${namespace}/${nm.metadata.name}: ${WHY}`;
      return [deleted, { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: nm.spec.nodeName, ...(uid ? { uid } : {}) }, type: 'Normal', eventReason: EVENT_REASON_CLOUD_EVENT_GONE, message, reason: 'cloud events off' }];
    });
}
