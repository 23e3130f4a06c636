// The rest of the cluster around kmaint during a what-if: kubelet, workload controllers, scheduler and disruption
// controller, fed by the sim API server's store events and acting in-process at `settle()` or on the timeline.
// They replace sim/kubelet and sim/controllers here because those re-LIST the whole cluster every poll, which at
// 150,000 pods costs seconds per round; these react only to what changed.
import type { V1Node } from '@kubernetes/client-node';
import type { JsonObject, SimApiServer, StoreEvent } from '../apiserver/index.ts';
import { frozenObject } from '../apiserver/store.ts';
import { WhatIfDisruption } from './disruption.ts';
import type { EventQueue } from './event-queue.ts';
import { WhatIfKubelet } from './kubelet.ts';
import { podRecord, type PodRecord } from './pod-record.ts';
import { WhatIfScheduler } from './scheduler.ts';
import { WhatIfWorkloads, type Controller } from './workloads.ts';

export interface WhatIfClusterOptions {
  /** Simulated ms from a pod's binding to Running and Ready. */
  podStartMs: number;
  now: () => number;
}

export interface ClusterCounts {
  replacementsCreated: number;
  podsBound: number;
  podsStarted: number;
  podsStopped: number;
  /** Pods waiting for a node that none fits, at the end. */
  unschedulable: number;
}

export class WhatIfCluster {
  readonly pods = new Map<string, PodRecord>();
  readonly workloads: WhatIfWorkloads;
  readonly disruption: WhatIfDisruption;
  private readonly kubelet: WhatIfKubelet;
  private scheduler: WhatIfScheduler | undefined;
  private unsubscribe: (() => void) | undefined;
  /**
   * Counts of changes to what kmaint's passes read. `objects`: anything but pods, budgets, leases and events (nodes,
   * requests, config: every pass reads them). `drain`: what only the drainer reads — budgets, the pods of nodes
   * under maintenance, and the pods of budgets that allow no disruption (it lists them to explain the wait).
   * Other pods count only through the budget statuses they change (see settleBudgets).
   */
  readonly versions = { objects: 0, drain: 0 };
  /** Whether a node has a request in progress (the drainer reads its pods). */
  nodeInMaintenance: (node: string) => boolean = () => false;
  private readonly podListeners: Array<(r: PodRecord, previous: PodRecord | undefined, gone: boolean) => void> = [];

  constructor(
    private readonly api: SimApiServer,
    queue: EventQueue,
    private readonly opts: WhatIfClusterOptions,
  ) {
    this.workloads = new WhatIfWorkloads(api.local);
    this.disruption = new WhatIfDisruption(api.context, () => new Date(opts.now()));
    this.kubelet = new WhatIfKubelet(api.local, api.context, queue, opts.now, opts.podStartMs, (key) => this.pods.get(key));
  }

  /**
   * Starts following the store: the nodes and budgets stored so far, `pods` (every pod stored so far, as stored),
   * then every change.
   */
  start(controllers: readonly Controller[], templates: ReadonlyMap<string, JsonObject>, pods: Iterable<JsonObject>): void {
    const local = this.api.local;
    this.scheduler = new WhatIfScheduler(local, local.list({ apiVersion: 'v1', resource: 'nodes' }) as unknown as V1Node[]);
    for (const c of controllers) {
      const t = templates.get(c.uid);
      if (t) this.workloads.track(c, t);
    }
    this.disruption.setControllers(this.workloads.list());
    for (const pdb of local.list({ apiVersion: 'policy/v1', resource: 'poddisruptionbudgets' })) this.disruption.addBudget(pdb);
    for (const obj of pods) {
      const r = podRecord(obj, undefined);
      if (r.owner?.kind === 'StatefulSet') this.workloads.trackStatefulPod(r.owner.uid, obj);
      this.onPod(r, undefined, false);
    }
    this.unsubscribe = this.api.context.store.subscribe((e) => this.onEvent(e));
  }

  stop(): void {
    this.unsubscribe?.();
  }

  /** Called for every pod change after the cluster's own bookkeeping. */
  onPodChange(listener: (r: PodRecord, previous: PodRecord | undefined, gone: boolean) => void): void {
    this.podListeners.push(listener);
  }

  private onEvent(e: StoreEvent): void {
    const resource = e.kind.resource;
    if (resource === 'poddisruptionbudgets') {
      this.versions.drain++;
      // The store's parsed copy: the next eviction's budget check reads the same version.
      this.disruption.noteStatus(frozenObject(e.object), e.type === 'DELETED');
      return;
    }
    if (resource !== 'pods' && resource !== 'leases' && resource !== 'events') this.versions.objects++;
    if (e.kind.group !== '') return;
    if (resource === 'pods') {
      // podRecord copies what it reads: the object as written is enough, and no parse of the text is needed.
      const obj = e.written ?? (JSON.parse(e.object.json) as JsonObject);
      const previous = this.pods.get(e.object.key);
      this.onPod(podRecord(obj, previous), previous, e.type === 'DELETED');
    } else if (resource === 'nodes' && e.type !== 'DELETED') {
      const node = JSON.parse(e.object.json) as V1Node;
      this.scheduler?.nodeChanged(node.metadata?.name ?? '', node.spec?.unschedulable === true);
    }
  }

  private onPod(r: PodRecord, previous: PodRecord | undefined, gone: boolean): void {
    const node = r.nodeName ?? previous?.nodeName;
    if ((node !== undefined && this.nodeInMaintenance(node)) || this.disruption.inBlockedBudget(r.key)) this.versions.drain++;
    if (gone) {
      this.pods.delete(r.key);
      this.kubelet.forget(r);
    } else {
      this.pods.set(r.key, r);
      this.kubelet.observe(r);
    }
    this.workloads.observe(r, gone);
    this.scheduler?.observe(r, gone);
    this.disruption.observe(r, gone);
    for (const l of this.podListeners) l(r, previous, gone);
  }

  /**
   * Lets the workload controllers and the scheduler catch up with the changes so far (at the current simulated
   * time). Budget statuses wait for `settleBudgets()`: only evictions and the drainer read them.
   */
  settle(): void {
    for (let round = 0; round < 20; round++) {
      const made = this.workloads.settle() + (this.scheduler?.settle() ?? 0);
      if (made === 0) return;
    }
  }

  /** Brings every PodDisruptionBudget's status up to date, as the disruption controller has by now. */
  settleBudgets(): void {
    this.disruption.settle();
  }

  counts(): ClusterCounts {
    return {
      replacementsCreated: this.workloads.created,
      podsBound: this.scheduler?.bound ?? 0,
      podsStarted: this.kubelet.counts.started,
      podsStopped: this.kubelet.counts.stopped,
      unschedulable: this.scheduler?.unschedulable.size ?? 0,
    };
  }
}
