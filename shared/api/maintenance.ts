// The NodeMaintenance model every domain reads: its key, its Ready condition and phase, the phase predicates, and
// writing the Ready condition the way upstream does (apimachinery meta.SetStatusCondition, on a copy) with metav1.Time's
// RFC 3339 seconds. Pure; shared by the scheduler, the drainer, cleanup, the reaper, the handshake, metrics and the CLI.
import { CONDITION_READY, CONDITION_WAITING, Phase, PHASE_UNINITIALIZED, waitingOnOf, type WaitingOn } from './constants.ts';
import type { Condition, NodeMaintenance, NodeMaintenanceStatus } from './types.ts';
import { rfc3339Seconds } from './wire-time.ts';

/**
 * `namespace/name` of any namespaced object or reference (a MaintenanceRef, a pod record, a PDB): the key of maps and
 * sets and the name in messages. The one place the key is written (the lint rule of tools/lint/written-once.json
 * refuses a new `${x.namespace}/${x.name}`).
 */
export function namespacedName(ref: { readonly namespace?: string | undefined; readonly name: string }): string {
  return `${ref.namespace ?? ''}/${ref.name}`;
}

/** `namespace/name`, the key used in plans, messages and the final tie-break. */
export function maintenanceKey(nm: NodeMaintenance): string {
  return namespacedName(nm.metadata);
}

/**
 * The value of validation.kmaint.io/for for a release of `nm` (issue 44): `namespace/name/uid`, so a request recreated
 * under the same name is another release. Cleanup writes it (validate-release.ts); the reaper tells by it whether the
 * request a running validation belongs to still exists (reaper/validation-wait.ts).
 */
export function validationAttemptId(nm: NodeMaintenance): string {
  return `${maintenanceKey(nm)}/${nm.metadata.uid ?? ''}`;
}

export function readyCondition(nm: NodeMaintenance): Condition | undefined {
  return nm.status?.conditions?.find((c) => c.type === CONDITION_READY);
}

/** The phase is the reason of the Ready condition; '' when there is none yet. */
export function maintenancePhase(nm: NodeMaintenance): string {
  return readyCondition(nm)?.reason ?? PHASE_UNINITIALIZED;
}

/**
 * Being deleted: the API server keeps an object with a deletionTimestamp only while a finalizer holds it,
 * so such an object still occupies its node until cleanup lets it go.
 */
export function isBeingDeleted(nm: NodeMaintenance): boolean {
  return nm.metadata.deletionTimestamp !== undefined;
}

/** In progress (under maintenance): past Pending, or being deleted. */
export function isInProgress(nm: NodeMaintenance): boolean {
  const phase = maintenancePhase(nm);
  return (phase !== PHASE_UNINITIALIZED && phase !== Phase.Pending) || isBeingDeleted(nm);
}

/** Unscheduled: '' or Pending and not being deleted, i.e. the scheduler may still admit it. */
export function isUnscheduled(nm: NodeMaintenance): boolean {
  return !isInProgress(nm);
}

export interface ReadyConditionValue {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/** What a request waits on (its kmaint.io/Waiting reason), or undefined when it has no such condition. */
export function waitingOn(nm: NodeMaintenance): WaitingOn | undefined {
  const waiting = nm.status?.conditions?.find((c) => c.type === CONDITION_WAITING);
  return waiting?.status === 'True' ? waitingOnOf(waiting.reason) : undefined;
}

/**
 * The object's full status with the Ready condition set to `value`, and kmaint.io/Waiting set to `on` (or removed when
 * `on` is undefined: every Ready write that is no such wait ends it), or undefined when nothing would change.
 * lastTransitionTime moves only when the status flips (for kmaint.io/Waiting, when it appears or its gate changes);
 * observedGeneration is metadata.generation. The input is never mutated.
 */
export function withReadyCondition(nm: NodeMaintenance, value: ReadyConditionValue, now: Date, on?: WaitingOn): NodeMaintenanceStatus | undefined {
  const existing = readyCondition(nm);
  const generation = nm.metadata.generation;
  const waiting = nm.status?.conditions?.find((c) => c.type === CONDITION_WAITING);
  const waitingSame = on === undefined ? waiting === undefined : waiting?.status === 'True' && waiting.reason === on && waiting.observedGeneration === generation;
  if (
    existing !== undefined &&
    existing.status === value.status &&
    existing.reason === value.reason &&
    existing.message === value.message &&
    existing.observedGeneration === generation &&
    waitingSame
  ) {
    return undefined;
  }

  const next: Condition = {
    type: CONDITION_READY,
    status: value.status,
    reason: value.reason,
    message: value.message,
    lastTransitionTime: existing !== undefined && existing.status === value.status ? existing.lastTransitionTime : rfc3339Seconds(now),
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
  const status = structuredClone(nm.status ?? {});
  const conditions = (status.conditions ?? []).filter((c) => c.type !== CONDITION_WAITING);
  const at = conditions.findIndex((c) => c.type === CONDITION_READY);
  if (at === -1) conditions.push(next);
  else conditions[at] = next;
  if (on !== undefined) {
    const since = waiting?.status === 'True' && waiting.reason === on ? waiting.lastTransitionTime : rfc3339Seconds(now);
    // Ready's message says why in words; this condition only names the gate.
    conditions.push({ type: CONDITION_WAITING, status: 'True', reason: on, message: '', lastTransitionTime: since, ...(generation !== undefined ? { observedGeneration: generation } : {}) });
  }
  return { ...status, conditions };
}
