// A validation running on a Node (issue 44: cleanup's validation step, shared/lifecycle/validate-release.ts) is what
// says whether the node is healthy again: the repair ladder files no rung on it (neither the first nor the next) until
// that validation has ended, whatever the rung's timeoutSeconds. Read from the Node's validation.kmaint.io/ records and
// the request they name, so a record a request left when it vanished (its finalizer removed by hand) holds nothing.
import type { V1Node } from '@kubernetes/client-node';
import { ANNOTATION_VALIDATION_FOR, ANNOTATION_VALIDATION_JOB, ANNOTATION_VALIDATION_OUTCOME, ANNOTATION_VALIDATION_START, validationAttemptId } from '#api';
import type { NodeMaintenance } from '#api';

/** The validation attempt ids (namespace/name/uid) of the requests that exist, deleted ones included (their release runs it). */
export function requestAttempts(maintenances: readonly NodeMaintenance[]): ReadonlySet<string> {
  return new Set(maintenances.map(validationAttemptId));
}

/**
 * Why the ladder waits on `node`: an attempt without an outcome (start time recorded, none yet) for a request that
 * still exists; undefined when none runs. Bounded by spec.validation.timeoutSeconds: cleanup ends the attempt then. Pure.
 */
export function validationRunning(node: V1Node, attempts: ReadonlySet<string>): string | undefined {
  const a = node.metadata?.annotations ?? {};
  const since = a[ANNOTATION_VALIDATION_START];
  const attempt = a[ANNOTATION_VALIDATION_FOR];
  if (since === undefined || attempt === undefined || a[ANNOTATION_VALIDATION_OUTCOME] !== undefined || !attempts.has(attempt)) return undefined;
  const request = attempt.slice(0, attempt.lastIndexOf('/'));
  return `validation Job ${a[ANNOTATION_VALIDATION_JOB] ?? '(not recorded)'} for ${request} running on the node since ${since}: the repair ladder waits for its outcome`;
}
