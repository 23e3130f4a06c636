// PodDisruptionBudget accounting for one pass: which budget covers a pod, and how many evictions it allows now.
// Mirrors the eviction API's rules so the drainer asks only for evictions the server would grant.
import type { V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { formatLabelSelector, labelSelectorFromObject, matchesLabels, type LabelSelector, type LabelSelectorObject, type LabelSelectorResult } from '../selectors/index.ts';
import { diagnoseBudget } from './budget-diagnosis.ts';

export interface BudgetDecision {
  kind: 'free' | 'spend' | 'blocked' | 'refused';
  /** namespace/name of the budget(s) involved. */
  budget?: string;
  message?: string;
}

interface IndexedBudget {
  key: string;
  pdb: V1PodDisruptionBudget;
  selector: LabelSelector | undefined;
  allowance: number;
  /** Why it holds, worked out at its first refusal in this pass (it may select thousands of pods). */
  diagnosis?: string;
}

/**
 * A budget's parsed selector, once per selector object: a drainer pass indexes every budget and a cluster has
 * hundreds, mostly the same objects from one pass to the next when the reads share them (the what-if's do).
 * Selector objects are read, never changed, so the result of a first parse stays right.
 */
const parsedSelectors = new WeakMap<object, LabelSelectorResult>();

function parseSelector(selector: object): LabelSelectorResult {
  let parsed = parsedSelectors.get(selector);
  if (!parsed) parsedSelectors.set(selector, (parsed = labelSelectorFromObject(selector as LabelSelectorObject)));
  return parsed;
}

/** Pending, finished or already terminating: the eviction API deletes such a pod without a budget check. */
function ignoresBudgets(pod: V1Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Pending' || phase === 'Succeeded' || phase === 'Failed' || (pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null);
}

function isPodReady(pod: V1Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

export function budgetKey(pdb: V1PodDisruptionBudget): string {
  return `${pdb.metadata?.namespace ?? ''}/${pdb.metadata?.name ?? ''}`;
}

/** "needs 2 healthy pods and has 2" — the numbers people need to see why a budget holds. */
export function budgetNumbers(pdb: V1PodDisruptionBudget): string {
  const s = pdb.status;
  return `allows ${s?.disruptionsAllowed ?? 0} disruptions: needs ${s?.desiredHealthy ?? 0} healthy, has ${s?.currentHealthy ?? 0} of ${s?.expectedPods ?? 0} expected`;
}

export class BudgetLedger {
  private readonly byNamespace = new Map<string, IndexedBudget[]>();

  /** `selectedPods`: by budget key, the pods a blocking budget selects (budgetsToExplain names the budgets to read). */
  constructor(
    pdbs: readonly V1PodDisruptionBudget[],
    private readonly selectedPods: ReadonlyMap<string, readonly V1Pod[]> = new Map(),
  ) {
    for (const pdb of pdbs) {
      const ns = pdb.metadata?.namespace ?? '';
      const parsed = pdb.spec?.selector ? parseSelector(pdb.spec.selector) : undefined;
      // A budget the disruption controller has not processed yet refuses every eviction (server: 429).
      const processed = (pdb.status?.observedGeneration ?? 0) >= (pdb.metadata?.generation ?? 0);
      const entry: IndexedBudget = {
        key: budgetKey(pdb),
        pdb,
        selector: parsed?.ok ? parsed.selector : undefined,
        allowance: processed ? Math.max(0, pdb.status?.disruptionsAllowed ?? 0) : 0,
      };
      const list = this.byNamespace.get(ns);
      if (list) list.push(entry);
      else this.byNamespace.set(ns, [entry]);
    }
  }

  private covering(pod: V1Pod): IndexedBudget[] {
    const labels = pod.metadata?.labels ?? {};
    // policy/v1: a missing or invalid selector matches no pods, an empty one ({}) every pod in the namespace.
    return (this.byNamespace.get(pod.metadata?.namespace ?? '') ?? []).filter((b) => b.selector !== undefined && matchesLabels(b.selector, labels));
  }

  /** Decides one eviction and, when it spends a disruption, records it for the rest of the pass. */
  decide(pod: V1Pod): BudgetDecision {
    // The server deletes pods that cause no new disruption without looking at any budget (canIgnorePDB).
    if (ignoresBudgets(pod)) return { kind: 'free' };
    const budgets = this.covering(pod);
    if (budgets.length === 0) return { kind: 'free' };
    const podKey = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    if (budgets.length > 1) {
      const names = budgets.map((b) => b.key).sort().join(', ');
      return { kind: 'refused', budget: names, message: `pod ${podKey} is covered by more than one PodDisruptionBudget (${names}); the eviction API refuses it` };
    }
    const b = budgets[0] as IndexedBudget;
    const s = b.pdb.status;
    // Unhealthy pods may go without spending the budget when the policy or the healthy count allows it.
    if (!isPodReady(pod)) {
      const always = b.pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow';
      const desired = s?.desiredHealthy ?? 0;
      if (always || ((s?.currentHealthy ?? 0) >= desired && desired > 0)) return { kind: 'free', budget: b.key };
    }
    if (b.allowance > 0) {
      b.allowance--;
      return { kind: 'spend', budget: b.key };
    }
    const processed = (s?.observedGeneration ?? 0) >= (b.pdb.metadata?.generation ?? 0);
    if (!processed) return { kind: 'blocked', budget: b.key, message: `pod ${podKey} waits for PodDisruptionBudget ${b.key} (not yet processed by the disruption controller)` };
    b.diagnosis ??= diagnoseBudget(b.pdb, this.selectedPods.get(b.key)).message;
    return { kind: 'blocked', budget: b.key, message: `pod ${podKey} waits for PodDisruptionBudget ${b.key} (${budgetNumbers(b.pdb)}): ${b.diagnosis}` };
  }
}

/** A budget whose pods the drainer reads to explain it: its namespace and its selector as a LIST labelSelector. */
export interface BudgetToExplain {
  key: string;
  namespace: string;
  labelSelector: string;
}

/**
 * Pure: the budgets that already allow no eviction and cover a running pod in `pods` (those on nodes being drained),
 * sorted by key: the only ones whose selected pods are worth a LIST, to say why they hold.
 */
export function budgetsToExplain(pdbs: readonly V1PodDisruptionBudget[], pods: readonly V1Pod[]): BudgetToExplain[] {
  const out: BudgetToExplain[] = [];
  for (const pdb of pdbs) {
    const processed = (pdb.status?.observedGeneration ?? 0) >= (pdb.metadata?.generation ?? 0);
    if (!processed || (pdb.status?.disruptionsAllowed ?? 0) > 0 || !pdb.spec?.selector) continue;
    const parsed = parseSelector(pdb.spec.selector);
    if (!parsed.ok) continue;
    const ns = pdb.metadata?.namespace ?? '';
    if (!pods.some((p) => p.metadata?.namespace === ns && !ignoresBudgets(p) && matchesLabels(parsed.selector, p.metadata?.labels ?? {}))) continue;
    out.push({ key: budgetKey(pdb), namespace: ns, labelSelector: formatLabelSelector(parsed.selector) });
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
