// Required node affinity and nodeSelector, as the NodeAffinity filter and the DaemonSet controller evaluate them.
import type { V1Node, V1NodeSelectorRequirement, V1NodeSelectorTerm, V1Pod, V1PodSpec } from '@kubernetes/client-node';

function matchesRequirement(value: string | undefined, req: V1NodeSelectorRequirement): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      // Both sides must be integers; anything else does not match (nodeaffinity.NodeSelectorRequirementsAsSelector).
      if (value === undefined || values.length !== 1 || !/^-?\d+$/.test(value) || !/^-?\d+$/.test(values[0] ?? '')) return false;
      return req.operator === 'Gt' ? Number(value) > Number(values[0]) : Number(value) < Number(values[0]);
    }
    default:
      return false;
  }
}

/** A term matches when all its expressions and fields do; a term with neither matches nothing. */
function matchesTerm(node: V1Node, term: V1NodeSelectorTerm): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata?.labels ?? {};
  return (
    exprs.every((r) => matchesRequirement(Object.hasOwn(labels, r.key) ? labels[r.key] : undefined, r)) &&
    // metadata.name is the only field selector node affinity supports.
    fields.every((r) => r.key === 'metadata.name' && matchesRequirement(node.metadata?.name, r))
  );
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
