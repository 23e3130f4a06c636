// The reboot Job's name and manifest (issue 43): one Job per request, pinned to its node, running despite kmaint's cordon.
import { LABEL_REBOOT_POD, REBOOT_JOB_PREFIX } from '../api/index.ts';
import type { RebootJob } from '../api/index.ts';

/** The Job's name, from the request's uid: a second create for the same request is refused (409), never a second reboot. */
export function rebootJobName(requestUid: string): string {
  return `${REBOOT_JOB_PREFIX}${requestUid}`;
}

/** The batch/v1 Job a createRebootJob action posts. */
export function rebootJobManifest(job: RebootJob): Record<string, unknown> {
  const labels = { 'app.kubernetes.io/name': 'kmaint', 'app.kubernetes.io/component': 'reboot', [LABEL_REBOOT_POD]: 'true' };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: job.name,
      namespace: job.namespace,
      labels,
      annotations: { 'kmaint.io/reboot-request': job.request },
      // Owned by the Node: a Node deleted mid-reboot takes its Job with it (the API server's garbage collector).
      ...(job.nodeUid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: job.nodeName, uid: job.nodeUid }] } : {}),
    },
    spec: {
      // Never retried: a reboot that does not come back is the timeout's to report, not a second reboot.
      backoffLimit: 0,
      template: {
        metadata: { labels },
        spec: {
          // Bound by name: the scheduler (and so the cordon) is not asked; tolerating everything passes kmaint's taints.
          nodeName: job.nodeName,
          restartPolicy: 'Never',
          hostPID: job.hostPID,
          automountServiceAccountToken: false,
          terminationGracePeriodSeconds: 0,
          tolerations: [{ operator: 'Exists' }],
          containers: [{ name: 'reboot', image: job.image, command: job.command, securityContext: { privileged: job.privileged } }],
        },
      },
    },
  };
}
