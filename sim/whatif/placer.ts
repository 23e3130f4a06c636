// Where a pod goes: the default scheduler's filters (cordon, taints, node selector and affinity, resources) and its
// spreading score, at the scale of 5,000 nodes: fit that never changes is cached per pod shape, usage is kept in
// flat numeric arrays, and each decision looks at a bounded number of feasible nodes from a rotating start, as
// kube-scheduler's percentageOfNodesToScore does.
import type { V1Node, V1PodSpec } from '@kubernetes/client-node';
import { matchesNodeSelectorAndAffinity } from '../controllers/node-affinity.ts';
import { nodeAllocatable, type ResourceList } from '../controllers/resources.ts';
import { UNSCHEDULABLE_TAINT, effectiveTaints, firstUntolerated, tolerated } from '../controllers/taints.ts';

const ZONE_LABEL = 'topology.kubernetes.io/zone';
/** kube-scheduler: below this many nodes every node is scored. */
const MIN_FEASIBLE_NODES = 100;
/** Resource names the arrays have room for (cpu, memory, pods, ephemeral storage, a few extended resources). */
const MAX_RESOURCES = 16;
const CPU = 0;
const MEMORY = 1;
/** A tolerance well below one milli-unit absorbs float noise from decimal suffixes (as insufficient() does). */
const EPSILON = 1e-9;

/** What the placer needs of a pod. */
export interface PodShape {
  spec: V1PodSpec;
  /** Pods with the same shape key have the same tolerations, node selector and affinity (the owner's uid). */
  shapeKey: string;
  /** The controller's uid, for spreading; undefined for a pod without one. */
  owner: string | undefined;
  requests: Readonly<ResourceList>;
}

/**
 * How many fitting nodes each decision scores: every node below 100, else 100 — kube-scheduler's
 * numFeasibleNodesToFind with percentageOfNodesToScore set to its floor. (Its adaptive default scores 10% at 5,000
 * nodes; 100 spreads a controller's pods as evenly across a large cluster for a fifth of the work, and a what-if
 * replaces ~10^5 pods.)
 */
export function feasibleNodesToFind(nodes: number): number {
  return Math.min(nodes, MIN_FEASIBLE_NODES);
}

/** A request as (resource index, amount) pairs, made once per requests object. */
type Demand = ReadonlyArray<readonly [number, number]>;

export class Placer {
  private readonly nodes: readonly V1Node[];
  private readonly names: readonly string[];
  private readonly byName = new Map<string, number>();
  private readonly zoneOf: readonly string[];
  private readonly unschedulable: Uint8Array;
  /** node * MAX_RESOURCES + resource */
  private readonly allocatable: Float64Array;
  private readonly used: Float64Array;
  private readonly resourceIndex = new Map<string, number>([
    ['cpu', CPU],
    ['memory', MEMORY],
  ]);
  private readonly demands = new WeakMap<object, Demand>();
  /** Per node: pods of each controller uid on it. */
  private readonly byOwner: Array<Map<string, number>>;
  /** shapeKey -> per node index: 0 unknown, 1 fits, 2 never fits. */
  private readonly staticFit = new Map<string, Uint8Array>();
  /** owner -> zone -> pods, for the zone term of the spreading score. */
  private readonly ownerZones = new Map<string, Map<string, number>>();
  private nextStart = 0;
  private readonly toFind: number;
  /** Bumped whenever room may have appeared (a pod left, a node was uncordoned): when to try unplaced pods again. */
  roomVersion = 0;

  /** `nodes` in the order to scan them (the caller sorts by name). */
  constructor(nodes: readonly V1Node[]) {
    this.nodes = nodes;
    this.names = nodes.map((n) => n.metadata?.name ?? '');
    this.names.forEach((name, i) => this.byName.set(name, i));
    this.zoneOf = nodes.map((n) => n.metadata?.labels?.[ZONE_LABEL] ?? '');
    this.unschedulable = Uint8Array.from(nodes, (n) => (n.spec?.unschedulable === true ? 1 : 0));
    this.allocatable = new Float64Array(nodes.length * MAX_RESOURCES);
    this.used = new Float64Array(nodes.length * MAX_RESOURCES);
    this.byOwner = nodes.map(() => new Map());
    nodes.forEach((n, i) => {
      for (const [name, v] of Object.entries(nodeAllocatable(n))) {
        const r = this.resource(name);
        if (r !== undefined) this.allocatable[i * MAX_RESOURCES + r] = v;
      }
    });
    this.toFind = feasibleNodesToFind(nodes.length);
  }

  /** The array slot of a resource name; undefined once the slots are used up (that resource is not checked). */
  private resource(name: string): number | undefined {
    let r = this.resourceIndex.get(name);
    if (r === undefined && this.resourceIndex.size < MAX_RESOURCES) this.resourceIndex.set(name, (r = this.resourceIndex.size));
    return r;
  }

  private demand(requests: Readonly<ResourceList>): Demand {
    let d = this.demands.get(requests);
    if (!d) {
      const pairs: Array<readonly [number, number]> = [];
      for (const [name, v] of Object.entries(requests)) {
        const r = this.resource(name);
        if (r !== undefined && v !== 0) pairs.push([r, v]);
      }
      this.demands.set(requests, (d = pairs));
    }
    return d;
  }

  has(nodeName: string): boolean {
    return this.byName.has(nodeName);
  }

  setUnschedulable(nodeName: string, unschedulable: boolean): void {
    const i = this.byName.get(nodeName);
    if (i === undefined) return;
    if (this.unschedulable[i] === 1 && !unschedulable) this.roomVersion++;
    this.unschedulable[i] = unschedulable ? 1 : 0;
  }

  /** A pod now counts on `nodeName` (bound and not finished). */
  add(nodeName: string, owner: string | undefined, requests: Readonly<ResourceList>): void {
    this.count(nodeName, owner, requests, 1);
  }

  /** The pod no longer counts on `nodeName` (deleted or finished). */
  remove(nodeName: string, owner: string | undefined, requests: Readonly<ResourceList>): void {
    this.roomVersion++;
    this.count(nodeName, owner, requests, -1);
  }

  private count(nodeName: string, owner: string | undefined, requests: Readonly<ResourceList>, sign: 1 | -1): void {
    const i = this.byName.get(nodeName);
    if (i === undefined) return;
    for (const [r, v] of this.demand(requests)) this.used[i * MAX_RESOURCES + r] = (this.used[i * MAX_RESOURCES + r] as number) + sign * v;
    if (owner === undefined) return;
    const mine = this.byOwner[i] as Map<string, number>;
    const left = (mine.get(owner) ?? 0) + sign;
    if (left > 0) mine.set(owner, left);
    else mine.delete(owner);
    const zone = this.zoneOf[i] as string;
    const zones = this.ownerZones.get(owner) ?? new Map<string, number>();
    zones.set(zone, Math.max(0, (zones.get(zone) ?? 0) + sign));
    this.ownerZones.set(owner, zones);
  }

  private staticCache(shapeKey: string): Uint8Array {
    let cache = this.staticFit.get(shapeKey);
    if (!cache) this.staticFit.set(shapeKey, (cache = new Uint8Array(this.nodes.length)));
    return cache;
  }

  /** Taints, node selector and required affinity: fixed for a node and a pod shape. */
  private fitsStatically(spec: V1PodSpec, i: number, cache: Uint8Array): boolean {
    let v = cache[i];
    if (v === 0) {
      const node = this.nodes[i] as V1Node;
      const ok = firstUntolerated(effectiveTaints(node), spec.tolerations, ['NoSchedule', 'NoExecute']) === undefined && matchesNodeSelectorAndAffinity(spec, node);
      v = ok ? 1 : 2;
      cache[i] = v;
    }
    return v === 1;
  }

  /** Taints, node selector and affinity admit the pod on `nodeName` (what the DaemonSet controller checks). */
  admits(pod: PodShape, nodeName: string): boolean {
    const i = this.byName.get(nodeName);
    return i !== undefined && this.fitsStatically(pod.spec, i, this.staticCache(pod.shapeKey));
  }

  /** NodeResourcesFit: every requested resource within what is left. */
  private hasRoom(i: number, demand: Demand): boolean {
    const base = i * MAX_RESOURCES;
    for (const [r, want] of demand) {
      if (want > 0 && (this.used[base + r] as number) + want > (this.allocatable[base + r] as number) + EPSILON) return false;
    }
    return true;
  }

  /** Fraction of cpu and memory left after placing the pod (LeastAllocated), 0..1. */
  private room(i: number, requests: Readonly<ResourceList>): number {
    const base = i * MAX_RESOURCES;
    const cpu = this.allocatable[base + CPU] as number;
    const memory = this.allocatable[base + MEMORY] as number;
    const cpuLeft = cpu > 0 ? Math.max(0, cpu - (this.used[base + CPU] as number) - (requests['cpu'] ?? 0)) / cpu : 0;
    const memoryLeft = memory > 0 ? Math.max(0, memory - (this.used[base + MEMORY] as number) - (requests['memory'] ?? 0)) / memory : 0;
    return (cpuLeft + memoryLeft) / 2;
  }

  /**
   * The node for `pod`, or undefined when none fits. Scans from where the last decision stopped, keeps the first
   * feasibleNodesToFind fitting nodes, and takes the one with the fewest pods of the pod's controller (on the node,
   * then in its zone) and the most cpu and memory left; the earliest scanned wins a tie. Does not record the pod:
   * the caller calls `add` once the binding is written.
   */
  choose(pod: PodShape): string | undefined {
    const total = this.nodes.length;
    const owner = pod.owner;
    const zones = owner === undefined ? undefined : this.ownerZones.get(owner);
    const cache = this.staticCache(pod.shapeKey);
    const toleratesCordon = tolerated(pod.spec.tolerations, UNSCHEDULABLE_TAINT);
    const demand = this.demand(pod.requests);
    let best = -1;
    let bestOwn = 0;
    let bestZone = 0;
    let bestRoom = 0;
    let found = 0;
    let examined = 0;
    for (; examined < total && found < this.toFind; examined++) {
      let i = this.nextStart + examined;
      if (i >= total) i -= total;
      if (this.unschedulable[i] === 1 && !toleratesCordon) continue;
      if (!this.fitsStatically(pod.spec, i, cache) || !this.hasRoom(i, demand)) continue;
      found++;
      const own = owner === undefined ? 0 : ((this.byOwner[i] as Map<string, number>).get(owner) ?? 0);
      if (best >= 0 && own > bestOwn) continue;
      const zone = zones?.get(this.zoneOf[i] as string) ?? 0;
      if (best >= 0 && own === bestOwn && zone > bestZone) continue;
      const room = this.room(i, pod.requests);
      if (best < 0 || own < bestOwn || zone < bestZone || room > bestRoom) {
        best = i;
        bestOwn = own;
        bestZone = zone;
        bestRoom = room;
      }
    }
    if (total > 0) this.nextStart = (this.nextStart + examined) % total;
    return best < 0 ? undefined : this.names[best];
  }
}
