// Required node affinity and nodeSelector, as the NodeAffinity filter and the DaemonSet controller evaluate them.
import type { V1Node, V1NodeSelectorTerm, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { labelSelectorFromObject, matchesLabels } from '../../shared/selectors/index.ts';

/**
 * A term matches when all its expressions and fields do; a term with neither matches nothing, nor does one whose
 * requirements are invalid (NodeSelectorRequirementsAsSelector's error). Expressions match the node's labels as a label
 * selector would (Gt and Lt compare integers); metadata.name is the only field node affinity supports.
 */
function matchesTerm(node: V1Node, term: V1NodeSelectorTerm): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  if (fields.some((f) => f.key !== 'metadata.name')) return false;
  const byLabels = labelSelectorFromObject({ matchExpressions: exprs }, { operators: 'node' });
  const byName = labelSelectorFromObject({ matchExpressions: fields }, { operators: 'node' });
  const name = node.metadata?.name;
  return byLabels.ok && byName.ok && matchesLabels(byLabels.selector, node.metadata?.labels ?? {}) && matchesLabels(byName.selector, name === undefined ? {} : { 'metadata.name': name });
}

/** spec.nodeSelector (every label equal) and requiredDuringSchedulingIgnoredDuringExecution (any term). */
export function matchesNodeSelectorAndAffinity(spec: V1PodSpec | undefined, node: V1Node): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  return required.nodeSelectorTerms.some((term) => matchesTerm(node, term));
}

/** The node a DaemonSet pod is pinned to by its `metadata.name In [node]` term, before it is bound. */
export function targetNodeName(pod: V1Pod): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const term of terms) {
    for (const f of term.matchFields ?? []) {
      if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
    }
  }
  return undefined;
}
