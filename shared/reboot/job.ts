// The reboot Job's name and manifest (issue 43): one Job per request, pinned to its node, running despite kmaint's cordon.
import { LABEL_REBOOT_POD, REBOOT_JOB_PREFIX } from '../api/index.ts';
import type { RebootJob } from '../api/index.ts';
import { pinnedJobManifest } from './pinned-job.ts';

/** The Job's name, from the request's uid: a second create for the same request is refused (409), never a second reboot. */
export function rebootJobName(requestUid: string): string {
  return `${REBOOT_JOB_PREFIX}${requestUid}`;
}

/** On the reboot Job: the request it serves, `namespace/name`, for people reading it (and kmaint leftovers' row). */
export const REBOOT_JOB_REQUEST_ANNOTATION = 'kmaint.io/reboot-request';

/** The reboot Job's labels (on the Job and its pod): with its name, what marks a Job as kmaint's (kmaint leftovers). */
export const REBOOT_JOB_LABELS: Readonly<Record<string, string>> = Object.freeze({ 'app.kubernetes.io/name': 'kmaint', 'app.kubernetes.io/component': 'reboot', [LABEL_REBOOT_POD]: 'true' });

/** The batch/v1 Job a createRebootJob action posts. */
export function rebootJobManifest(job: RebootJob): Record<string, unknown> {
  const labels = { ...REBOOT_JOB_LABELS };
  return pinnedJobManifest({
    namespace: job.namespace,
    name: job.name,
    nodeName: job.nodeName,
    ...(job.nodeUid ? { nodeUid: job.nodeUid } : {}),
    labels,
    annotations: { [REBOOT_JOB_REQUEST_ANNOTATION]: job.request },
    // Tolerating everything passes kmaint's taints and any other: a reboot must run whatever the node carries.
    tolerations: [{ operator: 'Exists' }],
    pod: { hostPID: job.hostPID, automountServiceAccountToken: false },
    container: { name: 'reboot', image: job.image, command: job.command, securityContext: { privileged: job.privileged } },
  });
}
