// A loopback fake of the few API server behaviours the simulated kubelet and createCluster use,
// recording every request (method, path, content type, body) for tests. Not a conformance fake.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  body: unknown;
}

type Obj = { metadata: Record<string, unknown> & { name: string; namespace?: string; uid: string; resourceVersion: string }; [k: string]: unknown };
interface Watcher {
  resource: string;
  matches: (o: Obj) => boolean;
  res: ServerResponse;
}

export class FakeApiServer {
  readonly requests: RecordedRequest[] = [];
  private readonly objects = new Map<string, Obj>();
  private readonly watchers = new Set<Watcher>();
  /** Every change, so a watch from a resource version replays what it missed, as the API server does. */
  private readonly history: Array<{ resource: string; type: string; object: Obj }> = [];
  private revision = 100;
  private server: Server | undefined;

  async start(): Promise<KubeConfig> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'fake', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'fake', token: 'fake-token' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'fake' }],
      currentContext: 'fake',
    });
    return kc;
  }

  async stop(): Promise<void> {
    for (const w of this.watchers) w.res.end();
    this.watchers.clear();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  get(resource: string, namespace: string, name: string): Obj | undefined {
    return this.objects.get(`${resource}/${namespace}/${name}`);
  }

  list(resource: string): Obj[] {
    return [...this.objects.entries()].filter(([k]) => k.startsWith(`${resource}/`)).map(([, o]) => o);
  }

  put(resource: string, object: Record<string, unknown>): Obj {
    const meta = (object.metadata ?? {}) as Obj['metadata'];
    const stored = { ...object, metadata: { ...meta, uid: meta.uid || randomUUID(), resourceVersion: String(++this.revision) } } as Obj;
    const key = `${resource}/${stored.metadata.namespace ?? ''}/${stored.metadata.name}`;
    const existed = this.objects.has(key);
    this.objects.set(key, stored);
    this.notify(resource, existed ? 'MODIFIED' : 'ADDED', stored);
    return stored;
  }

  /** What the API server does on a graceful delete of a pod on a node: only marks it. */
  markDeleting(namespace: string, name: string, graceSeconds: number): void {
    const pod = this.get('pods', namespace, name);
    if (!pod) throw new Error(`no pod ${namespace}/${name}`);
    this.put('pods', { ...pod, metadata: { ...pod.metadata, deletionTimestamp: new Date(Date.now() + graceSeconds * 1000).toISOString(), deletionGracePeriodSeconds: graceSeconds } });
  }

  /** Ends every watch with a 410 Gone ERROR event and forgets history, as etcd compaction would. */
  expireWatches(): void {
    this.history.length = 0;
    for (const w of this.watchers) {
      w.res.write(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired' } })}\n`);
      w.res.end();
    }
    this.watchers.clear();
  }

  /** Watches open right now. */
  get watchCount(): number {
    return this.watchers.size;
  }

  private remove(resource: string, o: Obj): void {
    this.objects.delete(`${resource}/${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    this.notify(resource, 'DELETED', { ...o, metadata: { ...o.metadata, resourceVersion: String(++this.revision) } });
  }

  private notify(resource: string, type: string, o: Obj): void {
    this.history.push({ resource, type, object: o });
    for (const w of this.watchers) if (w.resource === resource) emit(w, type, o);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body: unknown = text ? JSON.parse(text) : undefined;
    const method = req.method ?? 'GET';
    this.requests.push({ method, path: url.pathname, query: url.searchParams, contentType: req.headers['content-type'], body });
    const send = (code: number, payload: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const status = (code: number, reason: string) => send(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message: `${reason} ${url.pathname}` });

    const parts = url.pathname.split('/').filter(Boolean);
    const rest = parts[0] === 'api' ? parts.slice(2) : parts.slice(3);
    let namespace = '';
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      namespace = rest[1] ?? '';
      rest.splice(0, 2);
    }
    const [resource = '', name, sub] = rest;
    const key = `${resource}/${namespace}/${name ?? ''}`;
    const existing = this.objects.get(key);

    if (method === 'POST' && !name) {
      const obj = body as Obj;
      const ns = resource === 'namespaces' || resource === 'nodes' ? undefined : namespace;
      const meta = { ...obj.metadata, ...(ns ? { namespace: ns } : {}) };
      if (this.objects.has(`${resource}/${ns ?? ''}/${meta.name}`)) return status(409, 'AlreadyExists');
      return send(201, this.put(resource, { ...obj, metadata: { ...meta, uid: '', creationTimestamp: new Date().toISOString() } }));
    }
    if (method === 'GET' && !name) {
      const matches = fieldMatcher(url.searchParams.get('fieldSelector'));
      if (url.searchParams.get('watch') === 'true') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        const w: Watcher = { resource, matches, res };
        const from = Number(url.searchParams.get('resourceVersion') ?? 0);
        const oldest = Number(this.history[0]?.object.metadata.resourceVersion ?? this.revision + 1);
        if (from > 0 && from + 1 < oldest) {
          res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } })}\n`);
          return;
        }
        for (const e of this.history) if (e.resource === resource && Number(e.object.metadata.resourceVersion) > from) emit(w, e.type, e.object);
        this.watchers.add(w);
        res.on('close', () => this.watchers.delete(w));
        return;
      }
      const all = this.list(resource).filter((o) => (!namespace || o.metadata.namespace === namespace) && matches(o));
      const offset = Number(url.searchParams.get('continue') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? all.length) || all.length;
      const next = offset + limit < all.length ? String(offset + limit) : undefined;
      return send(200, { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: String(this.revision), ...(next ? { continue: next } : {}) }, items: all.slice(offset, offset + limit) });
    }
    if (!existing) return status(404, 'NotFound');
    if (method === 'GET') return send(200, existing);
    if (method === 'PATCH') {
      const patched = sub === 'status' ? { ...existing, status: mergePatch(existing.status, (body as { status?: unknown }).status) } : (mergePatch(existing, body) as Obj);
      return send(200, this.put(resource, patched));
    }
    if (method === 'DELETE') {
      const pre = (body as { preconditions?: { uid?: string } } | undefined)?.preconditions?.uid;
      if (pre && pre !== existing.metadata.uid) return status(409, 'Conflict');
      this.remove(resource, existing);
      return send(200, existing);
    }
    return status(405, 'MethodNotAllowed');
  }
}

function emit(w: Watcher, type: string, o: Obj): void {
  const match = w.matches(o);
  // An object that stops matching the field selector leaves the watch as DELETED.
  if (match || type === 'MODIFIED') w.res.write(`${JSON.stringify({ type: match ? type : 'DELETED', object: o })}\n`);
}

/** JSON merge patch, except lists of objects with `type` (conditions) merge by type, as strategic merge does. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (Array.isArray(patch)) {
    if (!Array.isArray(target) || !patch.every((p: { type?: unknown }) => typeof p?.type === 'string')) return patch;
    const out = [...(target as Array<{ type: string }>)];
    for (const p of patch as Array<{ type: string }>) {
      const i = out.findIndex((t) => t.type === p.type);
      if (i >= 0) out[i] = mergePatch(out[i], p) as { type: string };
      else out.push(p);
    }
    return out;
  }
  if (patch === null || typeof patch !== 'object') return patch;
  const out: Record<string, unknown> = { ...(target && typeof target === 'object' ? (target as Record<string, unknown>) : {}) };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Supports the selectors the kubelet sends: `path!=value` and `path=value` terms. */
function fieldMatcher(selector: string | null): (o: Obj) => boolean {
  if (!selector) return () => true;
  const terms = selector.split(',').map((t) => {
    const neg = t.includes('!=');
    const [path = '', value = ''] = t.split(neg ? '!=' : '=');
    return { path: path.split('.'), value, neg };
  });
  return (o) =>
    terms.every(({ path, value, neg }) => {
      let v: unknown = o;
      for (const p of path) v = (v as Record<string, unknown> | undefined)?.[p];
      const actual = v === undefined ? (path[0] === 'status' && path[1] === 'phase' ? 'Pending' : '') : String(v);
      return neg ? actual !== value : actual === value;
    });
}
