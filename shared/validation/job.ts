// The validation Job (issue 44): its name, its manifest (a pinned Job, shared/reboot/pinned-job.ts) and what a read of it says.
import type { V1Pod } from '@kubernetes/client-node';
import { LABEL_VALIDATION_POD, TAINT_DEVICES_DRAINING, TAINT_OUT_OF_SERVICE, TAINT_UNSCHEDULABLE, VALIDATION_JOB_PREFIX } from '../api/index.ts';
import type { ValidationJob } from '../api/index.ts';
import { pinnedJobManifest } from '../reboot/index.ts';

/** From the request's uid: a second create for the same release is refused (409), never a second Job. */
export function validationJobName(requestUid: string): string {
  return `${VALIDATION_JOB_PREFIX}${requestUid}`;
}

/** The label selector cleanup lists validation Jobs' pods by. */
export const VALIDATION_JOB_SELECTOR = `${LABEL_VALIDATION_POD}=true`;

/**
 * kmaint's own cordon and taints, nothing else: the cordon's taint, the out-of-service taint kmaint puts on a dead
 * node, and the devices-draining taint of drainSpec.freeDevices (lifted after the uncordon, so still there while the
 * node validates). A taint another tool set (a GPU fault taint, say) keeps the pod off, as it should keep the node's
 * workloads off.
 */
export const VALIDATION_TOLERATIONS: ReadonlyArray<Record<string, string>> = [
  { key: TAINT_UNSCHEDULABLE, operator: 'Exists', effect: 'NoSchedule' },
  { key: TAINT_OUT_OF_SERVICE, operator: 'Exists' },
  { key: TAINT_DEVICES_DRAINING, operator: 'Exists', effect: 'NoSchedule' },
];

/** On the validation Job: the request whose release it validates, `namespace/name` (and kmaint leftovers' row). */
export const VALIDATION_JOB_REQUEST_ANNOTATION = 'kmaint.io/validation-request';

/** The validation Job's labels (on the Job and its pod): with its name, what marks a Job as kmaint's (kmaint leftovers). */
export const VALIDATION_JOB_LABELS: Readonly<Record<string, string>> = Object.freeze({ 'app.kubernetes.io/name': 'kmaint', 'app.kubernetes.io/component': 'validation', [LABEL_VALIDATION_POD]: 'true' });

/** The batch/v1 Job a createValidationJob action posts. */
export function validationJobManifest(job: ValidationJob): Record<string, unknown> {
  const labels = { ...VALIDATION_JOB_LABELS };
  const s = job.spec;
  return pinnedJobManifest({
    namespace: job.namespace,
    name: job.name,
    nodeName: job.nodeName,
    ...(job.nodeUid ? { nodeUid: job.nodeUid } : {}),
    labels,
    annotations: { [VALIDATION_JOB_REQUEST_ANNOTATION]: job.request },
    tolerations: VALIDATION_TOLERATIONS,
    pod: s.serviceAccountName !== undefined ? { serviceAccountName: s.serviceAccountName } : { automountServiceAccountToken: false },
    container: {
      name: 'validation',
      image: s.image,
      ...(s.command.length > 0 ? { command: s.command } : {}),
      ...(s.args.length > 0 ? { args: s.args } : {}),
      ...(s.env.length > 0 ? { env: s.env } : {}),
      ...(s.resources.requests || s.resources.limits ? { resources: s.resources } : {}),
      ...(s.privileged ? { securityContext: { privileged: true } } : {}),
    },
  });
}

/** What cleanup reads of a validation Job: its outcome so far. */
export type ValidationJobState = 'running' | 'succeeded' | 'failed';

/**
 * The validation Jobs' outcomes by Job name, from their pods (read with the `list pods` kmaint already has, by
 * VALIDATION_JOB_SELECTOR: no Job read needs a grant of its own). backoffLimit 0: one pod per Job, its phase is the
 * Job's outcome; a Job without a pod yet is running (its timeout still counts).
 */
export function validationJobStates(pods: readonly V1Pod[]): Map<string, ValidationJobState> {
  const states = new Map<string, ValidationJobState>();
  for (const pod of pods) {
    const job = pod.metadata?.labels?.['batch.kubernetes.io/job-name'] ?? pod.metadata?.labels?.['job-name'];
    if (job === undefined) continue;
    const phase = pod.status?.phase;
    const state: ValidationJobState = phase === 'Succeeded' ? 'succeeded' : phase === 'Failed' ? 'failed' : 'running';
    // A finished pod decides over one still running (a replaced pod, should there be one).
    if (states.get(job) === undefined || states.get(job) === 'running') states.set(job, state);
  }
  return states;
}
