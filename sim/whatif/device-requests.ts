// What-if's device requests (issue 45): the devices asked for grouped into one request per node (each must be
// published by a ResourceSlice of the snapshot), the request as a requestor files it, and the pods holding its devices
// as kmaint finds them (shared/devices: allocated claims reserved for the pod).
import type { ResourceV1ResourceClaim, V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_DEVICES, API_VERSION, NODE_MAINTENANCE_KIND, namespacedName, type DrainSpec } from '../../shared/api/index.ts';
import { buildDeviceView, deviceNameText, parseDeviceList, podsHoldingDevices, type DeviceHolder } from '../../shared/devices/index.ts';
import { indexClaims } from '../../shared/drain/index.ts';
import { shortList } from '../../shared/text/index.ts';
import type { JsonObject, LocalApi, ResourceRef } from '../apiserver/index.ts';
import type { DeviceHolderEntry } from './observer.ts';

const PODS: ResourceRef = { apiVersion: 'v1', resource: 'pods' };
const CLAIMS: ResourceRef = { apiVersion: 'resource.k8s.io/v1', resource: 'resourceclaims' };
const SLICES: ResourceRef = { apiVersion: 'resource.k8s.io/v1', resource: 'resourceslices' };

/** The devices by node, in the order given, or why they cannot be asked for (one line). */
export function devicesByNode(local: LocalApi, devices: readonly string[]): { ok: true; byNode: Map<string, string[]> } | { ok: false; problem: string } {
  const parsed = parseDeviceList(devices.join(','));
  if (parsed.kind === 'invalid') return { ok: false, problem: parsed.problem };
  const view = buildDeviceView(local.list(SLICES) as unknown as Parameters<typeof buildDeviceView>[0], undefined);
  const nodeOf = new Map<string, string>();
  for (const [node, published] of view.devicesByNode) for (const d of published) nodeOf.set(d, node);
  const byNode = new Map<string, string[]>();
  const unknown: string[] = [];
  for (const d of parsed.devices.map(deviceNameText)) {
    const node = nodeOf.get(d);
    if (node === undefined) unknown.push(d);
    else byNode.set(node, [...(byNode.get(node) ?? []), d]);
  }
  if (unknown.length > 0) return { ok: false, problem: `no ResourceSlice of the snapshot publishes ${shortList(unknown, 3)}` };
  return { ok: true, byNode };
}

/** The name what-if gives the device request of `node`. */
export function deviceRequestName(node: string): string {
  return `whatif-${node}-devices`;
}

/** A device request as a requestor files it: kmaint.io/devices, never a cordon, the what-if's drainSpec. */
export function deviceRequestManifest(namespace: string, node: string, devices: readonly string[], requestorID: string, drainSpec: DrainSpec): JsonObject {
  return {
    apiVersion: API_VERSION,
    kind: NODE_MAINTENANCE_KIND,
    metadata: { name: deviceRequestName(node), namespace, annotations: { [ANNOTATION_DEVICES]: devices.join(',') } },
    spec: { requestorID, nodeName: node, cordon: false, drainSpec: { ...drainSpec } },
  };
}

/** The pods on `node`, not being deleted, whose allocated claims reserved for them hold one of `devices`. */
function holding(local: LocalApi, node: string, devices: readonly string[]): DeviceHolder[] {
  const parsed = parseDeviceList(devices.join(','));
  if (parsed.kind === 'invalid') return [];
  const pods = (local.list(PODS, { fieldSelector: `spec.nodeName=${node}` }) as unknown as V1Pod[]).filter((p) => !p.metadata?.deletionTimestamp);
  const claims = indexClaims(local.list(CLAIMS) as unknown as ResourceV1ResourceClaim[]);
  return podsHoldingDevices(pods, claims, parsed.devices);
}

/** The holders of `devices` on `node` now, by pod name. */
export function holdersOn(local: LocalApi, node: string, devices: readonly string[]): DeviceHolderEntry[] {
  return holding(local, node, devices)
    .map((h) => ({ pod: namespacedName({ namespace: h.pod.metadata?.namespace ?? '', name: h.pod.metadata?.name ?? '' }), devices: [...h.devices] }))
    .sort((a, b) => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0));
}

/** The longest grace period (seconds) among the holders: the ideal duration of a device request's drain. */
export function longestHolderGrace(local: LocalApi, node: string, devices: readonly string[]): number {
  return Math.max(0, ...holding(local, node, devices).map((h) => h.pod.spec?.terminationGracePeriodSeconds ?? 0));
}
