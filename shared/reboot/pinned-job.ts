// A one-shot Job pinned to one Node (issue 43's reboot Job, issue 44's validation Job): bound by name, never retried,
// owned by its Node so a deleted Node takes it along. Each Job's own parts (labels, tolerations, container) are its caller's.

export interface PinnedJob {
  namespace: string;
  name: string;
  nodeName: string;
  /** The Node's uid: the Job is owned by the Node (the API server's garbage collector removes it with the Node). */
  nodeUid?: string;
  /** On the Job and its pod template. */
  labels: Record<string, string>;
  annotations: Record<string, string>;
  tolerations: ReadonlyArray<Record<string, string>>;
  /** Pod spec fields beside the pinning (hostPID, serviceAccountName, automountServiceAccountToken…). */
  pod: Record<string, unknown>;
  container: Record<string, unknown>;
}

/** The batch/v1 Job: bound by name (the scheduler, and so the cordon, is not asked), one attempt, no restart. */
export function pinnedJobManifest(job: PinnedJob): Record<string, unknown> {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: job.name,
      namespace: job.namespace,
      labels: job.labels,
      annotations: job.annotations,
      ...(job.nodeUid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: job.nodeName, uid: job.nodeUid }] } : {}),
    },
    spec: {
      // Never retried: a second run is a second attempt, which only kmaint's record may start.
      backoffLimit: 0,
      template: {
        metadata: { labels: job.labels },
        spec: {
          nodeName: job.nodeName,
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 0,
          ...job.pod,
          tolerations: job.tolerations,
          containers: [job.container],
        },
      },
    },
  };
}
