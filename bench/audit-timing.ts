// Audit-log figures the AuditLog class does not give: when each request started and ended, hence how many
// of one user's requests the API server was serving at once.
import { closeSync, openSync, readSync, statSync } from 'node:fs';

export interface TimedRequest {
  user: string;
  verb: string;
  /** "resource" or "resource/subresource". */
  resource: string;
  name: string;
  uri: string;
  receivedMs: number;
  completedMs: number;
}

interface RawEvent {
  stage?: string;
  verb?: string;
  requestURI?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string; name?: string };
  requestReceivedTimestamp?: string;
  stageTimestamp?: string;
}

function readFrom(path: string, offset: number): string {
  const size = statSync(path).size;
  if (size <= offset) return '';
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(size - offset);
    readSync(fd, buf, 0, buf.length, offset);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Completed requests of `user` logged after byte offset `since` (from AuditLog.mark(), after sync()). */
export function timedRequests(path: string, since: number, user: string): TimedRequest[] {
  const out: TimedRequest[] = [];
  for (const line of readFrom(path, since).split('\n')) {
    if (!line.includes(`"username":"${user}"`)) continue;
    let e: RawEvent;
    try {
      e = JSON.parse(line) as RawEvent;
    } catch {
      continue;
    }
    if (e.stage !== 'ResponseComplete' || e.user?.username !== user) continue;
    const resource = e.objectRef?.subresource ? `${e.objectRef.resource ?? ''}/${e.objectRef.subresource}` : (e.objectRef?.resource ?? '');
    out.push({
      user,
      verb: e.verb ?? '',
      resource,
      name: e.objectRef?.name ?? '',
      uri: e.requestURI ?? '',
      receivedMs: Date.parse(e.requestReceivedTimestamp ?? ''),
      completedMs: Date.parse(e.stageTimestamp ?? ''),
    });
  }
  return out;
}

/** Most requests in flight at any instant (a sweep over start and end times). */
export function peakInFlight(requests: readonly TimedRequest[]): number {
  const edges: Array<[number, number]> = [];
  for (const r of requests) {
    edges.push([r.receivedMs, 1], [r.completedMs, -1]);
  }
  // Ends before starts at the same instant: touching requests do not overlap.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let peak = 0;
  for (const [, d] of edges) {
    now += d;
    peak = Math.max(peak, now);
  }
  return peak;
}

/** Requests counted by "verb resource". */
export function countByVerb(requests: readonly TimedRequest[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) {
    const k = `${r.verb} ${r.resource}`;
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}
