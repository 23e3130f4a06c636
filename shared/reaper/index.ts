// Public surface of shared/reaper: the unhealthy-node reaper's config, pure plan and providers. Its drainer hook,
// forceRetryOnError, is in shared/drain, where the drainer reads it.
export { compilePredicate, PREDICATE_VARIABLES } from './cel.ts';
export type { CompileResult, NodeFacts, Predicate, PredicateResult } from './cel.ts';
export { DEFAULT_REAP_DRAIN_SPEC, REAPER_STOPPED, loadReaperConfig } from './config.ts';
export type { LoadedReaper, ReaperConfig } from './config.ts';
export { nodeFacts, unhealthySince } from './node-view.ts';
export { clusterGuard, countUnhealthy, zoneGuard } from './guards.ts';
export type { UnhealthyCounts } from './guards.ts';
export { planReaper } from './plan.ts';
export type { ReaperDecision, ReaperPlan, ReaperSnapshot } from './plan.ts';
export { describeTermination, planTerminations } from './termination-plan.ts';
export type { Termination, TerminationsPlan } from './termination-plan.ts';
export { cloudEventRequestName, isOwnCloudEventRequest, isOwnReapRequest, isRecordedJoin, joinRecordOf, listsReaper, reapRequestName } from './own-requests.ts';
export { chooseProvider, providerMap, providerPrefix } from './providers.ts';
export type { InstanceProvider, InstanceProviders, ProviderChoice } from './providers.ts';
export { awsProvider, parseAwsProviderID } from './aws-provider.ts';
export type { AwsInstance, AwsProviderOptions } from './aws-provider.ts';
export { executeTerminations } from './terminate.ts';
export type { TerminationResult } from './terminate.ts';
export { ReaperProviderError } from './errors.ts';
export { defaultInstanceProviders } from './shipped-providers.ts';
export { eventState, eventsByInstance } from './scheduled-events.ts';
export type { ScheduledEvent, ScheduledEventState, ScheduledEventsRead } from './scheduled-events.ts';
export { CLOUD_EVENTS_STOPPED, loadCloudEventsConfig } from './cloud-events-config.ts';
export { cloudEventsSwitchOf, planCloudEventRequestsOff } from './cloud-events-off.ts';
export type { CloudEventsConfig, LoadedCloudEvents } from './cloud-events-config.ts';
export { cloudEventAnnotations, eventsToFile, planCloudEvents } from './cloud-events-plan.ts';
export type { CloudEventsPlan, CloudEventsSnapshot } from './cloud-events-plan.ts';
