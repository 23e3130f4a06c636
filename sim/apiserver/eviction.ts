// POST pods/{name}/eviction as pkg/registry/core/pod/storage/eviction.go decides it: terminal, pending and
// terminating pods go without a budget check; one matching PodDisruptionBudget is checked and decremented.
import { rfc3339Seconds } from '../../shared/api/index.ts';
import { labelSelectorFromObject, matchesLabels, type LabelSelector, type LabelSelectorObject } from '../../shared/selectors/index.ts';
import type { SimContext } from './context.ts';
import { parseDeleteOptions, deleteObject, type DeleteOptions } from './deletion.ts';
import { badRequest, conflict, forbidden, notFound, rawFailure, tooManyRequests, type ApiError } from './errors.ts';
import { arrayAt, isObject, numberAt, objectAt, stringAt, type Json, type JsonObject } from './json-value.ts';
import { metaOf } from './object-meta.ts';
import { frozenObject, type StoredObject } from './store.ts';

const MAX_DISRUPTED_PODS = 2000;
const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

function stillProcessing(pdbName: string): ApiError {
  return tooManyRequests(VIOLATION, 10, [{ reason: 'DisruptionBudget', message: `The disruption budget ${pdbName} is still being processed by the server.` }]);
}

function isPodReady(pod: JsonObject): boolean {
  return (arrayAt(objectAt(pod, 'status'), 'conditions') ?? []).some((c) => isObject(c) && c['type'] === 'Ready' && c['status'] === 'True');
}

/** api.Pod condition update: a changed status moves lastTransitionTime; an identical condition writes nothing. */
function setCondition(pod: JsonObject, condition: { type: string; status: string; reason: string; message: string }, now: number): boolean {
  const status = objectAt(pod, 'status') ?? {};
  pod['status'] = status;
  const conditions = (arrayAt(status, 'conditions') ?? []).filter(isObject);
  const existing = conditions.find((c) => c['type'] === condition.type);
  if (!existing) {
    conditions.push({ type: condition.type, status: condition.status, lastProbeTime: null, lastTransitionTime: rfc3339Seconds(now), reason: condition.reason, message: condition.message });
    status['conditions'] = conditions;
    return true;
  }
  if (existing['status'] === condition.status && existing['reason'] === condition.reason && existing['message'] === condition.message) return false;
  if (existing['status'] !== condition.status) existing['lastTransitionTime'] = rfc3339Seconds(now);
  Object.assign(existing, { status: condition.status, reason: condition.reason, message: condition.message });
  return true;
}

/** The DisruptionTarget condition, then the delete with the caller's options (and our rv precondition). */
function addConditionAndDelete(ctx: SimContext, namespace: string, name: string, options: DeleteOptions, read: { stored: StoredObject; pod: JsonObject }): void {
  const pods = ctx.kinds.lookup('', 'v1', 'pods');
  if (!pods) throw notFound({ group: '', resource: 'pods' }, name);
  const current = ctx.store.get(pods, namespace, name);
  if (!current) throw notFound({ group: '', resource: 'pods' }, name);
  const pre = options.preconditions;
  if (pre?.uid && pre.uid !== current.uid) {
    throw conflict({ group: '', resource: 'Pod' }, name, `the UID in the precondition (${pre.uid}) does not match the UID in record (${current.uid}). The object might have been deleted and then recreated`);
  }
  if (pre?.resourceVersion && pre.resourceVersion !== String(current.resourceVersion)) {
    throw conflict({ group: '', resource: 'Pod' }, name, `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${current.resourceVersion}). The object might have been modified`);
  }
  // The version the caller read and parsed (unless a write came between): changed here, never again there.
  const pod = current === read.stored ? read.pod : (JSON.parse(current.json) as JsonObject);
  if (!options.dryRun && setCondition(pod, { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }, ctx.clock.now())) {
    ctx.store.put(pods, pod);
  }
  const { preconditions: _p, ...rest } = options;
  deleteObject(ctx, pods, namespace, name, { ...rest, ...(pre?.uid ? { preconditions: { uid: pre.uid } } : {}) });
}

/** A budget version's parsed spec.selector; null: nil or invalid, which selects nothing. */
const selectorOfVersion = new WeakMap<StoredObject, LabelSelector | null>();
/** By budget key: the last selector parsed and its JSON text (a budget's status changes often, its selector seldom). */
const lastSelector = new Map<string, { text: string; selector: LabelSelector | null }>();

function budgetSelector(stored: StoredObject): LabelSelector | null {
  let selector = selectorOfVersion.get(stored);
  if (selector !== undefined) return selector;
  const raw = objectAt(objectAt(frozenObject(stored), 'spec'), 'selector');
  const text = raw ? JSON.stringify(raw) : '';
  const last = lastSelector.get(stored.key);
  if (last && last.text === text) selector = last.selector;
  else {
    const parsed = raw ? labelSelectorFromObject(raw as LabelSelectorObject) : undefined;
    selector = parsed?.ok ? parsed.selector : null;
    lastSelector.set(stored.key, { text, selector });
  }
  selectorOfVersion.set(stored, selector);
  return selector;
}

function matchingBudgets(ctx: SimContext, namespace: string, labels: Readonly<Record<string, string>>): JsonObject[] {
  const pdbKind = ctx.kinds.lookup('policy', 'v1', 'poddisruptionbudgets');
  if (!pdbKind) return [];
  const c = ctx.store.collection(pdbKind);
  const out: JsonObject[] = [];
  const keys = c.keysInOrder();
  for (let i = c.lowerBound(`${namespace}/`); i < keys.length && (keys[i] as string).startsWith(`${namespace}/`); i++) {
    const stored = c.objects.get(keys[i] as string);
    if (!stored) continue;
    // Every budget of the namespace is tested on each eviction: its selector is parsed once per version and text
    // (a what-if at 150,000 pods spent a tenth of its time re-parsing them), a private copy made only of the one
    // that matches.
    const selector = budgetSelector(stored);
    if (selector && matchesLabels(selector, labels)) out.push(JSON.parse(stored.json) as JsonObject);
  }
  return out;
}

/** checkAndDecrement: refuses with the real codes and causes, or spends one disruption and records the pod. */
function checkAndDecrement(ctx: SimContext, pdb: JsonObject, podName: string, dryRun: boolean): void {
  const meta = metaOf(pdb);
  const name = stringAt(meta, 'name') ?? '';
  const status = objectAt(pdb, 'status') ?? {};
  pdb['status'] = status;
  if ((numberAt(status, 'observedGeneration') ?? 0) < (numberAt(meta, 'generation') ?? 0)) throw stillProcessing(name);
  const allowed = numberAt(status, 'disruptionsAllowed') ?? 0;
  const gr = { group: 'policy', resource: 'poddisruptionbudget' };
  if (allowed < 0) throw forbidden(gr, name, 'pdb disruptions allowed is negative');
  const disrupted = objectAt(status, 'disruptedPods') ?? {};
  if (Object.keys(disrupted).length > MAX_DISRUPTED_PODS) throw forbidden(gr, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  if (allowed === 0) {
    const cond = (arrayAt(status, 'conditions') ?? []).filter(isObject).find((c) => c['type'] === 'DisruptionAllowed');
    const current = numberAt(status, 'currentHealthy') ?? 0;
    const desired = numberAt(status, 'desiredHealthy') ?? 0;
    const failedWith = cond && cond['status'] === 'False' && typeof cond['message'] === 'string' && cond['message'] !== '' ? cond : undefined;
    let message: string;
    if (failedWith && failedWith['reason'] === 'SyncFailed') message = `The disruption budget ${name} does not allow evicting pods currently because it failed sync: ${String(failedWith['message'])}`;
    else if (current <= desired) message = `The disruption budget ${name} needs ${desired} healthy pods and has ${current} currently`;
    else if (failedWith) message = `The disruption budget ${name} does not allow evicting pods currently (${String(failedWith['reason'])}): ${String(failedWith['message'])}`;
    else message = `The disruption budget ${name} does not allow evicting pods currently`;
    throw tooManyRequests(VIOLATION, 0, [{ reason: 'DisruptionBudget', message }]);
  }
  status['disruptionsAllowed'] = allowed - 1;
  const now = ctx.clock.now();
  if (allowed - 1 === 0) {
    const conditions = (arrayAt(status, 'conditions') ?? []).filter(isObject);
    const existing = conditions.find((c) => c['type'] === 'DisruptionAllowed');
    const wanted = { type: 'DisruptionAllowed', status: 'False', observedGeneration: numberAt(status, 'observedGeneration') ?? 0, reason: 'InsufficientPods', message: '' };
    if (existing) {
      if (existing['status'] !== 'False') existing['lastTransitionTime'] = rfc3339Seconds(now);
      Object.assign(existing, wanted);
    } else conditions.push({ ...wanted, lastTransitionTime: rfc3339Seconds(now) });
    status['conditions'] = conditions;
  }
  if (dryRun) return;
  disrupted[podName] = rfc3339Seconds(now);
  status['disruptedPods'] = disrupted;
  const pdbKind = ctx.kinds.lookup('policy', 'v1', 'poddisruptionbudgets');
  if (pdbKind) ctx.store.put(pdbKind, pdb);
}

/** Evicts a pod; returns normally on success (201 Success), throws the API server's refusal otherwise. */
export function evictPod(ctx: SimContext, namespace: string, name: string, body: Json | undefined): void {
  if (!isObject(body)) throw badRequest('not a Eviction object');
  if (stringAt(objectAt(body, 'metadata'), 'name') !== name) throw badRequest('name in URL does not match name in Eviction object');
  const deleteOptions = parseDeleteOptions(objectAt(body, 'deleteOptions'), new URLSearchParams());
  const pods = ctx.kinds.lookup('', 'v1', 'pods');
  const stored = pods && ctx.store.get(pods, namespace, name);
  if (!stored) throw notFound({ group: '', resource: 'pods' }, name);
  const pod = JSON.parse(stored.json) as JsonObject;
  const phase = stringAt(objectAt(pod, 'status'), 'phase');
  const terminating = stringAt(metaOf(pod), 'deletionTimestamp') !== undefined;
  const rvUnset = deleteOptions.preconditions?.resourceVersion === undefined;
  if (phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || terminating) {
    // canIgnorePDB; a pod that may still turn Ready is deleted only as we saw it.
    const enforce = !(phase === 'Succeeded' || phase === 'Failed' || terminating) && rvUnset;
    const options = enforce ? { ...deleteOptions, preconditions: { ...deleteOptions.preconditions, resourceVersion: String(stored.resourceVersion) } } : deleteOptions;
    addConditionAndDelete(ctx, namespace, name, options, { stored, pod });
    return;
  }
  const budgets = matchingBudgets(ctx, namespace, stored.labels);
  if (budgets.length > 1) throw rawFailure(500, 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  let options = deleteOptions;
  const pdb = budgets[0];
  if (pdb) {
    const spec = objectAt(pdb, 'spec') ?? {};
    const status = objectAt(pdb, 'status') ?? {};
    const healthyEnough = (numberAt(status, 'currentHealthy') ?? 0) >= (numberAt(status, 'desiredHealthy') ?? 0) && (numberAt(status, 'desiredHealthy') ?? 0) > 0;
    if (!isPodReady(pod) && (spec['unhealthyPodEvictionPolicy'] === 'AlwaysAllow' || healthyEnough)) {
      if (rvUnset) options = { ...deleteOptions, preconditions: { ...deleteOptions.preconditions, resourceVersion: String(stored.resourceVersion) } };
    } else {
      checkAndDecrement(ctx, pdb, name, deleteOptions.dryRun === true);
    }
  }
  addConditionAndDelete(ctx, namespace, name, options, { stored, pod });
}
