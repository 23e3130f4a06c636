// PodGC: what kube-controller-manager's pod garbage collector does, in-process on the sim API server's store. Pods
// bound to a Node that stays missing for the quarantine, unscheduled pods that are terminating, terminating pods on
// a NotReady Node tainted out-of-service, and terminated pods above the threshold are marked Failed (the orphans
// with a DisruptionTarget condition) and force-deleted. It follows the store's change feed and the pods-by-node
// index, never rescans all pods; the quarantine and the threshold checks run on the sim's clock.
import { rfc3339Seconds } from '../../shared/api/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { WorkQueue } from './work-queue.ts';
import type { SimClock, SimTimer } from '../clock.ts';
import { ApiError, LocalApi, type JsonObject, type KindInfo, type ResourceRef, type SimContext, type StoreEvent, type StoredObject } from '../apiserver/index.ts';
import { arrayAt, isObject, numberAt, objectAt, stringAt } from '../apiserver/json-value.ts';

const PODS: ResourceRef = { apiVersion: 'v1', resource: 'pods' };
const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';
/** The condition upstream adds to an orphan before deleting it (seen on the testbed). */
const ORPHAN_CONDITION = { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' } as const;

export interface PodGCOptions {
  /** Simulated ms a Node must stay missing before the pods bound to it go (upstream quarantineTime). @default 40000 */
  quarantineMs?: number;
  /** kube-controller-manager's --terminated-pod-gc-threshold; 0 turns that part off. @default 12500 */
  terminatedPodThreshold?: number;
  /** Simulated ms from going above the threshold to deleting the oldest terminated pods (upstream gcCheckPeriod). @default 20000 */
  checkPeriodMs?: number;
  /** Pods handled per turn of the event loop. @default 500 */
  batch?: number;
}

export interface PodGCStats {
  /** Pods deleted because their Node stayed missing for the quarantine. */
  orphaned: number;
  unscheduledTerminating: number;
  outOfService: number;
  terminated: number;
  conflicts: number;
  /** Messages of writes that failed otherwise (the newest 20). */
  errors: string[];
}

type Reason = 'orphaned' | 'unscheduledTerminating' | 'outOfService' | 'terminated';

function isTerminatedPhase(phase: string | undefined): boolean {
  return phase === 'Succeeded' || phase === 'Failed';
}

/** NotReady (no Ready=True condition) and tainted `node.kubernetes.io/out-of-service`, as gcTerminating requires. */
function outOfService(node: JsonObject): boolean {
  const tainted = (arrayAt(objectAt(node, 'spec'), 'taints') ?? []).some((t) => isObject(t) && stringAt(t, 'key') === OUT_OF_SERVICE);
  const ready = (arrayAt(objectAt(node, 'status'), 'conditions') ?? []).some((c) => isObject(c) && stringAt(c, 'type') === 'Ready' && stringAt(c, 'status') === 'True');
  return tainted && !ready;
}

export class PodGC {
  private readonly api: LocalApi;
  private readonly quarantineMs: number;
  private readonly threshold: number;
  private readonly checkPeriodMs: number;
  private readonly podKind: KindInfo;
  private readonly nodeKind: KindInfo;
  private readonly nodeField: number;
  private readonly phaseField: number;
  /** Missing Node name -> the timer that ends its quarantine. */
  private readonly quarantine = new Map<string, SimTimer>();
  /** Nodes NotReady and tainted out-of-service. */
  private readonly outOfServiceNodes = new Set<string>();
  /** Keys of pods in phase Succeeded or Failed. */
  private readonly terminated = new Set<string>();
  private terminatedTimer: SimTimer | undefined;
  /** Work by pod key, each once however often it was asked. */
  private readonly queue: WorkQueue;
  /** True while collect() writes. */
  private writing = false;
  private unsubscribe: (() => void) | undefined;
  private readonly totals: PodGCStats = { orphaned: 0, unscheduledTerminating: 0, outOfService: 0, terminated: 0, conflicts: 0, errors: [] };

  constructor(
    private readonly ctx: SimContext,
    private readonly clock: SimClock,
    options: PodGCOptions = {},
  ) {
    this.api = new LocalApi(ctx);
    this.quarantineMs = options.quarantineMs ?? 40_000;
    this.threshold = options.terminatedPodThreshold ?? 12_500;
    this.checkPeriodMs = options.checkPeriodMs ?? 20_000;
    this.queue = new WorkQueue(options.batch ?? 500);
    const pods = ctx.kinds.lookup('', 'v1', 'pods');
    const nodes = ctx.kinds.lookup('', 'v1', 'nodes');
    if (!pods || !nodes) throw new Error('PodGC: the server serves no v1 pods or nodes');
    this.podKind = pods;
    this.nodeKind = nodes;
    this.nodeField = pods.fieldLabels.indexOf('spec.nodeName');
    this.phaseField = pods.fieldLabels.indexOf('status.phase');
  }

  /** Follows the store from now on; Nodes and pods already there are looked at as a first sync would. */
  start(): void {
    if (this.unsubscribe) throw new Error('PodGC.start: already started');
    this.queue.start();
    this.unsubscribe = this.ctx.store.subscribe((e) => this.observe(e));
    for (const kind of [this.nodeKind, this.podKind]) {
      for (const object of [...this.ctx.store.collection(kind).objects.values()]) this.observe({ type: 'ADDED', kind, object, previous: undefined });
    }
  }

  /** Stops following the store; quarantines and work not done yet are dropped. */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    for (const t of this.quarantine.values()) this.clock.clearTimeout(t);
    this.quarantine.clear();
    if (this.terminatedTimer) this.clock.clearTimeout(this.terminatedTimer);
    this.terminatedTimer = undefined;
    this.queue.stop();
  }

  /** Resolves once no pod is waiting to be handled (quarantines still running are not waited for). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Names of the Nodes whose quarantine is running. */
  quarantined(): string[] {
    return [...this.quarantine.keys()].sort();
  }

  stats(): PodGCStats {
    return { ...this.totals, errors: [...this.totals.errors] };
  }

  /** Synchronous, from inside the store's write: bookkeeping only, and queue what to do. */
  private observe(e: StoreEvent): void {
    if (e.kind.group === '' && e.kind.resource === 'nodes') this.observeNode(e);
    else if (e.kind.group === '' && e.kind.resource === 'pods') this.observePod(e);
  }

  private observeNode(e: StoreEvent): void {
    const name = e.object.name;
    if (e.type === 'DELETED') {
      this.outOfServiceNodes.delete(name);
      if (this.podsOn(name).length > 0) this.startQuarantine(name);
      return;
    }
    const timer = this.quarantine.get(name);
    if (timer) {
      // Back before the quarantine ended: upstream's check finds it and deletes nothing.
      this.clock.clearTimeout(timer);
      this.quarantine.delete(name);
    }
    const was = this.outOfServiceNodes.has(name);
    const now = e.object.json.includes(OUT_OF_SERVICE) && outOfService(JSON.parse(e.object.json) as JsonObject);
    if (now === was) return;
    if (!now) {
      this.outOfServiceNodes.delete(name);
      return;
    }
    this.outOfServiceNodes.add(name);
    for (const key of this.podsOn(name)) this.queue.enqueue(key, () => this.collect(key, 'outOfService'));
  }

  private observePod(e: StoreEvent): void {
    const o = e.object;
    if (e.type === 'DELETED') {
      this.terminated.delete(o.key);
      return;
    }
    if (this.threshold > 0) {
      if (isTerminatedPhase(o.fields[this.phaseField])) this.terminated.add(o.key);
      else this.terminated.delete(o.key);
      if (this.terminated.size > this.threshold) this.terminatedTimer ??= this.clock.setTimeout(() => this.collectTerminated(), this.checkPeriodMs, { unref: true });
    }
    // Our own writes (marking Failed) start nothing new: the pod is being deleted.
    if (this.writing) return;
    const node = o.fields[this.nodeField] ?? '';
    // Cheap and never misses; collect() reads the pod before acting.
    const terminating = o.json.includes('"deletionTimestamp"');
    if (node === '') {
      if (terminating) this.queue.enqueue(o.key, () => this.collect(o.key, 'unscheduledTerminating'));
    } else if (!this.ctx.store.get(this.nodeKind, '', node)) this.startQuarantine(node);
    else if (terminating && this.outOfServiceNodes.has(node)) this.queue.enqueue(o.key, () => this.collect(o.key, 'outOfService'));
  }

  /** Keys of the pods bound to `node`, in key order (the index is a set, its order that of the writes). */
  private podsOn(node: string): string[] {
    return [...(this.ctx.store.collection(this.podKind).byNode?.get(node) ?? [])].sort();
  }

  private startQuarantine(node: string): void {
    if (!this.unsubscribe || this.quarantine.has(node)) return;
    const timer = this.clock.setTimeout(() => {
      this.quarantine.delete(node);
      if (this.ctx.store.get(this.nodeKind, '', node)) return;
      for (const key of this.podsOn(node)) this.queue.enqueue(key, () => this.collect(key, 'orphaned'));
    }, this.quarantineMs, { unref: true });
    this.quarantine.set(node, timer);
  }

  /** gcTerminated: above the threshold, the surplus goes, evicted pods first, then oldest first. */
  private collectTerminated(): void {
    this.terminatedTimer = undefined;
    const surplus = this.terminated.size - this.threshold;
    if (surplus <= 0 || !this.unsubscribe) return;
    const pods = this.ctx.store.collection(this.podKind).objects;
    const ranked = [...this.terminated].flatMap((key) => {
      const stored = pods.get(key);
      if (!stored) return [];
      const obj = JSON.parse(stored.json) as JsonObject;
      const status = objectAt(obj, 'status');
      const evicted = stringAt(status, 'phase') === 'Failed' && stringAt(status, 'reason') === 'Evicted';
      return [{ key, name: stored.name, evicted, created: stringAt(objectAt(obj, 'metadata'), 'creationTimestamp') ?? '' }];
    });
    // Evicted first (they are not a controller's record of work done), then creation time; name and key for a total order.
    ranked.sort((a, b) => Number(b.evicted) - Number(a.evicted) || a.created.localeCompare(b.created) || a.name.localeCompare(b.name) || a.key.localeCompare(b.key));
    for (const { key } of ranked.slice(0, surplus)) this.queue.enqueue(key, () => this.collect(key, 'terminated'));
  }

  /** Checks the reason still holds for the pod as stored now, then marks it Failed and force-deletes it. */
  private collect(key: string, reason: Reason): void {
    const stored = this.ctx.store.collection(this.podKind).objects.get(key);
    if (!stored) return;
    const obj = JSON.parse(stored.json) as JsonObject;
    const meta = objectAt(obj, 'metadata');
    const node = stringAt(objectAt(obj, 'spec'), 'nodeName') ?? '';
    const terminating = stringAt(meta, 'deletionTimestamp') !== undefined;
    const holds: Record<Reason, () => boolean> = {
      orphaned: () => node !== '' && !this.ctx.store.get(this.nodeKind, '', node),
      unscheduledTerminating: () => node === '' && terminating,
      outOfService: () => terminating && this.outOfServiceNodes.has(node) && this.ctx.store.get(this.nodeKind, '', node) !== undefined,
      terminated: () => this.terminated.has(key) && this.terminated.size > this.threshold,
    };
    if (!holds[reason]()) return;
    this.write(key, () => this.collect(key, reason), () => {
      this.markFailed(stored, obj, reason === 'orphaned');
      this.api.delete(PODS, stored.namespace, stored.name, { gracePeriodSeconds: 0, preconditions: { uid: stored.uid } });
      this.totals[reason]++;
    });
  }

  /**
   * As upstream before deleting: phase Failed (a pod no kubelet finishes would show Running forever), an orphan with
   * the DisruptionTarget condition. A status update preconditioned on the version read (a strategic merge patch
   * would drop the condition's `lastProbeTime: null`, which the testbed shows).
   */
  private markFailed(stored: StoredObject, obj: JsonObject, orphaned: boolean): void {
    const status = objectAt(obj, 'status') ?? {};
    if (isTerminatedPhase(stringAt(status, 'phase'))) return;
    const generation = numberAt(objectAt(obj, 'metadata'), 'generation');
    const observed: JsonObject = generation !== undefined ? { observedGeneration: generation } : {};
    const next: JsonObject = { ...status, phase: 'Failed', ...observed };
    if (orphaned) {
      const others = (arrayAt(status, 'conditions') ?? []).filter((c) => !(isObject(c) && stringAt(c, 'type') === ORPHAN_CONDITION.type));
      next['conditions'] = [...others, { ...ORPHAN_CONDITION, ...observed, lastProbeTime: null, lastTransitionTime: rfc3339Seconds(this.ctx.clock.now()) }];
    }
    this.api.update(PODS, stored.namespace, stored.name, { ...obj, status: next }, 'status');
  }

  /** One pod's writes: gone meanwhile is done, a conflict is decided again from the new version, anything else is counted. */
  private write(key: string, retry: () => void, fn: () => void): void {
    this.writing = true;
    try {
      fn();
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return;
      if (err instanceof ApiError && err.code === 409) {
        this.totals.conflicts++;
        this.queue.enqueue(key, retry);
        return;
      }
      this.totals.errors = [...this.totals.errors, errorMessage(err)].slice(-20);
    } finally {
      this.writing = false;
    }
  }
}
