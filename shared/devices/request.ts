// A device-scoped request (issue 45): the kmaint.io/devices annotation read, and why the scheduler may not admit one
// (a value that cannot be read, a device the node does not publish, a cluster without DeviceTaintRules). Pure.
import { ANNOTATION_DEVICES, type NodeMaintenance } from '../api/index.ts';
import { shortList } from '../text/index.ts';

/** One device as DRA names it: `<driver>/<pool>/<device>` (a pool name may itself contain `/`). */
export interface DeviceName {
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
}

/** At most this many devices in one request: each gets its own DeviceTaintRule. */
export const MAX_DEVICES_PER_REQUEST = 32;

/** What kmaint.io/devices says: absent (a node request), a value that cannot be read, or the devices, as written. */
export type DeviceRequest = { readonly kind: 'node' } | { readonly kind: 'invalid'; readonly problem: string } | { readonly kind: 'devices'; readonly devices: readonly DeviceName[] };

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** "<driver>/<pool>/<device>". */
export function deviceNameText(d: DeviceName): string {
  return `${d.driver}/${d.pool}/${d.device}`;
}

function parseEntry(entry: string): DeviceName | string {
  const first = entry.indexOf('/');
  const last = entry.lastIndexOf('/');
  if (first < 0 || last === first) return `"${entry}" is not driver/pool/device`;
  const d = { driver: entry.slice(0, first), pool: entry.slice(first + 1, last), device: entry.slice(last + 1) };
  if (!DNS_SUBDOMAIN.test(d.driver) || d.driver.length > 63) return `"${entry}": driver "${d.driver}" is not a DNS subdomain of at most 63 characters`;
  if (d.pool === '' || d.pool.split('/').some((s) => !DNS_SUBDOMAIN.test(s))) return `"${entry}": pool "${d.pool}" is not DNS subdomains separated by /`;
  if (!DNS_LABEL.test(d.device) || d.device.length > 63) return `"${entry}": device "${d.device}" is not a DNS label`;
  return d;
}

/** Reads kmaint.io/devices: comma-separated entries, spaces around them ignored; every entry must be read, none twice. */
export function deviceRequestOf(nm: NodeMaintenance): DeviceRequest {
  const raw = nm.metadata.annotations?.[ANNOTATION_DEVICES];
  if (raw === undefined) return { kind: 'node' };
  return parseDeviceList(raw);
}

/** A kmaint.io/devices value read by the annotation's rules (the reaper's devicesFrom is checked with them too). */
export function parseDeviceList(raw: string): Exclude<DeviceRequest, { kind: 'node' }> {
  const entries = raw.split(',').map((e) => e.trim());
  if (entries.every((e) => e === '')) return { kind: 'invalid', problem: 'it lists no device' };
  const devices: DeviceName[] = [];
  const problems: string[] = [];
  for (const entry of entries) {
    if (entry === '') continue;
    const parsed = parseEntry(entry);
    if (typeof parsed === 'string') problems.push(parsed);
    else if (devices.some((d) => deviceNameText(d) === entry)) problems.push(`"${entry}" is listed twice`);
    else devices.push(parsed);
  }
  if (problems.length > 0) return { kind: 'invalid', problem: shortList(problems, 3) };
  if (devices.length > MAX_DEVICES_PER_REQUEST) return { kind: 'invalid', problem: `it lists ${devices.length} devices, at most ${MAX_DEVICES_PER_REQUEST} are allowed` };
  return { kind: 'devices', devices };
}

/** Whether the request names devices at all: such a request is never treated as a node request, even when its value is bad. */
export function isDeviceRequest(nm: NodeMaintenance): boolean {
  return nm.metadata.annotations?.[ANNOTATION_DEVICES] !== undefined;
}

/** What the scheduler read for device requests: whether the cluster serves DeviceTaintRules, and each node's devices. */
export interface DeviceView {
  /** The resource.k8s.io version DeviceTaintRules are served in, or undefined when the API server serves none. */
  readonly taintRuleVersion: string | undefined;
  /** Node name -> "<driver>/<pool>/<device>" of every device its ResourceSlices publish. */
  readonly devicesByNode: ReadonlyMap<string, ReadonlySet<string>>;
  /** Set when kmaint may not read them (403: the ClusterRole kmaint-devices is not bound): what the API server said. */
  readonly forbidden?: string;
}

/** Indexes ResourceSlices by node: only slices with spec.nodeName (node-local devices) count. */
export function buildDeviceView(slices: ReadonlyArray<{ spec?: { driver?: string; nodeName?: string; pool?: { name?: string }; devices?: ReadonlyArray<{ name?: string }> } }>, taintRuleVersion: string | undefined): DeviceView {
  const devicesByNode = new Map<string, Set<string>>();
  for (const s of slices) {
    const node = s.spec?.nodeName;
    const driver = s.spec?.driver;
    const pool = s.spec?.pool?.name;
    if (!node || !driver || !pool) continue;
    const set = devicesByNode.get(node) ?? new Set<string>();
    for (const d of s.spec?.devices ?? []) if (d.name) set.add(`${driver}/${pool}/${d.name}`);
    devicesByNode.set(node, set);
  }
  return { taintRuleVersion, devicesByNode };
}

/** The clause every refusal of a device request ends with: it never falls back to maintaining the whole node. */
const NEVER_NODE = 'a device request is never treated as a node request';

/**
 * Why a device request may not be admitted (the wait reason on its Ready condition), or undefined: a node request, or
 * devices all published by its node on a cluster that serves DeviceTaintRules. `view` undefined: not read this pass.
 */
export function deviceRequestRefusal(nm: NodeMaintenance, view: DeviceView | undefined): string | undefined {
  const request = deviceRequestOf(nm);
  if (request.kind === 'node') return undefined;
  if (request.kind === 'invalid') return `${ANNOTATION_DEVICES} cannot be read: ${request.problem}; ${NEVER_NODE}`;
  if (view === undefined) return `the devices of ${ANNOTATION_DEVICES} could not be checked this pass; ${NEVER_NODE}`;
  if (view.forbidden !== undefined) {
    return `kmaint may not read DeviceTaintRules and ResourceSlices (${view.forbidden}): bind the ClusterRole kmaint-devices (infra/devices, or the chart's devices.enabled); ${NEVER_NODE}`;
  }
  if (view.taintRuleVersion === undefined) {
    return `this cluster does not serve DeviceTaintRules (resource.k8s.io/v1beta2 from Kubernetes 1.36, or v1alpha3 in 1.35 with the feature gates DRADeviceTaints and DRADeviceTaintRules and --runtime-config=resource.k8s.io/v1alpha3=true), so kmaint cannot take single devices out of service; ${NEVER_NODE}`;
  }
  const published = view.devicesByNode.get(nm.spec.nodeName) ?? new Set<string>();
  const missing = request.devices.map(deviceNameText).filter((d) => !published.has(d));
  if (missing.length > 0) return `${ANNOTATION_DEVICES} names devices no ResourceSlice of node ${nm.spec.nodeName} publishes: ${shortList(missing, 3)}; ${NEVER_NODE}`;
  return undefined;
}
