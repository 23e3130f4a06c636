// The protobuf wire format as far as Kubernetes objects use it, read by protobufjs's Reader (the dependency
// shared/kube's node LIST decoder uses): tags, varints and length-delimited fields (no groups; the fixed-width types
// appear in no message the embedded server decodes, but are read past so a field table can name them). The field
// tables (kinds.ts) stay ours: they say when Go's JSON writes a field, which protobufjs's reflection does not know.
import protobuf from 'protobufjs/minimal.js';
import { WireFormatError } from './errors.ts';

/** Protobuf wire types (the low three bits of a tag). */
export const WIRE = { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 } as const;

/** One field as read off the wire, before a message table gives it a meaning. */
export type WireField =
  | { number: number; wire: typeof WIRE.varint; value: bigint }
  | { number: number; wire: typeof WIRE.bytes; value: Uint8Array }
  | { number: number; wire: typeof WIRE.fixed64 | typeof WIRE.fixed32; value: Uint8Array };

/** A 64-bit varint as protobufjs reads it (a Long with `long` installed, else a number), as an exact bigint. */
function toBigInt(value: number | { low: number; high: number }): bigint {
  return typeof value === 'number' ? BigInt(value) : (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
}

/** One varint at the reader's position through protobufjs; its failures as this reader's WireFormatError. */
function readVarint(reader: protobuf.Reader): bigint {
  const at = reader.pos;
  try {
    return toBigInt(reader.uint64() as unknown as number | { low: number; high: number });
  } catch (err) {
    if (err instanceof RangeError) throw new WireFormatError('varint runs past the end of the message', at);
    throw new WireFormatError('varint longer than 10 bytes', at);
  }
}

/** Every field of one message, in wire order (repeated fields appear once per element), read with protobufjs's Reader. */
export function readFields(bytes: Uint8Array): WireField[] {
  const fields: WireField[] = [];
  const reader = protobuf.Reader.create(bytes);
  while (reader.pos < reader.len) {
    const at = reader.pos;
    const tag = readVarint(reader);
    const number = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (number === 0) throw new WireFormatError('field number 0', at);
    switch (wire) {
      case WIRE.varint:
        fields.push({ number, wire, value: readVarint(reader) });
        break;
      case WIRE.bytes: {
        const length = Number(readVarint(reader));
        if (reader.pos + length > reader.len) throw new WireFormatError(`field of ${length} bytes runs past the end of the message`, reader.pos);
        fields.push({ number, wire, value: bytes.subarray(reader.pos, reader.pos + length) });
        reader.skip(length);
        break;
      }
      case WIRE.fixed64:
      case WIRE.fixed32: {
        const length = wire === WIRE.fixed64 ? 8 : 4;
        if (reader.pos + length > reader.len) throw new WireFormatError(`field of ${length} bytes runs past the end of the message`, reader.pos);
        fields.push({ number, wire, value: bytes.subarray(reader.pos, reader.pos + length) });
        reader.skip(length);
        break;
      }
      default:
        throw new WireFormatError(`unsupported wire type ${wire} for field ${number}`, at);
    }
  }
  return fields;
}

/** A varint as the signed 64-bit integer Go wrote (int32 and int64 negatives are sign-extended to 64 bits). */
export function signed(value: bigint): number {
  return Number(BigInt.asIntN(64, value));
}

/** Whether a field carries its type's zero value (0, false, "", an empty message): what Go's JSON would omit. */
export function isZero(field: WireField): boolean {
  if (field.wire === WIRE.varint) return field.value === 0n;
  return field.value.every((b) => b === 0) && (field.wire !== WIRE.bytes || field.value.length === 0);
}
