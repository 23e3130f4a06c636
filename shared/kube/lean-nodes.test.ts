// LIST nodes through KubeClient against a local HTTP server: the paged result keeps what kmaint reads and drops the rest.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from './client.ts';
import { leanNode } from './lean-nodes.ts';
import { StringPool } from './string-pool.ts';

function rawNode(i: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: `node-${i}`,
      uid: `uid-${i}`,
      resourceVersion: String(100 + i),
      creationTimestamp: '2026-11-01T00:00:00Z',
      labels: { 'topology.kubernetes.io/zone': 'zone-a' },
      annotations: { 'kmaint.io/desired-state': 'Idle' },
      managedFields: [{ manager: 'kubelet', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': {} } }],
    },
    spec: { unschedulable: i === 1, providerID: `aws:///eu-west-1a/i-${i}`, taints: [{ key: 'k', effect: 'NoSchedule' }] },
    status: {
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: '2026-11-22T08:00:00Z', lastTransitionTime: '2026-11-01T00:00:05Z' }],
      images: [{ names: ['registry.example.com/app:1'], sizeBytes: 1000 }],
      capacity: { cpu: '8' },
      nodeInfo: { kubeletVersion: 'v1.35.4' },
    },
  };
}

describe('leanNode', () => {
  it('keeps metadata without managedFields, the spec and the conditions, with Dates', () => {
    expect(leanNode(rawNode(1) as Parameters<typeof leanNode>[0])).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'node-1',
        uid: 'uid-1',
        resourceVersion: '101',
        creationTimestamp: new Date('2026-11-01T00:00:00Z'),
        labels: { 'topology.kubernetes.io/zone': 'zone-a' },
        annotations: { 'kmaint.io/desired-state': 'Idle' },
      },
      spec: { unschedulable: true, providerID: 'aws:///eu-west-1a/i-1', taints: [{ key: 'k', effect: 'NoSchedule' }] },
      status: {
        conditions: [
          { type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: new Date('2026-11-22T08:00:00Z'), lastTransitionTime: new Date('2026-11-01T00:00:05Z') },
        ],
      },
    });
  });

  it('leaves out what the object does not have', () => {
    expect(leanNode({ metadata: { name: 'bare' } })).toEqual({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'bare' } });
    expect(leanNode({ metadata: { name: 'bare' } }, new StringPool())).toEqual({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'bare' } });
  });

  it('with a pool: the same nodes, and the words two nodes share held once', () => {
    const pool = new StringPool();
    const raws = [rawNode(1), rawNode(2)] as Array<Parameters<typeof leanNode>[0]>;
    const pooled = raws.map((r) => leanNode(r, pool));
    expect(pooled).toEqual(raws.map((r) => leanNode(r)));
    // The same keys in the same order too (a node's JSON, e.g. in a dry run's output, does not change).
    expect(JSON.stringify(pooled)).toBe(JSON.stringify(raws.map((r) => leanNode(r))));
    // 'zone-a', 'Idle', 'Ready', 'True', 'KubeletReady': the same in both nodes.
    expect(pool.size).toBe(5);
  });

  it('with a pool: equal times are one Date, shared by the nodes of the page, and the raw node is left as it was', () => {
    const pool = new StringPool();
    const raws = [rawNode(1), rawNode(2)] as Array<Parameters<typeof leanNode>[0]>;
    const before = structuredClone(raws);
    const [a, b] = raws.map((r) => leanNode(r, pool));
    // creationTimestamp, lastHeartbeatTime and lastTransitionTime: three texts, the same in both nodes.
    expect(pool.instantCount).toBe(3);
    expect(a?.metadata?.creationTimestamp).toBe(b?.metadata?.creationTimestamp);
    expect(a?.status?.conditions?.[0]?.lastHeartbeatTime).toBe(b?.status?.conditions?.[0]?.lastHeartbeatTime);
    expect(a?.status?.conditions?.[0]?.lastTransitionTime).toEqual(new Date('2026-11-01T00:00:05Z'));
    expect(raws).toEqual(before);
  });
});

describe('KubeClient.listNodes', () => {
  let server: Server;
  const requests: string[] = [];
  let status = 200;
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      const url = new URL(req.url ?? '/', 'http://x');
      if (status !== 200) {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'nodes is forbidden: User "x" cannot list resource "nodes"', code: status }));
        return;
      }
      const start = Number(url.searchParams.get('continue') ?? 0);
      const items = [rawNode(start), rawNode(start + 1)];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: '9', ...(start === 0 ? { continue: '2' } : {}) }, items }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  function client(): KubeClient {
    const kc = new KubeConfig();
    const server_ = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    kc.loadFromOptions({ clusters: [{ name: 'c', server: server_, skipTLSVerify: true }], users: [{ name: 'u', token: 't' }], contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x' });
    return new KubeClient(kc, { pageSize: 2, retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
  }

  it('follows continue tokens and returns lean nodes', async () => {
    requests.length = 0;
    const c = client();
    const nodes = await c.listNodes();
    expect(requests).toEqual(['/api/v1/nodes?limit=2', '/api/v1/nodes?continue=2&limit=2']);
    expect(nodes.map((n) => [n.metadata?.name, n.spec?.unschedulable ?? false, n.metadata?.managedFields, n.status?.conditions?.[0]?.lastTransitionTime?.toISOString()])).toEqual([
      ['node-0', false, undefined, '2026-11-01T00:00:05.000Z'],
      ['node-1', true, undefined, '2026-11-01T00:00:05.000Z'],
      ['node-2', false, undefined, '2026-11-01T00:00:05.000Z'],
      ['node-3', false, undefined, '2026-11-01T00:00:05.000Z'],
    ]);
    expect(c.counts.byVerb).toEqual({ 'list nodes': 2 });
  });

  it('still reports a refusal with the server message', async () => {
    status = 403;
    await expect(client().listNodes()).rejects.toThrow('listing nodes: HTTP 403: nodes is forbidden: User "x" cannot list resource "nodes"');
    status = 200;
  });
});
