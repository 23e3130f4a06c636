// The reaper and failing devices (issue 45): spec.reaper.devicesFrom names the devices of a Node to reap that a health
// agent reported (a per-GPU condition or label); a non-empty list makes the reap request a device request
// (kmaint.io/devices): the node is not cordoned, only the pods holding those devices are drained, nothing is terminated
// and the repair ladder does not apply. The request stays (Ready, kept from garbage collection) while the devices are
// named, and the reaper deletes it once none of them is. Pure.
import type { V1Node } from '@kubernetes/client-node';
import { ANNOTATION_DEVICES, ANNOTATION_GC_IGNORE, ANNOTATION_REAPER_FORCE_RETRY, EVENT_REASON_REAP_REQUESTED, LABEL_REAPER, REAPER_REQUESTOR, maintenanceKey, maintenanceRef } from '#api';
import type { Action, NodeMaintenance } from '#api';
import { deviceNameText, deviceRequestOf, parseDeviceList } from '../devices/index.ts';
import type { NodeFacts } from './cel.ts';
import type { ReaperConfig } from './config.ts';

/** What devicesFrom says of a Node: no devices (a node request), the devices (sorted, unique), or why it cannot say. */
export type DeviceReap = { kind: 'node' } | { kind: 'devices'; devices: string[] } | { kind: 'problem'; why: string };

export function reapDevices(config: ReaperConfig, f: NodeFacts): DeviceReap {
  if (config.devicesFrom === undefined) return { kind: 'node' };
  const result = config.devicesFrom.evaluate(f);
  if (!result.ok) return { kind: 'problem', why: `spec.reaper.devicesFrom could not be evaluated: ${result.error}` };
  const unique = [...new Set(result.value.map((d) => d.trim()))].filter((d) => d !== '').sort();
  if (unique.length === 0) return { kind: 'node' };
  const parsed = parseDeviceList(unique.join(','));
  if (parsed.kind === 'invalid') return { kind: 'problem', why: `spec.reaper.devicesFrom gave devices that cannot be requested: ${parsed.problem}` };
  return { kind: 'devices', devices: parsed.devices.map(deviceNameText) };
}

/** The device reap request and the Node event saying so. */
export function requestDeviceReap(node: V1Node, f: NodeFacts, name: string, namespace: string, config: ReaperConfig, devices: readonly string[]): Action[] {
  const annotations: Record<string, string> = { [ANNOTATION_DEVICES]: devices.join(','), [ANNOTATION_GC_IGNORE]: 'true' };
  if (config.forceRetryOnError) annotations[ANNOTATION_REAPER_FORCE_RETRY] = 'true';
  const uid = node.metadata?.uid;
  return [
    {
      kind: 'createMaintenance',
      target: { namespace, name },
      labels: { [LABEL_REAPER]: 'true' },
      annotations,
      spec: { requestorID: REAPER_REQUESTOR, nodeName: f.name, cordon: false, drainSpec: config.drainSpec },
      reason: `reap devices ${devices.join(', ')} of node ${f.name}: matches reapPredicate, named by devicesFrom, within the guards`,
    },
    {
      kind: 'emitEvent',
      target: { kind: 'Node', namespace: '', name: f.name, ...(uid ? { uid } : {}) },
      type: 'Normal',
      eventReason: EVENT_REASON_REAP_REQUESTED,
      message: `device reap requested: ${namespace}/${name} taints ${devices.join(', ')} and drains the pods holding them; the node stays in service, nothing is terminated`,
      reason: 'reap requested',
    },
  ];
}

/**
 * The reaper's device requests whose devices are no longer reported: deleted (cleanup then removes their
 * DeviceTaintRules). Kept while the Node still matches reapPredicate and devicesFrom names one of the request's
 * devices, and whenever either cannot be evaluated (fail closed: the devices stay tainted).
 */
export function planDeviceReleases(own: readonly NodeMaintenance[], factsOf: (node: string) => NodeFacts | undefined, config: ReaperConfig): Action[] {
  const actions: Action[] = [];
  for (const nm of own) {
    const request = deviceRequestOf(nm);
    if (nm.metadata.deletionTimestamp || request.kind !== 'devices') continue;
    const f = factsOf(nm.spec.nodeName);
    if (f === undefined) continue; // the Node is gone: cleanup releases the request
    const match = config.reapPredicate.evaluate(f);
    if (!match.ok) continue;
    const reap = match.value ? reapDevices(config, f) : undefined;
    if (reap?.kind === 'problem') continue;
    const named = new Set(reap?.kind === 'devices' ? reap.devices : []);
    const mine = request.devices.map(deviceNameText);
    if (mine.some((d) => named.has(d))) continue;
    const why = !match.value ? 'the node no longer matches reapPredicate' : config.devicesFrom === undefined ? 'spec.reaper.devicesFrom is unset' : 'devicesFrom names none of its devices';
    actions.push({ kind: 'deleteMaintenance', target: maintenanceRef(nm), reason: `release device reap ${maintenanceKey(nm)} (${mine.join(', ')}): ${why}` });
  }
  return actions;
}
