// KubeClient.readNodes: each Node asked by name (a LIST selecting that name, which kmaint's `list nodes` grant covers),
// a Node the API server does not return is gone, and a failed read throws rather than reading as gone. On a loopback
// server answering as the API server does.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from './client.ts';
import { KubeRequestError } from './errors.ts';
import { aLoopbackClient } from './test-builders.ts';

const node = (name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, resourceVersion: '7' }, spec: { unschedulable: true }, status: {} });
const EXISTING = new Set(['node-a', 'node-c']);

describe('KubeClient.readNodes', () => {
  let server: Server;
  const requests: string[] = [];
  let failing = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      const name = new URL(req.url ?? '/', 'http://x').searchParams.get('fieldSelector')?.replace('metadata.name=', '') ?? '';
      if (name === failing) {
        res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 403, message: 'forbidden' }));
        return;
      }
      const items = EXISTING.has(name) ? [node(name)] : [];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: '9' }, items }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  function client(): KubeClient {
    return aLoopbackClient(server);
  }

  it('asks each name once, in name order; those not returned are gone', async () => {
    requests.length = 0;
    failing = '';
    const c = client();
    const found = await c.readNodes(['node-c', 'node-b', 'node-a', 'node-c'], 1);
    expect(requests).toEqual(['node-a', 'node-b', 'node-c'].map((n) => `/api/v1/nodes?fieldSelector=metadata.name%3D${n}&limit=1`));
    expect([...found.entries()].map(([k, v]) => [k, v.metadata?.resourceVersion, v.spec?.unschedulable])).toEqual([
      ['node-a', '7', true],
      ['node-c', '7', true],
    ]);
    expect(c.counts.byVerb).toEqual({ 'list nodes': 3 });
  });

  it('a read that fails throws, saying which Node; it is never taken for a Node gone', async () => {
    failing = 'node-b';
    await expect(client().readNodes(['node-a', 'node-b'], 1)).rejects.toThrow(KubeRequestError);
    await expect(client().readNode('node-b')).rejects.toThrow(/reading node node-b/);
  });

  it('nothing to read: no request', async () => {
    requests.length = 0;
    expect((await client().readNodes([])).size).toBe(0);
    expect(requests).toEqual([]);
  });
});
