// The simulated kubelet's reboots (issue 43). A pod labelled kmaint.io/reboot=true (kmaint's reboot Job) is never run,
// on this machine or anywhere: it ends Succeeded after a second, and its node "reboots" instead: NotReady for a few
// seconds with no heartbeats, then Ready with a new status.nodeInfo.bootID, its pods restarted. A node told not to
// come back stays NotReady (the reboot that never completes).
import { createHash } from 'node:crypto';
import type { Clock, TimerHandle } from './clock.ts';
import type { SimLogger } from './logger.ts';
import type { NodeFleet, SimNode } from './node-fleet.ts';

/** The boot ID after a reboot: derived from the one before, so a seeded cluster reboots to the same IDs every run. */
export function nextBootId(before: string): string {
  const h = createHash('sha256').update(`${before}/reboot`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export interface NodeRebootOptions {
  /** NotReady time of a reboot. @default 3 */
  rebootSeconds: number;
}

export class NodeReboots {
  private readonly stuck = new Set<string>();
  private readonly timers = new Map<string, TimerHandle>();
  /** Reboots begun, per node: tests read it to see that a request rebooted its node exactly once. */
  readonly count = new Map<string, number>();

  constructor(
    private readonly fleet: NodeFleet,
    private readonly clock: Clock,
    private readonly options: NodeRebootOptions,
    private readonly log: SimLogger,
    /** Restart the pods of a node that came back. */
    private readonly restartPods: (nodeName: string) => void,
  ) {}

  /** `false`: the node's next reboots never come back (it stays NotReady); `true` again lets a stuck one come back. */
  setComesBack(name: string, comesBack: boolean): Promise<void> {
    this.fleet.get(name);
    if (comesBack) {
      const wasStuck = this.stuck.delete(name);
      const node = this.fleet.get(name);
      if (wasStuck && !node.ready && !this.timers.has(name)) return this.comeBack(node);
    } else {
      this.stuck.add(name);
    }
    return Promise.resolve();
  }

  /** The node goes down now and, unless told not to, comes back after rebootSeconds. */
  async reboot(name: string): Promise<void> {
    const node = this.fleet.get(name);
    this.count.set(name, (this.count.get(name) ?? 0) + 1);
    node.ready = false;
    node.notReadyReason = 'KubeletNotReady';
    node.notReadyMessage = 'node is rebooting (simulated)';
    await this.fleet.postStatus(node, false);
    node.heartbeating = false;
    this.log.info({ node: name, comesBack: !this.stuck.has(name) }, 'simulated kubelet: node rebooting');
    if (this.stuck.has(name)) return;
    const handle = this.clock.setTimeout(() => {
      this.timers.delete(name);
      this.comeBack(node).catch((err: unknown) => this.log.warn({ err, node: name }, 'simulated kubelet: node did not come back'));
    }, this.options.rebootSeconds * 1000);
    this.timers.set(name, handle);
  }

  stop(): void {
    for (const handle of this.timers.values()) this.clock.clearTimeout(handle);
    this.timers.clear();
  }

  /** Up again: a new boot ID in nodeInfo (a full status post), Ready, heartbeats, and its pods restarted. */
  private async comeBack(node: SimNode): Promise<void> {
    const status = (node.manifest.status ??= {});
    const nodeInfo = (status.nodeInfo ??= { architecture: '', bootID: '', containerRuntimeVersion: '', kernelVersion: '', kubeProxyVersion: '', kubeletVersion: '', machineID: '', operatingSystem: '', osImage: '', systemUUID: '' });
    nodeInfo.bootID = nextBootId(nodeInfo.bootID);
    node.ready = true;
    delete node.notReadyReason;
    delete node.notReadyMessage;
    node.heartbeating = true;
    await this.fleet.postStatus(node, true);
    await this.fleet.renewLease(node);
    this.restartPods(node.name);
    this.log.info({ node: node.name, bootID: nodeInfo.bootID }, 'simulated kubelet: node rebooted');
  }
}
