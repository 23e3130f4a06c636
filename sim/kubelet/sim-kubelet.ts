// SimKubelet: plays the kubelet for many fake nodes against a real API server (as kwok does).
import type { KubeConfig, V1Node } from '@kubernetes/client-node';
import { parseScenario, type Scenario, type ScenarioAction } from '../generator/scenario.ts';
import { realClock, type Clock } from './clock.ts';
import { SIM_GPU_DRIVER, gpuDeviceClass, gpuResourceSlice, type ClusterObject } from './dra-driver.ts';
import { HostProcesses, type HostProcessOptions } from './host-process.ts';
import { KubeletApi } from './kubelet-api.ts';
import { silentLogger, type SimLogger } from './logger.ts';
import { NodeFleet } from './node-fleet.ts';
import type { ConditionStatus } from './node-status.ts';
import { PodFeed, type PodSyncMode } from './pod-feed.ts';
import { PodRunner, type PodRunnerStats } from './pod-runner.ts';
import { NodeReboots } from './reboot.ts';
import { parsePodSelector, type PodSelectorInput } from './pod-selector.ts';
import { ScenarioTimers, type ScenarioResult } from './scenario-clock.ts';
import { WorkQueue } from './work-queue.ts';

export interface SimKubeletOptions {
  kubeConfig: KubeConfig;
  /** The nodes to play, as `generateCluster` makes them (metadata, spec, status capacity and nodeInfo). */
  nodes: readonly V1Node[];
  /** Lease renewal period per node. @default 10000 */
  heartbeatIntervalMs?: number;
  /** Ready condition refresh (lastHeartbeatTime) per node. @default 60000 */
  nodeStatusIntervalMs?: number;
  /** Pending pod to Running. @default 500 */
  podStartDelayMs?: number;
  /** LIST period in poll mode. @default 500 */
  pollIntervalMs?: number;
  /** Paged LIST every pollIntervalMs, or LIST then WATCH. @default 'poll' up to 500 nodes, else 'watch' */
  podSync?: PodSyncMode;
  /** LIST page size. @default 500 */
  pageSize?: number;
  /** Node writes (leases, status) in flight. @default 32 */
  heartbeatConcurrency?: number;
  /** Pod writes in flight. @default 32 */
  podConcurrency?: number;
  /** Run time of Job pods without the kmaint.io/sim-run-seconds annotation. @default 5 */
  defaultJobRunSeconds?: number;
  /** NotReady time of a node rebooted by kmaint's reboot pod (reboot.ts). @default 3 */
  rebootSeconds?: number;
  /** Stop time of deleted pods without an override; unset means their whole grace period. @default undefined */
  defaultTerminationSeconds?: number;
  /**
   * Play NVIDIA's DRA GPU driver too: at start, create the DeviceClass gpu.nvidia.com (kept if there) and one
   * ResourceSlice per node with nvidia.com/gpu capacity (dra-driver.ts). Needs an API server serving resource.k8s.io/v1.
   * @default false
   */
  draGpus?: boolean;
  /**
   * Run kmaint's own pods (by image, default `kmaint`, or label kmaint.io/sim-host-process=true) as host processes of
   * the bundled CLI (host-process.ts). Needs root (hostProcessUnsupported() says why not). @default undefined: simulated
   */
  hostProcesses?: HostProcessOptions;
  clock?: Clock;
  logger?: SimLogger;
}

export interface NodeConditionInput {
  type: string;
  status: ConditionStatus;
  reason: string;
  message?: string;
}

export type { ScenarioResult };

export class SimKubelet {
  private readonly log: SimLogger;
  private readonly fleet: NodeFleet;
  private readonly runner: PodRunner;
  private readonly podWrites: WorkQueue;
  private readonly feed: PodFeed;
  private readonly scenarios: ScenarioTimers;
  private readonly podSync: PodSyncMode;
  private state: 'new' | 'running' | 'stopped' = 'new';
  private readonly api: KubeletApi;
  private readonly draGpus: boolean;
  private readonly hosts: HostProcesses | undefined;
  private readonly reboots: NodeReboots;

  constructor(options: SimKubeletOptions) {
    const clock = options.clock ?? realClock;
    const log = (this.log = options.logger ?? silentLogger);
    const api = (this.api = new KubeletApi(options.kubeConfig));
    this.draGpus = options.draGpus ?? false;
    this.podSync = options.podSync ?? (options.nodes.length > 500 ? 'watch' : 'poll');
    this.fleet = new NodeFleet(
      api,
      clock,
      options.nodes,
      {
        heartbeatIntervalMs: options.heartbeatIntervalMs ?? 10_000,
        nodeStatusIntervalMs: options.nodeStatusIntervalMs ?? 60_000,
        concurrency: options.heartbeatConcurrency ?? 32,
      },
      log,
      (name) => this.runner.reevaluateNode(name),
    );
    this.hosts = options.hostProcesses ? new HostProcesses(api, options.hostProcesses, log, (uid) => this.runner.hostProcessExited(uid)) : undefined;
    this.reboots = new NodeReboots(this.fleet, clock, { rebootSeconds: options.rebootSeconds ?? 3 }, log, (name) => this.runner.restartNodePods(name));
    this.podWrites = new WorkQueue(options.podConcurrency ?? 32, (key, err) => log.warn({ err, pod: key }, 'simulated kubelet: pod write failed'));
    this.runner = new PodRunner(
      api,
      clock,
      this.podWrites,
      this.fleet,
      {
        podStartDelayMs: options.podStartDelayMs ?? 500,
        defaultJobRunSeconds: options.defaultJobRunSeconds ?? 5,
        ...(options.defaultTerminationSeconds !== undefined ? { defaultTerminationSeconds: options.defaultTerminationSeconds } : {}),
      },
      log,
      this.hosts,
      (name) => void this.reboots.reboot(name).catch((err: unknown) => log.warn({ err, node: name }, 'simulated kubelet: reboot failed')),
    );
    this.feed = new PodFeed(api, clock, this.runner, { mode: this.podSync, pollIntervalMs: options.pollIntervalMs ?? 500, pageSize: options.pageSize ?? 500 }, log);
    this.scenarios = new ScenarioTimers(clock);
  }

  /**
   * Registers every node (an existing Node is kept), posts Ready status and creates its Lease, lists
   * the pods once, then keeps heartbeating and running pods in the background. Resolves when the
   * nodes are Ready in the API.
   */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`SimKubelet.start: already ${this.state}`);
    this.state = 'running';
    await this.fleet.register();
    if (this.draGpus) await this.publishGpuSlices();
    this.log.info({ nodes: this.stats().nodes, podSync: this.podSync }, 'simulated kubelet: nodes registered and Ready');
    await this.feed.start();
    this.fleet.startHeartbeats();
  }

  /** The DeviceClass and each GPU node's ResourceSlice; ones already there (a restarted kubelet) are kept. */
  private async publishGpuSlices(): Promise<void> {
    const create = async (plural: string, object: ClusterObject): Promise<void> => {
      // 404: the API server does not serve resource.k8s.io/v1 (the embedded sim, or DRA switched off): say so, loudly.
      if ((await this.api.createClusterObject(object.apiVersion, plural, object)) === 'notFound') {
        throw new Error(`SimKubelet draGpus: the API server does not serve ${object.apiVersion} ${plural}`);
      }
    };
    await create('deviceclasses', gpuDeviceClass());
    let slices = 0;
    for (const node of this.fleet.all()) {
      const slice = gpuResourceSlice(node.manifest, node.uid);
      if (slice === undefined) continue;
      await create('resourceslices', slice);
      slices++;
    }
    this.log.info({ driver: SIM_GPU_DRIVER, slices }, 'simulated kubelet: DRA GPU driver published its ResourceSlices');
  }

  /** Stops heartbeats, pod handling and pending scenario actions; waits for writes in flight. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    this.scenarios.cancelAll();
    this.reboots.stop();
    this.runner.stop();
    await this.feed.stop();
    await Promise.all([this.fleet.stop(), this.podWrites.close(), this.hosts?.stopAll()]);
  }

  stats(): { nodes: number; heartbeating: number; pods: PodRunnerStats } {
    const nodes = [...this.fleet.all()].filter((n) => !n.gone);
    return { nodes: nodes.length, heartbeating: nodes.filter((n) => n.heartbeating).length, pods: this.runner.stats() };
  }

  /**
   * Ready=False (reason KubeletNotReady unless given) and, unless told otherwise, no more heartbeats,
   * so the node lifecycle controller later turns it Unknown. Ready=true resumes heartbeats.
   */
  /** `freezePods` (with stopped heartbeats): a dead node, whose deleted pods stay Terminating. @default false */
  async setNodeReady(name: string, ready: boolean, options: { stopHeartbeats?: boolean; freezePods?: boolean; reason?: string; message?: string } = {}): Promise<void> {
    const node = this.fleet.get(name);
    node.ready = ready;
    if (options.reason !== undefined) node.notReadyReason = options.reason;
    if (options.message !== undefined) node.notReadyMessage = options.message;
    if (ready) return this.resumeHeartbeats(name);
    await this.fleet.postStatus(node, false);
    if (options.stopHeartbeats ?? true) node.heartbeating = false;
    if ((options.stopHeartbeats ?? true) && options.freezePods === true) {
      node.podsFrozen = true;
      this.runner.reevaluateNode(name);
    }
  }

  /**
   * Holds (or lets go) the node's periodic status posts; its Lease is still renewed, so the Node stays Ready. A real
   * kubelet posts an unchanged status only every nodeStatusReportFrequency (5 min); this one every
   * nodeStatusIntervalMs, and a test whose writes are preconditioned on the Node's resourceVersion holds them so they
   * race none. Resolves once no post is in flight. Explicit posts (setNodeReady, setNodeCondition) still go out.
   */
  async holdStatusPosts(name: string, held: boolean): Promise<void> {
    const node = this.fleet.get(name);
    node.statusPostsHeld = held;
    await node.statusTail;
  }

  /** Whether this kubelet runs node `name` (and it was not deleted). */
  hasNode(name: string): boolean {
    return this.fleet.has(name);
  }

  /** Adds or replaces a condition by type (it may also replace the kubelet's own, e.g. Ready=Unknown). */
  async setNodeCondition(name: string, condition: NodeConditionInput): Promise<void> {
    const node = this.fleet.get(name);
    node.extra.set(condition.type, { ...condition, message: condition.message ?? '' });
    await this.fleet.postStatus(node, false);
  }

  /**
   * No more Lease renewals or status posts: the node's kubelet is gone or partitioned. By default
   * its pods freeze too (a terminating pod stays terminating), as on a real unreachable node.
   */
  async stopHeartbeats(name: string, options: { freezePods?: boolean } = {}): Promise<void> {
    const node = this.fleet.get(name);
    node.heartbeating = false;
    node.podsFrozen = options.freezePods ?? true;
    this.runner.reevaluateNode(name);
  }

  async resumeHeartbeats(name: string): Promise<void> {
    const node = this.fleet.get(name);
    node.heartbeating = true;
    node.podsFrozen = false;
    await this.fleet.postStatus(node, true);
    await this.fleet.renewLease(node);
    this.runner.reevaluateNode(name);
  }

  /** `false`: the node's reboots never come back (it stays NotReady, its boot ID unchanged); `true` lets them again. */
  setRebootComesBack(name: string, comesBack: boolean): Promise<void> {
    return this.reboots.setComesBack(name, comesBack);
  }

  /** The node reboots now, as its reboot pod would make it: from outside, as EC2 RebootInstances does (tests' fake EC2). */
  rebootNode(name: string): Promise<void> {
    return this.reboots.reboot(name);
  }

  /** How many times kmaint's reboot pod has rebooted node `name` on this kubelet. */
  rebootCount(name: string): number {
    return this.reboots.count.get(name) ?? 0;
  }

  /** Deleted pods matching the selector take `seconds` to stop (still capped by their grace period). */
  async setTerminationDelay(selector: PodSelectorInput, seconds: number): Promise<void> {
    if (!(seconds >= 0)) throw new RangeError(`setTerminationDelay: seconds must be >= 0, got ${seconds}`);
    this.runner.terminationDelay.add(parsePodSelector(selector), seconds);
    this.runner.reevaluateAll();
  }

  /** Matching pods run but never turn Ready (already Ready ones turn NotReady). */
  async neverReady(selector: PodSelectorInput): Promise<void> {
    this.runner.neverReady.add(parsePodSelector(selector), true);
    this.runner.reevaluateAll();
  }

  /** The instance is gone: heartbeats stop and the Node object is deleted (its pods are left to pod GC). */
  deleteNode(name: string): Promise<void> {
    return this.fleet.delete(this.fleet.get(name));
  }

  /** Runs a scenario (parsed, or the text of a scenario file) at its offsets from now. */
  applyScenario(scenario: Scenario | string): Promise<ScenarioResult> {
    const parsed = typeof scenario === 'string' ? parseScenario(scenario) : scenario;
    return this.scenarios.run(parsed.actions, (action) => {
      this.log.info({ action }, 'simulated kubelet: scenario action');
      return this.perform(action).catch((err: unknown) => {
        this.log.error({ err, action }, 'simulated kubelet: scenario action failed');
        throw err;
      });
    });
  }

  private async perform(action: ScenarioAction): Promise<void> {
    switch (action.action) {
      case 'makeNotReady':
        return this.setNodeReady(action.node, false, { stopHeartbeats: action.stopHeartbeats });
      case 'makeReady':
        return this.setNodeReady(action.node, true);
      case 'addCondition':
        return this.setNodeCondition(action.node, action.condition);
      case 'stopHeartbeats':
        return this.stopHeartbeats(action.node, { freezePods: action.freezePods });
      case 'resumeHeartbeats':
        return this.resumeHeartbeats(action.node);
      case 'slowTermination':
        return this.setTerminationDelay(action.pods, action.seconds);
      case 'neverReady':
        return this.neverReady(action.pods);
      case 'deleteNode':
        return this.deleteNode(action.node);
    }
  }
}
