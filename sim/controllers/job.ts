// The Job controller's decisions: pods until `completions` succeeded (at most `parallelism` at once), Complete or
// Failed (backoffLimit) conditions. The sim adds no job-tracking finalizer: counts come from the pods it still
// sees and never go down (status keeps the highest seen).
import type { V1Job, V1JobCondition, V1Pod } from '@kubernetes/client-node';
import { refOf, type ControllerAction } from './actions.ts';
import { podFromTemplate } from './pod-template.ts';
import { controllerRef, isActive, isControlledBy, isReady, isTerminating } from './pod-facts.ts';

function finished(job: V1Job): boolean {
  return (job.status?.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

function condition(type: 'Complete' | 'Failed', reason: string, message: string, now: Date): V1JobCondition {
  return { type, status: 'True', reason, message, lastProbeTime: now, lastTransitionTime: now };
}

export function planJob(job: V1Job, pods: readonly V1Pod[], now: Date): ControllerAction[] {
  if (job.metadata?.deletionTimestamp || finished(job) || job.spec?.suspend) return [];
  const name = job.metadata?.name ?? '';
  const namespace = job.metadata?.namespace ?? '';
  const uid = job.metadata?.uid ?? '';
  const completions = job.spec?.completions ?? 1;
  const parallelism = job.spec?.parallelism ?? 1;
  const backoffLimit = job.spec?.backoffLimit ?? 6;
  const owned = pods.filter((p) => isControlledBy(p, uid));
  const active = owned.filter(isActive);
  const succeeded = Math.max(job.status?.succeeded ?? 0, owned.filter((p) => p.status?.phase === 'Succeeded').length);
  const failed = Math.max(job.status?.failed ?? 0, owned.filter((p) => p.status?.phase === 'Failed').length);
  const actions: ControllerAction[] = [];
  const why = (what: string): string => `job ${namespace}/${name}: ${what}`;
  const conditions = [...(job.status?.conditions ?? [])];
  let completionTime: Date | undefined;

  if (failed > backoffLimit) {
    for (const p of active) actions.push({ kind: 'deletePod', pod: refOf(p), reason: why('backoff limit exceeded') });
    conditions.push(condition('Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit', now));
  } else if (succeeded >= completions) {
    for (const p of active) actions.push({ kind: 'deletePod', pod: refOf(p), reason: why('completed') });
    conditions.push(condition('Complete', 'CompletionsReached', 'Reached expected number of succeeded pods', now));
    completionTime = now;
  } else {
    const want = Math.min(parallelism, completions - succeeded);
    const owner = controllerRef('batch/v1', 'Job', job);
    const labels = { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': name, 'controller-uid': uid, 'job-name': name };
    for (let i = active.length; i < want; i++) {
      actions.push({
        kind: 'createPod',
        pod: podFromTemplate(job.spec?.template, { namespace, generateName: `${name}-`, owner, extraLabels: labels }),
        reason: why(`${active.length} active, ${succeeded}/${completions} succeeded`),
      });
    }
  }
  const status: Record<string, unknown> = {
    active: active.length,
    ready: active.filter(isReady).length,
    terminating: owned.filter(isTerminating).length,
    succeeded,
    failed,
    startTime: job.status?.startTime ?? now,
    ...(conditions.length > (job.status?.conditions ?? []).length ? { conditions } : {}),
    ...(completionTime ? { completionTime } : {}),
  };
  const cur = job.status;
  const changed =
    (cur?.active ?? 0) !== status['active'] ||
    (cur?.ready ?? 0) !== status['ready'] ||
    (cur?.terminating ?? 0) !== status['terminating'] ||
    (cur?.succeeded ?? 0) !== succeeded ||
    (cur?.failed ?? 0) !== failed ||
    cur?.startTime === undefined ||
    status['conditions'] !== undefined;
  if (changed) actions.push({ kind: 'patchStatus', resource: 'jobs', target: refOf(job), status, reason: 'pod counts changed' });
  return actions;
}
