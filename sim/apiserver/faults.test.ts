// Fault injection and request accounting: injected errors, latency, dropped connections before and after the
// write, seeded reproducibility, and kmaint's KubeClient retrying through them.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KubeClient } from '../../shared/kube/index.ts';
import { startSimApiServer, type SimApiServer } from './index.ts';
import { call } from './test-support.ts';

let server: SimApiServer;

beforeAll(async () => {
  server = await startSimApiServer();
  await call(server, 'POST', '/api/v1/nodes', { metadata: { name: 'n1' } });
});
beforeEach(() => server.faults.clear());
afterAll(async () => {
  await server.stop();
});

describe('faults', () => {
  it.each([
    [500, { code: 500, reason: 'InternalError', message: 'Internal error occurred: injected fault' }, null],
    [429, { code: 429, reason: 'TooManyRequests' }, '3'],
    [409, { code: 409, reason: 'Conflict', message: 'Operation cannot be fulfilled on nodes "n1": the object has been modified; please apply your changes to the latest version and try again' }, null],
  ] as const)('kind %s answers with its Status (Retry-After %s)', async (kind, body, retryAfter) => {
    server.faults.set([{ verb: 'get', resource: 'nodes', rate: 1, kind, retryAfterSeconds: 3 }]);
    const r = await call(server, 'GET', '/api/v1/nodes/n1');
    expect(r.body).toMatchObject(body);
    expect(r.headers.get('retry-after')).toBe(retryAfter);
    expect((await call(server, 'GET', '/api/v1/namespaces/default')).status).toBe(200);
  });

  it('latency delays matching requests only', async () => {
    server.faults.set([{ resource: 'nodes', rate: 1, kind: 'latency', latencyMs: 150 }]);
    const t0 = Date.now();
    await call(server, 'GET', '/api/v1/nodes');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('drop-before loses the request; drop-after applies it and loses the answer', async () => {
    server.faults.set([{ verb: 'patch', resource: 'nodes', rate: 1, kind: 'drop-before' }]);
    await expect(call(server, 'PATCH', '/api/v1/nodes/n1', { metadata: { labels: { a: '1' } } }, 'application/merge-patch+json')).rejects.toThrow();
    expect((await call(server, 'GET', '/api/v1/nodes/n1')).body['metadata']).not.toHaveProperty('labels');
    server.faults.set([{ verb: 'patch', resource: 'nodes', rate: 1, kind: 'drop-after' }]);
    await expect(call(server, 'PATCH', '/api/v1/nodes/n1', { metadata: { labels: { a: '2' } } }, 'application/merge-patch+json')).rejects.toThrow();
    expect((await call(server, 'GET', '/api/v1/nodes/n1')).body['metadata']).toMatchObject({ labels: { a: '2' } });
    const dropped = server.requests({ verb: 'patch', resource: 'nodes' }).slice(-2);
    expect(dropped.map((e) => [e.code, e.fault])).toEqual([
      [0, 'drop-before'],
      [0, 'drop-after'],
    ]);
  });

  it('the same seed gives the same faults', async () => {
    const run = async (): Promise<number[]> => {
      server.faults.set([{ verb: 'get', resource: 'namespaces', rate: 0.5, kind: 500, seed: 42 }]);
      const codes: number[] = [];
      for (let i = 0; i < 12; i++) codes.push((await call(server, 'GET', '/api/v1/namespaces/default')).status);
      return codes;
    };
    const first = await run();
    expect(new Set(first)).toEqual(new Set([200, 500]));
    expect(await run()).toEqual(first);
  });

  it('a rule without a subresource also matches its subresources; discovery never faults', async () => {
    server.faults.set([{ resource: 'nodes', rate: 1, kind: 500 }]);
    expect((await call(server, 'GET', '/api/v1/nodes/n1/status')).status).toBe(500);
    expect((await call(server, 'GET', '/api/v1')).status).toBe(200);
  });

  it("kmaint's KubeClient retries through injected 500s and 429s and the log counts every attempt", async () => {
    const mark = server.mark();
    server.faults.set([
      { verb: 'list', resource: 'nodes', rate: 0.5, kind: 500, seed: 7 },
      { verb: 'list', resource: 'nodes', rate: 0.5, kind: 429, seed: 8, retryAfterSeconds: 0 },
    ]);
    const client = new KubeClient(server.kubeConfig({ user: 'kmaint' }), { retry: { attempts: 20, baseDelayMs: 1, maxDelayMs: 2 }, sleep: async () => undefined });
    const nodes = await client.listNodes();
    expect(nodes.map((n) => n.metadata?.name)).toEqual(['n1']);
    const attempts = server.requests({ since: mark, user: 'kmaint' });
    expect(attempts.length).toBe(client.counts.byVerb['list nodes']);
    expect(attempts.filter((e) => e.code !== 200).length).toBe(client.counts.retries);
    expect(server.requestCounts({ since: mark }).byCode['200']).toBe(1);
  });
});
