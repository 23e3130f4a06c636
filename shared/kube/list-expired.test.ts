// A LIST whose continue token expired (410 Expired, its resourceVersion compacted) starts again from the first page,
// on a loopback server answering as the API server does; a LIST that keeps expiring is reported after two restarts.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from './client.ts';
import { aLoopbackClient } from './test-builders.ts';

const EXPIRED = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
  reason: 'Expired',
  code: 410,
};

const node = (name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, resourceVersion: '1' }, spec: {}, status: {} });

describe('KubeClient LIST paging when the continue token expired', () => {
  let server: Server;
  const requests: string[] = [];
  /** How many continued pages answer 410 before they answer again. */
  let expireNext = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      const url = new URL(req.url ?? '/', 'http://x');
      const cont = url.searchParams.get('continue');
      if (cont !== null && expireNext > 0) {
        expireNext--;
        res.writeHead(410, { 'content-type': 'application/json' }).end(JSON.stringify(EXPIRED));
        return;
      }
      // The first page of a restarted list reflects the cluster as it is now: node-0 went, node-9 came.
      const restarted = requests.filter((r) => !r.includes('continue')).length > 1;
      const items = cont === null ? [node(restarted ? 'node-1' : 'node-0'), node('node-2')] : [node('node-3'), node(restarted ? 'node-9' : 'node-4')];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: '9', ...(cont === null ? { continue: 'page-2' } : {}) }, items }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  function client(): KubeClient {
    return aLoopbackClient(server, { pageSize: 2 });
  }

  it('restarts from the first page and returns only the restarted snapshot', async () => {
    requests.length = 0;
    expireNext = 1;
    const c = client();
    const nodes = await c.listNodes();
    expect(requests).toEqual(['/api/v1/nodes?limit=2', '/api/v1/nodes?continue=page-2&limit=2', '/api/v1/nodes?limit=2', '/api/v1/nodes?continue=page-2&limit=2']);
    expect(nodes.map((n) => n.metadata?.name)).toEqual(['node-1', 'node-2', 'node-3', 'node-9']);
    expect(c.counts.byVerb).toEqual({ 'list nodes': 4 });
  });

  it('gives up after two restarts with the API server message', async () => {
    requests.length = 0;
    expireNext = 3;
    await expect(client().listNodes()).rejects.toThrow(`listing nodes: HTTP 410: ${EXPIRED.message}`);
    expect(requests.length).toBe(6);
  });
});
