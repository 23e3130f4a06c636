// Whether a pod fits a node: the default scheduler's filter plugins, in their order, each naming why not.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { matchesNodeSelectorAndAffinity } from './node-affinity.ts';
import { insufficient, type ResourceList } from './resources.ts';
import { UNSCHEDULABLE_TAINT, effectiveTaints, firstUntolerated, tolerated } from './taints.ts';

export interface FitInput {
  pod: V1Pod;
  /** podRequests(pod), computed once per pod. */
  requests: Readonly<ResourceList>;
  node: V1Node;
  /** Requests of the pods already on the node (finished pods excluded). */
  used: Readonly<ResourceList>;
  allocatable: Readonly<ResourceList>;
}

/** Reasons the node is refused, in the scheduler's words; undefined means the rule passes. */
type FitRule = (input: FitInput) => string[] | undefined;

/** The first rule that refuses decides, as the framework stops at the first failing filter. */
const FIT_RULES: readonly FitRule[] = [
  // NodeUnschedulable: a cordoned node takes only pods tolerating node.kubernetes.io/unschedulable (DaemonSet pods do).
  ({ pod, node }) => (node.spec?.unschedulable === true && !tolerated(pod.spec?.tolerations, UNSCHEDULABLE_TAINT) ? ['node(s) were unschedulable'] : undefined),
  // NodeName: a pod that names its node fits only there.
  ({ pod, node }) => (pod.spec?.nodeName && pod.spec.nodeName !== node.metadata?.name ? ["node(s) didn't match the requested node name"] : undefined),
  // TaintToleration: NoSchedule and NoExecute taints must be tolerated (PreferNoSchedule only scores).
  ({ pod, node }) => {
    const taint = firstUntolerated(effectiveTaints(node), pod.spec?.tolerations, ['NoSchedule', 'NoExecute']);
    return taint ? [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`] : undefined;
  },
  // NodeAffinity: spec.nodeSelector and required node affinity (DaemonSet pods are pinned here by metadata.name).
  ({ pod, node }) => (matchesNodeSelectorAndAffinity(pod.spec, node) ? undefined : ["node(s) didn't match Pod's node affinity/selector"]),
  // NodeResourcesFit: every requested resource, and the pod count, within allocatable.
  ({ requests, used, allocatable }) => {
    const short = insufficient(requests, used, allocatable).map((name) => (name === 'pods' ? 'Too many pods' : `Insufficient ${name}`));
    return short.length > 0 ? short : undefined;
  },
];

/** Empty when the pod fits; otherwise the reasons of the first filter that refuses. */
export function unfitReasons(input: FitInput): string[] {
  for (const rule of FIT_RULES) {
    const reasons = rule(input);
    if (reasons) return reasons;
  }
  return [];
}

/** "0/6 nodes are available: 2 Insufficient cpu, 4 node(s) were unschedulable." — reasons counted and sorted. */
export function unschedulableMessage(totalNodes: number, reasons: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  const parts = [...counts.entries()].map(([r, n]) => `${n} ${r}`).sort();
  return `0/${totalNodes} nodes are available${parts.length > 0 ? `: ${parts.join(', ')}` : ''}.`;
}
