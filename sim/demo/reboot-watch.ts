// What the reboot demo watches (issue 43): every write to a Node (Ready or not, its status.nodeInfo.bootID) and to a
// NodeMaintenance (its phase), folded in as the sim API server stores them, so no short NotReady and no phase is
// missed between two looks. Pure: the caller feeds each stored object and the simulated time.
import type { V1Node } from '@kubernetes/client-node';
import { maintenanceKey, type NodeMaintenance } from '../../shared/api/index.ts';
import { maintenancePhase } from '../../shared/scheduling/index.ts';

export interface NodeEvent {
  kind: 'node';
  atMs: number;
  node: string;
  message: string;
}

export interface RebootRow {
  key: string;
  node: string;
  /** Every phase the request's status went through, in order ('' before the scheduler's first write is left out). */
  phases: string[];
  bootBefore: string;
  /** The node's boot ID when the request was released (or last seen). */
  bootAfter: string;
}

export interface RebootReport {
  rows: RebootRow[];
  /** The most Nodes NotReady at once, over every write. */
  mostDown: number;
}

function isReady(node: V1Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

const bootIdOf = (node: V1Node): string => node.status?.nodeInfo?.bootID ?? '';
const short = (id: string): string => id.slice(0, 8);
const nodesDown = (n: number): string => `${n} node${n === 1 ? '' : 's'} down`;

export class RebootWatch {
  private readonly ready = new Map<string, boolean>();
  private readonly boot = new Map<string, string>();
  private readonly firstBoot = new Map<string, string>();
  private readonly phases = new Map<string, { node: string; phases: string[] }>();
  private mostDownValue = 0;

  constructor(nodes: readonly V1Node[]) {
    for (const n of nodes) {
      const name = n.metadata?.name ?? '';
      this.ready.set(name, isReady(n));
      this.boot.set(name, bootIdOf(n));
      this.firstBoot.set(name, bootIdOf(n));
    }
    this.mostDownValue = this.down();
  }

  private down(): number {
    return [...this.ready.values()].filter((r) => !r).length;
  }

  /** A Node as stored: an event when it goes NotReady or comes back (with its boot ID, new or not). */
  node(n: V1Node, atMs: number): NodeEvent[] {
    const name = n.metadata?.name ?? '';
    const [wasReady, wasBoot] = [this.ready.get(name), this.boot.get(name) ?? ''];
    const [ready, boot] = [isReady(n), bootIdOf(n)];
    this.ready.set(name, ready);
    this.boot.set(name, boot);
    if (!this.firstBoot.has(name)) this.firstBoot.set(name, boot);
    const down = this.down();
    this.mostDownValue = Math.max(this.mostDownValue, down);
    if (wasReady === true && !ready) return [{ kind: 'node', atMs, node: name, message: `NotReady, rebooting (${nodesDown(down)})` }];
    if (wasReady === false && ready) {
      const bootText = boot === wasBoot ? `boot ID ${short(boot)} unchanged` : `boot ID ${short(wasBoot)} -> ${short(boot)}`;
      return [{ kind: 'node', atMs, node: name, message: `Ready, ${bootText} (${nodesDown(down)})` }];
    }
    return [];
  }

  /** A NodeMaintenance as stored: its phase appended when it changed. */
  maintenance(nm: NodeMaintenance): void {
    const key = maintenanceKey(nm);
    const row = this.phases.get(key) ?? { node: nm.spec.nodeName, phases: [] };
    this.phases.set(key, row);
    const phase = maintenancePhase(nm);
    if (phase !== '' && row.phases.at(-1) !== phase) row.phases.push(phase);
  }

  get mostDown(): number {
    return this.mostDownValue;
  }

  report(): RebootReport {
    const rows = [...this.phases]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, r]) => ({ key, node: r.node, phases: [...r.phases], bootBefore: this.firstBoot.get(r.node) ?? '', bootAfter: this.boot.get(r.node) ?? '' }));
    return { rows, mostDown: this.mostDownValue };
  }
}

/** The reboot demo's promises: at most `limit` nodes down at once, and every request's node back with a new boot ID. */
export function checkRebootInvariants(report: RebootReport, limit: number): string[] {
  const violations: string[] = [];
  if (report.mostDown > limit) violations.push(`${report.mostDown} nodes were down at once (maxParallelOperations ${limit})`);
  for (const r of report.rows) {
    if (r.bootAfter === r.bootBefore || r.bootAfter === '') violations.push(`node ${r.node} kept boot ID ${r.bootBefore}`);
  }
  return violations;
}
