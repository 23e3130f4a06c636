// Test fixtures: bodies the API server would send in protobuf, encoded with protobufjs from a Node's JSON — with fields
// kmaint does not declare (images, capacity, nodeInfo, managedFields' time) and Go's zero values written, as the
// API server writes them.
import protobuf from 'protobufjs/light.js';
import { NODE_LIST_MESSAGES } from './node-protobuf-schema.ts';

/** The declared messages plus fields the API server sends and kmaint does not declare, to show they are skipped. */
function buildEncodingRoot(): protobuf.Root {
  const nested: Record<string, { edition: string; fields: Record<string, protobuf.IField | protobuf.IMapField> }> = Object.fromEntries(Object.entries(NODE_LIST_MESSAGES).map(([name, m]) => [name, { edition: 'proto2', fields: { ...m.fields } }]));
  const add = (message: string, fields: Record<string, protobuf.IField | protobuf.IMapField>): void => void Object.assign((nested[message] as { fields: Record<string, protobuf.IField | protobuf.IMapField> }).fields, fields);
  add('ManagedFieldsEntry', { apiVersion: { id: 3, type: 'string' }, time: { id: 4, type: 'Time' }, fieldsType: { id: 6, type: 'string' } });
  add('NodeStatus', { capacity: { id: 1, keyType: 'string', type: 'Quantity' } as protobuf.IMapField, images: { id: 8, type: 'ContainerImage', rule: 'repeated' }, nodeInfo: { id: 7, type: 'NodeSystemInfo' } });
  nested['Quantity'] = { edition: 'proto2', fields: { string: { id: 1, type: 'string' } } };
  nested['ContainerImage'] = { edition: 'proto2', fields: { names: { id: 1, type: 'string', rule: 'repeated' }, sizeBytes: { id: 2, type: 'int64' } } };
  nested['NodeSystemInfo'] = { edition: 'proto2', fields: { kubeletVersion: { id: 7, type: 'string' } } };
  const built = protobuf.Root.fromJSON({ nested });
  built.resolveAll();
  return built;
}
export const encodingRoot = buildEncodingRoot();
const TIME_FIELDS = new Set(['creationTimestamp', 'deletionTimestamp', 'lastHeartbeatTime', 'lastTransitionTime', 'timeAdded', 'time']);

/** A Node's JSON as the protobuf message the API server would write: Times as seconds (null = zero, no bytes), fieldsV1 as its JSON bytes, Quantities. */
function protoOf(v: unknown, key = ''): unknown {
  if (TIME_FIELDS.has(key)) return v === null ? {} : { seconds: Date.parse(v as string) / 1000 };
  if (key === 'fieldsV1') return { Raw: Buffer.from(JSON.stringify(v)) };
  if (key === 'capacity') return Object.fromEntries(Object.entries(v as Record<string, string>).map(([k, q]) => [k, { string: q }]));
  if (Array.isArray(v)) return v.map((e) => protoOf(e));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, e]) => [k, protoOf(e, k)]));
  return v;
}

const MAGIC = Buffer.from('k8s\0', 'latin1');
export function envelope(apiVersion: string, kind: string, raw: Uint8Array, contentEncoding = ''): Buffer {
  const unknown = encodingRoot.lookupType('Unknown');
  return Buffer.concat([MAGIC, unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding, contentType: '' })).finish()]);
}
export function nodeListBody(items: unknown[], metadata: object, extra: (node: Record<string, unknown>, i: number) => void = () => {}): Buffer {
  const t = encodingRoot.lookupType('NodeList');
  const nodes = items.map((n, i) => {
    const { apiVersion: _a, kind: _k, ...rest } = protoOf(n) as Record<string, unknown>;
    extra(rest, i);
    return rest;
  });
  return envelope('v1', 'NodeList', t.encode(t.fromObject({ metadata, items: nodes })).finish());
}

/** A protobuf metav1.Status error answer. */
export function statusBody(code: number, reason: string, message: string): Buffer {
  const t = encodingRoot.lookupType('Status');
  return envelope('v1', 'Status', t.encode(t.fromObject({ status: 'Failure', message, reason, code })).finish());
}
