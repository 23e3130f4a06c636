// Carries out the plan's terminations: terminate through the provider its providerID names, then (only on success)
// delete the reap request, or leave a joined request (its additionalRequestors). Each outcome is a Node event; a
// failure keeps the request as it is, so the next pass tries again.
import { namespacedName } from '../api/index.ts';
import { errorMessage } from '../errors/index.ts';
import {
  ANNOTATION_REAPED,
  ANNOTATION_REAPER_JOINED,
  ANNOTATION_REAPER_JOINED_PROVIDER_ID,
  ANNOTATION_REAPER_PROVIDER_ID,
  EVENT_REASON_INSTANCE_TERMINATED,
  EVENT_REASON_TERMINATION_FAILED,
  rfc3339Seconds,
} from '#api';
import type { Action } from '#api';
import type { Termination } from './termination-plan.ts';
import { chooseProvider, type InstanceProviders } from './providers.ts';

export interface TerminationResult {
  /** Request deletions and Node events, for the pass's applier. */
  actions: Action[];
  terminated: number;
  /** One line per failed termination. */
  errors: string[];
}

function event(t: Termination, type: 'Normal' | 'Warning', eventReason: string, message: string): Action {
  return {
    kind: 'emitEvent',
    target: { kind: 'Node', namespace: '', name: t.node, ...(t.nodeUid ? { uid: t.nodeUid } : {}) },
    type,
    eventReason,
    message,
    reason: 'reaper termination',
  };
}

/**
 * The reaper leaves a joined request: its additionalRequestors without reaper.kmaint.io (the owner decides the rest),
 * then its join record on the Node goes, in the same unit: kept until the leave landed, so a pass whose leave failed
 * still knows the join is its own and leaves next time.
 */
function leave(t: Termination, done: string): Action[] {
  return [
    {
      kind: 'patchMaintenanceMeta',
      target: t.maintenance,
      additionalRequestors: t.joined?.additionalRequestors ?? [],
      annotations: { [ANNOTATION_REAPER_PROVIDER_ID]: null },
      reason: `reaped: ${done}; the reaper leaves the request`,
    },
    {
      kind: 'patchNodeAnnotations',
      node: { name: t.node, resourceVersion: t.nodeResourceVersion },
      annotations: { [ANNOTATION_REAPER_JOINED]: null, [ANNOTATION_REAPER_JOINED_PROVIDER_ID]: null },
      maintenance: t.maintenance,
      reason: 'the reaper left the request: drop its join record',
    },
  ];
}

/**
 * Terminates one at a time, in plan order (a handful per pass; the provider's API bounds the rate anyway). After a
 * termination the Node is annotated kmaint.io/reaped (so it is not reaped again while the Node object lingers), then
 * the request deleted — one unit: the annotation is a record (it goes again on a fresh read of the same Node after a
 * 409, whatever else changed there); if it still cannot be written, the request stays and the next pass retries.
 */
export async function executeTerminations(terminations: readonly Termination[], providers: InstanceProviders, now: Date, signal?: AbortSignal): Promise<TerminationResult> {
  const at = rfc3339Seconds(now);
  const result: TerminationResult = { actions: [], terminated: 0, errors: [] };
  for (const t of terminations) {
    signal?.throwIfAborted();
    const request = namespacedName(t.maintenance);
    if (t.joined && !t.joined.terminate) {
      result.actions.push(...leave(t, 'the node was reaped already'));
      continue;
    }
    let done: string;
    if (t.provider === 'none') {
      done = 'nothing terminated (provider none)';
    } else {
      const choice = chooseProvider(t.providerID, providers);
      if (!choice.ok) {
        result.errors.push(`${request}: ${choice.problem}`);
        result.actions.push(event(t, 'Warning', EVENT_REASON_TERMINATION_FAILED, `reap request ${request} is Ready but ${choice.problem}; it stays until this is fixed`));
        continue;
      }
      try {
        done = await choice.provider.terminate(t.providerID, signal);
      } catch (err) {
        const message = errorMessage(err);
        result.errors.push(`${request}: ${message}`);
        result.actions.push(event(t, 'Warning', EVENT_REASON_TERMINATION_FAILED, `reap request ${request}: ${message}; retried next pass`));
        continue;
      }
      result.terminated++;
    }
    result.actions.push(event(t, 'Normal', EVENT_REASON_INSTANCE_TERMINATED, t.joined ? `${done}; leaving ${request} (additionalRequestors)` : `${done}; deleting reap request ${request}`));
    if (t.nodeResourceVersion !== '') {
      result.actions.push({ kind: 'patchNodeAnnotations', node: { name: t.node, resourceVersion: t.nodeResourceVersion }, annotations: { [ANNOTATION_REAPED]: at }, maintenance: t.maintenance, record: true, reason: t.joined ? 'record the reap before leaving the request' : 'record the reap before deleting the request' });
    }
    result.actions.push(...(t.joined ? leave(t, done) : [{ kind: 'deleteMaintenance' as const, target: t.maintenance, reason: `reaped: ${done}` }]));
  }
  return result;
}
