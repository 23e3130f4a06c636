// Release step "validation" (issue 44): before kmaint uncordons a released node that spec.validation selects, a Job
// pinned to it must succeed. Every fact of the attempt lives on the Node (validation.kmaint.io/), one attempt per request
// (the Job is named after its uid), so any cleanup pass continues where another stopped and never starts a second Job.
import type { V1Node } from '@kubernetes/client-node';
import {
  ANNOTATION_CORDON_REASON,
  ANNOTATION_CORDONED_BY,
  ANNOTATION_VALIDATION_CORDONED_BY,
  ANNOTATION_VALIDATION_FOR,
  ANNOTATION_VALIDATION_JOB,
  ANNOTATION_VALIDATION_OPT_OUT,
  ANNOTATION_VALIDATION_OUTCOME,
  ANNOTATION_VALIDATION_START,
  CONDITION_VALIDATION_FAILED,
  EVENT_REASON_VALIDATION_FAILED,
  EVENT_REASON_VALIDATION_PASSED,
  VALIDATION_OPT_OUT_VALUE,
  ValidationFailedReason,
  namespacedName,
  rfc3339Seconds,
  validationAttemptId,
} from '../api/index.ts';
import type { Action, MaintenanceRef, NodeMaintenance, NodeRef } from '../api/index.ts';
import { matchesLabels } from '../selectors/index.ts';
import { validationJobName, type LoadedValidation, type ValidationJobState, type ValidationSettings } from '../validation/index.ts';
import { cordonedBy, holderFor } from './node-lease.ts';

/** What cleanup read for validation: the settings, kmaint's namespace (the Jobs' home) and the validation Jobs there. */
export interface ValidationReads {
  loaded: LoadedValidation;
  namespace: string;
  /** By name; undefined: not read (no deleted request this pass). */
  jobs: ReadonlyMap<string, ValidationJobState> | undefined;
}

/** The step's verdict: as a release step's, plus whether the uncordon after it must leave the node cordoned. */
export type ValidationVerdict =
  | { kind: 'go'; actions?: readonly Action[]; keepCordoned?: true }
  | { kind: 'hold'; why: string; actions?: readonly Action[] };

export interface ValidationInput {
  nm: NodeMaintenance;
  key: string;
  ref: MaintenanceRef;
  node: V1Node | undefined;
  validation: ValidationReads | undefined;
  now: Date;
}

const GO: ValidationVerdict = { kind: 'go' };
/** What an attempt writes on the Node while it runs (all but the outcome and the cordon record go once it passed). */
const ATTEMPT_RECORDS = [ANNOTATION_VALIDATION_JOB, ANNOTATION_VALIDATION_START] as const;

/** Whether the request asked to be released without validation (kmaint.io/validation: skip). */
export function validationSkipped(nm: NodeMaintenance): boolean {
  return nm.metadata.annotations?.[ANNOTATION_VALIDATION_OPT_OUT] === VALIDATION_OPT_OUT_VALUE;
}

function parseJob(value: string | undefined): { namespace: string; name: string } | undefined {
  const match = /^([a-z0-9-]{1,63})\/([a-z0-9-]{1,63})$/.exec(value ?? '');
  return match ? { namespace: match[1] as string, name: match[2] as string } : undefined;
}

/** Where a failed Job's logs are: the Job is kept (with its pod) until the node's next validation or the Node's deletion. */
export function whereLogsAre(job: { namespace: string; name: string }): string {
  return `logs: kubectl logs job/${job.name} -n ${job.namespace} (the Job is kept until the node's next validation)`;
}

/** The first pass of an attempt: the record on the Node first, then (same unit, after) the Job; a kept failed Job goes. */
function start(input: ValidationInput, settings: ValidationSettings, nodeRef: NodeRef, reads: ValidationReads): ValidationVerdict {
  const { nm, key, ref, node, now } = input;
  const job = { namespace: reads.namespace, name: validationJobName(nm.metadata.uid ?? '') };
  const previous = parseJob(node?.metadata?.annotations?.[ANNOTATION_VALIDATION_JOB]);
  const nodeUid = node?.metadata?.uid;
  const actions: Action[] = [
    ...(previous && previous.name !== job.name ? [{ kind: 'deleteValidationJob' as const, job: previous, maintenance: ref, reason: `node ${nodeRef.name} validated again: the last attempt's Job goes` }] : []),
    {
      kind: 'patchNodeAnnotations',
      node: nodeRef,
      annotations: { [ANNOTATION_VALIDATION_JOB]: namespacedName(job), [ANNOTATION_VALIDATION_FOR]: validationAttemptId(nm), [ANNOTATION_VALIDATION_START]: rfc3339Seconds(now), [ANNOTATION_VALIDATION_OUTCOME]: null },
      maintenance: ref,
      reason: `${key} deleted; validate node ${nodeRef.name} before its uncordon`,
    },
    {
      kind: 'createValidationJob',
      job: { ...job, nodeName: nodeRef.name, ...(nodeUid ? { nodeUid } : {}), spec: settings.job, request: key },
      maintenance: ref,
      reason: `validate node ${nodeRef.name} before its uncordon`,
    },
  ];
  return { kind: 'hold', why: `validating node ${nodeRef.name} before its uncordon: job ${job.namespace}/${job.name} issued`, actions };
}

/** Passed: the Job goes, the failure condition goes, and a cordon the validation kept is lifted; the uncordon step follows. */
function passed(input: ValidationInput, job: { namespace: string; name: string }, nodeRef: NodeRef, heldByValidation: boolean): ValidationVerdict {
  const { key, ref, node } = input;
  const records = { ...Object.fromEntries(ATTEMPT_RECORDS.map((k) => [k, null])), [ANNOTATION_VALIDATION_OUTCOME]: 'Passed' };
  const hasCondition = node?.status?.conditions?.some((c) => c.type === CONDITION_VALIDATION_FAILED) ?? false;
  const message = `validation Job ${job.namespace}/${job.name} succeeded on node ${nodeRef.name} (${key})`;
  // The outcome first (with the uncordon of a kept cordon, one patch): a write that conflicts leaves the Job to read again.
  const actions: Action[] = [
    heldByValidation
      ? { kind: 'uncordonNode', node: nodeRef, maintenance: ref, reason: `${message}; the cordon kept by an earlier failed validation is lifted`, annotations: { ...records, [ANNOTATION_VALIDATION_CORDONED_BY]: null } }
      : { kind: 'patchNodeAnnotations', node: nodeRef, annotations: records, maintenance: ref, reason: message },
    ...(hasCondition ? [{ kind: 'patchNodeConditions' as const, node: nodeRef, set: [], remove: [CONDITION_VALIDATION_FAILED], maintenance: ref, reason: message }] : []),
    { kind: 'deleteValidationJob', job, maintenance: ref, reason: `${key}: validation passed` },
    // Said after the outcome landed (the request's unit): a refused outcome is planned again by the next pass, not said twice.
    { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: nodeRef.name, ...(node?.metadata?.uid ? { uid: node.metadata.uid } : {}) }, type: 'Normal', eventReason: EVENT_REASON_VALIDATION_PASSED, message, maintenance: ref, reason: message },
  ];
  return { kind: 'go', actions };
}

/**
 * Failed or timed out: the Node says so (condition, Warning event), the Job is kept for its logs. With onFailure
 * keepCordoned, kmaint's cordon record moves from kmaint.io/cordoned-by (the request's, which is going) to
 * validation.kmaint.io/cordoned-by, so no sweep of the gone request's records lifts it and a later validation that
 * passes does; the release goes on without the uncordon.
 */
function failed(
  input: ValidationInput,
  settings: ValidationSettings,
  job: { namespace: string; name: string },
  nodeRef: NodeRef,
  reason: ValidationFailedReason,
  ourCordon: boolean,
  heldByValidation: boolean,
): ValidationVerdict {
  const { nm, key, ref } = input;
  const keep = settings.onFailure === 'keepCordoned';
  const message = failureMessage(settings, job, nodeRef, key, reason);
  const outcome = { [ANNOTATION_VALIDATION_OUTCOME]: reason, [ANNOTATION_VALIDATION_START]: null };
  const takeOver: Record<string, string | null> = keep && ourCordon ? { [ANNOTATION_VALIDATION_CORDONED_BY]: holderFor(nm), [ANNOTATION_CORDONED_BY]: null, [ANNOTATION_CORDON_REASON]: null } : {};
  const actions: Action[] = [
    !keep && heldByValidation
      ? { kind: 'uncordonNode', node: nodeRef, maintenance: ref, reason: message, annotations: { ...outcome, [ANNOTATION_VALIDATION_CORDONED_BY]: null } }
      : { kind: 'patchNodeAnnotations', node: nodeRef, annotations: { ...outcome, ...takeOver }, maintenance: ref, reason: message },
    ...markFailed(input, nodeRef, reason, message),
  ];
  return { kind: 'go', actions, ...(keep ? { keepCordoned: true as const } : {}) };
}

function failureMessage(settings: ValidationSettings, job: { namespace: string; name: string }, nodeRef: NodeRef, key: string, reason: ValidationFailedReason): string {
  const what = reason === ValidationFailedReason.Failed ? 'failed' : `did not succeed within ${settings.timeoutSeconds} s`;
  const fate = settings.onFailure === 'keepCordoned' ? 'it stays cordoned' : 'it is uncordoned (spec.validation.onFailure: uncordon)';
  return `validation Job ${job.namespace}/${job.name} ${what} on node ${nodeRef.name} (${key}); ${fate}; ${whereLogsAre(job)}`;
}

/** The condition, then the Warning event: said only once the condition is written. */
function markFailed(input: ValidationInput, nodeRef: NodeRef, reason: ValidationFailedReason, message: string): Action[] {
  const { ref, node } = input;
  const at = rfc3339Seconds(input.now);
  return [
    { kind: 'patchNodeConditions', node: nodeRef, set: [{ type: CONDITION_VALIDATION_FAILED, status: 'True', reason, message, lastTransitionTime: at, lastHeartbeatTime: at }], remove: [], maintenance: ref, reason: message },
    { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: nodeRef.name, ...(node?.metadata?.uid ? { uid: node.metadata.uid } : {}) }, type: 'Warning', eventReason: EVENT_REASON_VALIDATION_FAILED, message, maintenance: ref, reason: message },
  ];
}

/**
 * This request's outcome already on the Node (a pass wrote it and a later write of its unit did not land: a conflict
 * on the Node, a crash): what that pass did not finish. Passed: the condition's removal and the Job's delete. Failed or
 * timed out: the condition and the event, when the condition is not there.
 */
function finishRecorded(input: ValidationInput, settings: ValidationSettings, nodeRef: NodeRef, reads: ValidationReads, outcome: string): ValidationVerdict {
  const { nm, key, ref, node } = input;
  const condition = node?.status?.conditions?.find((c) => c.type === CONDITION_VALIDATION_FAILED);
  if (outcome === 'Passed') {
    const job = { namespace: reads.namespace, name: validationJobName(nm.metadata.uid ?? '') };
    const removal: Action[] = condition ? [{ kind: 'patchNodeConditions', node: nodeRef, set: [], remove: [CONDITION_VALIDATION_FAILED], maintenance: ref, reason: `${key}: validation passed` }] : [];
    return { kind: 'go', actions: [...removal, { kind: 'deleteValidationJob', job, maintenance: ref, reason: `${key}: validation passed` }] };
  }
  const reason = outcome === ValidationFailedReason.TimedOut ? ValidationFailedReason.TimedOut : ValidationFailedReason.Failed;
  const job = parseJob(node?.metadata?.annotations?.[ANNOTATION_VALIDATION_JOB]) ?? { namespace: reads.namespace, name: validationJobName(nm.metadata.uid ?? '') };
  const marked = condition?.status === 'True' && condition.reason === reason;
  const actions = marked ? [] : markFailed(input, nodeRef, reason, failureMessage(settings, job, nodeRef, key, reason));
  return { kind: 'go', actions, ...(settings.onFailure === 'keepCordoned' ? { keepCordoned: true as const } : {}) };
}

/**
 * The step. Concerned only with a node kmaint keeps cordoned (its cordon record names this request, or an earlier
 * failed validation kept it) that spec.validation selects, for a request that did not opt out.
 */
export function validateBeforeUncordon(input: ValidationInput): ValidationVerdict {
  const { nm, key, node, now } = input;
  const reads = input.validation;
  if (node === undefined || reads === undefined || reads.loaded.kind === 'off' || validationSkipped(nm)) return GO;
  const annotations = node.metadata?.annotations ?? {};
  const nodeRef: NodeRef = { name: nm.spec.nodeName, resourceVersion: node.metadata?.resourceVersion ?? '' };
  // This request's attempt has its outcome on the Node: final, whatever the cordon now (only unfinished writes follow).
  const outcome = annotations[ANNOTATION_VALIDATION_OUTCOME];
  if (outcome !== undefined && reads.loaded.kind === 'on' && annotations[ANNOTATION_VALIDATION_FOR] === validationAttemptId(nm)) return finishRecorded(input, reads.loaded.settings, nodeRef, reads, outcome);
  const ourCordon = cordonedBy(node) === holderFor(nm);
  const heldByValidation = annotations[ANNOTATION_VALIDATION_CORDONED_BY] !== undefined;
  if (node.spec?.unschedulable !== true || (!ourCordon && !heldByValidation)) return GO;
  // Fail closed: a node is not returned to service on a config kmaint cannot read.
  if (reads.loaded.kind === 'invalid') return { kind: 'hold', why: `node ${nodeRef.name} not validated, so kept cordoned: ${reads.loaded.problem}` };
  const settings = reads.loaded.settings;
  if (!matchesLabels(settings.nodeSelector, node.metadata?.labels)) return GO;
  if (annotations[ANNOTATION_VALIDATION_FOR] !== validationAttemptId(nm)) return start(input, settings, nodeRef, reads);
  const job = parseJob(annotations[ANNOTATION_VALIDATION_JOB]) ?? { namespace: reads.namespace, name: validationJobName(nm.metadata.uid ?? '') };
  if (reads.jobs === undefined) return { kind: 'hold', why: `validating node ${nodeRef.name}: job ${job.namespace}/${job.name} not read this pass` };
  const state = reads.jobs.get(job.name);
  if (state === 'succeeded') return passed(input, job, nodeRef, heldByValidation);
  if (state === 'failed') return failed(input, settings, job, nodeRef, ValidationFailedReason.Failed, ourCordon, heldByValidation);
  const since = annotations[ANNOTATION_VALIDATION_START] ?? '';
  const started = Date.parse(since);
  const deadline = Number.isNaN(started) ? now.getTime() : started + settings.timeoutSeconds * 1000;
  if (now.getTime() > deadline) return failed(input, settings, job, nodeRef, ValidationFailedReason.TimedOut, ourCordon, heldByValidation);
  const until = `times out at ${rfc3339Seconds(new Date(deadline))}`;
  if (state === undefined) {
    // Recorded but not there (its create did not land, or someone deleted it): created again under the same name.
    const nodeUid = node.metadata?.uid;
    const create: Action = { kind: 'createValidationJob', job: { ...job, nodeName: nodeRef.name, ...(nodeUid ? { nodeUid } : {}), spec: settings.job, request: key }, maintenance: input.ref, reason: `validation Job ${job.namespace}/${job.name} recorded but absent` };
    return { kind: 'hold', why: `validating node ${nodeRef.name} before its uncordon: job ${job.namespace}/${job.name} created again; ${until}`, actions: [create] };
  }
  return { kind: 'hold', why: `validating node ${nodeRef.name} before its uncordon: job ${job.namespace}/${job.name} running since ${since}; ${until}` };
}
