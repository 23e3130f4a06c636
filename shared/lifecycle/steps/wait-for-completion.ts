// Step WaitForPodCompletion: the pods the requestor named get to finish on their own, up to a timeout, before the drain.
import { shortList } from '../../text/index.ts';
import { ANNOTATION_WAIT_POD_COMPLETION_START, DEFAULTS, Phase, rfc3339Seconds } from '../../api/index.ts';
import { podsBlockingCompletion } from '../../drain/index.ts';
import { secondsSince, type StepContext, type StepResult } from './step.ts';

/** WaitForPodCompletion -> Draining, or hold while selected pods still run (or the selector cannot be read). */
export function waitForCompletion(ctx: StepContext): StepResult {
  const { nm, now } = ctx;
  const wait = nm.spec.waitForPodCompletion;
  if (!wait) return { kind: 'advance', to: Phase.Draining };
  const annotations: Record<string, string | null> = {};
  let startedAt = nm.metadata.annotations?.[ANNOTATION_WAIT_POD_COMPLETION_START] ?? '';
  if (secondsSince(startedAt, now) === undefined) {
    startedAt = rfc3339Seconds(now);
    annotations[ANNOTATION_WAIT_POD_COMPLETION_START] = startedAt;
  }
  const completion = podsBlockingCompletion(ctx.pods, wait.podSelector ?? '');
  if (!completion.ok) {
    // Never guess with a selector we cannot read: stay here and say why.
    // The error already names the field: "waitForPodCompletion.podSelector: invalid label selector …"
    return { kind: 'hold', message: completion.error, inFlight: true, annotations };
  }
  const blocking = completion.waitingFor;
  const timeout = wait.timeoutSeconds ?? DEFAULTS.waitTimeoutSeconds;
  const elapsed = secondsSince(startedAt, now) ?? 0;
  if (blocking.length > 0 && !(timeout > 0 && elapsed >= timeout)) {
    // An absolute deadline, not "in N s": the message must not change (and be written again) every pass.
    const deadline = timeout > 0 ? ` (timeout at ${rfc3339Seconds(new Date(Date.parse(startedAt) + timeout * 1000))})` : '';
    const message = `waiting for ${blocking.length} pod${blocking.length === 1 ? '' : 's'} to complete: ${shortList(blocking, 3)}${deadline}`;
    return { kind: 'hold', message, inFlight: true, annotations, status: { ...ctx.status, waitForCompletion: blocking } };
  }
  const { waitForCompletion: _done, ...status } = ctx.status;
  return { kind: 'advance', to: Phase.Draining, annotations, status };
}
