// Decodes a body in Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`: the magic `k8s\0`, then a
// runtime.Unknown holding typeMeta and the object's bytes) into the JSON object kubectl would have sent for it.
import { rfc3339Seconds } from '../../../shared/api/index.ts';
import type { Json, JsonObject } from '../json-value.ts';
import { decodedKindsText, TOP_LEVEL_KINDS } from './kinds.ts';
import type { FieldSpec, MessageSchema, ValueType } from './schema.ts';
import { UndecodableProtobufError, WireFormatError } from './errors.ts';
import { isZero, readFields, signed, WIRE, type WireField } from './wire.ts';

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

function text(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('utf8');
}

function expectWire(f: WireField, wire: number, path: string): void {
  if (f.wire !== wire) throw new WireFormatError(`${path}: wire type ${f.wire} where ${wire} was expected`);
}

/** metav1.Time as Go's JSON writes it: RFC 3339 in UTC, whole seconds. */
function timeText(bytes: Uint8Array): string | null {
  let seconds = 0;
  for (const f of readFields(bytes)) if (f.number === 1 && f.wire === WIRE.varint) seconds = signed(f.value);
  if (seconds === 0) return null;
  return rfc3339Seconds(seconds * 1000);
}

function intOrString(bytes: Uint8Array): Json {
  let type = 0;
  let intVal = 0;
  let strVal = '';
  for (const f of readFields(bytes)) {
    if (f.number === 1 && f.wire === WIRE.varint) type = signed(f.value);
    else if (f.number === 2 && f.wire === WIRE.varint) intVal = signed(f.value);
    else if (f.number === 3 && f.wire === WIRE.bytes) strVal = text(f.value);
  }
  return type === 1 ? strVal : intVal;
}

function scalar(type: ValueType, f: WireField, path: string): Json {
  switch (type) {
    case 'int':
      expectWire(f, WIRE.varint, path);
      return signed(f.value as bigint);
    case 'bool':
      expectWire(f, WIRE.varint, path);
      return f.value !== 0n;
    case 'string':
    case 'bytes':
    case 'time':
    case 'quantity':
    case 'intOrString': {
      expectWire(f, WIRE.bytes, path);
      const bytes = f.value as Uint8Array;
      if (type === 'string') return text(bytes);
      if (type === 'bytes') return Buffer.from(bytes).toString('base64');
      if (type === 'time') return timeText(bytes);
      if (type === 'intOrString') return intOrString(bytes);
      // resource.Quantity: its canonical string in field 1.
      const s = readFields(bytes).find((q) => q.number === 1 && q.wire === WIRE.bytes);
      return s ? text(s.value as Uint8Array) : '';
    }
  }
}

function zeroOf(type: ValueType): Json {
  return type === 'int' ? 0 : type === 'bool' ? false : type === 'time' ? null : '';
}

function decodeMapEntries(spec: FieldSpec, value: 'string' | 'bytes' | 'quantity', fields: readonly WireField[], path: string): JsonObject {
  const out: JsonObject = {};
  for (const entry of fields) {
    expectWire(entry, WIRE.bytes, path);
    let key = '';
    let v: Json = '';
    for (const part of readFields(entry.value as Uint8Array)) {
      if (part.number === 1) key = String(scalar('string', part, `${path} key`));
      else if (part.number === 2) v = scalar(value, part, `${path}[${key}]`);
      else if (!isZero(part)) throw new UndecodableProtobufError(`${path} (${spec.json}) has an entry field ${part.number} this server does not decode`);
    }
    out[key] = v;
  }
  return out;
}

/** The JSON value of one field from all its occurrences on the wire, or undefined when Go's JSON leaves it out. */
function decodeField(spec: FieldSpec, fields: readonly WireField[], path: string): Json | undefined {
  const { type, presence } = spec;
  if ('map' in type) {
    const entries = decodeMapEntries(spec, type.map, fields, path);
    return Object.keys(entries).length > 0 ? entries : undefined;
  }
  const one = (f: WireField): Json => {
    if ('value' in type) return scalar(type.value, f, path);
    expectWire(f, WIRE.bytes, path);
    return decodeMessage(type.message(), f.value as Uint8Array, path);
  };
  if (spec.repeated) {
    const values = fields.map(one);
    if (values.length > 0) return values;
    return presence === 'always' ? null : undefined;
  }
  // A non-repeated field seen twice: the last one wins, as in protobuf.
  const last = fields.at(-1);
  if (last === undefined) {
    if (presence !== 'always') return undefined;
    return 'value' in type ? zeroOf(type.value) : null;
  }
  const value = one(last);
  if (presence === 'omitempty' && 'value' in type && (value === zeroOf(type.value) || value === null)) return undefined;
  return value;
}

/** One message by its table; a field the table lacks is fine only while it holds its zero value. */
export function decodeMessage(schema: MessageSchema, bytes: Uint8Array, path: string): JsonObject {
  const byNumber = new Map<number, WireField[]>();
  for (const f of readFields(bytes)) {
    if (!schema.fields.some((s) => s.number === f.number)) {
      if (isZero(f)) continue;
      throw new UndecodableProtobufError(`field ${f.number} of ${schema.name} (at ${path || 'the top level'}) is set, and this server does not decode it`);
    }
    byNumber.set(f.number, [...(byNumber.get(f.number) ?? []), f]);
  }
  const out: JsonObject = {};
  for (const spec of schema.fields) {
    const value = decodeField(spec, byNumber.get(spec.number) ?? [], path ? `${path}.${spec.json}` : spec.json);
    if (value !== undefined) out[spec.json] = value;
  }
  return out;
}

function startsWithMagic(body: Uint8Array): boolean {
  return MAGIC.every((b, i) => body[i] === b);
}

/** The envelope's parts: typeMeta, the object's bytes, and the encoding the server must not see set. */
function readEnvelope(body: Uint8Array): { apiVersion: string; kind: string; raw: Uint8Array; contentEncoding: string } {
  const envelope: { apiVersion: string; kind: string; raw: Uint8Array; contentEncoding: string } = { apiVersion: '', kind: '', raw: new Uint8Array(0), contentEncoding: '' };
  for (const f of readFields(body.subarray(MAGIC.length))) {
    if (f.wire !== WIRE.bytes) continue;
    if (f.number === 1) {
      for (const t of readFields(f.value)) {
        if (t.number === 1 && t.wire === WIRE.bytes) envelope.apiVersion = text(t.value);
        if (t.number === 2 && t.wire === WIRE.bytes) envelope.kind = text(t.value);
      }
    } else if (f.number === 2) envelope.raw = f.value;
    else if (f.number === 3) envelope.contentEncoding = text(f.value);
  }
  return envelope;
}

/**
 * The JSON object a protobuf body stands for (`kind` and `apiVersion` first, as kubectl writes them). Throws
 * WireFormatError for a body that is not Kubernetes protobuf, UndecodableProtobufError for one this server has no
 * table for (another kind, or a field of a known kind that it does not decode).
 */
export function decodeKubernetesProtobuf(body: Uint8Array): JsonObject {
  if (!startsWithMagic(body)) throw new WireFormatError(`the body does not start with the protobuf magic "k8s\\0" (${MAGIC.join(' ')})`, 0);
  const { apiVersion, kind, raw, contentEncoding } = readEnvelope(body);
  if (contentEncoding !== '') throw new UndecodableProtobufError(`the body's contentEncoding "${contentEncoding}" is not supported`);
  const schema = TOP_LEVEL_KINDS.get(`${apiVersion} ${kind}`);
  if (!schema) throw new UndecodableProtobufError(`it decodes protobuf only for ${decodedKindsText()}, and this body is ${kind || 'an object without a kind'}${apiVersion ? ` (${apiVersion})` : ''}`);
  return { kind, apiVersion, ...decodeMessage(schema(), raw, '') };
}
