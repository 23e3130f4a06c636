// The protobuf wire format as far as Kubernetes objects use it: tags, varints and length-delimited fields (no groups;
// the fixed-width types appear in no message the embedded server decodes, but are read past so a field table can
// name them).
import { WireFormatError } from './errors.ts';

/** Protobuf wire types (the low three bits of a tag). */
export const WIRE = { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 } as const;

/** One field as read off the wire, before a message table gives it a meaning. */
export type WireField =
  | { number: number; wire: typeof WIRE.varint; value: bigint }
  | { number: number; wire: typeof WIRE.bytes; value: Uint8Array }
  | { number: number; wire: typeof WIRE.fixed64 | typeof WIRE.fixed32; value: Uint8Array };

/** Reads one varint (at most 10 bytes, as 64-bit values need) starting at `at`; returns it and the next offset. */
function readVarint(bytes: Uint8Array, at: number): { value: bigint; next: number } {
  let value = 0n;
  for (let i = 0; i < 10; i++) {
    const b = bytes[at + i];
    if (b === undefined) throw new WireFormatError('varint runs past the end of the message', at);
    value |= BigInt(b & 0x7f) << BigInt(7 * i);
    if ((b & 0x80) === 0) return { value, next: at + i + 1 };
  }
  throw new WireFormatError('varint longer than 10 bytes', at);
}

function slice(bytes: Uint8Array, at: number, length: number): Uint8Array {
  if (at + length > bytes.length) throw new WireFormatError(`field of ${length} bytes runs past the end of the message`, at);
  return bytes.subarray(at, at + length);
}

/** Every field of one message, in wire order (repeated fields appear once per element). */
export function readFields(bytes: Uint8Array): WireField[] {
  const fields: WireField[] = [];
  let at = 0;
  while (at < bytes.length) {
    const tag = readVarint(bytes, at);
    const number = Number(tag.value >> 3n);
    const wire = Number(tag.value & 7n);
    if (number === 0) throw new WireFormatError('field number 0', at);
    at = tag.next;
    switch (wire) {
      case WIRE.varint: {
        const v = readVarint(bytes, at);
        fields.push({ number, wire, value: v.value });
        at = v.next;
        break;
      }
      case WIRE.bytes: {
        const length = readVarint(bytes, at);
        const value = slice(bytes, length.next, Number(length.value));
        fields.push({ number, wire, value });
        at = length.next + value.length;
        break;
      }
      case WIRE.fixed64:
      case WIRE.fixed32: {
        const value = slice(bytes, at, wire === WIRE.fixed64 ? 8 : 4);
        fields.push({ number, wire, value });
        at += value.length;
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
