// LIST and WATCH over real HTTP: label and field selectors, paging, the node index, watch replay, selector
// transitions, 410 Gone, bookmarks, and client-node's Watch as the simulated kubelet uses it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, Watch } from '@kubernetes/client-node';
import { startSimApiServer, type SimApiServer } from './index.ts';
import { aPod, at, call, until } from './test-support.ts';

let server: SimApiServer;
const NS = '/api/v1/namespaces/lw/pods';

function names(body: object): string[] {
  return ((body as { items?: Array<{ metadata: { name: string } }> }).items ?? []).map((i) => i.metadata.name);
}

beforeAll(async () => {
  server = await startSimApiServer({ watchHistorySize: 50 });
  await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'lw' } });
  const pods: Array<[string, string | undefined, Record<string, string>]> = [
    ['a1', 'node-a', { app: 'web', tier: 'front' }],
    ['a2', 'node-a', { app: 'web' }],
    ['b1', 'node-b', { app: 'db', tier: 'back' }],
    ['b2', 'node-b', { app: 'cache' }],
    ['u1', undefined, { app: 'web' }],
  ];
  for (const [name, node, labels] of pods) await call(server, 'POST', NS, aPod(name, { namespace: 'lw', labels, ...(node ? { node } : {}) }));
  await call(server, 'PATCH', `${NS}/b2/status`, { status: { phase: 'Succeeded' } }, 'application/merge-patch+json');
});
afterAll(async () => {
  await server.stop();
});

describe('selectors', () => {
  it.each([
    ['labelSelector=app%3Dweb', ['a1', 'a2', 'u1']],
    ['labelSelector=app!%3Dweb', ['b1', 'b2']],
    ['labelSelector=app%20in%20(db,cache)', ['b1', 'b2']],
    ['labelSelector=app%20notin%20(web)', ['b1', 'b2']],
    ['labelSelector=tier', ['a1', 'b1']],
    ['labelSelector=!tier', ['a2', 'b2', 'u1']],
    ['fieldSelector=spec.nodeName%3Dnode-a', ['a1', 'a2']],
    ['fieldSelector=spec.nodeName%3D', ['u1']],
    ['fieldSelector=spec.nodeName!%3D,status.phase!%3DSucceeded,status.phase!%3DFailed', ['a1', 'a2', 'b1']],
    ['fieldSelector=status.phase%3DPending', ['a1', 'a2', 'b1', 'u1']],
    ['fieldSelector=metadata.name%3Db1', ['b1']],
    ['fieldSelector=metadata.namespace%3Dlw,spec.nodeName%3Dnode-b&labelSelector=app%3Ddb', ['b1']],
  ])('%s selects %j', async (query, expected) => {
    expect(names((await call(server, 'GET', `${NS}?${query}`)).body)).toEqual(expected);
  });

  it.each([
    ['fieldSelector=spec.foo%3Dx', 'field label not supported: spec.foo'],
    ['fieldSelector=spec.nodeName', "invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'"],
  ])('%s is a 400: %s', async (query, message) => {
    const r = await call(server, 'GET', `${NS}?${query}`);
    expect(r.body).toMatchObject({ code: 400, reason: 'BadRequest', message });
  });

  it('a bad label selector is a 400', async () => {
    expect((await call(server, 'GET', `${NS}?labelSelector=a%20in%20`)).status).toBe(400);
  });

  it('pods of one node across namespaces come from the node index', async () => {
    expect(names((await call(server, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-b')).body)).toEqual(['b1', 'b2']);
  });
});

describe('paging', () => {
  it('limit and continue walk the list in key order, with remainingItemCount when nothing but the namespace filters', async () => {
    const first = await call(server, 'GET', `${NS}?limit=2`);
    expect(names(first.body)).toEqual(['a1', 'a2']);
    expect(at(first.body, 'metadata.remainingItemCount')).toBe(3);
    const token = String(at(first.body, 'metadata.continue'));
    const second = await call(server, 'GET', `${NS}?limit=2&continue=${token}`);
    expect(names(second.body)).toEqual(['b1', 'b2']);
    expect(at(second.body, 'metadata.resourceVersion')).toBe(at(first.body, 'metadata.resourceVersion'));
    const third = await call(server, 'GET', `${NS}?limit=2&continue=${String(at(second.body, 'metadata.continue'))}`);
    expect(names(third.body)).toEqual(['u1']);
    expect(at(third.body, 'metadata.continue')).toBeUndefined();
  });

  it('a filtered page has a continue token only when more items match, and no remainingItemCount', async () => {
    const r = await call(server, 'GET', `${NS}?limit=2&labelSelector=app%3Dweb`);
    expect(names(r.body)).toEqual(['a1', 'a2']);
    expect(at(r.body, 'metadata.remainingItemCount')).toBeUndefined();
    const rest = await call(server, 'GET', `${NS}?limit=2&labelSelector=app%3Dweb&continue=${String(at(r.body, 'metadata.continue'))}`);
    expect(names(rest.body)).toEqual(['u1']);
    expect(at(rest.body, 'metadata.continue')).toBeUndefined();
  });

  it('client-node pages with limit and _continue', async () => {
    const core = server.kubeConfig().makeApiClient(CoreV1Api);
    const page = await core.listNamespacedPod({ namespace: 'lw', limit: 3 });
    expect(page.items.map((p) => p.metadata?.name)).toEqual(['a1', 'a2', 'b1']);
    const next = await core.listNamespacedPod({ namespace: 'lw', limit: 3, _continue: page.metadata?._continue ?? '' });
    expect(next.items.map((p) => p.metadata?.name)).toEqual(['b2', 'u1']);
  });

  it('a garbage continue token is a 400', async () => {
    expect((await call(server, 'GET', `${NS}?limit=1&continue=garbage`)).body).toMatchObject({ code: 400, reason: 'BadRequest' });
  });
});

/** Reads a watch stream until `count` events arrived (or the server ended it). */
async function watchEvents(path: string, count: number, during?: () => Promise<void>): Promise<Array<{ type: string; object: Record<string, unknown> }>> {
  const controller = new AbortController();
  const res = await fetch(`${server.url}${path}`, { signal: controller.signal });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const events: Array<{ type: string; object: Record<string, unknown> }> = [];
  let buffer = '';
  const pending = during?.();
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += Buffer.from(value).toString('utf8');
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      events.push(JSON.parse(buffer.slice(0, nl)) as { type: string; object: Record<string, unknown> });
      buffer = buffer.slice(nl + 1);
    }
  }
  await pending;
  controller.abort();
  return events;
}

describe('watch', () => {
  it('without a resourceVersion starts with the current objects as ADDED', async () => {
    const events = await watchEvents(`${NS}?watch=true&fieldSelector=spec.nodeName%3Dnode-a`, 2);
    expect(events.map((e) => [e.type, at(e.object as never, 'metadata.name')])).toEqual([
      ['ADDED', 'a1'],
      ['ADDED', 'a2'],
    ]);
  });

  it('from a resourceVersion replays later changes, and objects entering or leaving the selector are ADDED or DELETED', async () => {
    const list = await call(server, 'GET', NS);
    const rv = String(at(list.body, 'metadata.resourceVersion'));
    await call(server, 'POST', NS, aPod('w1', { namespace: 'lw', node: 'node-c' }));
    await call(server, 'PATCH', `${NS}/w1/status`, { status: { phase: 'Running' } }, 'application/merge-patch+json');
    const path = `${NS}?watch=1&resourceVersion=${rv}&fieldSelector=status.phase!%3DSucceeded`;
    const events = await watchEvents(path, 4, async () => {
      await call(server, 'PATCH', `${NS}/w1/status`, { status: { phase: 'Succeeded' } }, 'application/merge-patch+json');
      await call(server, 'PATCH', `${NS}/b2/status`, { status: { phase: 'Running' } }, 'application/merge-patch+json');
    });
    expect(events.map((e) => [e.type, at(e.object as never, 'metadata.name'), at(e.object as never, 'status.phase')])).toEqual([
      ['ADDED', 'w1', 'Pending'],
      ['MODIFIED', 'w1', 'Running'],
      ['DELETED', 'w1', 'Succeeded'],
      ['ADDED', 'b2', 'Running'],
    ]);
  });

  it('a resourceVersion older than the kept history gets an ERROR event with 410 Expired', async () => {
    for (let i = 0; i < 60; i++) await call(server, 'PATCH', `${NS}/a1`, { metadata: { labels: { n: String(i) } } }, 'application/merge-patch+json');
    const [event] = await watchEvents(`${NS}?watch=true&resourceVersion=1001`, 1);
    expect(event).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    expect(String(at(event?.object as never, 'message'))).toMatch(/^too old resource version: 1001 \(\d+\)$/);
  });

  it('client-node Watch sees a pod deletion as MODIFIED (deletionTimestamp) then DELETED with the last state, and ends at timeoutSeconds', async () => {
    await call(server, 'POST', NS, aPod('gone', { namespace: 'lw' }));
    const rv = String(at((await call(server, 'GET', NS)).body, 'metadata.resourceVersion'));
    const seen: string[] = [];
    let ended = false;
    await new Watch(server.kubeConfig()).watch('/api/v1/namespaces/lw/pods', { resourceVersion: rv, timeoutSeconds: 1, allowWatchBookmarks: true }, (type, obj: { metadata?: { name?: string } }) => seen.push(`${type} ${obj.metadata?.name ?? ''}`), () => {
      ended = true;
    });
    await call(server, 'DELETE', `${NS}/gone`);
    await until('the server to end the watch', () => (ended ? true : undefined));
    // An unbound pod is deleted at once (grace period 0), but as kube-apiserver does, through a stored deletionTimestamp.
    expect(seen).toEqual(['MODIFIED gone', 'DELETED gone']);
  });

  it('sendInitialEvents ends the initial ADDED events with a bookmark annotated k8s.io/initial-events-end', async () => {
    const events = await watchEvents(`${NS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dnode-b`, 3);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'BOOKMARK']);
    expect(at(events[2]?.object as never, 'metadata.annotations')).toEqual({ 'k8s.io/initial-events-end': 'true' });
  });
});
