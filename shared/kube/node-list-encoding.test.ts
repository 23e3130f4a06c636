// KMAINT_NODE_LIST_ENCODING and what node LISTs ask for and read, against a loopback server that answers each request
// in the encoding its Accept prefers (protobuf when asked first, as the API server does).
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from './client.ts';
import { KubeRequestError } from './errors.ts';
import { HttpTransport } from './http-transport.ts';
import { NODE_LIST_ACCEPT_PROTOBUF, nodeListEncodingFrom, type NodeListEncoding } from './node-list-encoding.ts';
import { nodeListBody, statusBody } from './protobuf-test-bodies.ts';
import { aLoopbackKubeConfig } from './test-builders.ts';

describe('nodeListEncodingFrom', () => {
  it.each([
    { rule: 'unset is protobuf', env: {}, expected: 'protobuf' },
    { rule: 'empty is protobuf', env: { KMAINT_NODE_LIST_ENCODING: '' }, expected: 'protobuf' },
    { rule: '"protobuf" is protobuf', env: { KMAINT_NODE_LIST_ENCODING: 'protobuf' }, expected: 'protobuf' },
    { rule: '"json" is JSON', env: { KMAINT_NODE_LIST_ENCODING: 'json' }, expected: 'json' },
    { rule: 'case and blanks do not matter', env: { KMAINT_NODE_LIST_ENCODING: ' JSON ' }, expected: 'json' },
  ])('$rule', ({ env, expected }) => {
    expect(nodeListEncodingFrom(env)).toBe(expected);
  });

  it('refuses a value it would have to guess', () => {
    expect(() => nodeListEncodingFrom({ KMAINT_NODE_LIST_ENCODING: 'proto' })).toThrow('KMAINT_NODE_LIST_ENCODING must be "protobuf" or "json", got "proto"');
  });
});

const node = (name: string): object => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, uid: `u-${name}`, resourceVersion: '7', creationTimestamp: '2026-11-01T00:00:00Z', labels: { zone: 'a' } },
  spec: { providerID: `aws:///a/${name}`, taints: [{ key: 'k', effect: 'NoSchedule', timeAdded: '2026-11-28T04:00:00Z' }] },
  status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-11-28T04:59:00Z', lastTransitionTime: '2026-11-01T00:00:05Z', reason: 'KubeletReady' }] },
});
/** Two pages of one node each; `continue` names the second. */
const PAGES = [{ items: [node('n-0')], meta: { resourceVersion: '9', continue: 'page-2' } }, { items: [node('n-1')], meta: { resourceVersion: '9' } }];

describe('HttpTransport node LIST encoding', () => {
  let server: Server;
  /** "path accept -> answered as" of each request. */
  const seen: string[] = [];
  /** What the server does besides answering: answer JSON whatever was asked, or fail with a Status. */
  let mode: 'by-accept' | 'json-only' | 'forbidden' | 'expire-once' = 'by-accept';
  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const accept = req.headers.accept ?? '(none)';
      const protobuf = mode !== 'json-only' && accept.startsWith('application/vnd.kubernetes.protobuf');
      const answer = (status: number, json: object, proto: () => Buffer): void => {
        seen.push(`${url.pathname} ${accept} -> ${protobuf ? 'protobuf' : 'json'} ${status}`);
        res.writeHead(status, { 'content-type': protobuf ? 'application/vnd.kubernetes.protobuf' : 'application/json' });
        res.end(protobuf ? proto() : JSON.stringify(json));
      };
      if (url.pathname !== '/api/v1/nodes') return answer(200, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [] }, () => Buffer.alloc(0));
      if (mode === 'forbidden') return answer(403, { kind: 'Status', code: 403, message: 'nodes is forbidden: User "x" cannot list resource "nodes"' }, () => statusBody(403, 'Forbidden', 'nodes is forbidden: User "x" cannot list resource "nodes"'));
      if (mode === 'expire-once' && url.searchParams.get('continue') === 'page-2') {
        mode = 'by-accept';
        return answer(410, { kind: 'Status', code: 410, message: 'too old' }, () => statusBody(410, 'Expired', 'The provided continue parameter is too old'));
      }
      const named = url.searchParams.get('fieldSelector')?.replace('metadata.name=', '');
      const page = named !== undefined ? { items: [node(named)], meta: { resourceVersion: '9' } } : (PAGES[url.searchParams.get('continue') === 'page-2' ? 1 : 0] as (typeof PAGES)[0]);
      const { continue: cont, ...meta } = page.meta as { resourceVersion: string; continue?: string };
      answer(200, { kind: 'NodeList', apiVersion: 'v1', metadata: { ...meta, ...(cont ? { continue: cont } : {}) }, items: page.items }, () => nodeListBody(page.items, page.meta));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  function client(nodeListEncoding: NodeListEncoding): KubeClient {
    return new KubeClient(new HttpTransport(aLoopbackKubeConfig(server), { nodeListEncoding }), { retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
  }
  const JSON_ACCEPT = 'application/json, */*;q=0.8';

  it('protobuf: node LISTs (all pages, and by name) ask protobuf then JSON and read the same Nodes as JSON; pods are unchanged', async () => {
    seen.length = 0;
    mode = 'by-accept';
    const pb = client('protobuf');
    const nodes = await pb.listNodes();
    const named = await pb.readNode('n-7');
    await pb.listPods();
    expect(seen).toEqual([
      `/api/v1/nodes ${NODE_LIST_ACCEPT_PROTOBUF} -> protobuf 200`,
      `/api/v1/nodes ${NODE_LIST_ACCEPT_PROTOBUF} -> protobuf 200`,
      `/api/v1/nodes ${NODE_LIST_ACCEPT_PROTOBUF} -> protobuf 200`,
      `/api/v1/pods ${JSON_ACCEPT} -> json 200`,
    ]);
    seen.length = 0;
    const js = client('json');
    expect(nodes).toStrictEqual(await js.listNodes());
    expect(named).toStrictEqual(await js.readNode('n-7'));
    expect(seen).toEqual([`/api/v1/nodes ${JSON_ACCEPT} -> json 200`, `/api/v1/nodes ${JSON_ACCEPT} -> json 200`, `/api/v1/nodes ${JSON_ACCEPT} -> json 200`]);
    expect(nodes.map((n) => n.metadata?.name)).toEqual(['n-0', 'n-1']);
    expect(named?.spec?.taints?.[0]?.timeAdded).toBe('2026-11-28T04:00:00Z');
  });

  it('a server that answers JSON to the protobuf Accept is read as JSON', async () => {
    seen.length = 0;
    mode = 'json-only';
    const nodes = await client('protobuf').listNodes();
    mode = 'by-accept';
    expect(seen).toEqual([`/api/v1/nodes ${NODE_LIST_ACCEPT_PROTOBUF} -> json 200`, `/api/v1/nodes ${NODE_LIST_ACCEPT_PROTOBUF} -> json 200`]);
    expect(nodes).toStrictEqual(await client('protobuf').listNodes());
  });

  it('an error answered in protobuf keeps its status and message', async () => {
    mode = 'forbidden';
    const err = await client('protobuf').listNodes().catch((e: unknown) => e);
    mode = 'by-accept';
    expect(err).toBeInstanceOf(KubeRequestError);
    expect((err as KubeRequestError).message).toBe('listing nodes: HTTP 403: nodes is forbidden: User "x" cannot list resource "nodes"');
  });

  it('a continue token expired (410 in protobuf) restarts the LIST, as with JSON', async () => {
    seen.length = 0;
    mode = 'expire-once';
    const c = client('protobuf');
    const nodes = await c.listNodes();
    expect(nodes.map((n) => n.metadata?.name)).toEqual(['n-0', 'n-1']);
    expect(seen.map((s) => s.split(' -> ')[1])).toEqual(['protobuf 200', 'protobuf 410', 'protobuf 200', 'protobuf 200']);
    expect(c.counts.byVerb['list nodes']).toBe(4);
  });
});
