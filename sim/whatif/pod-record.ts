// What the what-if cluster remembers of each pod between store events: placement, owner, health and resources,
// plus a minimal V1Pod for the disruption controller's pure functions. Built once per stored version.
import type { V1Pod } from '@kubernetes/client-node';
import { podRequests, type ResourceList } from '../controllers/resources.ts';
import type { JsonObject } from '../apiserver/index.ts';

export interface PodOwner {
  kind: string;
  name: string;
  uid: string;
}

export interface PodRecord {
  /** namespace/name */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly nodeName: string | undefined;
  readonly owner: PodOwner | undefined;
  readonly phase: string;
  readonly ready: boolean;
  readonly terminating: boolean;
  /** Seconds the API server granted the deletion (deletionGracePeriodSeconds). */
  readonly graceSeconds: number;
  readonly labels: Readonly<Record<string, string>>;
  readonly priority: number;
  readonly createdAt: string;
  readonly requests: Readonly<ResourceList>;
  /** metadata.deletionTimestamp as stored. */
  readonly deletionTimestamp: string | undefined;
}

/**
 * 150,000 pods share a few hundred distinct label sets and owners: one object each keeps the records small.
 * Never modified after creation.
 */
const labelSets = new Map<string, Readonly<Record<string, string>>>();
const owners = new Map<string, PodOwner>();

function internLabels(labels: Record<string, string>): Readonly<Record<string, string>> {
  const key = JSON.stringify(labels);
  let shared = labelSets.get(key);
  if (!shared) labelSets.set(key, (shared = Object.freeze({ ...labels })));
  return shared;
}

function internOwner(kind: string, name: string, uid: string): PodOwner {
  let o = owners.get(uid);
  if (!o || o.kind !== kind || o.name !== name) owners.set(uid, (o = Object.freeze({ kind, name, uid })));
  return o;
}

function asObject(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function podRecord(obj: JsonObject, previous: PodRecord | undefined): PodRecord {
  const pod = obj as unknown as V1Pod;
  const meta = pod.metadata ?? {};
  const uid = meta.uid ?? '';
  const owner = meta.ownerReferences?.find((o) => o.controller === true);
  const conditions = pod.status?.conditions ?? [];
  const ready = conditions.some((c) => c.type === 'Ready' && c.status === 'True');
  const deletionTimestamp = meta.deletionTimestamp as unknown as string | undefined;
  // Resources are immutable on a pod: computed once per uid.
  const requests = previous && previous.uid === uid ? previous.requests : podRequests(pod);
  const labels = internLabels((asObject(meta.labels) as Record<string, string> | undefined) ?? {});
  const createdAt = (meta.creationTimestamp as unknown as string | undefined) ?? '';
  return {
    key: `${meta.namespace ?? ''}/${meta.name ?? ''}`,
    namespace: meta.namespace ?? '',
    name: meta.name ?? '',
    uid,
    nodeName: pod.spec?.nodeName || undefined,
    owner: owner ? internOwner(owner.kind, owner.name, owner.uid) : undefined,
    phase: pod.status?.phase ?? 'Pending',
    ready,
    terminating: deletionTimestamp !== undefined && deletionTimestamp !== null,
    graceSeconds: meta.deletionGracePeriodSeconds ?? 0,
    labels,
    priority: pod.spec?.priority ?? 0,
    createdAt,
    requests,
    deletionTimestamp: deletionTimestamp ?? undefined,
  };
}

const views = new WeakMap<PodRecord, V1Pod>();

/** Just enough of the pod for the disruption controller's functions (selection, health, owner); made once per version. */
export function podView(r: PodRecord): V1Pod {
  let view = views.get(r);
  if (!view) views.set(r, (view = makeView(r)));
  return view;
}

function makeView(r: PodRecord): V1Pod {
  return {
    metadata: {
      name: r.name,
      namespace: r.namespace,
      uid: r.uid,
      labels: r.labels as Record<string, string>,
      ...(r.owner ? { ownerReferences: [{ apiVersion: '', kind: r.owner.kind, name: r.owner.name, uid: r.owner.uid, controller: true }] } : {}),
      ...(r.deletionTimestamp ? { deletionTimestamp: r.deletionTimestamp as unknown as Date } : {}),
      ...(r.createdAt ? { creationTimestamp: r.createdAt as unknown as Date } : {}),
    },
    status: { phase: r.phase, conditions: r.ready ? [{ type: 'Ready', status: 'True' }] : [] },
  };
}

/** Finished: Succeeded or Failed. */
export function isFinished(r: PodRecord): boolean {
  return r.phase === 'Succeeded' || r.phase === 'Failed';
}

/** controller.IsPodActive: neither finished nor being deleted. */
export function isActive(r: PodRecord): boolean {
  return !isFinished(r) && !r.terminating;
}

/** Counts against its node's resources: bound and not finished (terminating pods still hold them). */
export function holdsResources(r: PodRecord): boolean {
  return r.nodeName !== undefined && !isFinished(r);
}
