// On release (issue 45): the DeviceTaintRules a device request recorded (kmaint.io/device-taint-rules) go with it. The
// record names them, so cleanup needs no read and no list permission; a rule already gone is what the delete wanted,
// and a Node deleted first took its rules along (they are owned by it).
import type { Action, MaintenanceRef, NodeMaintenance } from '../api/index.ts';
import { recordedDeviceTaintRules } from '../devices/index.ts';

/** The deletes of the request's recorded rules, in its unit before its finalizer goes; none without a record. */
export function releaseDeviceTaintRules(nm: NodeMaintenance, ref: MaintenanceRef): Action[] {
  return recordedDeviceTaintRules(nm).map((name) => ({ kind: 'deleteDeviceTaintRule', name, maintenance: ref, reason: `${ref.namespace}/${ref.name} released: its devices return to service` }));
}
