// The parsed form of a Kubernetes label selector: validated requirements, matching, AND-combination, canonical text.
import { labelKeyError, labelValueError, parseInt64 } from './label-syntax.ts';

/** apimachinery's selection.Operator strings. `!` is DoesNotExist, `gt`/`lt` compare integers. */
export type LabelSelectorOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelSelectorOperator;
  /** Sorted and without duplicates; empty for `exists` and `!`. */
  readonly values: readonly string[];
}

/** Requirements ANDed together, sorted by key; no requirement at all matches every label set. */
export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
}

export type LabelSelectorResult = { ok: true; selector: LabelSelector } | { ok: false; error: string };

export type RequirementResult = { ok: true; requirement: LabelRequirement } | { ok: false; error: string };

/** Matches every label set (the empty selector string, or an empty selector object). */
export const EVERYTHING: LabelSelector = { requirements: [] };

/** Go's string order (byte-wise for the ASCII that valid labels use), never locale-dependent. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A requirement checked as labels.NewRequirement checks it: key syntax, value count per operator, value syntax. */
export function newRequirement(key: string, operator: LabelSelectorOperator, values: readonly string[]): RequirementResult {
  const keyError = labelKeyError(key);
  if (keyError !== undefined) return { ok: false, error: `invalid label key "${key}": ${keyError}` };
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) return { ok: false, error: `key "${key}": operator ${operator} needs at least one value` };
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) return { ok: false, error: `key "${key}": operator ${operator} needs exactly one value` };
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) return { ok: false, error: `key "${key}": operator ${operator === '!' ? 'DoesNotExist' : 'Exists'} takes no values` };
      break;
    case 'gt':
    case 'lt': {
      const bad = values.find((value) => parseInt64(value) === undefined);
      if (values.length !== 1 || bad !== undefined) {
        return { ok: false, error: `key "${key}": operator ${operator} needs exactly one integer value${bad !== undefined ? `, got "${bad}"` : ''}` };
      }
      break;
    }
  }
  for (const value of values) {
    const valueError = labelValueError(value);
    if (valueError !== undefined) return { ok: false, error: `invalid value "${value}" for label key "${key}": ${valueError}` };
  }
  const canonical = [...new Set(values)].sort(compareStrings);
  return { ok: true, requirement: { key, operator, values: canonical } };
}

/** Stable sort by key, as labels.Selector.Add keeps its requirements. */
export function selectorOf(requirements: readonly LabelRequirement[]): LabelSelector {
  return { requirements: [...requirements].sort((a, b) => compareStrings(a.key, b.key)) };
}

function requirementMatches(requirement: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  // Object.hasOwn, not `in`: a label key such as "constructor" must not find Object.prototype members.
  const value = Object.hasOwn(labels, requirement.key) ? labels[requirement.key] : undefined;
  switch (requirement.operator) {
    case '=':
    case '==':
    case 'in':
      return value !== undefined && requirement.values.includes(value);
    case '!=':
    case 'notin':
      return value === undefined || !requirement.values.includes(value);
    case 'exists':
      return value !== undefined;
    case '!':
      return value === undefined;
    case 'gt':
    case 'lt': {
      const actual = value === undefined ? undefined : parseInt64(value);
      const bound = requirement.values.length === 1 ? parseInt64(requirement.values[0] ?? '') : undefined;
      if (actual === undefined || bound === undefined) return false;
      return requirement.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/** Whether the labels satisfy every requirement. Missing labels count as an empty set. */
export function matchesLabels(selector: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  const set = labels ?? {};
  return selector.requirements.every((requirement) => requirementMatches(requirement, set));
}

/** One selector requiring all of the given ones; `and()` matches everything. */
export function and(...selectors: readonly LabelSelector[]): LabelSelector {
  return selectorOf(selectors.flatMap((selector) => selector.requirements));
}

const OPERATOR_TEXT: Record<LabelSelectorOperator, string> = {
  '=': '=',
  '==': '==',
  '!=': '!=',
  in: ' in ',
  notin: ' notin ',
  exists: '',
  '!': '',
  gt: '>',
  lt: '<',
};

/** The canonical string form (labels.Selector.String()), e.g. for a LIST labelSelector parameter; "" for EVERYTHING. */
export function formatLabelSelector(selector: LabelSelector): string {
  return selector.requirements
    .map(({ key, operator, values }) => {
      if (operator === '!') return `!${key}`;
      if (operator === 'exists') return key;
      const joined = values.join(',');
      return `${key}${OPERATOR_TEXT[operator]}${operator === 'in' || operator === 'notin' ? `(${joined})` : joined}`;
    })
    .join(',');
}
