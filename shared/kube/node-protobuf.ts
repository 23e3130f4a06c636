// A node LIST answered in Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`: the magic `k8s\0`, a
// runtime.Unknown whose raw bytes are the v1.NodeList), decoded into exactly the Nodes lean-nodes.ts makes of the JSON
// of the same list. The API server serializes a node LIST as protobuf for about 0.4x the CPU of JSON
// (docs/large-clusters.md); the fields kmaint never reads are skipped, not decoded. Go's JSON rules are applied
// field by field — omitempty drops a zero value, a pointer is written whenever it is set, a zero metav1.Time is
// null — so a planner cannot tell which encoding a Node came in (node-protobuf.test.ts decodes both ways).
import { errorMessage } from '../errors/index.ts';
import type { V1Node, V1NodeCondition, V1NodeSpec, V1NodeSystemInfo, V1Taint } from '@kubernetes/client-node';
import type protobuf from 'protobufjs/light.js';
import { ANNOTATION_CORDONED_BY, rfc3339Seconds } from '../api/index.ts';
import { NodeListDecodeError } from './errors.ts';
import { nodeListRoot } from './node-protobuf-schema.ts';
import { StringPool } from './string-pool.ts';
import { unschedulableOwnersMeta } from './unschedulable-owner.ts';

/** The media type of Kubernetes' protobuf encoding, as Content-Type names it. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Message fields absent from the wire are null (protobufjs's prototype default), scalars their zero value. */
/** int64 fields: protobufjs gives a Long when the `long` package loads, a number otherwise. */
type Int64 = number | { toNumber(): number };
interface Time {
  seconds?: Int64;
}
interface Entry {
  manager: string;
  operation: string;
  fieldsV1?: { Raw: Uint8Array } | null;
}
interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}
interface ObjectMeta {
  name: string;
  generateName: string;
  namespace: string;
  selfLink: string;
  uid: string;
  resourceVersion: string;
  generation: Int64;
  creationTimestamp?: Time | null;
  deletionTimestamp?: Time | null;
  deletionGracePeriodSeconds?: Int64;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: Entry[];
}
interface Taint {
  key: string;
  value: string;
  effect: string;
  timeAdded?: Time | null;
}
interface ConfigMapSource {
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
  kubeletConfigKey: string;
}
interface NodeSpec {
  podCIDR: string;
  podCIDRs?: string[];
  providerID: string;
  unschedulable: boolean;
  taints?: Taint[];
  configSource?: { configMap?: ConfigMapSource | null } | null;
  externalID: string;
}
interface Condition {
  type: string;
  status: string;
  lastHeartbeatTime?: Time | null;
  lastTransitionTime?: Time | null;
  reason: string;
  message: string;
}
interface Node {
  metadata?: ObjectMeta | null;
  spec?: NodeSpec | null;
  status?: { conditions?: Condition[]; nodeInfo?: { bootID: string } | null } | null;
}
interface ListMeta {
  resourceVersion: string;
  continue: string;
  remainingItemCount?: Int64;
}

/** One page of a node LIST, as lean-nodes.ts returns the JSON one: its Nodes and the list's metadata as Go's JSON has it. */
export interface DecodedNodeList {
  items: V1Node[];
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
}

/** A metav1.Status error answer: what failureOf reads of the JSON one. */
export interface DecodedStatus {
  kind: 'Status';
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
}

let types: { unknown: protobuf.Type; nodeList: protobuf.Type; nodeListHead: protobuf.Type; status: protobuf.Type } | undefined;
function typesOnce(): NonNullable<typeof types> {
  if (types === undefined) {
    const root = nodeListRoot();
    types = { unknown: root.lookupType('Unknown'), nodeList: root.lookupType('NodeList'), nodeListHead: root.lookupType('NodeListHead'), status: root.lookupType('Status') };
  }
  return types;
}

const has = (o: object | null | undefined, key: string): boolean => o != null && Object.hasOwn(o, key);
const int = (v: Int64): number => (typeof v === 'number' ? v : v.toNumber());
/** Set on the wire: a pointer field (protobufjs leaves absent scalars on the prototype). */
const set = <K extends string, V>(o: object | null | undefined, key: K, value: () => V): { [k in K]?: V } => (has(o, key) ? ({ [key]: value() } as { [k in K]: V }) : {});
/** A string field with omitempty. */
const nonEmpty = <K extends string>(key: K, s: string | undefined): { [k in K]?: string } => (s ? ({ [key]: s } as { [k in K]: string }) : {});
/** A list or map field with omitempty. */
const nonEmptyList = <K extends string, V>(key: K, l: V[] | undefined): { [k in K]?: V[] } => (l !== undefined && l.length > 0 ? ({ [key]: l } as { [k in K]: V[] }) : {});

/** A metav1.Time as a Date, as leanNode makes it of the JSON: a zero time (no seconds on the wire) is JSON's null, `new Date(null)`. */
function dateOf(t: Time, pool: StringPool): Date {
  return pool.instantAt(t.seconds == null || !has(t, 'seconds') ? 0 : int(t.seconds) * 1000);
}

/** A metav1.Time as its JSON (RFC 3339, UTC, whole seconds), or null for a zero time: the spec keeps JSON's strings. */
function timeText(t: Time): string | null {
  if (t.seconds == null || !has(t, 'seconds')) return null;
  return rfc3339Seconds(int(t.seconds) * 1000);
}

const OWNER_MARKS = ['f:unschedulable', ANNOTATION_CORDONED_BY];

/**
 * The managedFields entries as unschedulable-owner.ts reads them from JSON. Only a field set that names
 * spec.unschedulable or the cordon record can own one of them, so only those are parsed: the rest go without fieldsV1,
 * which unschedulableOwners drops as it would drop them after reading.
 */
function entries(managed: Entry[]): unknown[] {
  return managed.map((e) => {
    const raw = e.fieldsV1?.Raw;
    const text = raw != null && raw.length > 0 ? Buffer.from(raw.buffer, raw.byteOffset, raw.length) : undefined;
    const owns = text !== undefined && OWNER_MARKS.some((m) => text.includes(m));
    return { ...nonEmpty('manager', e.manager), ...nonEmpty('operation', e.operation), ...(owns ? { fieldsV1: JSON.parse(text.toString('utf8')) as unknown } : {}) };
  });
}

/** A label or annotation map with the pool's copies of its values; undefined when empty (omitempty). */
function pooledMap(rec: Record<string, string> | undefined, pool: StringPool): Record<string, string> | undefined {
  return rec === undefined || Object.keys(rec).length === 0 ? undefined : pool.internRecord(rec);
}

// Assigned field by field rather than spread: this runs for every Node of every page, and spreading a dozen small
// objects a Node cost more than protobufjs's decoding itself.
function metadataOf(m: ObjectMeta, pool: StringPool): NonNullable<V1Node['metadata']> {
  const out: NonNullable<V1Node['metadata']> = {};
  if (m.name) out.name = m.name;
  if (m.generateName) out.generateName = m.generateName;
  if (m.namespace) out.namespace = m.namespace;
  if (m.selfLink) out.selfLink = m.selfLink;
  if (m.uid) out.uid = m.uid;
  if (m.resourceVersion) out.resourceVersion = m.resourceVersion;
  const generation = int(m.generation);
  if (generation !== 0) out.generation = generation;
  if (has(m, 'deletionGracePeriodSeconds')) out.deletionGracePeriodSeconds = int(m.deletionGracePeriodSeconds ?? 0);
  if (m.ownerReferences !== undefined && m.ownerReferences.length > 0) {
    out.ownerReferences = m.ownerReferences.map((o) => ({
      apiVersion: o.apiVersion,
      kind: o.kind,
      name: o.name,
      uid: o.uid,
      ...set(o, 'controller', () => o.controller === true),
      ...set(o, 'blockOwnerDeletion', () => o.blockOwnerDeletion === true),
    }));
  }
  if (m.finalizers !== undefined && m.finalizers.length > 0) out.finalizers = m.finalizers;
  if (m.managedFields !== undefined && m.managedFields.length > 0) {
    const owners = unschedulableOwnersMeta(entries(m.managedFields)).managedFields;
    if (owners !== undefined) out.managedFields = owners;
  }
  const labels = pooledMap(m.labels, pool);
  if (labels !== undefined) out.labels = labels;
  const annotations = pooledMap(m.annotations, pool);
  if (annotations !== undefined) out.annotations = annotations;
  // omitzero since Kubernetes 1.35: a zero creationTimestamp is not in the JSON at all.
  if (m.creationTimestamp != null && has(m.creationTimestamp, 'seconds')) out.creationTimestamp = dateOf(m.creationTimestamp, pool);
  if (m.deletionTimestamp != null) out.deletionTimestamp = dateOf(m.deletionTimestamp, pool);
  return out;
}

function taintOf(t: Taint): V1Taint {
  // key and effect have no omitempty; timeAdded is a pointer, written when set (null if zero).
  return { key: t.key, ...nonEmpty('value', t.value), effect: t.effect, ...(t.timeAdded != null ? { timeAdded: timeText(t.timeAdded) as unknown as Date } : {}) };
}

/** The spec as its JSON reads, which lean-nodes.ts keeps untouched (so taints' timeAdded stays a string there too). */
function specOf(s: NodeSpec | null | undefined): V1NodeSpec {
  if (s == null) return {};
  const cm = s.configSource?.configMap;
  const configMap = cm == null ? {} : { configMap: { namespace: cm.namespace, name: cm.name, ...nonEmpty('uid', cm.uid), ...nonEmpty('resourceVersion', cm.resourceVersion), kubeletConfigKey: cm.kubeletConfigKey } };
  return {
    ...nonEmpty('podCIDR', s.podCIDR),
    ...nonEmptyList('podCIDRs', s.podCIDRs),
    ...nonEmpty('providerID', s.providerID),
    ...(s.unschedulable ? { unschedulable: true } : {}),
    ...nonEmptyList('taints', (s.taints ?? []).map(taintOf)),
    ...(s.configSource != null ? { configSource: configMap } : {}),
    ...nonEmpty('externalID', s.externalID),
  };
}

function conditionOf(c: Condition, pool: StringPool): V1NodeCondition {
  // type and status have no omitempty; the two times are structs, written as null when zero.
  const out: V1NodeCondition = { type: pool.intern(c.type), status: pool.intern(c.status) };
  if (c.reason) out.reason = pool.intern(c.reason);
  if (c.message) out.message = pool.intern(c.message);
  out.lastHeartbeatTime = dateOf(c.lastHeartbeatTime ?? {}, pool);
  out.lastTransitionTime = dateOf(c.lastTransitionTime ?? {}, pool);
  return out;
}

/**
 * Of status.nodeInfo only the boot ID, which the reboot step compares (issue 43); V1NodeSystemInfo's other fields,
 * required by its type, are not read and left out. Shared by the JSON reader (lean-nodes.ts).
 */
export function bootInfo(bootID: string): V1NodeSystemInfo {
  return { bootID } as V1NodeSystemInfo;
}

function nodeOf(n: Node, pool: StringPool): V1Node {
  const node: V1Node = { apiVersion: 'v1', kind: 'Node', metadata: metadataOf(n.metadata ?? ({} as ObjectMeta), pool), spec: specOf(n.spec) };
  const conditions = n.status?.conditions;
  if (conditions !== undefined && conditions.length > 0) node.status = { conditions: conditions.map((c) => conditionOf(c, pool)) };
  const bootID = n.status?.nodeInfo?.bootID;
  if (bootID) node.status = { ...node.status, nodeInfo: bootInfo(bootID) };
  return node;
}

/** The object inside the envelope, after checking the magic, the kind and that it is not itself compressed. */
function unwrap(body: Uint8Array, kind: string): Uint8Array {
  if (body.length < MAGIC.length || !MAGIC.equals(body.subarray(0, MAGIC.length))) throw new NodeListDecodeError(`the body does not start with the protobuf magic "k8s\\0" (${body.length} bytes)`);
  const envelope = typesOnce().unknown.decode(body.subarray(MAGIC.length)) as unknown as { typeMeta?: { apiVersion: string; kind: string }; raw?: Uint8Array; contentEncoding: string };
  const got = `${envelope.typeMeta?.apiVersion ?? ''} ${envelope.typeMeta?.kind ?? ''}`;
  if (got !== `v1 ${kind}`) throw new NodeListDecodeError(`expected a v1 ${kind}, the envelope holds "${got.trim()}"`);
  if (envelope.contentEncoding) throw new NodeListDecodeError(`the ${kind} is encoded "${envelope.contentEncoding}" inside the envelope`);
  return envelope.raw ?? new Uint8Array();
}

/** Names the failure: protobufjs throws a RangeError or a bare Error on truncated or mistyped bytes. */
function decoding<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof NodeListDecodeError) throw err;
    throw new NodeListDecodeError(`${what}: ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * A protobuf node LIST page into lean Nodes; `pool` holds the copies of the words its nodes share (string-pool.ts).
 * Throws NodeListDecodeError when the body is not a protobuf v1 NodeList.
 */
export function decodeNodeListProtobuf(body: Uint8Array, pool: StringPool = new StringPool()): DecodedNodeList {
  const list = decoding('decoding a protobuf NodeList', () => typesOnce().nodeList.decode(unwrap(body, 'NodeList'))) as unknown as { metadata?: ListMeta; items?: Node[] };
  return { items: (list.items ?? []).map((n) => nodeOf(n, pool)), metadata: listMetaOf(list.metadata) };
}

function listMetaOf(meta: ListMeta | undefined): DecodedNodeList['metadata'] {
  return { ...nonEmpty('resourceVersion', meta?.resourceVersion), ...nonEmpty('continue', meta?.continue), ...set(meta, 'remainingItemCount', () => int(meta?.remainingItemCount ?? 0)) };
}

/**
 * Only the list's metadata of a protobuf node LIST page (its continue token), its Nodes skipped undecoded: the client
 * asks for the next page before this one's Nodes are decoded (client.ts). Throws as decodeNodeListProtobuf.
 */
export function decodeNodeListHeadProtobuf(body: Uint8Array): DecodedNodeList['metadata'] {
  const head = decoding('decoding a protobuf NodeList', () => typesOnce().nodeListHead.decode(unwrap(body, 'NodeList'))) as unknown as { metadata?: ListMeta };
  return listMetaOf(head.metadata);
}

/** A protobuf metav1.Status (an error answer) as the fields of its JSON that failureOf reads. */
export function decodeStatusProtobuf(body: Uint8Array): DecodedStatus {
  const s = decoding('decoding a protobuf Status', () => typesOnce().status.decode(unwrap(body, 'Status'))) as unknown as { status: string; message: string; reason: string; code: number };
  return { kind: 'Status', ...nonEmpty('status', s.status), ...nonEmpty('message', s.message), ...nonEmpty('reason', s.reason), ...(s.code ? { code: s.code } : {}) };
}
