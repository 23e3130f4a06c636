// `kmaint status`: one row per NodeMaintenance request (node, requestor, phase, age, drain progress, and the Ready
// condition's message, which says why a Pending request waits), and a header with the limits in force.
import { CONFIG_NAME, isBeingDeleted, maintenanceKey, maintenancePhase, readyCondition } from '../shared/api/index.ts';
import type { NodeMaintenance } from '../shared/api/index.ts';
import { formatLabelSelector } from '../shared/selectors/index.ts';
import type { ResourceV1ResourceClaim, V1Pod } from '@kubernetes/client-node';
import { deviceNameText, deviceRequestOf, isDeviceRequest, podsHoldingDevices } from '../shared/devices/index.ts';
import { indexClaims, referencesClaims } from '../shared/drain/index.ts';
import { fieldSelectorTerm, type KubeClient } from '../shared/kube/index.ts';
import { requestTimes, type RequestTimes } from './request-times.ts';
import { judgeCrd, loadConfig, readConfigCrd, type KmaintConfig } from '../shared/pass/index.ts';
import { requestMatches, type RequestFilter } from './request-filter.ts';
import { validatingStage } from './status-validation.ts';
import type { V1Node } from '@kubernetes/client-node';

/** A pod holding devices of a device request, as `kmaint status` shows it. */
export interface DeviceHolderRow {
  pod: string;
  devices: string[];
}

/** With kmaint.io/deadline or kmaint.io/not-before set, their fields (RequestTimes) too. */
export interface StatusRow extends RequestTimes {
  /** namespace/name */
  request: string;
  namespace: string;
  name: string;
  node: string;
  requestor: string;
  /** The Ready condition's reason; '' for a request no pass has seen yet. */
  phase: string;
  createdAt: string | null;
  ageSeconds: number | null;
  /** Deleted by its requestor, held by the finalizer until cleanup releases it. */
  deleting: boolean;
  /** status.drain (evictionPods = pods to evict when the drain started), with `podsLeft` = waitForEviction's length. */
  drain: { totalPods: number; evictionPods: number; drainProgress: number; podsLeft: number } | null;
  /** The Ready condition's message: why it waits, what it is doing, or what went wrong. */
  message: string;
  /** A device request's devices (`driver/pool/device`, issue 45); absent for a node request. */
  devices?: string[];
  /** Deleted, and cleanup validates its node before the uncordon (issue 44): what it waits on. */
  validating?: string;
  /**
   * A device request's holders as read: each pod (namespace/name) whose allocated claims hold one of its devices, with
   * those devices (`driver/pool/device`), in the node's pod order; absent for a node request, or when not read.
   */
  holders?: DeviceHolderRow[];
}

/** A device request's devices as the row carries them; nothing for a node request. */
function devicesOf(nm: NodeMaintenance): { devices?: string[] } {
  const request = deviceRequestOf(nm);
  if (request.kind === 'node') return {};
  return { devices: request.kind === 'devices' ? request.devices.map(deviceNameText) : [] };
}

/**
 * The holders of each device request's devices (its node's pods and the claims, as read), keyed by namespace/name;
 * node requests have no entry. A request whose node's pods were not read has none either.
 */
export function deviceHolders(maintenances: readonly NodeMaintenance[], podsByNode: ReadonlyMap<string, readonly V1Pod[]>, claims: readonly ResourceV1ResourceClaim[]): Map<string, DeviceHolderRow[]> {
  const index = indexClaims(claims);
  const out = new Map<string, DeviceHolderRow[]>();
  for (const nm of maintenances) {
    const request = deviceRequestOf(nm);
    const pods = podsByNode.get(nm.spec.nodeName);
    if (request.kind !== 'devices' || pods === undefined) continue;
    out.set(maintenanceKey(nm), podsHoldingDevices(pods, index, request.devices).map((h) => ({ pod: `${h.pod.metadata?.namespace ?? ''}/${h.pod.metadata?.name ?? ''}`, devices: [...h.devices] })));
  }
  return out;
}

export function statusRow(nm: NodeMaintenance, now: Date, holders?: readonly DeviceHolderRow[]): StatusRow {
  const created = nm.metadata.creationTimestamp;
  const createdMs = created === undefined ? NaN : Date.parse(created);
  const drain = nm.status?.drain;
  return {
    request: maintenanceKey(nm),
    namespace: nm.metadata.namespace ?? '',
    name: nm.metadata.name,
    node: nm.spec.nodeName,
    requestor: nm.spec.requestorID,
    phase: maintenancePhase(nm),
    createdAt: created ?? null,
    ageSeconds: Number.isNaN(createdMs) ? null : Math.max(0, Math.floor((now.getTime() - createdMs) / 1000)),
    deleting: isBeingDeleted(nm),
    drain: drain ? { totalPods: drain.totalPods, evictionPods: drain.evictionPods, drainProgress: drain.drainProgress, podsLeft: drain.waitForEviction?.length ?? 0 } : null,
    message: readyCondition(nm)?.message ?? '',
    ...requestTimes(nm, now),
    ...devicesOf(nm),
    ...(holders !== undefined ? { holders: [...holders] } : {}),
  };
}

/**
 * Rows in namespace/name order. With the nodes, a request whose node is being validated says so (status-validation.ts);
 * with `holders` (deviceHolders), a device request names the pods holding its devices.
 */
export function statusRows(
  maintenances: readonly NodeMaintenance[],
  now: Date,
  reads: { nodes?: ReadonlyMap<string, V1Node>; holders?: ReadonlyMap<string, readonly DeviceHolderRow[]> } = {},
): StatusRow[] {
  const nodes = reads.nodes ?? new Map<string, V1Node>();
  const holders = reads.holders ?? new Map<string, readonly DeviceHolderRow[]>();
  return maintenances
    .map((nm) => {
      const validating = validatingStage(nm, nodes.get(nm.spec.nodeName));
      return { ...statusRow(nm, now, holders.get(maintenanceKey(nm))), ...(validating !== undefined ? { validating } : {}) };
    })
    .sort((a, b) => (a.request < b.request ? -1 : a.request > b.request ? 1 : 0));
}

/** The cluster-wide limits the scheduler applies, or why it admits nothing. */
export function configLine(config: KmaintConfig): string {
  const name = `MaintenanceOperatorConfig ${config.namespace}/${CONFIG_NAME}`;
  const problems = [...config.problems.limits, ...config.problems.scoped];
  if (problems.length > 0) return `${name} has problems: ${problems.join('; ')}`;
  const { maxParallelOperations, maxUnavailable, admission } = config.limits;
  const extensions = [
    ...(admission && admission.pools.length > 0 ? [`pools ${admission.pools.map((p) => p.name).join(', ')}`] : []),
    ...(admission?.maxUnavailablePerZone !== undefined ? [`maxUnavailablePerZone ${String(admission.maxUnavailablePerZone)}`] : []),
    ...(admission?.windows !== undefined ? ['maintenance windows'] : []),
  ];
  const limits = `maxParallelOperations ${String(maxParallelOperations)}, maxUnavailable ${String(maxUnavailable)}${extensions.map((e) => `, ${e}`).join('')}`;
  return config.object === undefined ? `${name} not found: defaults apply (${limits})` : `${name}: ${limits}`;
}

export interface StatusView {
  config: string;
  /** What must reach a reader even when stdout is piped (the config line then is not printed): CRD and config problems. */
  warnings?: string[];
  rows: StatusRow[];
  /** The requests shown, in the rows' order, as read (-o json|yaml|jsonpath print these). */
  objects?: NodeMaintenance[];
  /** What -n, -l and --node kept, for the line saying none matched (" in namespace team-a"); '' when not filtered. */
  filtered?: string;
}

/**
 * Reads nodes (for percentages), requests and the config (in kmaint's `namespace`) at once; shows the requests the
 * filter keeps (the limits line counts every request, as the scheduler does). When several reads fail, the first in
 * that order is reported, so an unreachable server always gives the same message.
 */
export async function readStatus(client: KubeClient, namespace: string, now: Date, filter: RequestFilter = {}): Promise<StatusView> {
  const reads = [client.listNodes(), client.listMaintenances(), client.getConfig(namespace), readConfigCrd(client)] as const;
  await Promise.allSettled(reads);
  // Every read has settled, so Promise.all rejects with the first failure in array order, not the first in time.
  const [nodes, maintenances, rawConfig, crd] = await Promise.all(reads);
  const config = loadConfig({ rawConfig }, nodes.length, namespace);
  // Foreign CRDs (or an acknowledged upstream schema) come first: the config line below shows what pruning left.
  const crds = judgeCrd(crd, config.acceptsUpstreamSchema);
  const crdLines = crds.kind === 'refused' || crds.kind === 'acknowledged' ? [crds.line] : [];
  const shown = maintenances.filter((nm) => requestMatches(filter, nm)).sort((a, b) => (maintenanceKey(a) < maintenanceKey(b) ? -1 : maintenanceKey(a) > maintenanceKey(b) ? 1 : 0));
  const line = configLine(config);
  const configProblems = config.problems.limits.length + config.problems.scoped.length > 0;
  return {
    config: [...crdLines, line].join('\n'),
    warnings: [...crdLines, ...(configProblems ? [line] : [])],
    rows: statusRows(shown, now, { nodes: new Map(nodes.map((n) => [n.metadata?.name ?? '', n])), holders: await readDeviceHolders(client, shown) }),
    objects: shown,
    filtered: filterText(filter),
  };
}

/**
 * Who holds the shown device requests' devices: one pod LIST per node of a device request (spec.nodeName), and the
 * ResourceClaims only when one of those pods references a claim; no read at all without a device request shown.
 */
async function readDeviceHolders(client: KubeClient, shown: readonly NodeMaintenance[]): Promise<Map<string, DeviceHolderRow[]>> {
  const nodes = [...new Set(shown.filter(isDeviceRequest).map((nm) => nm.spec.nodeName))].sort();
  if (nodes.length === 0) return new Map();
  const podsByNode = new Map<string, V1Pod[]>();
  for (const node of nodes) podsByNode.set(node, await client.listPods({ fieldSelector: fieldSelectorTerm('spec.nodeName', node) }));
  const claims = [...podsByNode.values()].some((pods) => pods.some(referencesClaims)) ? await client.listResourceClaims() : [];
  return deviceHolders(shown, podsByNode, claims);
}

/** " in namespace team-a, on node n1, with labels tier=gpu" for the filters given; '' for none. */
export function filterText(filter: RequestFilter): string {
  const parts = [
    ...(filter.namespace !== undefined ? [`in namespace ${filter.namespace}`] : []),
    ...(filter.node !== undefined ? [`on node ${filter.node}`] : []),
    ...(filter.selector !== undefined ? [`with labels ${formatLabelSelector(filter.selector)}`] : []),
  ];
  return parts.length === 0 ? '' : ` ${parts.join(', ')}`;
}

export interface WatchOptions {
  read: () => Promise<StatusView>;
  render: (view: StatusView) => string;
  write: (text: string) => void;
  /** Redraw every interval (terminal) instead of printing a new table only when the view changed. */
  redraw: boolean;
  intervalMs: number;
  /** Stop after this long; undefined: until `signal` aborts. */
  timeoutMs?: number;
  signal: AbortSignal;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/**
 * `kmaint status --watch`: reads and renders until aborted or the timeout. Without `redraw` a table is written only
 * when something but the ages changed, so a log or pipe gets one table per change. Returns the tables written.
 */
export async function watchStatus(opts: WatchOptions, changeKey: (view: StatusView) => string): Promise<number> {
  const sleep = opts.sleep ?? abortableSleep;
  const stop = opts.timeoutMs === undefined ? undefined : Date.now() + opts.timeoutMs;
  let last: string | undefined;
  let written = 0;
  while (!opts.signal.aborted) {
    const view = await opts.read();
    if (opts.signal.aborted) break;
    const key = changeKey(view);
    if (opts.redraw || key !== last) {
      opts.write(opts.render(view));
      written++;
      last = key;
    }
    const wait = stop === undefined ? opts.intervalMs : Math.min(opts.intervalMs, stop - Date.now());
    if (wait <= 0) break;
    await sleep(wait, opts.signal);
    if (stop !== undefined && Date.now() >= stop) break;
  }
  return written;
}
