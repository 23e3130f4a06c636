// Which pods hold a device in maintenance: those whose allocated ResourceClaims, reserved for them, name one of the
// request's devices (drain/claims.ts reads the allocations). The only pods a device request ever removes.
import type { V1Pod } from '@kubernetes/client-node';
import { devicesHeldBy, deviceId, type ClaimIndex, type HeldDevice } from '../drain/index.ts';
import { deviceNameText, type DeviceName } from './request.ts';

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
