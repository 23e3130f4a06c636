// Writing the Ready condition the way upstream does (apimachinery meta.SetStatusCondition), on a copy.
import { CONDITION_READY } from '#api';
import type { Condition, NodeMaintenance, NodeMaintenanceStatus } from '#api';
import { readyCondition } from './state.ts';

/** RFC 3339 with whole seconds, as metav1.Time serialises: 2026-01-01T00:00:00Z. */
export function rfc3339Seconds(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface ReadyConditionValue {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/**
 * The object's full status with the Ready condition set to `value`, or undefined when nothing would change.
 * lastTransitionTime moves only when the status flips; observedGeneration is metadata.generation.
 * The input is never mutated.
 */
export function withReadyCondition(nm: NodeMaintenance, value: ReadyConditionValue, now: Date): NodeMaintenanceStatus | undefined {
  const existing = readyCondition(nm);
  const generation = nm.metadata.generation;
  if (
    existing !== undefined &&
    existing.status === value.status &&
    existing.reason === value.reason &&
    existing.message === value.message &&
    existing.observedGeneration === generation
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
  const conditions = status.conditions ?? [];
  const at = conditions.findIndex((c) => c.type === CONDITION_READY);
  if (at === -1) conditions.push(next);
  else conditions[at] = next;
  return { ...status, conditions };
}
