// drainSpec.freeDevices (issue 45 point 3): the NoSchedule taint kmaint.io/devices-draining that keeps the DaemonSet
// controller from putting back the device users the drain evicts. It goes on the node (recorded there, in the same
// patch) before the first eviction and comes off on release; only the request the record names removes it.
import type { V1Node } from '@kubernetes/client-node';
import { ANNOTATION_DEVICES_DRAINING_BY, TAINT_DEVICES_DRAINING, rfc3339Seconds } from '../api/index.ts';
import type { Action, MaintenanceRef, NodeMaintenance, NodeRef, NodeTaint } from '../api/index.ts';
import { holderFor } from './node-lease.ts';

/** What the taint does, for the drain's message, `kmaint explain` and the docs. */
export const DEVICES_DRAINING_EFFECT = `${TAINT_DEVICES_DRAINING}:NoSchedule keeps the DaemonSet controller from recreating the device users the drain evicts, until the request is released`;

/** The node's taints as written back, without the keys in `drop`: another party's are kept, in their order. */
function taintsWithout(node: V1Node, drop: readonly string[]): NodeTaint[] {
  return (node.spec?.taints ?? [])
    .filter((t) => !drop.includes(t.key))
    .map((t) => ({ key: t.key, effect: t.effect, ...(t.value !== undefined ? { value: t.value } : {}), ...(t.timeAdded !== undefined ? { timeAdded: rfc3339Seconds(new Date(t.timeAdded)) } : {}) }));
}

export function hasDevicesDrainingTaint(node: V1Node): boolean {
  return (node.spec?.taints ?? []).some((t) => t.key === TAINT_DEVICES_DRAINING && t.effect === 'NoSchedule');
}

/**
 * For a request with drainSpec.freeDevices: the write that puts the taint on (with its record), or none when the node
 * already has it. A taint of that key someone else put there is left as it is and not recorded as ours.
 */
export function addDevicesDrainingTaint(nm: NodeMaintenance, node: V1Node, nodeRef: NodeRef, ref: MaintenanceRef, now: Date): Action[] {
  if (nm.spec.drainSpec?.freeDevices === undefined || hasDevicesDrainingTaint(node)) return [];
  const taint: NodeTaint = { key: TAINT_DEVICES_DRAINING, effect: 'NoSchedule', timeAdded: rfc3339Seconds(now) };
  return [
    {
      kind: 'setNodeTaints',
      node: nodeRef,
      taints: [...taintsWithout(node, [TAINT_DEVICES_DRAINING]), taint],
      annotations: { [ANNOTATION_DEVICES_DRAINING_BY]: holderFor(nm) },
      maintenance: ref,
      reason: 'drainSpec.freeDevices: no DaemonSet pod put back before release',
    },
  ];
}

/**
 * On release: the taint and its record go only when the node's record says this request added it. `alsoDrop`: taints
 * an earlier write of the same unit removes (the out-of-service taint), which this write, built from the same read,
 * must not put back.
 */
export function releaseDevicesDrainingTaint(nm: NodeMaintenance, node: V1Node, nodeRef: NodeRef, ref: MaintenanceRef, alsoDrop: readonly string[] = []): Action[] {
  if (node.metadata?.annotations?.[ANNOTATION_DEVICES_DRAINING_BY] !== holderFor(nm)) return [];
  return [
    {
      kind: 'setNodeTaints',
      node: nodeRef,
      taints: taintsWithout(node, [TAINT_DEVICES_DRAINING, ...alsoDrop]),
      annotations: { [ANNOTATION_DEVICES_DRAINING_BY]: null },
      maintenance: ref,
      reason: `${ref.namespace}/${ref.name} released: remove the ${TAINT_DEVICES_DRAINING} taint it added`,
    },
  ];
}

/** For the orphan sweep: the taint and its record off a node whose record names a request that is gone (`alsoDrop` as on release). */
export function sweepDevicesDrainingTaint(node: V1Node, nodeRef: NodeRef, owner: MaintenanceRef, alsoDrop: readonly string[] = []): Action {
  return {
    kind: 'setNodeTaints',
    node: nodeRef,
    taints: taintsWithout(node, [TAINT_DEVICES_DRAINING, ...alsoDrop]),
    annotations: { [ANNOTATION_DEVICES_DRAINING_BY]: null },
    maintenance: owner,
    reason: `orphaned ${TAINT_DEVICES_DRAINING} taint: kmaint added it for ${owner.namespace}/${owner.name}, which no longer exists`,
  };
}
