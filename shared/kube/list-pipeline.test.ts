// KubeClient's paged LIST asks for page k+1 as soon as page k's continue token is known and decodes page k after,
// never more than one page ahead; 410 restarts, failures and counts as before. A transport at the process boundary
// records the order of what the client asks and decodes; nothing here is timed. Then the HTTP transport's node LIST
// through a loopback server: its pages come undecoded when their head says where the next page is, and decoded whole
// otherwise.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from './client.ts';
import { HttpFailureError } from './errors.ts';
import { encodingRoot, envelope, nodeListBody } from './protobuf-test-bodies.ts';
import { aLoopbackClient } from './test-builders.ts';
import type { KubeTransport, ListPage, ListQuery } from './transport.ts';

const node = (name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, resourceVersion: '1' }, spec: {}, status: {} });

/** A page of a scripted LIST: its nodes and the token of the next, or the failure it answers with. */
type Answer = { names: string[]; continue?: string; resourceVersion?: string; decodeFails?: string } | { status: number; message: string };

/** A transport whose LIST answers follow `script` (one answer per request, in order), recording `ask <token>` and `decode <first name>`. */
function scriptedTransport(script: Answer[], events: string[]): KubeTransport {
  const unused = (): never => {
    throw new Error('not a LIST');
  };
  return {
    listPage(_r, q: ListQuery): Promise<ListPage> {
      events.push(`ask ${q.continue ?? '-'}`);
      const a = script.shift();
      if (a === undefined) return Promise.reject(new Error('the script has no more answers'));
      if ('status' in a) return Promise.reject(new HttpFailureError({ status: a.status, message: a.message, retryAfter: undefined }));
      const head = { ...(a.continue ? { continue: a.continue } : {}), ...(a.resourceVersion ? { resourceVersion: a.resourceVersion } : {}) };
      return Promise.resolve({
        ...head,
        itemsDeferred: true,
        get items(): unknown[] {
          events.push(`decode ${a.names[0] ?? '-'}`);
          if (a.decodeFails !== undefined) throw new SyntaxError(a.decodeFails);
          return a.names.map(node);
        },
      });
    },
    get: unused,
    create: unused,
    replace: unused,
    patch: unused,
    delete: unused,
    evict: unused,
    watch: unused,
  };
}

const EXPIRED = 'The provided continue parameter is too old to display a consistent list result.';

describe('KubeClient LIST: the next page asked before this one is decoded', () => {
  it('asks page 2 before decoding page 1, and page 3 only after (one page ahead), keeping the pages in order', async () => {
    const events: string[] = [];
    const client = new KubeClient(scriptedTransport([{ names: ['n1', 'n2'], continue: 'c2', resourceVersion: '9' }, { names: ['n3', 'n4'], continue: 'c3', resourceVersion: '9' }, { names: ['n5'], resourceVersion: '9' }], events), { pageSize: 2 });
    const nodes = await client.listNodes();
    expect(events).toEqual(['ask -', 'ask c2', 'decode n1', 'ask c3', 'decode n3', 'decode n5']);
    expect(nodes.map((n) => n.metadata?.name)).toEqual(['n1', 'n2', 'n3', 'n4', 'n5']);
    expect(client.counts).toEqual({ byVerb: { 'list nodes': 3 }, errors: 0, errorsByVerb: {}, retries: 0 });
    expect(KubeClient.listedSince(client, 0).map((l) => [l.path, l.resourceVersion])).toEqual([['/api/v1/nodes', '9']]);
  });

  it('a 410 on the prefetched page 2 restarts from page 1: page 1 as decoded before is dropped, the restarted snapshot kept', async () => {
    const events: string[] = [];
    const script: Answer[] = [{ names: ['old-1'], continue: 'c2', resourceVersion: '9' }, { status: 410, message: EXPIRED }, { names: ['new-1'], continue: 'c2b', resourceVersion: '20' }, { names: ['new-2'], resourceVersion: '20' }];
    const client = new KubeClient(scriptedTransport(script, events), { pageSize: 1 });
    const nodes = await client.listNodes();
    expect(events).toEqual(['ask -', 'ask c2', 'decode old-1', 'ask -', 'ask c2b', 'decode new-1', 'decode new-2']);
    expect(nodes.map((n) => n.metadata?.name)).toEqual(['new-1', 'new-2']);
    // The 410 is a failed request in the counts, as it was before the pages overlapped.
    expect(client.counts).toEqual({ byVerb: { 'list nodes': 4 }, errors: 1, errorsByVerb: { 'list nodes': 1 }, retries: 0 });
    expect(KubeClient.listedSince(client, 0).map((l) => l.resourceVersion)).toEqual(['20']);
  });

  it('a 410 that keeps coming is given up after two restarts, as before', async () => {
    const events: string[] = [];
    const page1: Answer = { names: ['n1'], continue: 'c2' };
    const gone: Answer = { status: 410, message: EXPIRED };
    const client = new KubeClient(scriptedTransport([page1, gone, page1, gone, page1, gone], events), { pageSize: 1 });
    await expect(client.listNodes()).rejects.toThrow(`listing nodes: HTTP 410: ${EXPIRED}`);
    expect(events).toEqual(['ask -', 'ask c2', 'decode n1', 'ask -', 'ask c2', 'decode n1', 'ask -', 'ask c2', 'decode n1']);
    expect(client.counts).toEqual({ byVerb: { 'list nodes': 6 }, errors: 3, errorsByVerb: { 'list nodes': 3 }, retries: 0 });
  });

  it('a failure of the prefetched page surfaces as the LIST failure, after the page before it was decoded', async () => {
    const events: string[] = [];
    const client = new KubeClient(scriptedTransport([{ names: ['n1'], continue: 'c2' }, { status: 403, message: 'nodes is forbidden' }], events), { pageSize: 1 });
    await expect(client.listNodes()).rejects.toThrow('listing nodes: HTTP 403: nodes is forbidden');
    expect(events).toEqual(['ask -', 'ask c2', 'decode n1']);
    expect(client.counts).toEqual({ byVerb: { 'list nodes': 2 }, errors: 1, errorsByVerb: { 'list nodes': 1 }, retries: 0 });
  });

  it('a prefetched page is retried as any page is, while the page before it waits to be decoded', async () => {
    const events: string[] = [];
    const script: Answer[] = [{ names: ['n1'], continue: 'c2' }, { status: 503, message: 'unavailable' }, { names: ['n2'] }];
    const client = new KubeClient(scriptedTransport(script, events), { pageSize: 1, retry: { attempts: 2, baseDelayMs: 0, maxDelayMs: 0 }, sleep: () => Promise.resolve() });
    expect((await client.listNodes()).map((n) => n.metadata?.name)).toEqual(['n1', 'n2']);
    expect(events).toEqual(['ask -', 'ask c2', 'ask c2', 'decode n1', 'decode n2']);
    expect(client.counts).toEqual({ byVerb: { 'list nodes': 3 }, errors: 0, errorsByVerb: {}, retries: 1 });
  });

  it('a page whose decode fails fails the LIST as a failed request; the prefetched page is dropped and its retries stop', async () => {
    const events: string[] = [];
    const sleeps: string[] = [];
    // A retry's wait that ends only when it is called off, as abortableSleep's does.
    const sleep = (_ms: number, signal?: AbortSignal): Promise<void> =>
      new Promise((_resolve, reject) => {
        sleeps.push('wait');
        signal?.addEventListener('abort', () => {
          sleeps.push('called off');
          reject(signal.reason as Error);
        });
      });
    const script: Answer[] = [{ names: ['n1'], continue: 'c2', decodeFails: 'Unexpected end of JSON input' }, { status: 503, message: 'never read' }];
    const client = new KubeClient(scriptedTransport(script, events), { pageSize: 1, sleep });
    await expect(client.listNodes()).rejects.toThrow('listing nodes: Unexpected end of JSON input');
    expect(events).toEqual(['ask -', 'ask c2', 'decode n1']);
    expect(sleeps).toEqual(['wait', 'called off']);
    // The prefetched page's 503 was going to be retried (retries 1); it never was, and it is no failure of the LIST's.
    expect(client.counts).toEqual({ byVerb: { 'list nodes': 2 }, errors: 1, errorsByVerb: { 'list nodes': 1 }, retries: 1 });
  });
});

describe('HTTP node LIST pages: decoded after the next page is asked, when the head says where it is', () => {
  let server: Server;
  /** The body of each page, by continue token ('' the first): JSON text, or a protobuf body. */
  let pages: Record<string, string | Buffer> = {};
  /** Called with each page's continue token as the server receives its request. */
  let asked: (cont: string) => void = () => {};
  beforeAll(async () => {
    server = createServer((req, res) => {
      const cont = new URL(req.url ?? '/', 'http://x').searchParams.get('continue') ?? '';
      asked(cont);
      const body = pages[cont];
      res.writeHead(200, { 'content-type': typeof body === 'string' ? 'application/json' : 'application/vnd.kubernetes.protobuf' }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it.each([
    {
      rule: "the API server's order: metadata before items",
      first: JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: '9', continue: 'p2' }, items: [node('a')] }),
    },
    {
      rule: 'items before metadata: the page is decoded whole first, the same nodes',
      first: JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', items: [node('a')], metadata: { resourceVersion: '9', continue: 'p2' } }),
    },
  ])('$rule', async ({ first }) => {
    pages = { '': first, p2: JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: '9' }, items: [node('b')] }) };
    const client = aLoopbackClient(server, { pageSize: 1 });
    expect((await client.listNodes()).map((n) => [n.metadata?.name, n.kind])).toEqual([
      ['a', 'Node'],
      ['b', 'Node'],
    ]);
    expect(KubeClient.listedSince(client, 0).map((l) => l.resourceVersion)).toEqual(['9']);
  });

  it('protobuf pages too: page 2 is asked before page 1 is decoded (a page 1 whose Nodes cannot be decoded fails only after)', async () => {
    const whole = nodeListBody([node('a')], { resourceVersion: '9', continue: 'p2' });
    // Its metadata, then an item (field 2, 3 bytes) whose ObjectMeta (field 1) says 5 bytes and has 1: the head reads, the items do not.
    const listType = encodingRoot.lookupType('NodeList');
    const raw = Buffer.concat([listType.encode(listType.fromObject({ metadata: { resourceVersion: '9', continue: 'p2' } })).finish(), Buffer.from([0x12, 0x03, 0x0a, 0x05, 0x61])]);
    pages = { '': envelope('v1', 'NodeList', raw), p2: nodeListBody([node('b')], { resourceVersion: '9' }) };
    const secondAsked = new Promise<void>((resolve) => {
      asked = (cont) => {
        if (cont === 'p2') resolve();
      };
    });
    const client = aLoopbackClient(server, { pageSize: 1 });
    await expect(client.listNodes()).rejects.toThrow(/decoding a protobuf NodeList: index out of range/);
    await secondAsked;
    expect(client.counts.errorsByVerb).toEqual({ 'list nodes': 1 });
    pages = { '': whole, p2: pages['p2'] as Buffer };
    expect((await client.listNodes()).map((n) => n.metadata?.name)).toEqual(['a', 'b']);
  });

  it('a head that the whole answer contradicts (a second metadata key) fails the LIST rather than trust either', async () => {
    pages = { '': '{"kind":"NodeList","metadata":{"continue":"p2"},"items":[],"metadata":{"continue":"p3"}}', p2: '{"kind":"NodeList","metadata":{},"items":[]}' };
    const client = aLoopbackClient(server, { pageSize: 1 });
    await expect(client.listNodes()).rejects.toThrow('Message: LIST nodes: the metadata at the head of the response is not its metadata');
    expect(client.counts.errorsByVerb).toEqual({ 'list nodes': 1 });
  });
});
