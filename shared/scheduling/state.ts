// The scheduler's view of one snapshot: Nodes and NodeMaintenances indexed once, as upstream's ClusterState.
import type { V1Node } from '@kubernetes/client-node';
import { isBeingDeleted, isUnscheduled, maintenanceKey, maintenanceMarkedByOthers } from '#api';
import type { NodeMaintenance } from '#api';
import { admissionStanding, holdsAdmission } from './admission-record.ts';
import type { Blockers } from './blockers.ts';
import type { ExternalPools } from './external-pools.ts';
import type { DeviceView } from '../devices/index.ts';
import type { ReleaseDelay } from './release-delay.ts';

export interface SchedulingState {
  /** Nodes by name. */
  readonly nodes: ReadonlyMap<string, V1Node>;
  /** Every NodeMaintenance in the snapshot, in input order. */
  readonly maintenances: readonly NodeMaintenance[];
  /** Requests the scheduler owns: phase '' or Pending, not being deleted, not admitted by kmaint's record (node may be missing). */
  readonly unscheduled: readonly NodeMaintenance[];
  /**
   * Requests whose status says Scheduled or later while kmaint's records on their Node do not name them (issue 40): a
   * phase written into status, not an admission. They hold no slot and no Node; the scheduler writes them back to Pending.
   */
  readonly notAdmitted: readonly NodeMaintenance[];
  /** Admitted by the record on their Node while their status still says '' or Pending (the status write failed): the scheduler finishes them. */
  readonly toFinish: readonly NodeMaintenance[];
  /** In progress by an older kmaint's cordon record alone (admission-record.ts `legacy`), not being deleted: the scheduler writes their record. */
  readonly legacy: readonly NodeMaintenance[];
  /** Keys (namespace/name) of the requests kmaint's records say it admitted (admission-record.ts); in progress besides: those being deleted. */
  readonly admitted: ReadonlySet<string>;
  /** Node name -> the in-progress requests on it, sorted by namespace/name; only Nodes that exist. */
  readonly inProgressByNode: ReadonlyMap<string, readonly NodeMaintenance[]>;
  /** Names of existing Nodes with a request in progress (upstream nodesUnderMaintenance). */
  readonly nodesUnderMaintenance: ReadonlySet<string>;
  /** Names of Nodes that are cordoned, not Ready, or under another controller's maintenance (upstream nodesUnavailable, plus KEP-5683). */
  readonly nodesUnavailable: ReadonlySet<string>;
  /** requestorIDs with at least one request in progress on an existing Node. */
  readonly requestorsInProgress: ReadonlySet<string>;
  /** requestorID -> number of its unscheduled requests (for the fewer-pending ranker). */
  readonly unscheduledByRequestor: ReadonlyMap<string, number>;
  /** Limits another system defines for some requests (SR-IOV pools), enforced by the `external pool` gate. */
  readonly externalPools?: ExternalPools;
  /** kmaint's namespace, where its own requests are (gang-membership.ts); undefined: no request is kmaint's. */
  readonly kmaintNamespace?: string;
  /** What the pass read for spec.rebootBlockers (blockers.ts), enforced by the `blocking alert` and `blocking pod` gates. */
  readonly blockers?: Blockers;
  /** What the pass read for device requests (issue 45): DeviceTaintRules served, each node's devices; absent: not read. */
  readonly devices?: DeviceView;
  /** spec.releaseDelaySeconds and the deleted requests it holds (release-delay.ts), enforced by the `release delay` gate; absent: off. */
  readonly releaseDelay?: ReleaseDelay;
}

/**
 * Unavailable: cordoned, a Ready condition whose status is not True (no Ready condition counts as ready), or a KEP-5683
 * condition by which another controller says the node is under maintenance (MaintenanceInProgress, DrainInProgress or
 * Drained True, not set by kmaint).
 */
export function isNodeUnavailable(node: V1Node): boolean {
  if (node.spec?.unschedulable === true) return true;
  if (maintenanceMarkedByOthers(node) !== undefined) return true;
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  return ready !== undefined && ready.status !== 'True';
}

export function buildSchedulingState(lists: { nodes: readonly V1Node[]; maintenances: readonly NodeMaintenance[]; externalPools?: ExternalPools; kmaintNamespace?: string; blockers?: Blockers; devices?: DeviceView; releaseDelay?: ReleaseDelay }): SchedulingState {
  const nodes = new Map<string, V1Node>();
  const nodesUnavailable = new Set<string>();
  for (const node of lists.nodes) {
    const name = node.metadata?.name;
    if (name === undefined) continue;
    nodes.set(name, node);
    if (isNodeUnavailable(node)) nodesUnavailable.add(name);
  }

  const unscheduled: NodeMaintenance[] = [];
  const notAdmitted: NodeMaintenance[] = [];
  const toFinish: NodeMaintenance[] = [];
  const legacy: NodeMaintenance[] = [];
  const admitted = new Set<string>();
  const inProgressByNode = new Map<string, NodeMaintenance[]>();
  const requestorsInProgress = new Set<string>();
  const unscheduledByRequestor = new Map<string, number>();
  for (const nm of lists.maintenances) {
    const node = nodes.get(nm.spec.nodeName);
    // In progress by kmaint's record on the Node (issue 40), never by the phase a status says; a request being deleted
    // holds its Node until cleanup lets it go, as before. A request whose Node is gone holds nothing (cleanup releases it).
    const holds = holdsAdmission(nm, node);
    if (holds || (isBeingDeleted(nm) && node !== undefined)) {
      if (holds) {
        const standing = admissionStanding(nm, node);
        admitted.add(maintenanceKey(nm));
        if (standing === 'recorded' && isUnscheduled(nm)) toFinish.push(nm);
        if (standing === 'legacy' && !isBeingDeleted(nm)) legacy.push(nm);
      }
      const onNode = inProgressByNode.get(nm.spec.nodeName) ?? [];
      onNode.push(nm);
      inProgressByNode.set(nm.spec.nodeName, onNode);
      requestorsInProgress.add(nm.spec.requestorID);
      continue;
    }
    if (isBeingDeleted(nm)) continue;
    if (isUnscheduled(nm)) {
      unscheduled.push(nm);
      unscheduledByRequestor.set(nm.spec.requestorID, (unscheduledByRequestor.get(nm.spec.requestorID) ?? 0) + 1);
    } else if (node !== undefined) {
      // Past Pending on a Node that exists, and no record of kmaint's names it. (Node gone: cleanup's, as before.)
      notAdmitted.push(nm);
    }
  }
  for (const onNode of inProgressByNode.values()) {
    onNode.sort((a, b) => compareStrings(maintenanceKey(a), maintenanceKey(b)));
  }

  return {
    nodes,
    maintenances: lists.maintenances,
    unscheduled,
    notAdmitted,
    toFinish,
    legacy,
    admitted,
    inProgressByNode,
    nodesUnderMaintenance: new Set(inProgressByNode.keys()),
    nodesUnavailable,
    requestorsInProgress,
    unscheduledByRequestor,
    ...(lists.externalPools !== undefined ? { externalPools: lists.externalPools } : {}),
    ...(lists.blockers !== undefined ? { blockers: lists.blockers } : {}),
    ...(lists.devices !== undefined ? { devices: lists.devices } : {}),
    ...(lists.releaseDelay !== undefined ? { releaseDelay: lists.releaseDelay } : {}),
    ...(lists.kmaintNamespace !== undefined ? { kmaintNamespace: lists.kmaintNamespace } : {}),
  };
}

/** Ordinal string order (as Go's cmp.Compare), independent of locale. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
