import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V1Lease } from '@kubernetes/client-node';
import { countReleases, HeldLeases } from './held-leases.ts';
import { emptyPassSummary, type PassSummary } from './summary.ts';
import { aLoopbackClient } from '../kube/test-builders.ts';

describe('countReleases', () => {
  it("adds each function's release requests to its last pass only; a function without a pass is left out", () => {
    const passes: PassSummary[] = [
      { ...emptyPassSummary('scheduler', 'p1', 'applied'), requests: { 'create leases': 1, 'list nodes': 1 } },
      { ...emptyPassSummary('drainer', 'p2', 'applied'), requests: { 'list pods': 2 } },
      { ...emptyPassSummary('scheduler', 'p3', 'applied'), requests: { 'list nodes': 1 } },
    ];
    countReleases(passes, new Map([
      ['scheduler', { 'update leases': 1 }],
      ['drainer', { 'update leases': 2 }],
      ['cleanup', { 'update leases': 1 }],
    ]));
    expect(passes.map((p) => [p.fn, p.requests])).toEqual([
      ['scheduler', { 'create leases': 1, 'list nodes': 1 }],
      ['drainer', { 'list pods': 2, 'update leases': 2 }],
      ['scheduler', { 'list nodes': 1, 'update leases': 1 }],
    ]);
  });
});

describe('HeldLeases.take after saw: the read a pass made for its record is the take\'s read', () => {
  let server: Server;
  let requests: string[] = [];
  /** The lease the server holds, as stored (undefined: none). */
  let stored: Record<string, unknown> | undefined;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const json = (code: number, out: unknown): void => void res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(out));
        requests.push(`${req.method ?? ''} ${(req.url ?? '').split('?')[0] ?? ''}`);
        const notFound = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: 'not found' };
        const conflict = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 409, reason: 'Conflict', message: 'changed' };
        if (req.method === 'GET') return stored ? json(200, stored) : json(404, notFound);
        if (req.method === 'POST') {
          if (stored) return json(409, { ...conflict, reason: 'AlreadyExists' });
          stored = { ...(JSON.parse(body) as Record<string, unknown>), metadata: { ...((JSON.parse(body) as { metadata: object }).metadata), resourceVersion: '2' } };
          return json(201, stored);
        }
        if (req.method === 'PUT') {
          const sent = JSON.parse(body) as { metadata: { resourceVersion?: string } };
          if (sent.metadata.resourceVersion !== (stored?.['metadata'] as { resourceVersion?: string } | undefined)?.resourceVersion) return json(409, conflict);
          stored = { ...sent, metadata: { ...sent.metadata, resourceVersion: '3' } };
          return json(200, stored);
        }
        return json(404, notFound);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const now = new Date('2026-11-28T03:00:00Z');
  function leases(): HeldLeases {
    const client = aLoopbackClient(server);
    return new HeldLeases({ client, namespace: 'kmaint', holder: 'run-a', now: () => now });
  }
  const path = '/apis/coordination.k8s.io/v1/namespaces/kmaint/leases';
  const heldByOther = (): Record<string, unknown> => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'kmaint-drainer', namespace: 'kmaint', resourceVersion: '7' },
    spec: { holderIdentity: 'run-b', leaseDurationSeconds: 120, renewTime: '2026-11-28T02:59:30.000000Z' },
  });

  it('seen absent: one create, no GET', async () => {
    requests = [];
    stored = undefined;
    const l = leases();
    l.saw('drainer', undefined);
    expect((await l.take('drainer')).kind).toBe('acquired');
    expect(requests).toEqual([`POST ${path}`]);
  });

  it('seen held by another run until after now: held, no request at all', async () => {
    requests = [];
    stored = heldByOther();
    const l = leases();
    l.saw('drainer', heldByOther() as V1Lease);
    expect(await l.take('drainer')).toEqual({ kind: 'held', holder: 'run-b', until: new Date('2026-11-28T03:01:30.000Z') });
    expect(requests).toEqual([]);
  });

  it('seen absent but created since by another pass: lost (the create conflicts), not taken from a stale read', async () => {
    requests = [];
    stored = heldByOther();
    const l = leases();
    l.saw('drainer', undefined);
    expect((await l.take('drainer')).kind).toBe('lost');
    expect(requests).toEqual([`POST ${path}`]);
  });

  it('forgotten (the pass that read it ended): the next take reads the lease again', async () => {
    requests = [];
    stored = undefined;
    const l = leases();
    l.saw('drainer', heldByOther() as V1Lease);
    l.forget('drainer');
    expect((await l.take('drainer')).kind).toBe('acquired');
    expect(requests).toEqual([`GET ${path}/kmaint-drainer`, `POST ${path}`]);
  });
});
