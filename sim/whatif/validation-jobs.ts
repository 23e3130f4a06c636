// The what-if's Job controller and kubelet for kmaint's validation Jobs (issue 44): a Job cleanup creates (label
// kmaint.io/validation-pod) gets its one pod at once, bound to the Job's node; the what-if kubelet starts it
// `podStartMs` later, and it ends `KMAINT_SIM_RUN_SECONDS` (default 0) after that, Succeeded, or Failed when
// `KMAINT_SIM_EXIT_CODE` is not 0 — the env the simulated kubelet of the tests and the demo reads. The user's command is
// never run. Other Jobs are the snapshot's workloads (workloads.ts).
import { LABEL_VALIDATION_POD } from '../../shared/api/index.ts';
import type { JsonObject, KindInfo, LocalApi, SimContext, StoreEvent } from '../apiserver/index.ts';
import { ENV_SIM_EXIT_CODE, ENV_SIM_RUN_SECONDS } from '../generator/sim-keys.ts';
import type { EventQueue } from './event-queue.ts';

interface JobTemplate {
  metadata?: { labels?: Record<string, string> };
  spec?: { nodeName?: string; containers?: Array<{ env?: Array<{ name: string; value?: string }> }> } & JsonObject;
}

interface ValidationJob {
  metadata: { name: string; namespace: string; uid: string; labels?: Record<string, string> };
  spec?: { template?: JobTemplate };
}

function envOf(t: JobTemplate | undefined, name: string): number | undefined {
  const v = t?.spec?.containers?.[0]?.env?.find((e) => e.name === name)?.value;
  const n = v === undefined ? NaN : Number(v);
  return Number.isFinite(n) ? n : undefined;
}

export class WhatIfValidationJobs {
  /** Validation pods created and ended, for the tests. */
  readonly counts = { created: 0, succeeded: 0, failed: 0 };
  private readonly podKind: KindInfo;

  constructor(
    private readonly local: LocalApi,
    private readonly ctx: SimContext,
    private readonly queue: EventQueue,
    private readonly now: () => number,
    private readonly podStartMs: number,
    /** spec.validation.timeoutSeconds in ms: cleanup's time-driven rule, so a pass runs then even when nothing changed. */
    private readonly timeoutMs: number,
    /** Something cleanup reads changed (a validation pod ended): its next pass must not be skipped as quiet. */
    private readonly changed: () => void,
  ) {
    const kind = ctx.kinds.lookup('', 'v1', 'pods');
    if (!kind) throw new Error('the sim API server serves no pods');
    this.podKind = kind;
  }

  onStoreEvent(e: StoreEvent): void {
    if (e.type !== 'ADDED' || e.kind.group !== 'batch' || e.kind.resource !== 'jobs') return;
    const job = JSON.parse(e.object.json) as ValidationJob;
    if (job.metadata.labels?.[LABEL_VALIDATION_POD] !== 'true') return;
    // Not from inside the store's notification: the pod is created as the next thing due now.
    this.queue.at(this.now(), () => this.createPod(job));
    // The attempt's clock starts in the pass that created the Job (now, or at most a pass earlier); one ms past the
    // timeout a pass must not be skipped as quiet, so a Job that runs longer times out when cleanup would see it.
    this.queue.at(this.now() + this.timeoutMs + 1, () => this.changed());
  }

  private createPod(job: ValidationJob): void {
    const { name, namespace, uid } = job.metadata;
    const template = job.spec?.template;
    const labels = { ...(template?.metadata?.labels ?? {}), 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': name, 'controller-uid': uid, 'job-name': name };
    const pod = this.local.create({ apiVersion: 'v1', resource: 'pods' }, namespace, {
      metadata: { name: `${name}-sim`, labels, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name, uid, controller: true, blockOwnerDeletion: true }] },
      spec: template?.spec ?? {},
    });
    this.counts.created++;
    const podUid = (pod['metadata'] as { uid?: string } | undefined)?.uid ?? '';
    const runMs = (envOf(template, ENV_SIM_RUN_SECONDS) ?? 0) * 1000;
    const exitCode = envOf(template, ENV_SIM_EXIT_CODE) ?? 0;
    // After the what-if kubelet's start (queued on the pod's creation, so first at the same time).
    this.queue.at(this.now() + this.podStartMs + runMs, () => this.end(namespace, `${name}-sim`, podUid, exitCode));
  }

  private end(namespace: string, name: string, uid: string, exitCode: number): void {
    const stored = this.ctx.store.get(this.podKind, namespace, name);
    if (!stored) return;
    const pod = JSON.parse(stored.json) as JsonObject;
    if ((pod['metadata'] as { uid?: string } | undefined)?.uid !== uid) return;
    const phase = exitCode === 0 ? 'Succeeded' : 'Failed';
    // The kubelet's status update, stored as the API server stores it (as kubelet.ts does).
    pod['status'] = { ...(pod['status'] as JsonObject | undefined), phase, containerStatuses: [{ name: 'validation', ready: false, restartCount: 0, state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' } } }] };
    this.ctx.store.put(this.podKind, pod);
    if (exitCode === 0) this.counts.succeeded++;
    else this.counts.failed++;
    this.changed();
  }
}
