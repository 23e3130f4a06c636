// The pods a PodDisruptionBudget selects, as the what-if's disruption controller keeps them between store events:
// in selection order, with a running count of the healthy ones. A budget's status then costs the pods its
// disruptedPods lists, not all the pods it selects (hundreds of budgets of 200 pods, recounted every round, were a
// seventh of a 5,000-node what-if).
import type { V1PodDisruptionBudget, V1PodDisruptionBudgetStatus } from '@kubernetes/client-node';
import { composePdbStatus, DELETION_TIMEOUT_MS, type PdbCounts } from '../controllers/disruption.ts';
import { timeMs } from '../controllers/pod-facts.ts';

/** What countHealthy and keptDisruptedPods read of a pod. */
export interface MemberFacts {
  /** podutil.IsPodReady */
  readonly ready: boolean;
  /** metadata.deletionTimestamp set */
  readonly terminating: boolean;
}

interface Member<T> {
  value: T;
  facts: MemberFacts;
  /** Insertion order: the order nextPdbStatus would see the pods in (a Map's). */
  seq: number;
}

/** Selected pods by namespace/name, in the order they joined, with how many are Ready and not being deleted. */
export class BudgetMembers<T> {
  private readonly byKey = new Map<string, Member<T>>();
  private nextSeq = 0;
  private alive = 0;

  get size(): number {
    return this.byKey.size;
  }

  /** Ready and not being deleted. */
  get healthyCandidates(): number {
    return this.alive;
  }

  /** Adds the pod, or replaces its version in place (it keeps its position, as Map.set does). */
  set(key: string, value: T, facts: MemberFacts): void {
    const m = this.byKey.get(key);
    if (m) {
      this.alive -= counts(m.facts);
      m.value = value;
      m.facts = facts;
    } else this.byKey.set(key, { value, facts, seq: this.nextSeq++ });
    this.alive += counts(facts);
  }

  delete(key: string): void {
    const m = this.byKey.get(key);
    if (!m) return;
    this.alive -= counts(m.facts);
    this.byKey.delete(key);
  }

  /** The pods in selection order. */
  *values(): IterableIterator<T> {
    for (const m of this.byKey.values()) yield m.value;
  }

  member(key: string): { facts: MemberFacts; seq: number } | undefined {
    return this.byKey.get(key);
  }
}

function counts(f: MemberFacts): number {
  return f.ready && !f.terminating ? 1 : 0;
}

/**
 * getExpectedPodCount when it needs no controller scale: an integer minAvailable (expected = the selected pods), or
 * neither minAvailable nor maxUnavailable (0, 0). undefined when the scale is needed (percentages, maxUnavailable).
 */
export function countsWithoutScale(pdb: V1PodDisruptionBudget, selected: number): PdbCounts | undefined {
  const { maxUnavailable, minAvailable } = pdb.spec ?? {};
  if (maxUnavailable !== undefined && maxUnavailable !== null) return undefined;
  if (minAvailable === undefined || minAvailable === null) return { expectedPods: 0, desiredHealthy: 0 };
  return typeof minAvailable === 'number' ? { expectedPods: selected, desiredHealthy: minAvailable } : undefined;
}

/**
 * nextPdbStatus (sim/controllers) for a budget whose selected pods are `members` (keyed namespace/name, the budget's
 * namespace) and whose counts need no scale (countsWithoutScale); undefined when it would write nothing.
 * `'needs-scale'` when the counts need the controllers' scale: call nextPdbStatus instead.
 */
export function memberPdbStatus(pdb: V1PodDisruptionBudget, members: BudgetMembers<unknown>, now: Date): V1PodDisruptionBudgetStatus | undefined | 'needs-scale' {
  const counted = countsWithoutScale(pdb, members.size);
  if (!counted) return 'needs-scale';
  const ns = pdb.metadata?.namespace ?? '';
  const listed = pdb.status?.disruptedPods ?? {};
  const nowMs = now.getTime();
  // keptDisruptedPods: listed pods still selected, not being deleted, within the timeout — in selection order.
  const kept: Array<{ name: string; at: number; seq: number; ready: boolean }> = [];
  for (const name of Object.keys(listed)) {
    const m = members.member(`${ns}/${name}`);
    if (!m || m.facts.terminating) continue;
    const at = timeMs(listed[name]);
    if (at + DELETION_TIMEOUT_MS >= nowMs) kept.push({ name, at, seq: m.seq, ready: m.facts.ready });
  }
  kept.sort((a, b) => a.seq - b.seq);
  const disruptedPods: Record<string, Date> = {};
  // countHealthy: Ready and not being deleted, less those listed as about to go.
  let currentHealthy = members.healthyCandidates;
  for (const k of kept) {
    disruptedPods[k.name] = new Date(k.at);
    if (k.ready && k.at + DELETION_TIMEOUT_MS > nowMs) currentHealthy--;
  }
  return composePdbStatus(pdb, { ...counted, currentHealthy, disruptedPods }, now);
}
