// Steps Ready and RequestorFailed: the node is the requestor's; record when it became so and follow its verdict.
import { ANNOTATION_READY_TIME, CONDITION_REQUESTOR_FAILED, Phase, rfc3339Seconds } from '../../api/index.ts';
import type { NodeMaintenance } from '../../api/index.ts';
import type { StepContext, StepResult } from './step.ts';

function requestorFailed(nm: NodeMaintenance): boolean {
  return nm.status?.conditions?.some((c) => c.type === CONDITION_REQUESTOR_FAILED && c.status === 'True') ?? false;
}

/** Ready <-> RequestorFailed as the requestor's condition says; otherwise hold, with nothing left in flight. */
export function recordReady({ nm, phase, now }: StepContext): StepResult {
  const annotations: Record<string, string> = nm.metadata.annotations?.[ANNOTATION_READY_TIME] === undefined ? { [ANNOTATION_READY_TIME]: rfc3339Seconds(now) } : {};
  const target = requestorFailed(nm) ? Phase.RequestorFailed : Phase.Ready;
  if (target !== phase) return { kind: 'advance', to: target, annotations };
  return { kind: 'hold', message: '', inFlight: false, annotations };
}
