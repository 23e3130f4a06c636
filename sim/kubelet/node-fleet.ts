// The simulated nodes: registration, Lease renewals and status posts, spread over time and bounded.
import { forEachBounded } from '../../shared/concurrency/index.ts';
import type { V1Node } from '@kubernetes/client-node';
import type { Clock, TimerHandle } from './clock.ts';
import type { KubeletApi } from './kubelet-api.ts';
import type { SimLogger } from './logger.ts';
import {
  LEASE_NAMESPACE,
  internalIp,
  leaseForCreate,
  leaseRenewPatch,
  nextConditions,
  nodeForCreate,
  nodeStatusPatch,
  spreadOffset,
  wantedConditions,
  type SentCondition,
  type WantedCondition,
} from './node-status.ts';
import type { NodeDirectory } from './pod-runner.ts';
import { podIpFor } from './pod-status.ts';
import { WorkQueue } from './work-queue.ts';

export interface SimNode {
  readonly manifest: V1Node;
  readonly name: string;
  uid?: string;
  ready: boolean;
  notReadyReason?: string;
  notReadyMessage?: string;
  readonly extra: Map<string, WantedCondition>;
  sent: SentCondition[];
  fullStatusSent: boolean;
  heartbeating: boolean;
  /** Periodic status posts held (leases still renewed): a test's writes race no heartbeat on this Node. */
  statusPostsHeld: boolean;
  podsFrozen: boolean;
  gone: boolean;
  nextLeaseAt: number;
  nextStatusAt: number;
  readonly hostIP: string;
  readonly podCidr: string;
  podOrdinal: number;
  /** Status writes for one node run one after another, so the last write carries the latest health. */
  statusTail: Promise<void>;
}

export interface NodeFleetOptions {
  heartbeatIntervalMs: number;
  nodeStatusIntervalMs: number;
  concurrency: number;
}

export class NodeFleet implements NodeDirectory {
  private readonly nodes = new Map<string, SimNode>();
  private readonly queue: WorkQueue;
  private ticker: TimerHandle | undefined;
  private stopped = false;

  constructor(
    private readonly api: KubeletApi,
    private readonly clock: Clock,
    manifests: readonly V1Node[],
    private readonly options: NodeFleetOptions,
    private readonly log: SimLogger,
    /** Called when a node stops being run (deleted by anyone). */
    private readonly onNodeGone: (name: string) => void,
  ) {
    manifests.forEach((manifest, index) => {
      const name = manifest.metadata?.name;
      if (!name) throw new Error(`SimKubelet: node #${index} has no metadata.name`);
      if (this.nodes.has(name)) throw new Error(`SimKubelet: node ${name} is listed twice`);
      this.nodes.set(name, {
        manifest,
        name,
        ready: true,
        extra: new Map(),
        sent: [],
        fullStatusSent: false,
        heartbeating: true,
        statusPostsHeld: false,
        podsFrozen: false,
        gone: false,
        nextLeaseAt: 0,
        nextStatusAt: 0,
        hostIP: internalIp(manifest) ?? `10.0.${(index >> 8) & 255}.${index & 255}`,
        podCidr: manifest.spec?.podCIDR ?? `10.${64 + ((index >> 8) & 63)}.${index & 255}.0/24`,
        podOrdinal: 0,
        statusTail: Promise.resolve(),
      });
    });
    this.queue = new WorkQueue(options.concurrency, (key, err) => log.warn({ err, key }, 'simulated kubelet: node write failed'));
  }

  /** Creates each Node (keeping existing ones), posts Ready status, creates or renews its Lease. */
  async register(): Promise<void> {
    const all = [...this.nodes.values()];
    await forEachBounded(all, { limit: this.options.concurrency }, async (node) => {
      const { uid } = await this.api.registerNode(nodeForCreate(node.manifest));
      if (uid) node.uid = uid;
    });
    await forEachBounded(all, { limit: this.options.concurrency }, async (node) => {
      await this.postStatus(node, true);
      await this.renewLease(node);
    });
    const now = this.clock.now();
    const { heartbeatIntervalMs: lease, nodeStatusIntervalMs: status } = this.options;
    // Offsets spread over one whole interval keep the fleet's write rate steady (N per interval); spread
    // over half of it, the nodes wrote in bursts at twice that rate, then not at all.
    all.forEach((node, i) => {
      node.nextLeaseAt = now + spreadOffset(i + 1, all.length, lease);
      node.nextStatusAt = now + spreadOffset(i + 1, all.length, status);
    });
  }

  /** One pass over the nodes every tick; whatever is due goes to the bounded queue. */
  startHeartbeats(): void {
    const tickMs = Math.min(1000, Math.max(50, Math.floor(this.options.heartbeatIntervalMs / 10)));
    this.ticker = this.clock.setTimeout(() => {
      if (this.stopped) return;
      const now = this.clock.now();
      for (const node of this.nodes.values()) {
        if (node.gone || !node.heartbeating) continue;
        if (now >= node.nextLeaseAt) {
          node.nextLeaseAt = now + this.options.heartbeatIntervalMs;
          this.queue.add(`lease/${node.name}`, () => this.renewLease(node));
        }
        if (now >= node.nextStatusAt) {
          node.nextStatusAt = now + this.options.nodeStatusIntervalMs;
          // Held: checked when the write runs, so one queued before the hold is dropped too.
          this.queue.add(`status/${node.name}`, () => (node.statusPostsHeld ? Promise.resolve() : this.postStatus(node, false)));
        }
      }
      this.startHeartbeats();
    }, tickMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.ticker !== undefined) this.clock.clearTimeout(this.ticker);
    await this.queue.close();
  }

  get(name: string): SimNode {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`simulated kubelet does not run node ${name}`);
    return node;
  }

  has(name: string): boolean {
    const node = this.nodes.get(name);
    return node !== undefined && !node.gone;
  }

  all(): IterableIterator<SimNode> {
    return this.nodes.values();
  }

  /** Posts the node's conditions now (after earlier posts for the same node finish). */
  postStatus(node: SimNode, full: boolean): Promise<void> {
    const run = node.statusTail.then(async () => {
      if (node.gone || this.stopped) return;
      const now = this.clock.now();
      const conditions = nextConditions(node.sent, wantedConditions(node), now);
      const outcome = await this.api.patchNodeStatus(node.name, nodeStatusPatch(node.manifest, conditions, now, full || !node.fullStatusSent));
      if (outcome === 'notFound') return this.lost(node);
      node.sent = conditions;
      node.fullStatusSent = true;
    });
    node.statusTail = run.catch(() => {});
    return run;
  }

  async renewLease(node: SimNode): Promise<void> {
    if (node.gone || this.stopped) return;
    const now = this.clock.now();
    const outcome = await this.api.renewLease(LEASE_NAMESPACE, node.name, leaseRenewPatch(node.name, now));
    if (outcome === 'notFound') await this.api.createLease(leaseForCreate(node.name, node.uid, now));
  }

  /** We delete the Node: no more heartbeats, its pods are no longer ours. */
  async delete(node: SimNode): Promise<void> {
    node.gone = true;
    node.heartbeating = false;
    this.onNodeGone(node.name);
    await this.api.deleteNode(node.name);
  }

  /** Someone else deleted the Node: like a real kubelet, we do not register it again. */
  private lost(node: SimNode): void {
    node.gone = true;
    node.heartbeating = false;
    this.log.warn({ node: node.name }, 'simulated kubelet: Node was deleted, no longer running it');
    this.onNodeGone(node.name);
  }

  manages(name: string): boolean {
    return this.nodes.get(name)?.gone === false;
  }

  frozen(name: string): boolean {
    return this.nodes.get(name)?.podsFrozen ?? true;
  }

  hostIP(name: string): string {
    return this.nodes.get(name)?.hostIP ?? '';
  }

  allocatePodIP(name: string): string {
    const node = this.nodes.get(name);
    return node ? podIpFor(node.podCidr, node.podOrdinal++) : '';
  }
}
