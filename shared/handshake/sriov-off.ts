// SR-IOV requests outliving their protocol: once spec.nodeHandshake.protocol is no longer sriov-network-operator (or
// the config is gone: every feature at its default), nothing answers the operator's daemon for them any more, and
// their GC-ignore annotation keeps their Nodes cordoned forever. The scheduler deletes kmaint's own (cleanup then
// uncordons as for any request). A config that does not pass its schema says nothing about the protocol: fail closed,
// delete nothing (a read error never gets here: the pass stops before planning). Issue 40: the problems the handshake
// recorded on Nodes (kmaint.io/sriov-handshake-problem) go too: nothing would ever update or remove them.
import type { V1Node } from '@kubernetes/client-node';
import { ANNOTATION_SRIOV_HANDSHAKE_PROBLEM, maintenanceOperatorConfigSchema, maintenanceRef } from '#api';
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

/**
 * With the protocol off: kmaint.io/sriov-handshake-problem removed from each Node that carries it (only kmaint writes
 * kmaint.io keys on Nodes; requestors cannot write Nodes). In Node-name order. Pure.
 */
export function planSriovProblemsOff(nodes: readonly V1Node[]): Action[] {
  return nodes
    .filter((node) => node.metadata?.annotations?.[ANNOTATION_SRIOV_HANDSHAKE_PROBLEM] !== undefined)
    .map((node) => ({ name: node.metadata?.name ?? '', resourceVersion: node.metadata?.resourceVersion ?? '' }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((node) => ({
      kind: 'patchNodeAnnotations',
      node,
      annotations: { [ANNOTATION_SRIOV_HANDSHAKE_PROBLEM]: null },
      reason: `node ${node.name}: spec.nodeHandshake.protocol is no longer sriov-network-operator, so its SR-IOV handshake problem no longer applies`,
    }));
}
