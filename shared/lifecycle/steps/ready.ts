// Steps Ready and RequestorFailed: the node is the requestor's; record when it became so and follow its verdict.
import { ANNOTATION_READY_TIME, CONDITION_REQUESTOR_FAILED, Phase, maintenancePhase, rfc3339Seconds } from '../../api/index.ts';
import type { NodeMaintenance } from '../../api/index.ts';
import { shownMessage, type StepContext, type StepResult } from './step.ts';

function requestorFailed(nm: NodeMaintenance): boolean {
  return nm.status?.conditions?.some((c) => c.type === CONDITION_REQUESTOR_FAILED && c.status === 'True') ?? false;
}

/** Ready <-> RequestorFailed as the requestor's condition says; otherwise hold, with nothing left in flight. */
export function recordReady({ nm, phase, now }: StepContext): StepResult {
  const annotations: Record<string, string> = nm.metadata.annotations?.[ANNOTATION_READY_TIME] === undefined ? { [ANNOTATION_READY_TIME]: rfc3339Seconds(now) } : {};
  const target = requestorFailed(nm) ? Phase.RequestorFailed : Phase.Ready;
  if (target !== phase) return { kind: 'advance', to: target, annotations };
  // Already there before this pass: keep the message it arrived with (the drain's DRA note, read from pods no longer listed).
  return { kind: 'hold', message: maintenancePhase(nm) === phase ? shownMessage(nm) : '', inFlight: false, annotations };
}
