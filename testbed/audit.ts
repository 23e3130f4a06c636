// Reads the kube-apiserver audit log so tests and benchmarks can count requests by user, verb, resource and code.
import { request } from 'node:https';
import { openSync, readSync, closeSync, statSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

export interface AuditEntry {
  user: string;
  verb: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  code: number;
  uri: string;
  at: string;
}

export interface AuditFilter {
  /** Byte offset from `mark()`: only entries written after it. */
  since?: number;
  user?: string;
  verb?: string;
  resource?: string;
}

interface RawEvent {
  stage?: string;
  verb?: string;
  requestURI?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp?: string;
}

function toEntry(e: RawEvent): AuditEntry | undefined {
  if (e.stage !== 'ResponseComplete' && e.stage !== 'Panic') return undefined;
  const resource = e.objectRef?.resource ?? '';
  const entry: AuditEntry = {
    user: e.user?.username ?? '',
    verb: e.verb ?? '',
    resource: e.objectRef?.subresource ? `${resource}/${e.objectRef.subresource}` : resource,
    code: e.responseStatus?.code ?? 0,
    uri: e.requestURI ?? '',
    at: e.requestReceivedTimestamp ?? '',
  };
  if (e.objectRef?.subresource) entry.subresource = e.objectRef.subresource;
  if (e.objectRef?.namespace) entry.namespace = e.objectRef.namespace;
  if (e.objectRef?.name) entry.name = e.objectRef.name;
  return entry;
}

export class AuditLog {
  constructor(
    readonly path: string,
    private readonly conn: { server: string; caFile: string; token: string },
  ) {}

  /** Current end of the log; pass it as `since` to see only later requests. Call `sync()` first. */
  mark(): number {
    try {
      return statSync(this.path).size;
    } catch {
      return 0;
    }
  }

  entries(filter: AuditFilter = {}): AuditEntry[] {
    const text = this.readFrom(filter.since ?? 0);
    const out: AuditEntry[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      let raw: RawEvent;
      try {
        raw = JSON.parse(line) as RawEvent;
      } catch {
        continue; // a line still being written
      }
      const e = toEntry(raw);
      if (!e) continue;
      if (filter.user !== undefined && e.user !== filter.user) continue;
      if (filter.verb !== undefined && e.verb !== filter.verb) continue;
      if (filter.resource !== undefined && e.resource !== filter.resource) continue;
      if (e.uri.startsWith('/api/v1/namespaces/kmaint-audit-sync-')) continue;
      out.push(e);
    }
    return out;
  }

  /** Requests counted by "verb resource" (e.g. `{ "list nodes": 1, "patch nodes": 2 }`). */
  countByVerb(filter: AuditFilter = {}): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const e of this.entries(filter)) {
      const key = `${e.verb} ${e.resource}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }

  /**
   * Waits until every request answered before this call is in the log: sends a marker request and
   * waits for its entry (the apiserver writes entries in blocking mode, after the response).
   */
  async sync(timeoutMs = 10_000): Promise<void> {
    const marker = `kmaint-audit-sync-${randomBytes(6).toString('hex')}`;
    const start = this.mark();
    await new Promise<void>((resolve, reject) => {
      const req = request(
        `${this.conn.server}/api/v1/namespaces/${marker}`,
        { ca: readFileSync(this.conn.caFile), headers: { authorization: `Bearer ${this.conn.token}` } },
        (r) => {
          r.resume();
          r.on('end', () => resolve());
        },
      );
      req.on('error', reject);
      req.end();
    });
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.readFrom(start).includes(marker)) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`audit log ${this.path}: marker request not logged within ${timeoutMs} ms`);
  }

  private readFrom(offset: number): string {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return '';
    }
    try {
      const size = statSync(this.path).size;
      if (size <= offset) return '';
      const buf = Buffer.alloc(size - offset);
      readSync(fd, buf, 0, buf.length, offset);
      return buf.toString('utf8');
    } finally {
      closeSync(fd);
    }
  }
}
