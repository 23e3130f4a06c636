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

/** matchLabels become `key=value`; matchExpressions allow only In, NotIn, Exists and DoesNotExist (Gt/Lt are node-selector only). */
export function labelSelectorFromObject(object: LabelSelectorObject): LabelSelectorResult {
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
    const operator = Object.hasOwn(OBJECT_OPERATORS, expression.operator) ? OBJECT_OPERATORS[expression.operator] : undefined;
    if (operator === undefined) {
      return fail(where, `"${expression.operator}" is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)`);
    }
    const built = newRequirement(expression.key, operator, expression.values ?? []);
    if (!built.ok) return fail(where, built.error);
    requirements.push(built.requirement);
  }
  return { ok: true, selector: selectorOf(requirements) };
}
