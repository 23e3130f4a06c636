// DRA (resource.k8s.io v1, v1beta2 or v1beta1, the newest served): the devices a pod holds through its
// ResourceClaims, and the names podEvictionFilters match them by. Pure: the claims come from the pass's one LIST.
import { shortList } from '../text/index.ts';
import type { ResourceV1ResourceClaim, V1Pod } from '@kubernetes/client-node';

/** The pass's ResourceClaims by "namespace/name". */
export type ClaimIndex = ReadonlyMap<string, ResourceV1ResourceClaim>;

/** What selection needs to see DRA devices: the claims, and which resource names each driver's devices also answer to. */
export interface DraView {
  readonly claims: ClaimIndex;
  /** Driver -> resource names (MaintenanceOperatorConfig spec.draResourceNames, or its default). */
  readonly resourceNames: ReadonlyMap<string, readonly string[]>;
  /** Set when the pass could not read the ResourceClaims (why): `claims` is then empty, not the cluster's. */
  readonly unreadable?: string;
}

/** One device a pod holds: `<driver>/<pool>/<device>`, the claim it came through and the class it was asked for by. */
export interface HeldDevice {
  readonly claim: string;
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
  /** The request's deviceClassName (the chosen subrequest's for firstAvailable); undefined when the request is gone from the spec. */
  readonly deviceClassName: string | undefined;
}

export function indexClaims(claims: readonly ResourceV1ResourceClaim[]): ClaimIndex {
  return new Map(claims.map((c) => [`${c.metadata?.namespace ?? ''}/${c.metadata?.name ?? ''}`, c]));
}

/** The claim names a pod's spec.resourceClaims resolve to: named directly, or generated from a template (status). */
function podClaimNames(pod: V1Pod): string[] {
  const statuses = pod.status?.resourceClaimStatuses ?? [];
  const names: string[] = [];
  for (const entry of pod.spec?.resourceClaims ?? []) {
    // A template entry whose status has no claim name needed no claim (or its claim is not created yet).
    const name = entry.resourceClaimName ?? statuses.find((s) => s.name === entry.name)?.resourceClaimName;
    if (name) names.push(name);
  }
  return names;
}

/** A request as any served version writes it: v1beta1 (Kubernetes 1.32, 1.33) has no `exactly`, its class sits on the request. */
type AnyVersionDeviceRequest = NonNullable<NonNullable<ResourceV1ResourceClaim['spec']['devices']>['requests']>[number] & { deviceClassName?: string };

/** The device class a result was allocated for: `request` is "<request>" or "<request>/<subrequest>" (firstAvailable). */
function deviceClassOf(claim: ResourceV1ResourceClaim, request: string): string | undefined {
  const [main, sub] = request.split('/');
  const spec: AnyVersionDeviceRequest | undefined = claim.spec?.devices?.requests?.find((r) => r.name === main);
  if (sub === undefined) return spec?.exactly?.deviceClassName ?? spec?.deviceClassName;
  return spec?.firstAvailable?.find((s) => s.name === sub)?.deviceClassName;
}

/** The claim is reserved for this very pod (by uid): a pod not in reservedFor has not started with the devices. */
function reservedForPod(claim: ResourceV1ResourceClaim, pod: V1Pod): boolean {
  const uid = pod.metadata?.uid;
  return uid !== undefined && (claim.status?.reservedFor ?? []).some((r) => r.resource === 'pods' && (r.apiGroup ?? '') === '' && r.uid === uid);
}

/**
 * The devices `pod` holds: for each of its claims that is allocated and reserved for it, every allocation result
 * (adminAccess ones included: such a pod has the device open too). Sorted by claim, then driver/pool/device.
 */
export function devicesHeldBy(pod: V1Pod, claims: ClaimIndex): HeldDevice[] {
  const namespace = pod.metadata?.namespace ?? '';
  const held: HeldDevice[] = [];
  for (const name of podClaimNames(pod)) {
    const key = `${namespace}/${name}`;
    const claim = claims.get(key);
    if (!claim?.status?.allocation || !reservedForPod(claim, pod)) continue;
    for (const r of claim.status.allocation.devices?.results ?? []) {
      held.push({ claim: key, driver: r.driver, pool: r.pool, device: r.device, deviceClassName: deviceClassOf(claim, r.request) });
    }
  }
  const id = (d: HeldDevice): string => `${d.claim} ${d.driver}/${d.pool}/${d.device}`;
  return held.sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
}

/**
 * The names a held device answers to in podEvictionFilters: its driver, its device class and the resource names the
 * driver maps to (gpu.nvidia.com -> nvidia.com/gpu by default), without repeats, in that order.
 */
export function deviceResourceNames(device: HeldDevice, resourceNames: ReadonlyMap<string, readonly string[]>): string[] {
  const names = [device.driver, ...(device.deviceClassName !== undefined ? [device.deviceClassName] : []), ...(resourceNames.get(device.driver) ?? [])];
  return [...new Set(names)];
}

/** Every name `pod`'s held devices answer to (none without a DRA view). */
export function claimedResourceNames(pod: V1Pod, dra: DraView | undefined): string[] {
  if (dra === undefined) return [];
  return [...new Set(devicesHeldBy(pod, dra.claims).flatMap((d) => deviceResourceNames(d, dra.resourceNames)))];
}

/** "<driver>/<pool>/<device>", as DRA names a device. */
export function deviceId(device: HeldDevice): string {
  return `${device.driver}/${device.pool}/${device.device}`;
}

/**
 * What the drainer (Ready message) and `kmaint explain` say when podEvictionFilters match no pod on the node while
 * `holders` hold DRA devices: the pods, each with its first devices, and that they keep running.
 */
export function unmatchedDraMessage(holders: ReadonlyArray<{ pod: V1Pod; devices: readonly HeldDevice[] }>): string {
  const shown = holders.map(({ pod, devices }) => `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''} (${shortList(devices.map(deviceId), 2)})`);
  const count = holders.length === 1 ? '1 pod holds' : `${holders.length} pods hold`;
  return `podEvictionFilters match no pod on the node, yet ${count} DRA devices the filters do not match, left running: ${shortList(shown, 3)}`;
}

/** Whether `pod` asks for DRA devices through spec.resourceClaims, whatever the claims themselves say. */
export function referencesClaims(pod: V1Pod): boolean {
  return (pod.spec?.resourceClaims ?? []).length > 0;
}

/**
 * Why a drain whose podEvictionFilters must see DRA devices holds while the pass cannot read the ResourceClaims:
 * the problem and the first pods that reference claims. Nothing is evicted on a guess; other drains go on.
 */
export function unreadableClaimsMessage(problem: string, pods: readonly V1Pod[], field = 'podEvictionFilters'): string {
  const keys = pods.filter(referencesClaims).map((p) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`).sort();
  return `waiting to drain: cannot read DRA ResourceClaims (${problem}), and ${field} must see the DRA devices of ${shortList(keys, 3)}; nothing is evicted until they can be read`;
}
