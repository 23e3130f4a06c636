// A snapshot's DRA devices loaded into the what-if's API server (issue 45): each node's ResourceSlices, and for each
// pod that held devices one ResourceClaim allocated those devices and reserved for the pod — what kmaint reads to
// check a device request and to find the pods holding its devices. No DRA scheduler runs here: a replacement pod
// allocates nothing, so it holds no device.
import { parseDeviceList } from '../../shared/devices/index.ts';
import type { Json, JsonObject, SimApiServer } from '../apiserver/index.ts';
import { createObject } from '../apiserver/writes.ts';
import type { SnapshotSlice } from './snapshot-schema.ts';

const SLICES = { apiVersion: 'resource.k8s.io/v1', resource: 'resourceslices' };
/** The name of a pod's one entry in spec.resourceClaims, and of its claim's one request. */
const CLAIM_ENTRY = 'devices';

/** The claim a pod of the snapshot holds its devices through: `<pod>-devices`. */
export function claimNameOf(pod: string): string {
  return `${pod}-${CLAIM_ENTRY}`;
}

/** The pod's spec.resourceClaims entry naming its claim. */
export function podClaimEntry(pod: string): Json[] {
  return [{ name: CLAIM_ENTRY, resourceClaimName: claimNameOf(pod) }];
}

/** One ResourceSlice per snapshot entry, owned by its Node as a DRA driver's slices are. */
export function seedSlices(api: SimApiServer, slices: readonly SnapshotSlice[], nodeUids: ReadonlyMap<string, string>): void {
  for (const [i, s] of slices.entries()) {
    const uid = nodeUids.get(s.node);
    api.local.create(SLICES, '', {
      apiVersion: SLICES.apiVersion,
      kind: 'ResourceSlice',
      metadata: { name: `whatif-${s.node}-${i}`, ...(uid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: s.node, uid }] } : {}) },
      spec: { driver: s.driver, nodeName: s.node, pool: { name: s.pool, generation: 0, resourceSliceCount: 1 }, devices: s.devices.map((name) => ({ name })) },
    });
  }
}

/**
 * The pod's claim, allocated `devices` and reserved for the stored pod (its uid), stored with that status at once
 * (as the scheduler's allocation and the kubelet's start would leave it). Devices that cannot be read are refused.
 */
export function seedClaim(api: SimApiServer, pod: JsonObject, devices: readonly string[]): void {
  const meta = pod['metadata'] as { namespace?: string; name?: string; uid?: string };
  const namespace = meta.namespace ?? '';
  const name = meta.name ?? '';
  const parsed = parseDeviceList(devices.join(','));
  if (parsed.kind === 'invalid') throw new Error(`pod ${namespace}/${name}: devices: ${parsed.problem}`);
  const kind = api.context.kinds.lookup('resource.k8s.io', 'v1', 'resourceclaims');
  if (!kind) throw new Error('the sim API server serves no resourceclaims');
  const drivers = [...new Set(parsed.devices.map((d) => d.driver))];
  const claim = createObject(api.context, kind, namespace, {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: { namespace, name: claimNameOf(name) },
    spec: { devices: { requests: [{ name: CLAIM_ENTRY, exactly: { deviceClassName: drivers[0] ?? '', count: parsed.devices.length, allocationMode: 'ExactCount' } }] } },
  }, { dryRun: true }).object;
  claim['status'] = {
    allocation: { devices: { results: parsed.devices.map((d) => ({ request: CLAIM_ENTRY, driver: d.driver, pool: d.pool, device: d.device })) } },
    reservedFor: [{ resource: 'pods', name, uid: meta.uid ?? '' }],
  };
  api.context.store.put(kind, claim);
}
