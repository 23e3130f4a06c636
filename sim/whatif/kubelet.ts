// The what-if's kubelet: a bound pod runs and turns Ready `podStartMs` after it appears, and a deleted pod stops
// once its grace period has passed (the simulated kubelet's default: the whole grace period), then is removed.
import { rfc3339Seconds } from '../../shared/api/index.ts';
import type { JsonObject, KindInfo, LocalApi, ResourceRef, SimContext } from '../apiserver/index.ts';
import type { EventQueue } from './event-queue.ts';
import type { PodRecord } from './pod-record.ts';

const PODS: ResourceRef = { apiVersion: 'v1', resource: 'pods' };

export interface KubeletCounts {
  started: number;
  stopped: number;
}

export class WhatIfKubelet {
  readonly counts: KubeletCounts = { started: 0, stopped: 0 };
  /** uids with a start or a stop already on the timeline. */
  private readonly starting = new Set<string>();
  private readonly stopping = new Set<string>();

  private readonly podKind: KindInfo;

  constructor(
    private readonly local: LocalApi,
    private readonly ctx: SimContext,
    private readonly queue: EventQueue,
    private readonly now: () => number,
    private readonly podStartMs: number,
    /** The pod as stored now, for the check before acting. */
    private readonly current: (key: string) => PodRecord | undefined,
  ) {
    const kind = ctx.kinds.lookup('', 'v1', 'pods');
    if (!kind) throw new Error('the sim API server serves no pods');
    this.podKind = kind;
  }

  observe(r: PodRecord): void {
    if (r.terminating) {
      if (this.stopping.has(r.uid)) return;
      this.stopping.add(r.uid);
      this.queue.at(this.now() + r.graceSeconds * 1000, () => this.stop(r.key, r.uid));
      return;
    }
    if (r.nodeName !== undefined && r.phase === 'Pending' && !this.starting.has(r.uid)) {
      this.starting.add(r.uid);
      this.queue.at(this.now() + this.podStartMs, () => this.start(r.key, r.uid));
    }
  }

  forget(r: PodRecord): void {
    this.starting.delete(r.uid);
    this.stopping.delete(r.uid);
  }

  private start(key: string, uid: string): void {
    this.starting.delete(uid);
    const r = this.current(key);
    if (!r || r.uid !== uid || r.terminating || r.phase !== 'Pending') return;
    const at = rfc3339Seconds(this.now());
    const stored = this.ctx.store.get(this.podKind, r.namespace, r.name);
    if (!stored) return;
    const pod = JSON.parse(stored.json) as JsonObject;
    const scheduled = ((pod['status'] as { conditions?: JsonObject[] } | undefined)?.conditions ?? []).filter((c) => c['type'] === 'PodScheduled');
    const conditions = [...scheduled, ...['PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({ type, status: 'True', lastTransitionTime: at }))];
    // The kubelet's status update, stored as the API server stores it (nothing else writes a pod's status here).
    pod['status'] = { ...(pod['status'] as JsonObject | undefined), phase: 'Running', startTime: at, conditions };
    this.ctx.store.put(this.podKind, pod);
    this.counts.started++;
  }

  private stop(key: string, uid: string): void {
    const r = this.current(key);
    if (!r || r.uid !== uid) return;
    this.local.delete(PODS, r.namespace, r.name, { gracePeriodSeconds: 0, preconditions: { uid } });
    this.counts.stopped++;
  }
}
