// The fault proxy over real loopback sockets, in front of a tiny object store standing in for an API server.
import { createServer as createHttpServer, request as httpRequest, Agent as HttpAgent, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { KubeConfig } from '@kubernetes/client-node';
import { startFaultProxy, type FaultProxy, type FaultProxyOptions } from './fault-proxy.ts';
import { uniformFaults } from './fault-rules.ts';
import { kubeConfigThroughProxy, proxyCertificate } from './proxy-kubeconfig.ts';

/** ConfigMaps in memory: POST creates (409 if present), GET reads or lists; every request is recorded. */
interface Store {
  url: string;
  seen: string[];
  objects: Map<string, unknown>;
  close(): Promise<void>;
}

async function startStore(tls?: { cert: string; key: string }): Promise<Store> {
  const seen: string[] = [];
  const objects = new Map<string, unknown>();
  const reply = (res: ServerResponse, code: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} auth=${req.headers.authorization ?? ''}`);
      const path = (req.url ?? '').split('?')[0] ?? '';
      if (req.method === 'POST') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { metadata: { name: string } };
        const key = `${path}/${body.metadata.name}`;
        if (objects.has(key)) return reply(res, 409, { kind: 'Status', code: 409, reason: 'AlreadyExists' });
        objects.set(key, body);
        return reply(res, 201, body);
      }
      if (path === '/api/v1/namespaces') return reply(res, 200, { kind: 'NamespaceList', apiVersion: 'v1', metadata: {}, items: [{ metadata: { name: 'default' } }] });
      const obj = objects.get(path);
      if (obj) return reply(res, 200, obj);
      return reply(res, 404, { kind: 'Status', code: 404, reason: 'NotFound' });
    });
  };
  const server: Server = tls ? createHttpsServer(tls, onRequest) : createHttpServer(onRequest);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    seen,
    objects,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

const agent = new HttpAgent({ keepAlive: true });

/** One request; a dropped connection resolves as status 0 with the socket error's code. */
function send(base: string, method: string, path: string, body?: unknown, opts: { ca?: string } = {}): Promise<Answer> {
  const url = new URL(path, base);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const secure = url.protocol === 'https:';
  return new Promise((resolve) => {
    const req = (secure ? httpsRequest : httpRequest)(
      url,
      {
        method,
        headers: { authorization: 'Bearer t0ken', ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
        agent: secure ? new HttpsAgent({ ...(opts.ca ? { ca: opts.ca } : {}) }) : agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ status: 0, headers: {}, body: err.code ?? err.message }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: 0, headers: {}, body: err.code ?? err.message }));
    req.end(payload);
  });
}

const cm = (name: string): unknown => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });
const CMS = '/api/v1/namespaces/default/configmaps';

let toClose: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const c of toClose.reverse()) await c.close();
  toClose = [];
});

async function setUp(opts: Omit<FaultProxyOptions, 'upstream'>, storeTls?: { cert: string; key: string }): Promise<{ store: Store; proxy: FaultProxy }> {
  const store = await startStore(storeTls);
  toClose.push(store);
  const proxy = await startFaultProxy({ upstream: store.url, ...opts });
  toClose.push(proxy);
  return { store, proxy };
}

describe('fault proxy', () => {
  it('a 5% rate over 2,000 requests with seed 7 injects 106 faults (5.3%), each one seen by the client and counted by kind', async () => {
    const droppedAfterCreate: string[] = [];
    const { store, proxy } = await setUp({
      seed: 7,
      rules: uniformFaults(0.05),
      onFault: (e) => {
        if (e.kind === 'drop-after' && e.target.verb === 'create') droppedAfterCreate.push(e.path);
      },
    });
    let clientFailures = 0;
    let created = 0;
    for (let i = 0; i < 2000; i++) {
      const a = i % 2 === 0 ? await send(proxy.url, 'POST', CMS, cm(`cm-${i}`)) : await send(proxy.url, 'GET', `${CMS}/cm-${i - 1}`);
      if (a.status === 201) created++;
      if (a.status !== 200 && a.status !== 201 && a.status !== 404) clientFailures++;
    }
    expect(proxy.counts.faults).toEqual({ '500': 34, '503': 20, '429': 9, '409': 5, 'drop-before': 23, 'drop-after': 15, '410': 0, '403': 0 });
    expect(proxy.faultTotal()).toBe(106);
    expect(clientFailures).toBe(106);
    expect(proxy.counts.requests).toBe(2000);
    // Everything but the injected statuses and the drops before send reached the store.
    expect(proxy.counts.forwarded).toBe(2000 - 34 - 20 - 9 - 5 - 23);
    expect(store.seen.length).toBe(proxy.counts.forwarded);
    // Creates dropped after send exist although their client saw an error.
    expect(droppedAfterCreate.length > 0).toBe(true);
    expect(store.objects.size).toBe(created + droppedAfterCreate.length);
    // 2,000 loopback round trips: about 2 s alone, past vitest's 5 s default on a machine shared with testbeds.
  });

  it('a drop after send reaches the server: the object exists although the client saw the connection close', async () => {
    const { store, proxy } = await setUp({ seed: 1, rules: [{ verbs: ['create'], rates: { 'drop-after': 1 } }] });
    const created = await send(proxy.url, 'POST', CMS, cm('after'));
    expect(created).toEqual({ status: 0, headers: {}, body: 'ECONNRESET' });
    expect(store.seen).toEqual([`POST ${CMS} auth=Bearer t0ken`]);
    const read = await send(proxy.url, 'GET', `${CMS}/after`);
    expect(read.status).toBe(200);
    expect(JSON.parse(read.body)).toEqual(cm('after'));
    expect(proxy.counts.faults['drop-after']).toBe(1);
  });

  it('a drop before send never reaches the server', async () => {
    const { store, proxy } = await setUp({ seed: 1, rules: [{ verbs: ['create'], rates: { 'drop-before': 1 } }] });
    expect(await send(proxy.url, 'POST', CMS, cm('before'))).toEqual({ status: 0, headers: {}, body: 'ECONNRESET' });
    expect((await send(proxy.url, 'GET', `${CMS}/before`)).status).toBe(404);
    expect(store.seen).toEqual([`GET ${CMS}/before auth=Bearer t0ken`]);
    expect(proxy.counts.faults['drop-before']).toBe(1);
  });

  it('a 429 carries Retry-After and a Status body the way the API server writes one', async () => {
    const { store, proxy } = await setUp({ seed: 1, rules: [{ resources: ['configmaps'], rates: { '429': 1 }, retryAfterSeconds: 3 }] });
    const a = await send(proxy.url, 'GET', `${CMS}/x`);
    expect(a.status).toBe(429);
    expect(a.headers['retry-after']).toBe('3');
    expect(JSON.parse(a.body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'injected fault: 429 TooManyRequests on get configmaps',
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 3 },
      code: 429,
    });
    expect(store.seen).toEqual([]);
  });

  it.each([
    ['500', 500, 'InternalError'],
    ['503', 503, 'ServiceUnavailable'],
    ['409', 409, 'Conflict'],
  ] as const)('a %s fault answers %i %s without reaching the server', async (kind, code, reason) => {
    const { store, proxy } = await setUp({ seed: 1, rules: [{ verbs: ['patch'], rates: { [kind]: 1 } }] });
    const a = await send(proxy.url, 'PATCH', `${CMS}/x`, { data: {} });
    expect(a.status).toBe(code);
    expect(a.headers['retry-after']).toBe(undefined);
    expect(JSON.parse(a.body)).toMatchObject({ kind: 'Status', code, reason, message: `injected fault: ${code} ${reason} on patch configmaps` });
    expect(store.seen).toEqual([]);
    expect(proxy.counts.faults[kind]).toBe(1);
  });

  it('a 410 on a continued LIST answers as the API server does for an expired continue token', async () => {
    const { store, proxy } = await setUp({ seed: 1, rules: [{ verbs: ['list'], continued: true, rates: { '410': 1 } }] });
    const first = await send(proxy.url, 'GET', '/api/v1/namespaces?limit=1');
    const next = await send(proxy.url, 'GET', '/api/v1/namespaces?limit=1&continue=abc');
    expect(first.status).toBe(200);
    expect(next.status).toBe(410);
    expect(JSON.parse(next.body)).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    expect((JSON.parse(next.body) as { message: string }).message.startsWith('injected fault: The provided continue parameter is too old to display a consistent list result.')).toBe(true);
    expect(store.seen).toEqual(['GET /api/v1/namespaces?limit=1 auth=Bearer t0ken']);
    expect(proxy.counts.faults['410']).toBe(1);
  });

  it('applies latency and jitter before forwarding', async () => {
    const { proxy } = await setUp({ seed: 5, rules: [{ rates: {}, latencyMs: 300, jitterMs: 100 }] });
    const started = Date.now();
    const a = await send(proxy.url, 'GET', `${CMS}/x`);
    const elapsed = Date.now() - started;
    expect(a.status).toBe(404);
    expect(proxy.counts.delayed).toBe(1);
    expect(proxy.counts.delayMsTotal >= 300 && proxy.counts.delayMsTotal < 400).toBe(true);
    expect(elapsed >= proxy.counts.delayMsTotal - 5).toBe(true);
  });

  it('without rules it is transparent: statuses, headers and bodies pass unchanged', async () => {
    const { store, proxy } = await setUp({ seed: 1 });
    expect((await send(proxy.url, 'POST', CMS, cm('a'))).status).toBe(201);
    const dup = await send(proxy.url, 'POST', CMS, cm('a'));
    expect(dup.status).toBe(409);
    expect(JSON.parse(dup.body)).toEqual({ kind: 'Status', code: 409, reason: 'AlreadyExists' });
    expect(store.seen.length).toBe(2);
    expect(proxy.faultTotal()).toBe(0);
  });

  it('terminates TLS with its own certificate and re-originates TLS upstream; client-node works through kubeConfigThroughProxy', async () => {
    const upstreamCert = proxyCertificate();
    const own = proxyCertificate();
    const { store, proxy } = await setUp({ seed: 1, tls: own, upstreamCa: upstreamCert.cert }, upstreamCert);
    expect(proxy.url.startsWith('https://127.0.0.1:')).toBe(true);
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: store.url, caData: Buffer.from(upstreamCert.cert).toString('base64'), skipTLSVerify: false }],
      users: [{ name: 'u', token: 't0ken' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    const list = await kubeConfigThroughProxy(kc, proxy.url, own.cert).makeApiClient(CoreV1Api).listNamespace();
    expect(list.items.map((n) => n.metadata?.name)).toEqual(['default']);
    expect(store.seen).toEqual(['GET /api/v1/namespaces auth=Bearer t0ken']);
  });

  it('plain HTTP for client-node with skipTLSVerify', async () => {
    const { store, proxy } = await setUp({ seed: 1 });
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: store.url, skipTLSVerify: true }],
      users: [{ name: 'u', token: 't0ken' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    const viaProxy = kubeConfigThroughProxy(kc, proxy.url);
    expect(viaProxy.getCurrentCluster()).toEqual({ name: 'c-via-fault-proxy', server: proxy.url, skipTLSVerify: true });
    const list = await viaProxy.makeApiClient(CoreV1Api).listNamespace();
    expect(list.items.length).toBe(1);
  });
});
