// The scale benchmark's own line to the API server: kept-alive HTTPS as the admin (fast parallel creates, /metrics),
// and what the API server says a pass cost it: serving time and response bytes per verb and resource.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';

export interface Conn {
  server: string;
  token: string;
  ca: Buffer;
  agent: Agent;
}

export function connect(server: string, token: string, caFile: string): Conn {
  return { server, token, ca: readFileSync(caFile), agent: new Agent({ keepAlive: true, maxSockets: 128 }) };
}

export function call(conn: Conn, method: string, path: string, body?: string, contentType = 'application/json'): Promise<{ status: number; text: string }> {
  return new Promise((done, fail) => {
    const headers: Record<string, string> = { authorization: `Bearer ${conn.token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = contentType;
    const req = request(`${conn.server}${path}`, { method, ca: conn.ca, agent: conn.agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(body);
  });
}

/** POST with retries on overload and dropped connections; 409 (already there) counts as done. */
export async function create(conn: Conn, path: string, body: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const { status, text } = await call(conn, 'POST', path, body).catch((err: unknown) => ({ status: 0, text: String(err) }));
    if (status === 201 || status === 409) return;
    if (attempt < 8 && (status === 0 || status === 429 || status >= 500)) {
      await new Promise((r) => setTimeout(r, 200 * 2 ** Math.min(attempt, 5)));
      continue;
    }
    throw new Error(`POST ${path}: HTTP ${status}: ${text.slice(0, 300)}`);
  }
}

/** Sums of the API server's request histograms, keyed "VERB resource[/subresource]". */
export interface ServerCost {
  /** apiserver_request_duration_seconds_sum: time spent serving, seconds. */
  seconds: Record<string, number>;
  /** apiserver_request_duration_seconds_count. */
  requests: Record<string, number>;
  /** apiserver_response_sizes_sum: bytes of the responses before compression (what the client decodes). */
  bytes: Record<string, number>;
  /** apiserver_watch_events_sizes_sum by resource ("nodes"): bytes of watch events sent. */
  watchBytes: Record<string, number>;
  /**
   * go_memstats_alloc_bytes_total: bytes the API server allocated. What drives its garbage collection, whose CPU
   * lands in whichever window a cycle happens to run in; allocation is counted where it is made.
   */
  allocBytes: number;
  /** go_gc_duration_seconds_count: garbage collection cycles. */
  gcCycles: number;
}

const LINE = /^(apiserver_request_duration_seconds_sum|apiserver_request_duration_seconds_count|apiserver_response_sizes_sum|apiserver_watch_events_sizes_sum)\{([^}]*)\} (\S+)$/;

function label(labels: string, key: string): string {
  return new RegExp(`(?:^|,)${key}="([^"]*)"`).exec(labels)?.[1] ?? '';
}

export async function scrape(conn: Conn): Promise<ServerCost> {
  const { status, text } = await call(conn, 'GET', '/metrics');
  if (status !== 200) throw new Error(`GET /metrics: HTTP ${status}`);
  const cost: ServerCost = { seconds: {}, requests: {}, bytes: {}, watchBytes: {}, allocBytes: 0, gcCycles: 0 };
  for (const line of text.split('\n')) {
    if (line.startsWith('go_memstats_alloc_bytes_total ')) cost.allocBytes = Number(line.split(' ')[1]);
    if (line.startsWith('go_gc_duration_seconds_count ')) cost.gcCycles = Number(line.split(' ')[1]);
    const m = LINE.exec(line);
    if (!m) continue;
    const [, name, labels = '', value] = m;
    if (name === 'apiserver_watch_events_sizes_sum') {
      // Labelled group/resource/version since 1.33 (kind before it).
      const resource = label(labels, 'resource') || label(labels, 'kind');
      cost.watchBytes[resource] = (cost.watchBytes[resource] ?? 0) + Number(value);
      continue;
    }
    const sub = label(labels, 'subresource');
    const key = `${label(labels, 'verb')} ${label(labels, 'resource')}${sub ? `/${sub}` : ''}`;
    const into = name === 'apiserver_request_duration_seconds_sum' ? cost.seconds : name === 'apiserver_request_duration_seconds_count' ? cost.requests : cost.bytes;
    into[key] = (into[key] ?? 0) + Number(value);
  }
  return cost;
}

function minus(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(a)) {
    const d = v - (b[k] ?? 0);
    if (d > 1e-9) out[k] = d;
  }
  return out;
}

export function costBetween(after: ServerCost, before: ServerCost): ServerCost {
  return { seconds: minus(after.seconds, before.seconds), requests: minus(after.requests, before.requests), bytes: minus(after.bytes, before.bytes), watchBytes: minus(after.watchBytes, before.watchBytes), allocBytes: after.allocBytes - before.allocBytes, gcCycles: after.gcCycles - before.gcCycles };
}

/** Long-running verbs (WATCH, CONNECT) report their whole lifetime as serving time: not a pass's cost. */
const SHORT = (key: string): boolean => !key.startsWith('WATCH') && !key.startsWith('CONNECT');

export function total(rec: Record<string, number>, keep: (key: string) => boolean = SHORT): number {
  return Object.entries(rec).filter(([k]) => keep(k)).reduce((a, [, v]) => a + v, 0);
}

/** User + system CPU seconds of a process, from /proc/<pid>/stat (clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** VmRSS of a process, bytes. */
export function rssOf(pid: number): number {
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib ?? NaN) * 1024;
}

/**
 * Waits until the API server serves no more short requests than a quiet control plane: after nodes are added,
 * kube-controller-manager's node controller GETs and PATCHes each new node twice and posts a RegisteredNode event,
 * at its own QPS, for minutes at 100,000 nodes. A pass measured during that would be charged for it. Quiet: two 5 s
 * windows in a row serving at most 10 requests (at most 30 minutes). Returns how long it took, in ms.
 */
export async function untilQuiet(conn: Conn): Promise<number> {
  const t = Date.now();
  let last = total((await scrape(conn)).requests);
  for (let calm = 0; calm < 2 && Date.now() - t < 1_800_000; ) {
    await new Promise((r) => setTimeout(r, 5000));
    const now = total((await scrape(conn)).requests);
    calm = now - last <= 10 ? calm + 1 : 0;
    last = now;
  }
  return Date.now() - t;
}
