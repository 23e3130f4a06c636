// The seam under KubeClient: the few primitives every verb is made of. KubeClient builds each request body once,
// retries, pages, counts and turns failures into outcomes; a transport only carries a request to an API server and
// back. Two exist: HTTP through client-node (http-transport.ts) and what-if's in-process one (sim/whatif).
import type { ListedVersion, WatchOutcome } from './watch-change.ts';

/** A collection of the API: `group` '' is the core group (`/api/v1`). */
export interface ApiResource {
  group: string;
  version: string;
  /** Plural resource name, as in URLs and the audit log ("pods"). */
  plural: string;
  namespaced: boolean;
}

/** One object of a collection (`namespace` only for namespaced ones), or its `status` subresource. */
export interface ObjectTarget {
  resource: ApiResource;
  namespace?: string;
  name: string;
  subresource?: 'status';
}

export interface ListQuery {
  limit: number;
  continue?: string;
  /** Only for namespaced collections: one namespace's objects. */
  namespace?: string;
  fieldSelector?: string;
  labelSelector?: string;
}

export interface ListPage {
  /** The page's objects; with `itemsDeferred`, decoded when first read (a getter, throwing what decoding throws). */
  readonly items: unknown[];
  /** The continue token of the next page; absent on the last. */
  continue?: string;
  /** The LIST's resourceVersion; absent when the transport cannot be watched (then the runtime polls). */
  resourceVersion?: string;
  /**
   * `continue` and `resourceVersion` were read from the head of the answer and `items` are not decoded yet: the client
   * asks for the next page before it reads them, so that the API server serves that page while this one is decoded.
   */
  itemsDeferred?: boolean;
}

/** What a write answers that kmaint reads: the object's resourceVersion after it, when the server said. */
export interface WriteAnswer {
  resourceVersion?: string;
}

/**
 * A merge patch (RFC 7386), a JSON patch (RFC 6902) or a strategic-merge patch (built-in kinds only: lists merge by
 * their key, so a Node's conditions merge by `type` and the kubelet's stay), already built.
 */
export type PatchBody =
  | { type: 'merge'; body: Record<string, unknown> }
  | { type: 'json'; body: readonly Record<string, unknown>[] }
  | { type: 'strategic'; body: Record<string, unknown> };

export interface DeleteBody {
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  /** Jobs: `Background` deletes their pods too (a Job's default is to orphan them). */
  propagationPolicy?: 'Background';
}

/**
 * Every primitive resolves with the answer or rejects with an HttpFailureError (status 0 when no answer arrived):
 * the verb above decides what a status means.
 */
export interface KubeTransport {
  listPage(resource: ApiResource, query: ListQuery): Promise<ListPage>;
  get(target: ObjectTarget): Promise<unknown>;
  /** POST into a collection; `fieldManager` recorded when given. */
  create(resource: ApiResource, namespace: string | undefined, body: object, fieldManager?: string): Promise<WriteAnswer>;
  /** PUT of a whole object read earlier: its resourceVersion is the precondition. */
  replace(target: ObjectTarget, body: object): Promise<WriteAnswer>;
  /** The precondition, where there is one, is in the body (metadata.resourceVersion). */
  patch(target: ObjectTarget, patch: PatchBody, fieldManager: string): Promise<WriteAnswer>;
  delete(target: ObjectTarget, body: DeleteBody): Promise<WriteAnswer>;
  /** POST pods/eviction with the body as built. */
  evict(namespace: string, name: string, body: object): Promise<void>;
  /** Waits for the first change to one of the LISTs (watch-change.ts). */
  watch(targets: readonly ListedVersion[], timeoutMs: number, opts: { signal?: AbortSignal; count: (key: string) => void }): Promise<WatchOutcome>;
}

export const NODES: ApiResource = { group: '', version: 'v1', plural: 'nodes', namespaced: false };
export const PODS: ApiResource = { group: '', version: 'v1', plural: 'pods', namespaced: true };
export const EVENTS: ApiResource = { group: '', version: 'v1', plural: 'events', namespaced: true };
export const SECRETS: ApiResource = { group: '', version: 'v1', plural: 'secrets', namespaced: true };
export const NAMESPACES: ApiResource = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };
export const PDBS: ApiResource = { group: 'policy', version: 'v1', plural: 'poddisruptionbudgets', namespaced: true };
/** The reboot Job (issue 43), created and deleted in kmaint's namespace through the custom-objects path. */
export const JOBS: ApiResource = { group: 'batch', version: 'v1', plural: 'jobs', namespaced: true };
export const LEASES: ApiResource = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', namespaced: true };
/** CustomResourceDefinitions: kmaint GETs its own two by name (shared/pass/crd-schema.ts), through the custom-objects path. */
export const CRDS: ApiResource = { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions', namespaced: false };
/** DRA claims (GA in Kubernetes 1.34); listed through the custom-objects path like any non-core group. */
export const RESOURCE_CLAIMS: ApiResource = { group: 'resource.k8s.io', version: 'v1', plural: 'resourceclaims', namespaced: true };
/** DRA ResourceSlices (GA in 1.34): the devices each driver publishes per node, read to check a device request. */
export const RESOURCE_SLICES: ApiResource = { group: 'resource.k8s.io', version: 'v1', plural: 'resourceslices', namespaced: false };
/**
 * DRA device taint rules (KEP-5055): v1alpha3 behind DRADeviceTaintRules in 1.35, v1beta2 on by default from 1.36.
 * kmaint writes the newest version served (DEVICE_TAINT_RULE_VERSIONS).
 */
export const DEVICE_TAINT_RULES: ApiResource = { group: 'resource.k8s.io', version: 'v1beta2', plural: 'devicetaintrules', namespaced: false };
/** The versions of DEVICE_TAINT_RULES, newest first. */
export const DEVICE_TAINT_RULE_VERSIONS: readonly string[] = ['v1beta2', 'v1alpha3'];
/**
 * The versions of RESOURCE_CLAIMS, newest first: v1 (served from 1.34), v1beta2 (1.33, 1.34), v1beta1 (1.32, 1.33).
 * kmaint supports Kubernetes >= 1.32, so it reads the newest one the API server serves.
 */
export const RESOURCE_CLAIM_VERSIONS: readonly string[] = ['v1', 'v1beta2', 'v1beta1'];

/** The API path of a collection, across all namespaces or in one ("/api/v1/pods", "/apis/policy/v1/…"). */
export function collectionPath(r: ApiResource, namespace?: string): string {
  const root = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  return namespace !== undefined && r.namespaced ? `${root}/namespaces/${namespace}/${r.plural}` : `${root}/${r.plural}`;
}

/** "apiVersion" as in manifests: `v1`, `policy/v1`. */
export function apiVersionOf(r: ApiResource): string {
  return r.group === '' ? r.version : `${r.group}/${r.version}`;
}
