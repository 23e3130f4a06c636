// How a field table describes a Kubernetes protobuf message: each field's number (k8s.io/api generated.proto), its
// JSON name, and when Go's encoding/json writes it (the struct tag), so a decoded body reads as kubectl's JSON would.

/** Values that are messages on the wire but one JSON value in Go: metav1.Time, resource.Quantity, IntOrString. */
export type ValueType = 'string' | 'int' | 'bool' | 'bytes' | 'time' | 'quantity' | 'intOrString';

/**
 * When the JSON holds the field: `omitempty` (a zero value, an empty list or map, a zero time is left out; a message
 * present on the wire is written, as Go writes a struct), `pointer` (written whenever it is on the wire, zero or
 * not: `*int32`, `*bool`), `always` (no omitempty: written even when zero, a missing list or message as null).
 */
export type Presence = 'omitempty' | 'pointer' | 'always';

export type FieldType = { value: ValueType } | { message: () => MessageSchema } | { map: 'string' | 'bytes' | 'quantity' };

export interface FieldSpec {
  number: number;
  json: string;
  type: FieldType;
  repeated: boolean;
  presence: Presence;
}

export interface MessageSchema {
  /** Group/version and Go type, for error messages: `core/v1 PodSpec`. */
  name: string;
  /** In the Go struct's order, which is the order of the JSON kubectl would send. */
  fields: readonly FieldSpec[];
}

export function message(name: string, fields: readonly FieldSpec[]): MessageSchema {
  return { name, fields };
}

function field(number: number, json: string, type: FieldType, presence: Presence, repeated = false): FieldSpec {
  return { number, json, type, repeated, presence };
}

/** Scalar fields; `presence` defaults to omitempty, the common tag. */
export const str = (n: number, json: string, presence: Presence = 'omitempty'): FieldSpec => field(n, json, { value: 'string' }, presence);
export const int = (n: number, json: string, presence: Presence = 'omitempty'): FieldSpec => field(n, json, { value: 'int' }, presence);
export const bool = (n: number, json: string, presence: Presence = 'omitempty'): FieldSpec => field(n, json, { value: 'bool' }, presence);
export const time = (n: number, json: string, presence: Presence = 'omitempty'): FieldSpec => field(n, json, { value: 'time' }, presence);
export const intOrString = (n: number, json: string): FieldSpec => field(n, json, { value: 'intOrString' }, 'pointer');
/** `repeated string`, `omitempty` unless told. */
export const strings = (n: number, json: string, presence: Presence = 'omitempty'): FieldSpec => field(n, json, { value: 'string' }, presence, true);
/** A nested message (a struct or a pointer to one: either is written when it is on the wire). */
export const msg = (n: number, json: string, of: () => MessageSchema, presence: Presence = 'omitempty'): FieldSpec => field(n, json, { message: of }, presence);
export const msgs = (n: number, json: string, of: () => MessageSchema, presence: Presence = 'omitempty'): FieldSpec => field(n, json, { message: of }, presence, true);
/** `map<string, V>` (wire: repeated entries with key 1 and value 2), always `omitempty` in the kinds decoded here. */
export const map = (n: number, json: string, value: 'string' | 'bytes' | 'quantity'): FieldSpec => field(n, json, { map: value }, 'omitempty', true);
