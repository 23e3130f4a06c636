// The scheduler's decisions for one snapshot: each pending pod bound to the best node that fits, or marked
// Unschedulable with the reasons per node. Pure: pods placed earlier in the same plan count on their nodes.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { refOf, type ControllerAction } from './actions.ts';
import { unfitReasons, unschedulableMessage } from './node-fit.ts';
import { compareStrings, controllerOf, isFinished, isTerminating, podKey, timeMs } from './pod-facts.ts';
import { addResources, nodeAllocatable, podRequests, type ResourceList } from './resources.ts';

export const DEFAULT_SCHEDULER = 'default-scheduler';
const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** Waiting for the scheduler: no node yet, not being deleted or finished, and ours to place. */
export function isPendingScheduling(pod: V1Pod): boolean {
  return !pod.spec?.nodeName && !isTerminating(pod) && !isFinished(pod) && (pod.spec?.schedulerName ?? DEFAULT_SCHEDULER) === DEFAULT_SCHEDULER;
}

interface NodeUse {
  node: V1Node;
  allocatable: ResourceList;
  used: ResourceList;
  /** Pods per controller uid on this node (the default topology spread counts them). */
  byOwner: Map<string, number>;
}

/** The scheduling queue's order: higher priority first, then older, then namespace/name. */
function queueOrder(a: V1Pod, b: V1Pod): number {
  return (b.spec?.priority ?? 0) - (a.spec?.priority ?? 0) || timeMs(a.metadata?.creationTimestamp) - timeMs(b.metadata?.creationTimestamp) || compareStrings(podKey(a), podKey(b));
}

/** Fraction of cpu and memory left after placing `requests` (LeastAllocated), 0..1. */
function leastAllocated(use: NodeUse, requests: ResourceList): number {
  let sum = 0;
  for (const r of ['cpu', 'memory']) {
    const alloc = use.allocatable[r] ?? 0;
    sum += alloc > 0 ? Math.max(0, alloc - (use.used[r] ?? 0) - (requests[r] ?? 0)) / alloc : 0;
  }
  return sum / 2;
}

/**
 * Pending pods in queue order; each goes to the fitting node with the fewest pods of its controller
 * (on the node, then in the node's zone: the default spreading), then the most room left, then by name.
 */
export function planScheduling(nodes: readonly V1Node[], pods: readonly V1Pod[]): ControllerAction[] {
  const uses = new Map<string, NodeUse>();
  for (const node of [...nodes].sort((a, b) => compareStrings(a.metadata?.name ?? '', b.metadata?.name ?? ''))) {
    uses.set(node.metadata?.name ?? '', { node, allocatable: nodeAllocatable(node), used: {}, byOwner: new Map() });
  }
  const place = (use: NodeUse, pod: V1Pod, requests: ResourceList): void => {
    addResources(use.used, requests);
    const owner = controllerOf(pod)?.uid;
    if (owner) use.byOwner.set(owner, (use.byOwner.get(owner) ?? 0) + 1);
  };
  for (const pod of pods) {
    const use = pod.spec?.nodeName ? uses.get(pod.spec.nodeName) : undefined;
    if (use && !isFinished(pod)) place(use, pod, podRequests(pod));
  }

  const actions: ControllerAction[] = [];
  const all = [...uses.values()];
  for (const pod of pods.filter(isPendingScheduling).sort(queueOrder)) {
    const requests = podRequests(pod);
    const reasons: string[] = [];
    const fitting: NodeUse[] = [];
    for (const use of all) {
      const why = unfitReasons({ pod, requests, node: use.node, used: use.used, allocatable: use.allocatable });
      if (why.length === 0) fitting.push(use);
      else reasons.push(...why);
    }
    if (fitting.length === 0) {
      const message = unschedulableMessage(all.length, reasons);
      const current = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
      if (current?.status !== 'False' || current.reason !== 'Unschedulable' || current.message !== message) {
        actions.push({ kind: 'markUnschedulable', pod: refOf(pod), message, reason: 'no node fits' });
      }
      continue;
    }
    const owner = controllerOf(pod)?.uid;
    const inZone = (zone: string | undefined): number =>
      owner === undefined ? 0 : all.filter((u) => u.node.metadata?.labels?.[ZONE_LABEL] === zone).reduce((n, u) => n + (u.byOwner.get(owner) ?? 0), 0);
    const score = (u: NodeUse): [number, number, number] => [
      owner === undefined ? 0 : (u.byOwner.get(owner) ?? 0),
      inZone(u.node.metadata?.labels?.[ZONE_LABEL]),
      -leastAllocated(u, requests),
    ];
    let best = fitting[0] as NodeUse;
    let bestScore = score(best);
    for (const u of fitting.slice(1)) {
      const s = score(u);
      if (s[0] < bestScore[0] || (s[0] === bestScore[0] && (s[1] < bestScore[1] || (s[1] === bestScore[1] && s[2] < bestScore[2])))) {
        best = u;
        bestScore = s;
      }
    }
    place(best, pod, requests);
    const node = best.node.metadata?.name ?? '';
    actions.push({ kind: 'bindPod', pod: refOf(pod), node, reason: `${fitting.length}/${all.length} nodes fit` });
  }
  return actions;
}
