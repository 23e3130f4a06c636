// The repair ladder's records on a Node (repair.kmaint.io/): the rung in progress and the fault history of a rolling
// window. Reading is lenient (a record that does not parse counts as absent and is overwritten); writing is bounded.
import type { V1Node } from '@kubernetes/client-node';
import { ANNOTATION_REPAIR_HISTORY, ANNOTATION_REPAIR_RUNG, ANNOTATION_REPAIR_UNHEALTHY_SINCE, CONDITION_VALIDATION_FAILED, rfc3339Seconds } from '#api';
import type { Remedy } from './repair-config.ts';

/** The most repairs kept in the history annotation (oldest dropped first): about 60 bytes each, so under 1.5 KiB. */
export const HISTORY_MAX_ENTRIES = 20;

/** `requested`: its request is filed (or being filed); `rebooted`: a reboot rung's request was released at `at`. */
export interface RungRecord {
  rung: number;
  remedy: Remedy;
  state: 'requested' | 'rebooted';
  /** RFC 3339, to the second. */
  at: string;
}

export interface HistoryEntry {
  /** When the repair's request was filed (RFC 3339, to the second). */
  at: string;
  rung: number;
  remedy: Remedy;
  /** The reason of a failed validation the Node showed when the repair was filed (`Failed`, `TimedOut`), if any. */
  validation?: string;
}


/** The reason of the Node's failed validation (condition KmaintValidationFailed True), or undefined when none shows. */
export function failedValidation(node: V1Node): string | undefined {
  const c = node.status?.conditions?.find((x) => x.type === CONDITION_VALIDATION_FAILED);
  return c?.status === 'True' ? c.reason || 'Failed' : undefined;
}

const REMEDIES: ReadonlySet<string> = new Set(['reboot', 'replace', 'quarantine']);

function millis(at: string): number | undefined {
  const t = Date.parse(at);
  return Number.isNaN(t) ? undefined : t;
}

function isRemedy(v: unknown): v is Remedy {
  return typeof v === 'string' && REMEDIES.has(v);
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function annotation(node: V1Node, key: string): string | undefined {
  return node.metadata?.annotations?.[key];
}

/** The rung record on `node`, or undefined when absent or malformed. */
export function readRung(node: V1Node): RungRecord | undefined {
  const v = parseJson(annotation(node, ANNOTATION_REPAIR_RUNG));
  if (typeof v !== 'object' || v === null) return undefined;
  const r = v as Record<string, unknown>;
  if (typeof r['rung'] !== 'number' || !Number.isInteger(r['rung']) || !isRemedy(r['remedy']) || (r['state'] !== 'requested' && r['state'] !== 'rebooted')) return undefined;
  if (typeof r['at'] !== 'string' || millis(r['at']) === undefined) return undefined;
  return { rung: r['rung'], remedy: r['remedy'], state: r['state'], at: r['at'] };
}

export function rungRecord(rung: number, remedy: Remedy, state: RungRecord['state'], at: Date | number): string {
  return JSON.stringify({ rung, remedy, state, at: rfc3339Seconds(at) });
}

/** Every well-formed entry on `node`, oldest first, whatever its age. */
function allEntries(node: V1Node): HistoryEntry[] {
  const v = parseJson(annotation(node, ANNOTATION_REPAIR_HISTORY));
  if (!Array.isArray(v)) return [];
  const out: HistoryEntry[] = [];
  for (const item of v as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const e = item as Record<string, unknown>;
    if (typeof e['at'] !== 'string' || millis(e['at']) === undefined || typeof e['rung'] !== 'number' || !isRemedy(e['remedy'])) continue;
    out.push({ at: e['at'], rung: e['rung'], remedy: e['remedy'], ...(typeof e['validation'] === 'string' ? { validation: e['validation'] } : {}) });
  }
  return out.sort((a, b) => (millis(a.at) ?? 0) - (millis(b.at) ?? 0));
}

function inWindow(e: HistoryEntry, now: Date, windowSeconds: number): boolean {
  return (millis(e.at) ?? 0) > now.getTime() - windowSeconds * 1000;
}

/** The repairs within the window ending at `now`, oldest first. */
export function readHistory(node: V1Node, now: Date, windowSeconds: number): HistoryEntry[] {
  return allEntries(node).filter((e) => inWindow(e, now, windowSeconds));
}

/** The history annotation's value with `entry` appended: pruned to the window and to HISTORY_MAX_ENTRIES. */
export function historyWith(node: V1Node, entry: HistoryEntry, now: Date, windowSeconds: number): string {
  const kept = [...readHistory(node, now, windowSeconds), entry].slice(-HISTORY_MAX_ENTRIES);
  return JSON.stringify(kept);
}

/**
 * The history annotation's pruned value when some entry left the window (or did not parse), null when none is left,
 * undefined when nothing changes: pruning by time is one write when an entry expires.
 */
export function prunedHistory(node: V1Node, now: Date, windowSeconds: number): string | null | undefined {
  const raw = annotation(node, ANNOTATION_REPAIR_HISTORY);
  if (raw === undefined) return undefined;
  const kept = readHistory(node, now, windowSeconds);
  if (kept.length === 0) return null;
  const value = JSON.stringify(kept);
  return value === raw ? undefined : value;
}

/** `reboot (rung 0) at T1 after validation Failed, replace (rung 1) at T2`. */
export function describeHistory(entries: readonly HistoryEntry[]): string {
  return entries.map((e) => `${e.remedy} (rung ${e.rung}) at ${e.at}${e.validation !== undefined ? ` after validation ${e.validation}` : ''}`).join(', ');
}

/** The unhealthy-since record on `node` in ms, or undefined when absent or malformed. */
export function recordedUnhealthySince(node: V1Node): number | undefined {
  const at = annotation(node, ANNOTATION_REPAIR_UNHEALTHY_SINCE);
  return at === undefined ? undefined : millis(at);
}
