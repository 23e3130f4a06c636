// Public surface of shared/drain: pure drain selection, drain status, and the wait-for-pod-completion check.
export { selectPodsForDrain, DEFAULT_OWN_POD_SELECTOR } from './select-pods.ts';
export type { DrainSelection, DrainSelectionOptions } from './select-pods.ts';
export { computeDrainStatus, podsStillToRemove } from './drain-status.ts';
export { podsBlockingCompletion } from './pod-completion.ts';
export type { PodCompletionResult } from './pod-completion.ts';
export { podKey, MIRROR_POD_ANNOTATION } from './pod-facts.ts';
