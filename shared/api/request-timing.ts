// The RFC 3339 times a requestor may put on a NodeMaintenance (kmaint.io/deadline, kmaint.io/not-before). Pure: each
// reader gets the instant or a one-line reason it is unusable, never a guess; callers decide what an unusable value
// means for them (the scheduler reports it on the request).
import { ANNOTATION_DEADLINE, ANNOTATION_NOT_BEFORE } from './constants.ts';
import type { NodeMaintenance } from './types.ts';

export type RequestTime =
  | { readonly kind: 'absent' }
  | { readonly kind: 'valid'; readonly at: Date }
  | { readonly kind: 'invalid'; readonly reason: string };

// RFC 3339 date-time: full date, 'T' (or 't'/' ' is not allowed here: Kubernetes writes 'T'), time, fraction, offset.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|z|[+-]\d{2}:\d{2})$/;

/** Parses one RFC 3339 date-time; an out-of-range field (month 13, 25:00) is invalid, not rolled over. */
export function parseRfc3339(value: string): Date | undefined {
  const m = RFC3339.exec(value);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) return undefined;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

function timeAnnotation(nm: NodeMaintenance, key: string): RequestTime {
  const raw = nm.metadata.annotations?.[key];
  if (raw === undefined) return { kind: 'absent' };
  const at = parseRfc3339(raw.trim());
  if (at === undefined) return { kind: 'invalid', reason: `${key} "${raw}" is not an RFC 3339 time (e.g. 2026-12-01T06:00:00Z)` };
  return { kind: 'valid', at };
}

export function requestDeadline(nm: NodeMaintenance): RequestTime {
  return timeAnnotation(nm, ANNOTATION_DEADLINE);
}

export function requestNotBefore(nm: NodeMaintenance): RequestTime {
  return timeAnnotation(nm, ANNOTATION_NOT_BEFORE);
}
