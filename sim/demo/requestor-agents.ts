// The requestors at work: create their NodeMaintenances, start working on a node once its request is Ready
// (an OS upgrade reboots the node: NotReady for a while), and delete the request when the work is done.
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { ANNOTATION_REBOOT, API_VERSION, GROUP, maintenanceKey, namespacedName, NODE_MAINTENANCE_KIND, NODE_MAINTENANCE_PLURAL, type NodeMaintenance, VERSION } from '../../shared/api/index.ts';
import { readyCondition } from '../../shared/scheduling/index.ts';
import type { SimClock } from '../clock.ts';
import type { PlannedRequest } from './requestors.ts';

/** A rebooting node goes NotReady this long after the work starts, and is back this long before it ends. */
const REBOOT_AFTER_MS = 20_000;
const BACK_BEFORE_END_MS = 40_000;

export interface RequestorEvent {
  kind: 'requestor';
  atMs: number;
  requestor: string;
  key: string;
  node: string;
  message: string;
}

/** What the agents need of the simulated kubelet: restart a node. */
export interface NodeRestarter {
  setNodeReady(name: string, ready: boolean): Promise<void>;
}

type Stage = 'new' | 'created' | 'working' | 'rebooting' | 'back' | 'deleted';

interface Tracked {
  plan: PlannedRequest;
  stage: Stage;
  startedMs?: number;
}

/** What the requestor says when its request turns Ready. */
function workText(plan: PlannedRequest): string {
  const node = plan.spec.nodeName;
  if (plan.annotations?.[ANNOTATION_REBOOT] === 'true') return `${node} rebooted by kmaint`;
  return plan.reboot ? `upgrading ${node} (${Math.round(plan.holdMs / 1000)} s, with a reboot)` : `servicing ${node} (${Math.round(plan.holdMs / 1000)} s)`;
}

export class RequestorAgents {
  private readonly custom: CustomObjectsApi;
  private readonly tracked: Tracked[];

  constructor(
    kubeConfig: KubeConfig,
    private readonly clock: SimClock,
    private readonly nodes: NodeRestarter,
    requests: readonly PlannedRequest[],
    private readonly onEvent: (e: RequestorEvent) => void,
  ) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.tracked = requests.map((plan) => ({ plan, stage: 'new' }));
  }

  private emit(t: Tracked, message: string): void {
    this.onEvent({ kind: 'requestor', atMs: this.clock.nowMs(), requestor: t.plan.spec.requestorID, key: namespacedName(t.plan), node: t.plan.spec.nodeName, message });
  }

  async createAll(): Promise<void> {
    for (const t of this.tracked) {
      if (t.stage !== 'new') continue;
      const { namespace, name, spec, annotations } = t.plan;
      await this.custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: NODE_MAINTENANCE_PLURAL,
        body: { apiVersion: API_VERSION, kind: NODE_MAINTENANCE_KIND, metadata: { name, namespace, ...(annotations ? { annotations } : {}) }, spec },
      });
      t.stage = 'created';
    }
  }

  /** Moves each request's work along: start on Ready, reboot, come back, delete when done. */
  async tick(maintenances: readonly NodeMaintenance[]): Promise<void> {
    const now = this.clock.nowMs();
    const byKey = new Map(maintenances.map((nm) => [maintenanceKey(nm), nm]));
    for (const t of this.tracked) {
      const { plan } = t;
      const node = plan.spec.nodeName;
      if (t.stage === 'created') {
        const nm = byKey.get(namespacedName(plan));
        if (nm && readyCondition(nm)?.status === 'True') {
          t.stage = 'working';
          t.startedMs = now;
          this.emit(t, workText(plan));
        }
        continue;
      }
      const started = t.startedMs ?? now;
      if (t.stage === 'working' && plan.reboot && now >= started + REBOOT_AFTER_MS) {
        await this.nodes.setNodeReady(node, false);
        t.stage = 'rebooting';
        this.emit(t, `${node} rebooting (NotReady)`);
      }
      if (t.stage === 'rebooting' && now >= started + Math.max(REBOOT_AFTER_MS, plan.holdMs - BACK_BEFORE_END_MS)) {
        await this.nodes.setNodeReady(node, true);
        t.stage = 'back';
        this.emit(t, `${node} back (Ready)`);
      }
      if ((t.stage === 'working' || t.stage === 'back') && now >= started + plan.holdMs) {
        await this.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: plan.namespace, plural: NODE_MAINTENANCE_PLURAL, name: plan.name });
        t.stage = 'deleted';
        this.emit(t, `done with ${node}: deleted ${plan.namespace}/${plan.name}`);
      }
    }
  }

  /** Every request created, worked on and deleted. */
  done(): boolean {
    return this.tracked.every((t) => t.stage === 'deleted');
  }

  /** Requests not yet deleted by their requestor, as namespace/name. */
  unfinished(): string[] {
    return this.tracked.filter((t) => t.stage !== 'deleted').map((t) => namespacedName(t.plan));
  }
}
