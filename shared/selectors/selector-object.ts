// Builds a label selector from its object form (metav1.LabelSelector: matchLabels + matchExpressions), as
// metav1.LabelSelectorAsSelector does; the result matches exactly like a parsed selector string.
import { compareStrings, newRequirement, selectorOf, type LabelRequirement, type LabelSelectorOperator, type LabelSelectorResult } from './label-selector.ts';

/** One matchExpressions entry; structurally compatible with client-node's V1LabelSelectorRequirement. */
export interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: readonly string[];
}

/** Structurally compatible with client-node's V1LabelSelector. Both parts empty selects everything. */
export interface LabelSelectorObject {
  matchLabels?: Readonly<Record<string, string>>;
  matchExpressions?: readonly LabelSelectorRequirementObject[];
}

const OBJECT_OPERATORS: Readonly<Record<string, LabelSelectorOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/** A NodeSelectorTerm's expressions also compare integers (Gt, Lt), as NodeSelectorRequirementsAsSelector allows. */
const NODE_OPERATORS: Readonly<Record<string, LabelSelectorOperator>> = { ...OBJECT_OPERATORS, Gt: 'gt', Lt: 'lt' };

/**
 * matchLabels become `key=value`; matchExpressions allow only In, NotIn, Exists and DoesNotExist, and Gt/Lt too
 * with `operators: 'node'` (a NodeSelectorTerm's requirements).
 */
export function labelSelectorFromObject(object: LabelSelectorObject, options: { operators?: 'label' | 'node' } = {}): LabelSelectorResult {
  const allowed = options.operators === 'node' ? NODE_OPERATORS : OBJECT_OPERATORS;
  const requirements: LabelRequirement[] = [];
  const fail = (where: string, error: string): LabelSelectorResult => ({ ok: false, error: `invalid label selector: ${where}: ${error}` });

  // Sorted so that the first error reported does not depend on object key order.
  const labels = Object.entries(object.matchLabels ?? {}).sort(([a], [b]) => compareStrings(a, b));
  for (const [key, value] of labels) {
    const built = newRequirement(key, '=', [value]);
    if (!built.ok) return fail(`matchLabels["${key}"]`, built.error);
    requirements.push(built.requirement);
  }

  for (const [index, expression] of (object.matchExpressions ?? []).entries()) {
    const where = `matchExpressions[${index}]`;
    const operator = Object.hasOwn(allowed, expression.operator) ? allowed[expression.operator] : undefined;
    if (operator === undefined) {
      return fail(where, `"${expression.operator}" is not a valid label selector operator (${Object.keys(allowed).join(', ')})`);
    }
    const built = newRequirement(expression.key, operator, expression.values ?? []);
    if (!built.ok) return fail(where, built.error);
    requirements.push(built.requirement);
  }
  return { ok: true, selector: selectorOf(requirements) };
}
