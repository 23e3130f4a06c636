// What the demo watches: every request's phase, drain progress and wait reason, and the invariants, from
// snapshots of NodeMaintenances and Nodes. Pure: the caller lists and passes the simulated time.
import { WAITING_PHASES } from '../../shared/api/index.ts';
import type { V1Node } from '@kubernetes/client-node';
import type { NodeMaintenance } from '../../shared/api/index.ts';
import { buildSchedulingState, maintenanceKey, maintenancePhase, readyCondition } from '../../shared/scheduling/index.ts';

export interface RequestRow {
  key: string;
  node: string;
  requestor: string;
  /** The Ready condition's reason; '' before the scheduler first wrote it. */
  phase: string;
  message: string;
  drain?: { totalPods: number; evictionPods: number; drainProgress: number };
  firstSeenMs: number;
  /** First seen past Pending. */
  admittedMs?: number;
  readyMs?: number;
  /** Gone from the API (cleanup let it go). */
  releasedMs?: number;
  deleting: boolean;
  /** The node's spec.unschedulable when the request went away. */
  unschedulableAfter?: boolean;
}

export type DemoEvent =
  | { kind: 'phase'; atMs: number; key: string; node: string; from: string; to: string; message: string }
  | { kind: 'waiting'; atMs: number; key: string; node: string; message: string }
  | { kind: 'deleting'; atMs: number; key: string; node: string }
  | { kind: 'released'; atMs: number; key: string; node: string; unschedulable: boolean };

/** How the drainer names a pod held by a budget in its Ready message (shared/lifecycle/budgets.ts). */
const BUDGET_WAIT = /pod (\S+) waits for PodDisruptionBudget ([^\s(,;]+)/g;

/** Phases in which the Ready message says why the request waits (a limit, a budget, a pod). */

export class DemoObserver {
  private readonly rows = new Map<string, RequestRow>();
  private peakInProgressValue = 0;
  private peakUnavailableValue = 0;
  private observations = 0;
  /** PodDisruptionBudget -> pods the drainer reported waiting for it. */
  private readonly budgetWaitsSeen = new Map<string, Set<string>>();

  /** Folds one snapshot in; returns what changed since the last one, in key order. */
  observe(maintenances: readonly NodeMaintenance[], nodes: readonly V1Node[], atMs: number): DemoEvent[] {
    this.observations++;
    const state = buildSchedulingState({ nodes: [...nodes], maintenances: [...maintenances] });
    this.peakInProgressValue = Math.max(this.peakInProgressValue, state.nodesUnderMaintenance.size);
    this.peakUnavailableValue = Math.max(this.peakUnavailableValue, new Set([...state.nodesUnavailable, ...state.nodesUnderMaintenance]).size);
    const events: DemoEvent[] = [];
    const seen = new Set<string>();
    for (const nm of [...maintenances].sort((a, b) => (maintenanceKey(a) < maintenanceKey(b) ? -1 : 1))) {
      const key = maintenanceKey(nm);
      seen.add(key);
      const phase = maintenancePhase(nm);
      const message = readyCondition(nm)?.message ?? '';
      const node = nm.spec.nodeName;
      let row = this.rows.get(key);
      if (!row) {
        row = { key, node, requestor: nm.spec.requestorID, phase: '', message: '', firstSeenMs: atMs, deleting: false };
        this.rows.set(key, row);
      }
      if (phase !== row.phase) {
        events.push({ kind: 'phase', atMs, key, node, from: row.phase, to: phase, message });
        if (phase !== '' && phase !== 'Pending') row.admittedMs ??= atMs;
        if (phase === 'Ready') row.readyMs ??= atMs;
      } else if (message !== row.message && WAITING_PHASES.has(phase) && message !== '') {
        events.push({ kind: 'waiting', atMs, key, node, message });
      }
      for (const m of message.matchAll(BUDGET_WAIT)) {
        const [, pod = '', budget = ''] = m;
        const pods = this.budgetWaitsSeen.get(budget) ?? new Set<string>();
        pods.add(pod);
        this.budgetWaitsSeen.set(budget, pods);
      }
      const deleting = nm.metadata.deletionTimestamp !== undefined;
      if (deleting && !row.deleting) events.push({ kind: 'deleting', atMs, key, node });
      row.phase = phase;
      row.message = message;
      row.deleting = deleting;
      const drain = nm.status?.drain;
      if (drain) row.drain = { totalPods: drain.totalPods, evictionPods: drain.evictionPods, drainProgress: drain.drainProgress };
    }
    const nodeByName = new Map(nodes.map((n) => [n.metadata?.name ?? '', n]));
    for (const row of this.rows.values()) {
      if (seen.has(row.key) || row.releasedMs !== undefined) continue;
      row.releasedMs = atMs;
      row.unschedulableAfter = nodeByName.get(row.node)?.spec?.unschedulable === true;
      events.push({ kind: 'released', atMs, key: row.key, node: row.node, unschedulable: row.unschedulableAfter });
    }
    return events;
  }

  /** When the request was first seen, in ms of the run; undefined for one never seen. */
  firstSeenMs(key: string): number | undefined {
    return this.rows.get(key)?.firstSeenMs;
  }

  /** Every request seen, in key order. */
  view(): RequestRow[] {
    return [...this.rows.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
  }

  /** Pods that had to wait for a PodDisruptionBudget during a drain, in total and by budget. */
  budgetWaits(): { pods: number; byBudget: Record<string, number> } {
    const byBudget: Record<string, number> = {};
    let pods = 0;
    for (const [budget, set] of [...this.budgetWaitsSeen].sort(([a], [b]) => (a < b ? -1 : 1))) {
      byBudget[budget] = set.size;
      pods += set.size;
    }
    return { pods, byBudget };
  }

  get peakInProgress(): number {
    return this.peakInProgressValue;
  }

  get peakUnavailable(): number {
    return this.peakUnavailableValue;
  }

  get count(): number {
    return this.observations;
  }
}

export interface InvariantReport {
  held: boolean;
  /** One line per violated rule; empty when held. */
  violations: string[];
}

/**
 * The demo's promises: never more requests in progress than maxParallelOperations at any observed moment,
 * and every node's spec.unschedulable at the end equal to what it was before any request existed.
 */
export function checkDemoInvariants(input: {
  peakInProgress: number;
  maxParallelOperations: number;
  initialUnschedulable: ReadonlyMap<string, boolean>;
  finalUnschedulable: ReadonlyMap<string, boolean>;
  unfinished: readonly string[];
}): InvariantReport {
  const violations: string[] = [];
  if (input.peakInProgress > input.maxParallelOperations) {
    violations.push(`${input.peakInProgress} requests were in progress at once (limit ${input.maxParallelOperations})`);
  }
  for (const [node, before] of [...input.initialUnschedulable].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const after = input.finalUnschedulable.get(node);
    if (after === undefined) violations.push(`node ${node} is gone`);
    else if (after !== before) violations.push(`node ${node} is ${after ? 'cordoned' : 'schedulable'}, was ${before ? 'cordoned' : 'schedulable'}`);
  }
  for (const key of input.unfinished) violations.push(`request ${key} did not finish`);
  return { held: violations.length === 0, violations };
}
