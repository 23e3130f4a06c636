// Public surface of shared/selectors: Kubernetes label selectors (string and object forms) and matching.
export { parseLabelSelector } from './parse-label-selector.ts';
export { labelSelectorFromObject } from './selector-object.ts';
export type { LabelSelectorObject, LabelSelectorRequirementObject } from './selector-object.ts';
export { EVERYTHING, and, formatLabelSelector, matchesLabels } from './label-selector.ts';
export { labelKeyError } from './label-syntax.ts';
export type { LabelRequirement, LabelSelector, LabelSelectorOperator, LabelSelectorResult } from './label-selector.ts';
