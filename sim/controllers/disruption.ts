// The disruption controller's decisions: each PodDisruptionBudget's status as kube-controller-manager computes it
// (pkg/controller/disruption), so the API server's eviction checks answer as on a real cluster.
import type { V1Condition, V1Deployment, V1Pod, V1PodDisruptionBudget, V1PodDisruptionBudgetStatus, V1ReplicaSet, V1StatefulSet } from '@kubernetes/client-node';
import { labelSelectorFromObject, matchesLabels } from '../../shared/selectors/index.ts';
import type { ControllerAction } from './actions.ts';
import { controllerOf, isReady, isTerminating, timeMs } from './pod-facts.ts';

/** A pod listed in disruptedPods longer than this without being deleted counts again (DeletionTimeout). */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;
export const CONDITION_DISRUPTION_ALLOWED = 'DisruptionAllowed';

interface Scaled {
  uid: string;
  replicas: number;
}

/** The workloads whose scale the controller reads, indexed by uid. */
export interface ScaleIndex {
  replicaSets: ReadonlyMap<string, V1ReplicaSet>;
  deployments: ReadonlyMap<string, V1Deployment>;
  statefulSets: ReadonlyMap<string, V1StatefulSet>;
}

export function buildScaleIndex(lists: { replicaSets: readonly V1ReplicaSet[]; deployments: readonly V1Deployment[]; statefulSets: readonly V1StatefulSet[] }): ScaleIndex {
  const byUid = <T extends { metadata?: { uid?: string } }>(items: readonly T[]): Map<string, T> => new Map(items.map((o) => [o.metadata?.uid ?? '', o]));
  return { replicaSets: byUid(lists.replicaSets), deployments: byUid(lists.deployments), statefulSets: byUid(lists.statefulSets) };
}

/** Kinds a real cluster has but which implement no scale subresource: their pods make percentage budgets fail. */
const NO_SCALE: Readonly<Record<string, string>> = { DaemonSet: 'daemonsets.apps', Job: 'jobs.batch', CronJob: 'cronjobs.batch' };

/** The finders in their order: a ReplicaSet's Deployment, else the ReplicaSet, else a StatefulSet. */
function findScale(ref: { kind: string; uid: string }, index: ScaleIndex): Scaled | { error: string } | undefined {
  if (ref.kind === 'ReplicaSet') {
    const rs = index.replicaSets.get(ref.uid);
    if (!rs) return undefined;
    const owner = controllerOf(rs);
    const d = owner?.kind === 'Deployment' ? index.deployments.get(owner.uid) : undefined;
    if (d) return { uid: d.metadata?.uid ?? '', replicas: d.spec?.replicas ?? 1 };
    return { uid: ref.uid, replicas: rs.spec?.replicas ?? 1 };
  }
  if (ref.kind === 'StatefulSet') {
    const ss = index.statefulSets.get(ref.uid);
    return ss ? { uid: ref.uid, replicas: ss.spec?.replicas ?? 1 } : undefined;
  }
  const resource = NO_SCALE[ref.kind];
  return resource ? { error: `${resource} does not implement the scale subresource` } : undefined;
}

/** getExpectedScale: the sum of the scales of the pods' controllers; pods without a controller are ignored (unmanaged). */
export function expectedScale(pods: readonly V1Pod[], index: ScaleIndex): { ok: true; count: number } | { ok: false; error: string } {
  const scales = new Map<string, number>();
  const seen = new Set<string>();
  for (const pod of pods) {
    const ref = controllerOf(pod);
    if (!ref || seen.has(ref.uid)) continue;
    seen.add(ref.uid);
    const found = findScale(ref, index);
    if (found === undefined) return { ok: false, error: `found no controllers for pod "${pod.metadata?.name ?? ''}"` };
    if ('error' in found) return { ok: false, error: found.error };
    scales.set(found.uid, found.replicas);
  }
  return { ok: true, count: [...scales.values()].reduce((a, b) => a + b, 0) };
}

/**
 * intstr.GetScaledValueFromIntOrPercent with roundUp (both minAvailable and maxUnavailable percentages round
 * up); a string that is not "<int>%" is an error, as in Go.
 */
export function scaledValue(value: number | string, total: number): { ok: true; value: number } | { ok: false; error: string } {
  if (typeof value === 'number') return { ok: true, value };
  if (!value.endsWith('%')) return { ok: false, error: 'invalid value for IntOrString: invalid type: string is not a percentage' };
  const digits = value.slice(0, -1);
  if (!/^[+-]?\d+$/.test(digits)) return { ok: false, error: `invalid value for IntOrString: invalid value "${value}": strconv.Atoi: parsing "${digits}": invalid syntax` };
  return { ok: true, value: Math.ceil((Number(digits) * total) / 100) };
}

export interface PdbCounts {
  expectedPods: number;
  desiredHealthy: number;
}

/** getExpectedPodCount: integer minAvailable counts the selected pods; percentages and maxUnavailable use the scale. */
export function expectedPodCount(pdb: V1PodDisruptionBudget, pods: readonly V1Pod[], index: ScaleIndex): { ok: true; counts: PdbCounts } | { ok: false; error: string } {
  const { maxUnavailable, minAvailable } = pdb.spec ?? {};
  if (maxUnavailable !== undefined && maxUnavailable !== null) {
    const scale = expectedScale(pods, index);
    if (!scale.ok) return scale;
    const max = scaledValue(maxUnavailable, scale.count);
    if (!max.ok) return max;
    return { ok: true, counts: { expectedPods: scale.count, desiredHealthy: Math.max(0, scale.count - max.value) } };
  }
  if (minAvailable !== undefined && minAvailable !== null) {
    if (typeof minAvailable === 'number') return { ok: true, counts: { expectedPods: pods.length, desiredHealthy: minAvailable } };
    const scale = expectedScale(pods, index);
    if (!scale.ok) return scale;
    const min = scaledValue(minAvailable, scale.count);
    if (!min.ok) return min;
    return { ok: true, counts: { expectedPods: scale.count, desiredHealthy: min.value } };
  }
  return { ok: true, counts: { expectedPods: 0, desiredHealthy: 0 } };
}

/** The pods the budget covers: its namespace, its selector (a missing selector selects nothing, an empty one all). */
export function selectedPods(pdb: V1PodDisruptionBudget, pods: readonly V1Pod[]): { ok: true; pods: V1Pod[] } | { ok: false; error: string } {
  const ns = pdb.metadata?.namespace ?? '';
  const sel = pdb.spec?.selector;
  if (sel === undefined || sel === null) return { ok: true, pods: [] };
  const parsed = labelSelectorFromObject(sel);
  if (!parsed.ok) return parsed;
  return { ok: true, pods: pods.filter((p) => (p.metadata?.namespace ?? '') === ns && matchesLabels(parsed.selector, p.metadata?.labels)) };
}

/** buildDisruptedPodMap: entries kept for pods that still exist, are not being deleted, and are within the timeout. */
export function keptDisruptedPods(pdb: V1PodDisruptionBudget, pods: readonly V1Pod[], now: Date): Record<string, Date> {
  const listed = pdb.status?.disruptedPods ?? {};
  const kept: Record<string, Date> = {};
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    if (isTerminating(pod) || !Object.hasOwn(listed, name)) continue;
    const at = timeMs(listed[name]);
    if (at + DELETION_TIMEOUT_MS >= now.getTime()) kept[name] = new Date(at);
  }
  return kept;
}

/** countHealthyPods: Ready, not being deleted, not listed as about to be deleted. */
export function countHealthy(pods: readonly V1Pod[], disrupted: Readonly<Record<string, Date>>, now: Date): number {
  return pods.filter((p) => {
    if (isTerminating(p)) return false;
    const at = disrupted[p.metadata?.name ?? ''];
    if (at !== undefined && at.getTime() + DELETION_TIMEOUT_MS > now.getTime()) return false;
    return isReady(p);
  }).length;
}

/** apimeta.SetStatusCondition: lastTransitionTime moves only when the status does. */
function setCondition(conditions: readonly V1Condition[] | undefined, next: Omit<V1Condition, 'lastTransitionTime'>, now: Date): V1Condition[] {
  const out = [...(conditions ?? [])];
  const i = out.findIndex((c) => c.type === next.type);
  const prev = i >= 0 ? out[i] : undefined;
  const merged: V1Condition = { ...next, lastTransitionTime: prev && prev.status === next.status ? prev.lastTransitionTime : now };
  if (i >= 0) out[i] = merged;
  else out.push(merged);
  return out;
}

function sameDisrupted(a: Readonly<Record<string, Date | string>> | undefined, b: Readonly<Record<string, Date>>): boolean {
  const ka = Object.keys(a ?? {}).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && timeMs(a?.[k]) === timeMs(b[k]));
}

/**
 * The status the controller would write, or undefined when it would write nothing: on success only when a
 * count, observedGeneration or disruptedPods changed (updatePdbStatus); on failure disruptionsAllowed 0 and
 * DisruptionAllowed=False/SyncFailed (failSafe), written when that changes.
 */
export function nextPdbStatus(pdb: V1PodDisruptionBudget, allPods: readonly V1Pod[], index: ScaleIndex, now: Date): V1PodDisruptionBudgetStatus | undefined {
  const cur = pdb.status;
  const selected = selectedPods(pdb, allPods);
  const counted = selected.ok ? expectedPodCount(pdb, selected.pods, index) : selected;
  if (!counted.ok || !selected.ok) {
    const conditions = setCondition(cur?.conditions, { type: CONDITION_DISRUPTION_ALLOWED, status: 'False', reason: 'SyncFailed', message: counted.ok ? '' : counted.error, observedGeneration: cur?.observedGeneration ?? 0 }, now);
    const prev = cur?.conditions?.find((c) => c.type === CONDITION_DISRUPTION_ALLOWED);
    if ((cur?.disruptionsAllowed ?? 0) === 0 && prev?.reason === 'SyncFailed' && prev.message === (counted.ok ? '' : counted.error)) return undefined;
    return {
      currentHealthy: cur?.currentHealthy ?? 0,
      desiredHealthy: cur?.desiredHealthy ?? 0,
      expectedPods: cur?.expectedPods ?? 0,
      disruptionsAllowed: 0,
      observedGeneration: cur?.observedGeneration ?? 0,
      ...(cur?.disruptedPods ? { disruptedPods: cur.disruptedPods } : {}),
      conditions,
    };
  }
  const pods = selected.pods;
  const disruptedPods = keptDisruptedPods(pdb, pods, now);
  return composePdbStatus(pdb, { ...counted.counts, currentHealthy: countHealthy(pods, disruptedPods, now), disruptedPods }, now);
}

/** What nextPdbStatus works out from the selected pods before it decides what to write. */
export interface PdbFigures extends PdbCounts {
  currentHealthy: number;
  /** keptDisruptedPods, in the order of the selected pods. */
  disruptedPods: Record<string, Date>;
}

/**
 * nextPdbStatus's last step, from the figures of a budget whose pods were counted without error: the status to
 * write, or undefined when nothing changed. Exported for callers that keep the figures up to date themselves.
 */
export function composePdbStatus(pdb: V1PodDisruptionBudget, figures: PdbFigures, now: Date): V1PodDisruptionBudgetStatus | undefined {
  const cur = pdb.status;
  const generation = pdb.metadata?.generation ?? 0;
  const { expectedPods, desiredHealthy, currentHealthy, disruptedPods } = figures;
  const allowed = expectedPods <= 0 ? 0 : Math.max(0, currentHealthy - desiredHealthy);
  const unchanged =
    (cur?.currentHealthy ?? 0) === currentHealthy &&
    (cur?.desiredHealthy ?? 0) === desiredHealthy &&
    (cur?.expectedPods ?? 0) === expectedPods &&
    (cur?.disruptionsAllowed ?? 0) === allowed &&
    (cur?.observedGeneration ?? 0) === generation &&
    sameDisrupted(cur?.disruptedPods, disruptedPods);
  if (unchanged) return undefined;
  const conditions = setCondition(
    cur?.conditions,
    allowed > 0
      ? { type: CONDITION_DISRUPTION_ALLOWED, status: 'True', reason: 'SufficientPods', message: '', observedGeneration: generation }
      : { type: CONDITION_DISRUPTION_ALLOWED, status: 'False', reason: 'InsufficientPods', message: '', observedGeneration: generation },
    now,
  );
  return {
    observedGeneration: generation,
    ...(Object.keys(disruptedPods).length > 0 ? { disruptedPods } : {}),
    disruptionsAllowed: allowed,
    currentHealthy,
    desiredHealthy,
    expectedPods,
    conditions,
  };
}

export function planPdb(pdb: V1PodDisruptionBudget, pods: readonly V1Pod[], index: ScaleIndex, now: Date): ControllerAction[] {
  const status = nextPdbStatus(pdb, pods, index, now);
  if (!status) return [];
  return [
    {
      kind: 'updatePdbStatus',
      pdb: { ...pdb, status },
      reason: `healthy ${status.currentHealthy}/${status.expectedPods}, desired ${status.desiredHealthy}, allowed ${status.disruptionsAllowed}`,
    },
  ];
}
