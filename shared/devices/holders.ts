// Which pods hold a device in maintenance: those whose allocated ResourceClaims, reserved for them, name one of the
// request's devices (drain/claims.ts reads the allocations). The only pods a device request ever removes.
import type { V1Pod } from '@kubernetes/client-node';
import { devicesHeldBy, deviceId, type ClaimIndex, type HeldDevice } from '../drain/index.ts';
import { ANNOTATION_DEVICES, type NodeMaintenance } from '../api/index.ts';
import { deviceNameText, deviceRequestOf, type DeviceName } from './request.ts';
import { recordedDeviceTaintRules } from './taint-rule.ts';

/** A pod holding devices of the request, with those devices ("driver/pool/device", sorted). */
export interface DeviceHolder {
  readonly pod: V1Pod;
  readonly devices: readonly string[];
}

/** The pods of `pods` that hold one of `devices`, in the order given; a pod holding only other devices is not one. */
export function podsHoldingDevices(pods: readonly V1Pod[], claims: ClaimIndex, devices: readonly DeviceName[]): DeviceHolder[] {
  const wanted = new Set(devices.map(deviceNameText));
  const out: DeviceHolder[] = [];
  for (const pod of pods) {
    const held = devicesHeldBy(pod, claims)
      .map((d: HeldDevice) => deviceId(d))
      .filter((id) => wanted.has(id));
    if (held.length > 0) out.push({ pod, devices: [...new Set(held)].sort() });
  }
  return out;
}

/** "ns/pod (driver/pool/device, …)" for messages. */
export function holderText(h: DeviceHolder): string {
  return `${h.pod.metadata?.namespace ?? ''}/${h.pod.metadata?.name ?? ''} (${h.devices.join(', ')})`;
}

/**
 * What `kmaint explain` says of a device request, one line each: its devices, the DeviceTaintRules it recorded, and
 * the pods holding the devices (from the node's pods and claims as read); [] for a node request.
 */
export function deviceRequestLines(nm: NodeMaintenance, pods: readonly V1Pod[], claims: ClaimIndex): string[] {
  const request = deviceRequestOf(nm);
  if (request.kind === 'node') return [];
  if (request.kind === 'invalid') return [`devices: ${ANNOTATION_DEVICES} cannot be read: ${request.problem}`];
  const rules = recordedDeviceTaintRules(nm);
  const holders = podsHoldingDevices(pods, claims, request.devices);
  return [
    `devices: ${request.devices.map(deviceNameText).join(', ')} (${ANNOTATION_DEVICES}; the node is not cordoned)`,
    ...(rules.length > 0 ? [`DeviceTaintRules (NoSchedule): ${rules.join(', ')}`] : []),
    `held by: ${holders.length > 0 ? holders.map(holderText).join('; ') : 'no pod'}`,
  ];
}
