// Public surface of sim/apiserver: the embedded Kubernetes API server and what tests read from it.
export { startSimApiServer, DEFAULT_NAMESPACES, type SimApiServer, type SimApiServerOptions, type KubeConfigOptions } from './server.ts';
export type { ClockSource, ServerClock, SimContext, AdmissionOptions } from './context.ts';
export { LocalApi, type ResourceRef, type LocalListOptions, type LocalPatchType } from './local-api.ts';
export type { DeleteOptions } from './deletion.ts';
export { FaultInjector, type FaultRule, type FaultKind } from './faults.ts';
export type { RequestEntry, RequestFilter } from './request-log.ts';
export { ApiError, type StatusBody, type StatusCause } from './errors.ts';
export type { StoredObject, StoreEvent, EventType } from './store.ts';
export type { KindInfo } from './kinds.ts';
export { readCrdFiles } from './crds.ts';
export { humanDuration } from './table.ts';
export type { Json, JsonObject } from './json-value.ts';
