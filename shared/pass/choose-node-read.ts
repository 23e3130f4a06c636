// Which Nodes the drainer and cleanup read in a pass (issue 34): every Node (a full read, as every pass did), or only
// those their requests name. Pure: the settings, the record of the last full read and the names; read-named-nodes.ts reads.
import type { V1Lease } from '@kubernetes/client-node';
import { ANNOTATION_FULL_NODE_READ_NODES, ANNOTATION_FULL_NODE_READ_TIME, DRAINER_PHASES, FINALIZER, isNodeName, LABEL_GANG, maintenancePhase, Phase } from '../api/index.ts';
import type { MaintenanceOperatorConfig, NodeMaintenance } from '../api/index.ts';
import { isKmaintRequest } from '../scheduling/index.ts';

export interface NodeReadSettings {
  /** spec.namedReadsFromNodes. @default 5000 */
  namedReadsFromNodes: number;
  /** spec.fullReadEverySeconds. @default 600 */
  fullReadEverySeconds: number;
}

export const DEFAULT_NODE_READ_SETTINGS: NodeReadSettings = { namedReadsFromNodes: 5000, fullReadEverySeconds: 600 };

export function nodeReadSettings(config: MaintenanceOperatorConfig | undefined): NodeReadSettings {
  return {
    namedReadsFromNodes: config?.spec?.namedReadsFromNodes ?? DEFAULT_NODE_READ_SETTINGS.namedReadsFromNodes,
    fullReadEverySeconds: config?.spec?.fullReadEverySeconds ?? DEFAULT_NODE_READ_SETTINGS.fullReadEverySeconds,
  };
}

/** A function's last read of every Node: when, and how many it saw (the node count percentages resolve against). */
export interface FullReadRecord {
  at: Date;
  nodes: number;
}

/** The record on a pass Lease; undefined when absent or not readable (then the next pass reads every Node). */
export function fullReadRecordOf(lease: V1Lease | undefined): FullReadRecord | undefined {
  const annotations = lease?.metadata?.annotations ?? {};
  const at = Date.parse(annotations[ANNOTATION_FULL_NODE_READ_TIME] ?? '');
  const nodes = Number(annotations[ANNOTATION_FULL_NODE_READ_NODES] ?? '');
  if (Number.isNaN(at) || !Number.isInteger(nodes) || nodes < 0 || annotations[ANNOTATION_FULL_NODE_READ_NODES] === '') return undefined;
  return { at: new Date(at), nodes };
}

/** The record as the Lease's annotations. */
export function fullReadAnnotations(record: FullReadRecord): Record<string, string> {
  return { [ANNOTATION_FULL_NODE_READ_TIME]: record.at.toISOString(), [ANNOTATION_FULL_NODE_READ_NODES]: String(record.nodes) };
}

/** What a pass reads of the Nodes: every one (and why), or those named. */
export type NodeReadChoice = { kind: 'full'; why: string } | { kind: 'named'; names: readonly string[] };

/** What a function needs of the Nodes this pass, from its requests: names, or every Node (and why). */
export type NodesNeeded = { kind: 'named'; names: readonly string[] } | { kind: 'all'; why: string };

/**
 * Named reads are made for at most this share of the cluster's Nodes, or NAMED_READS_ALWAYS. One Node read by name cost
 * the API server 2-5 ms of serving, one Node of a paged full LIST 0.14 ms (10,000 nodes, docs/benchmarks.md): past
 * about 1/20 of the Nodes (a mass deletion, thousands of requests in flight) a full read costs it less, and runs the
 * sweeps besides. Up to NAMED_READS_ALWAYS Nodes (under 0.5 s of serving) are read by name whatever the cluster's size.
 */
export const NAMED_READS_AT_MOST = 1 / 20;
export const NAMED_READS_ALWAYS = 100;

/**
 * Pure: a full read unless the last one saw at least `namedReadsFromNodes` nodes and is less than
 * `fullReadEverySeconds` old, and the function can name what it needs, in few enough Nodes. In order, each the
 * reason a full read is made.
 */
export function chooseNodeRead(input: { record: FullReadRecord | undefined; settings: NodeReadSettings; needed: NodesNeeded; now: Date }): NodeReadChoice {
  const { record, settings, needed, now } = input;
  if (record === undefined) return { kind: 'full', why: 'no full read recorded' };
  if (record.nodes < settings.namedReadsFromNodes) return { kind: 'full', why: `${record.nodes} nodes, under namedReadsFromNodes ${settings.namedReadsFromNodes}` };
  const age = (now.getTime() - record.at.getTime()) / 1000;
  if (age >= settings.fullReadEverySeconds || age < 0) return { kind: 'full', why: `last full read ${Math.floor(age)} s ago, fullReadEverySeconds ${settings.fullReadEverySeconds}` };
  if (needed.kind === 'all') return { kind: 'full', why: needed.why };
  const many = needed.names.length > NAMED_READS_ALWAYS && needed.names.length > record.nodes * NAMED_READS_AT_MOST;
  if (many) return { kind: 'full', why: `${needed.names.length} nodes named, more than 1/20 of ${record.nodes}` };
  return { kind: 'named', names: needed.names };
}

/** Whether a record is worth keeping on the Lease: it makes later passes read named nodes, or replaces one that did. */
export function keepsRecord(nodes: number, previous: FullReadRecord | undefined, settings: NodeReadSettings): boolean {
  return nodes >= settings.namedReadsFromNodes || previous !== undefined;
}

/**
 * Sorted, once each, and only Node names (issue 40): a request that names something else is set apart as malformed
 * before any plan sees it, and would never be read by name even if it were not.
 */
const sorted = (names: Iterable<string>): string[] => [...new Set(names)].filter(isNodeName).sort();
const admitted = (nm: NodeMaintenance): boolean => nm.metadata.deletionTimestamp === undefined && DRAINER_PHASES.has(maintenancePhase(nm));

/**
 * The drainer's Nodes: those of the requests it moves (planDrainer), and for a Scheduled request in a gang, those of
 * the gang's members not admitted yet (gang-hold.ts: their Nodes decide whether they are members and can still start).
 */
export function drainerNodesNeeded(maintenances: readonly NodeMaintenance[], gangNodeLabel: string | undefined, kmaintNamespace: string | undefined): NodesNeeded {
  const moved = maintenances.filter(admitted);
  const names = moved.map((nm) => nm.spec.nodeName);
  // Every live request may be a member kmaint has not admitted: a phase written into status is no admission (issue 40).
  const waiting = maintenances.filter((nm) => nm.metadata.deletionTimestamp === undefined);
  for (const nm of moved.filter((m) => maintenancePhase(m) === Phase.Scheduled)) {
    const namespace = nm.metadata.namespace ?? '';
    const own = nm.metadata.labels?.[LABEL_GANG];
    const byLabel = own !== undefined && own !== '';
    // A gang by node label: its members are the same requestor's requests without a gang label of their own.
    if (!byLabel && (gangNodeLabel === undefined || isKmaintRequest(nm, kmaintNamespace))) continue;
    for (const other of waiting) {
      if ((other.metadata.namespace ?? '') !== namespace) continue;
      const theirs = other.metadata.labels?.[LABEL_GANG];
      if (byLabel ? theirs === own : (theirs === undefined || theirs === '') && other.spec.requestorID === nm.spec.requestorID) names.push(other.spec.nodeName);
    }
  }
  return { kind: 'named', names: sorted(names) };
}

/**
 * Cleanup's Nodes: those of requests being deleted (released by the node's records) and of admitted ones (a gone Node
 * releases them; a Ready one may be collected). An invalid request being deleted needs every Node: its cordon record
 * may be on any (malformed.ts). Requests not admitted whose Node is gone wait for the next full read.
 */
export function cleanupNodesNeeded(maintenances: readonly NodeMaintenance[], malformed: readonly NodeMaintenance[]): NodesNeeded {
  if (malformed.some((nm) => nm.metadata.deletionTimestamp !== undefined && (nm.metadata.finalizers ?? []).includes(FINALIZER))) {
    return { kind: 'all', why: 'an invalid request is being deleted: its cordon record may be on any node' };
  }
  return { kind: 'named', names: sorted(maintenances.filter((nm) => nm.metadata.deletionTimestamp !== undefined || admitted(nm)).map((nm) => nm.spec.nodeName)) };
}
