// Public surface of shared/drain: pure drain selection, drain status, the wait-for-pod-completion check, and
// forceRetryOnError's deletes for reap requests whose drain timed out.
export { selectPodsForDrain, isOwnPod } from './select-pods.ts';
export type { DrainSelection, DrainSelectionOptions, OwnPods } from './select-pods.ts';
export { computeDrainStatus, podsStillToRemove } from './drain-status.ts';
export { podsBlockingCompletion } from './pod-completion.ts';
export type { PodCompletionResult } from './pod-completion.ts';
export { podKey, MIRROR_POD_ANNOTATION } from './pod-facts.ts';
export { forceRetryApplies, reapForceDeletes } from './force-retry.ts';
export type { ForcedDeletes } from './force-retry.ts';
export { indexClaims, devicesHeldBy, deviceId, deviceResourceNames, referencesClaims, unmatchedDraMessage, unreadableClaimsMessage } from './claims.ts';
export type { ClaimIndex, DraView, HeldDevice } from './claims.ts';
export { compileFreeDevices, deviceUseOf, podsToFree } from './device-users.ts';
export type { CompiledFreeDevices, FreedPod } from './device-users.ts';
