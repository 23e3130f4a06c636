// What the benchmark sees while a system works, through watches as the admin: when each request reached each
// phase and went away, nodes cordoned at once (peak), when each bench pod was gone. Also plays the requestor:
// a request that reaches Ready is deleted at once (maintenance itself takes no time here).
import { CustomObjectsApi, Watch, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, NODE_MAINTENANCE_PLURAL, VERSION } from '../../shared/api/index.ts';
import { BENCH_NS } from './cluster.ts';

interface WatchedObject {
  metadata?: { name?: string; namespace?: string; deletionTimestamp?: string };
  spec?: { unschedulable?: boolean };
  status?: { conditions?: Array<{ type: string; status: string; reason?: string }> };
}

export interface RequestTimes {
  createdMs: number;
  /** First time each Ready reason was seen. */
  phases: Map<string, number>;
  deleteRequestedMs?: number;
  goneMs?: number;
}

const UNDER_WAY = ['Scheduled', 'Cordon', 'WaitForPodCompletion', 'Draining', 'Ready'];

export class Observer {
  readonly requests = new Map<string, RequestTimes>();
  readonly podGoneMs = new Map<string, number>();
  readonly cordoned = new Set<string>();
  peakCordoned = 0;
  private readonly aborts: AbortController[] = [];
  private stopped = false;
  private deleteErrors: string[] = [];

  constructor(
    private readonly kc: KubeConfig,
    /** Delete requests once Ready (the NodeMaintenance systems); the kubectl script has none. */
    private readonly playRequestor: boolean,
  ) {}

  async start(): Promise<void> {
    await this.watch('/api/v1/nodes', (type, o) => this.onNode(type, o));
    await this.watch(`/api/v1/namespaces/${BENCH_NS}/pods`, (type, o) => {
      if (type === 'DELETED') this.podGoneMs.set(`${BENCH_NS}/${o.metadata?.name ?? ''}`, Date.now());
    });
    if (this.playRequestor) {
      await this.watch(`/apis/${GROUP}/${VERSION}/namespaces/${BENCH_NS}/${NODE_MAINTENANCE_PLURAL}`, (type, o) => this.onRequest(type, o));
    }
  }

  expect(key: string, createdMs: number): void {
    this.requests.set(key, { createdMs, phases: new Map() });
  }

  /** Marks a node "requested" (kubectl script) at `ms`: its phases come from the script's output. */
  phase(key: string, phase: string, ms: number): void {
    const r = this.requests.get(key);
    if (r && !r.phases.has(phase)) r.phases.set(phase, ms);
  }

  allGone(): boolean {
    return [...this.requests.values()].every((r) => r.goneMs !== undefined);
  }

  errors(): string[] {
    return this.deleteErrors;
  }

  stop(): void {
    this.stopped = true;
    for (const a of this.aborts) a.abort();
  }

  private onNode(type: string, o: WatchedObject): void {
    const name = o.metadata?.name ?? '';
    if (type !== 'DELETED' && o.spec?.unschedulable) this.cordoned.add(name);
    else this.cordoned.delete(name);
    this.peakCordoned = Math.max(this.peakCordoned, this.cordoned.size);
  }

  private onRequest(type: string, o: WatchedObject): void {
    const key = `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
    const r = this.requests.get(key);
    if (!r) return;
    const now = Date.now();
    if (type === 'DELETED') {
      r.goneMs ??= now;
      return;
    }
    const reason = o.status?.conditions?.find((c) => c.type === 'Ready')?.reason;
    if (reason && !r.phases.has(reason)) r.phases.set(reason, now);
    if (reason && UNDER_WAY.includes(reason) && !r.phases.has('Scheduled')) r.phases.set('Scheduled', now);
    if (reason === 'Ready' && r.deleteRequestedMs === undefined && !o.metadata?.deletionTimestamp) {
      r.deleteRequestedMs = now;
      const custom = this.kc.makeApiClient(CustomObjectsApi);
      const [namespace, name] = key.split('/') as [string, string];
      custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: NODE_MAINTENANCE_PLURAL, name }).catch((err: unknown) => {
        if ((err as { code?: number }).code !== 404) this.deleteErrors.push(`deleting ${key}: ${String(err)}`);
      });
    }
  }

  private async watch(path: string, onEvent: (type: string, o: WatchedObject) => void): Promise<void> {
    const again = (): void => {
      if (!this.stopped) setTimeout(() => void this.watch(path, onEvent).catch(again), 500);
    };
    const abort = await new Watch(this.kc).watch(path, { allowWatchBookmarks: false }, (type, obj) => onEvent(type, obj as WatchedObject), () => again());
    this.aborts.push(abort);
  }
}
