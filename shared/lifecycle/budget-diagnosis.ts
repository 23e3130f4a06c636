// Why a PodDisruptionBudget refuses an eviction, from its spec, its status and the pods it selects: the one-line
// explanation kmaint puts after a blocked pod in the Ready condition message and the EvictionBlocked event.
import { shortList } from '../text/index.ts';
import type { V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { SLINKY_CLUSTER_LABEL, SLINKY_POD_PROTECT_LABEL } from '../api/index.ts';

export type BudgetClass = 'slinkyWorkloadProtection' | 'maxUnavailableZero' | 'severalControllers' | 'singleReplica' | 'minAvailableTooHigh' | 'unhealthyPods' | 'atLimit';

export interface BudgetDiagnosis {
  kind: BudgetClass;
  /** Human text, without the numbers (budgetNumbers gives those). */
  message: string;
}

interface BudgetFacts {
  pdb: V1PodDisruptionBudget;
  /** The pods the budget selects, when they were read; undefined otherwise. */
  selected: readonly V1Pod[] | undefined;
  expected: number;
  desired: number;
  healthy: number;
}

function podName(p: V1Pod): string {
  return `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;
}

function isReady(p: V1Pod): boolean {
  return p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** Distinct controllers of the selected pods, as "Kind namespace/name", sorted. */
function controllersOf(pods: readonly V1Pod[]): string[] {
  const names = new Set<string>();
  for (const p of pods) {
    const owner = p.metadata?.ownerReferences?.find((o) => o.controller === true);
    if (owner) names.add(`${owner.kind} ${p.metadata?.namespace ?? ''}/${owner.name}`);
  }
  return [...names].sort();
}

function isZero(value: number | string | undefined): boolean {
  return value === 0 || value === '0' || value === '0%';
}

/**
 * The classes in the order they are tried; the first that applies explains the refusal. A budget another system keeps
 * closed on purpose comes first (Slinky's), then settings that can never
 * allow an eviction come first (nothing else matters while they stand), then a selector that mixes workloads (its
 * numbers mean nothing), then the shape of the workload, then its health; "at its limit" is what is left.
 */
const CLASSES: ReadonlyArray<(f: BudgetFacts) => BudgetDiagnosis | undefined> = [
  // Slinky's workload protection: maxUnavailable 0 over busy slurmd pods by design, not a misconfiguration; it frees
  // a pod once its Slurm node is idle (Drained) and Slinky takes the pod-protect label off.
  (f) => {
    if (f.pdb.spec?.selector?.matchLabels?.[SLINKY_POD_PROTECT_LABEL] !== 'true') return undefined;
    const cluster = f.pdb.spec.selector.matchLabels[SLINKY_CLUSTER_LABEL];
    return {
      kind: 'slinkyWorkloadProtection',
      message: `Slinky's workload protection${cluster ? ` of Slurm cluster ${cluster}` : ''}: it holds each slurmd pod labelled ${SLINKY_POD_PROTECT_LABEL}=true while its Slurm node runs jobs, and frees it when the Slurm node is Drained and Slinky removes the label`,
    };
  },
  // maxUnavailable 0 (or 0%) allows no disruption whatever the pods do.
  (f) => {
    const value = f.pdb.spec?.maxUnavailable;
    if (value === undefined || !isZero(value)) return undefined;
    return { kind: 'maxUnavailableZero', message: `misconfigured: maxUnavailable is ${String(value)}, so it never allows an eviction` };
  },
  // One budget over the pods of several controllers: its counts add up unrelated workloads.
  (f) => {
    const controllers = f.selected ? controllersOf(f.selected) : [];
    if (controllers.length < 2) return undefined;
    return { kind: 'severalControllers', message: `it covers the pods of ${controllers.length} controllers (${shortList(controllers, 3)}); a budget should select one workload` };
  },
  // A healthy single replica: its only pod cannot go without breaking the budget, however the budget is written.
  (f) => (f.expected === 1 && f.healthy >= 1 ? { kind: 'singleReplica', message: 'a single replica: its only pod cannot leave without breaking the budget' } : undefined),
  // minAvailable at or above the expected pods: even with every pod healthy nothing may go.
  (f) => {
    const value = f.pdb.spec?.minAvailable;
    if (value === undefined || f.expected === 0 || f.desired < f.expected) return undefined;
    return { kind: 'minAvailableTooHigh', message: `misconfigured: minAvailable ${String(value)} is not below the ${f.expected} expected pods, so it never allows an eviction` };
  },
  // Pods that are not Ready use up the budget: once they are healthy again the eviction can go.
  (f) => {
    if (f.healthy >= f.expected) return undefined;
    const unready = (f.selected ?? []).filter((p) => !isReady(p) && !p.metadata?.deletionTimestamp).map(podName).sort();
    // Read pods and none unready: the missing ones are leaving (evictions in flight), not sick.
    if (f.selected !== undefined && unready.length === 0) return undefined;
    const missing = f.expected - f.healthy;
    const which = unready.length > 0 ? ` (not Ready: ${shortList(unready, 3)})` : '';
    return { kind: 'unhealthyPods', message: `held by unhealthy pods: ${missing} of the ${f.expected} expected pods ${missing === 1 ? 'is' : 'are'} not healthy${which}` };
  },
  () => ({ kind: 'atLimit', message: 'at its limit: other disruptions are in progress' }),
];

/** Pure: the class of a budget whose status allows no eviction now. `selected`: the pods it selects, if read. */
export function diagnoseBudget(pdb: V1PodDisruptionBudget, selected?: readonly V1Pod[]): BudgetDiagnosis {
  const s = pdb.status;
  const facts: BudgetFacts = { pdb, selected, expected: s?.expectedPods ?? 0, desired: s?.desiredHealthy ?? 0, healthy: s?.currentHealthy ?? 0 };
  for (const rule of CLASSES) {
    const found = rule(facts);
    if (found) return found;
  }
  return { kind: 'atLimit', message: 'at its limit: other disruptions are in progress' };
}
