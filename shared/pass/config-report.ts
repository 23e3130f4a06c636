// Reports configuration problems where operators look: a `Valid` condition and a Warning event on the config.
import type { Action } from '../api/actions.ts';
import { CONFIG_CONDITION_VALID, EVENT_REASON_INVALID_CONFIG } from '../api/constants.ts';
import type { Condition, MaintenanceOperatorConfig } from '../api/types.ts';

function rfc3339(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Actions that bring the config's Valid condition in line with `problems` (none when it already is). */
export function planConfigReport(config: MaintenanceOperatorConfig | undefined, problems: readonly string[], now: Date): Action[] {
  if (!config) return [];
  const existing = config.status?.conditions?.find((c) => c.type === CONFIG_CONDITION_VALID);
  const status = problems.length > 0 ? 'False' : 'True';
  const message = problems.length > 0 ? `${problems.join('; ')}; no new maintenance is admitted until this is fixed` : 'configuration is valid';
  const reason = problems.length > 0 ? 'InvalidValue' : 'Valid';
  if (existing && existing.status === status && existing.message === message) return [];
  if (!existing && problems.length === 0) return [];
  const condition: Condition = {
    type: CONFIG_CONDITION_VALID,
    status,
    reason,
    message,
    lastTransitionTime: existing && existing.status === status ? existing.lastTransitionTime : rfc3339(now),
    ...(config.metadata.generation !== undefined ? { observedGeneration: config.metadata.generation } : {}),
  };
  const others = (config.status?.conditions ?? []).filter((c) => c.type !== CONFIG_CONDITION_VALID);
  const target = { namespace: config.metadata.namespace ?? '', name: config.metadata.name, resourceVersion: config.metadata.resourceVersion ?? '' };
  const actions: Action[] = [{ kind: 'writeConfigStatus', target, conditions: [...others, condition], reason: message }];
  if (problems.length > 0) {
    actions.push({
      kind: 'emitEvent',
      target: { kind: 'MaintenanceOperatorConfig', namespace: target.namespace, name: target.name, ...(config.metadata.uid ? { uid: config.metadata.uid } : {}) },
      type: 'Warning',
      eventReason: EVENT_REASON_INVALID_CONFIG,
      message,
      reason: 'invalid configuration',
    });
  }
  return actions;
}
