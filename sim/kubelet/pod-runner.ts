// Runs the pods bound to the simulated nodes: start them, finish Job pods, stop deleted ones.
import type { V1Pod } from '@kubernetes/client-node';
import type { Clock, TimerHandle } from './clock.ts';
import type { KubeletApi } from './kubelet-api.ts';
import type { SimLogger } from './logger.ts';
import { decidePod, type PodDecision, type PodTiming } from './pod-decision.ts';
import type { PodSink } from './pod-feed.ts';
import { SelectorOverrides } from './pod-selector.ts';
import type { HostProcesses } from './host-process.ts';
import { isRebootPod } from './reboot-pod.ts';
import { exitedStatusPatch, runningStatusPatch, succeededStatusPatch } from './pod-status.ts';
import { isStale, toPodView, type PodView } from './pod-view.ts';
import type { WorkQueue } from './work-queue.ts';

/** What the pod runner needs to know about the simulated nodes. */
export interface NodeDirectory {
  /** The node is run by this kubelet and not deleted. */
  manages(nodeName: string): boolean;
  /** The node's kubelet is partitioned: its pods get no updates. */
  frozen(nodeName: string): boolean;
  hostIP(nodeName: string): string;
  /** The next pod IP from the node's pod CIDR. */
  allocatePodIP(nodeName: string): string;
}

export interface PodRunnerStats {
  tracked: number;
  started: number;
  readinessChanged: number;
  succeeded: number;
  deleted: number;
  /** Host processes (kmaint's pods) that exited and were reported. */
  exited: number;
}

export class PodRunner implements PodSink {
  readonly neverReady = new SelectorOverrides<true>();
  readonly terminationDelay = new SelectorOverrides<number>();
  private readonly pods = new Map<string, PodView>();
  private readonly byNode = new Map<string, Set<string>>();
  private readonly firstSeen = new Map<string, number>();
  private readonly terminatingSince = new Map<string, number>();
  private readonly deleteIssued = new Set<string>();
  private readonly timers = new Map<string, { at: number; handle: TimerHandle }>();
  private resyncSeen: Set<string> | undefined;
  private stopped = false;
  private readonly counts = { started: 0, readinessChanged: 0, succeeded: 0, deleted: 0, exited: 0 };
  /** The latest object of each pod run as a host process (its env and command come from the spec). */
  private readonly hostPods = new Map<string, V1Pod>();

  constructor(
    private readonly api: KubeletApi,
    private readonly clock: Clock,
    private readonly queue: WorkQueue,
    private readonly nodes: NodeDirectory,
    private readonly timing: PodTiming,
    private readonly log: SimLogger,
    private readonly hosts?: HostProcesses,
    /** A reboot pod (reboot.ts) ended Succeeded on this node: the node reboots. */
    private readonly onRebootPodDone?: (nodeName: string) => void,
  ) {}

  /** A host process exited: report it. */
  hostProcessExited(uid: string): void {
    this.evaluate(uid);
  }

  stats(): PodRunnerStats {
    return { tracked: this.pods.size, ...this.counts };
  }

  beginResync(): void {
    this.resyncSeen = new Set();
  }

  endResync(): void {
    const seen = this.resyncSeen;
    this.resyncSeen = undefined;
    if (!seen) return;
    for (const uid of [...this.pods.keys()]) if (!seen.has(uid)) this.forget(uid);
  }

  upsert(pod: V1Pod): void {
    const view = toPodView(pod);
    if (!view.uid) return;
    this.resyncSeen?.add(view.uid);
    if (!this.nodes.manages(view.nodeName)) {
      if (this.pods.has(view.uid)) this.forget(view.uid);
      return;
    }
    if (isStale(this.pods.get(view.uid), view)) return;
    // A reboot pod is never a host process, whatever its image: its command reboots hosts.
    if (this.hosts?.matches(pod) && !isRebootPod(view.labels)) this.hostPods.set(view.uid, pod);
    this.store(view);
    this.evaluate(view.uid);
  }

  remove(uid: string): void {
    this.forget(uid);
  }

  /** Decide again for the pods of one node (it was frozen, thawed, or deleted). */
  reevaluateNode(nodeName: string): void {
    for (const uid of [...(this.byNode.get(nodeName) ?? [])]) {
      if (this.nodes.manages(nodeName)) this.evaluate(uid);
      else this.forget(uid);
    }
  }

  /** The node rebooted: each of its running pods starts again now (new start times), none of them deleted. */
  restartNodePods(nodeName: string): void {
    for (const uid of [...(this.byNode.get(nodeName) ?? [])]) {
      const view = this.pods.get(uid);
      if (!view || view.deleting || view.phase !== 'Running') continue;
      this.queue.add(uid, async () => {
        const now = this.clock.now();
        const body = runningStatusPatch(view, { now, startedAt: now, ready: view.ready, podIP: view.podIP ?? this.nodes.allocatePodIP(nodeName), hostIP: this.nodes.hostIP(nodeName) });
        const result = await this.api.patchPodStatus(view.namespace, view.name, body);
        if (result === 'notFound') return this.forget(uid);
        this.upsert(result);
      });
    }
  }

  /** Decide again for every pod (a selector override changed). */
  reevaluateAll(): void {
    for (const uid of [...this.pods.keys()]) this.evaluate(uid);
  }

  stop(): void {
    this.stopped = true;
    for (const { handle } of this.timers.values()) this.clock.clearTimeout(handle);
    this.timers.clear();
  }

  private store(view: PodView): void {
    const now = this.clock.now();
    this.pods.set(view.uid, view);
    let onNode = this.byNode.get(view.nodeName);
    if (!onNode) this.byNode.set(view.nodeName, (onNode = new Set()));
    onNode.add(view.uid);
    if (!this.firstSeen.has(view.uid)) this.firstSeen.set(view.uid, now);
    if (view.deleting && !this.terminatingSince.has(view.uid)) this.terminatingSince.set(view.uid, now);
  }

  private forget(uid: string): void {
    this.clearTimer(uid);
    const view = this.pods.get(uid);
    if (view) this.byNode.get(view.nodeName)?.delete(uid);
    this.pods.delete(uid);
    this.firstSeen.delete(uid);
    this.terminatingSince.delete(uid);
    this.deleteIssued.delete(uid);
    this.hostPods.delete(uid);
    this.hosts?.forget(uid);
  }

  private decide(view: PodView): PodDecision {
    const terminatingSinceMs = this.terminatingSince.get(view.uid);
    const override = this.terminationDelay.lookup(view);
    return decidePod(
      view,
      {
        firstSeenMs: this.firstSeen.get(view.uid) ?? this.clock.now(),
        ...(terminatingSinceMs !== undefined ? { terminatingSinceMs } : {}),
        deleteIssued: this.deleteIssued.has(view.uid),
        neverReady: view.neverReady === true || this.neverReady.lookup(view) === true,
        ...(override !== undefined ? { terminationOverrideSeconds: override } : {}),
        ...(this.hosts && this.hostPods.has(view.uid) ? { host: this.hosts.facts(view.uid) } : {}),
      },
      this.timing,
    );
  }

  private evaluate(uid: string): void {
    const view = this.pods.get(uid);
    if (this.stopped || !view || this.nodes.frozen(view.nodeName)) return this.clearTimer(uid);
    const decision = this.decide(view);
    if (decision.kind === 'none') return this.clearTimer(uid);
    const now = this.clock.now();
    if (decision.at <= now) {
      this.clearTimer(uid);
      this.queue.add(uid, () => this.act(uid));
      return;
    }
    const existing = this.timers.get(uid);
    if (existing?.at === decision.at) return;
    this.clearTimer(uid);
    const handle = this.clock.setTimeout(() => {
      this.timers.delete(uid);
      this.evaluate(uid);
    }, decision.at - now);
    this.timers.set(uid, { at: decision.at, handle });
  }

  private clearTimer(uid: string): void {
    const timer = this.timers.get(uid);
    if (timer) this.clock.clearTimeout(timer.handle);
    this.timers.delete(uid);
  }

  /** Runs from the work queue: decides once more with the latest view, then makes one write. */
  private async act(uid: string): Promise<void> {
    const view = this.pods.get(uid);
    if (!view || this.nodes.frozen(view.nodeName)) return;
    const decision = this.decide(view);
    const now = this.clock.now();
    if (decision.kind === 'none' || decision.at > now) return this.evaluate(uid);
    const { namespace, name } = view;
    switch (decision.kind) {
      case 'start':
      case 'setReady': {
        const podIP = view.podIP ?? this.nodes.allocatePodIP(view.nodeName);
        const hostIP = this.nodes.hostIP(view.nodeName);
        const hostPod = decision.kind === 'start' ? this.hostPods.get(uid) : undefined;
        // The sandbox's addresses exist before the container starts: its downward API sees them.
        if (hostPod) await this.hosts?.start({ ...hostPod, status: { ...hostPod.status, podIP, podIPs: [{ ip: podIP }], hostIP, hostIPs: [{ ip: hostIP }] } });
        const body = runningStatusPatch(view, { now, startedAt: view.startTimeMs ?? now, ready: decision.ready, podIP, hostIP });
        const result = await this.api.patchPodStatus(namespace, name, body);
        if (result === 'notFound') return this.forget(uid);
        this.counts[decision.kind === 'start' ? 'started' : 'readinessChanged']++;
        this.log.debug({ pod: `${namespace}/${name}`, ready: decision.ready, reason: decision.reason }, 'simulated kubelet: pod running');
        return this.upsert(result);
      }
      case 'succeed': {
        const result = await this.api.patchPodStatus(namespace, name, succeededStatusPatch(view, { now, startedAt: view.startTimeMs ?? now }));
        if (result === 'notFound') return this.forget(uid);
        this.counts.succeeded++;
        this.log.debug({ pod: `${namespace}/${name}`, reason: decision.reason }, 'simulated kubelet: pod succeeded');
        this.upsert(result);
        if (isRebootPod(view.labels)) this.onRebootPodDone?.(view.nodeName);
        return;
      }
      case 'exit': {
        const body = exitedStatusPatch(view, {
          now,
          startedAt: view.startTimeMs ?? now,
          finishedAt: decision.at,
          exitCode: decision.exitCode,
          ...(decision.message !== undefined ? { message: decision.message } : {}),
        });
        const result = await this.api.patchPodStatus(namespace, name, body);
        if (result === 'notFound') return this.forget(uid);
        this.counts.exited++;
        this.log.info({ pod: `${namespace}/${name}`, exitCode: decision.exitCode }, 'simulated kubelet: host process reported');
        return this.upsert(result);
      }
      case 'stop':
        this.hosts?.stop(uid, decision.graceSeconds);
        return this.evaluate(uid);
      case 'delete': {
        const outcome = await this.api.deletePod(namespace, name, uid);
        this.deleteIssued.add(uid);
        this.counts.deleted++;
        this.log.debug({ pod: `${namespace}/${name}`, outcome, reason: decision.reason }, 'simulated kubelet: pod stopped');
        if (outcome !== 'ok') this.forget(uid);
        return;
      }
    }
  }
}
