// The store's label index: a LIST whose selector requires a label value reads the objects carrying it, and gives
// what a scan of the namespace gives, in key order and paged, while labels change and objects come and go.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimApiServer, type SimApiServer } from './index.ts';
import type { KindInfo } from './kinds.ts';
import { listObjects } from './list.ts';
import { parseFieldSelector, parseLabels } from './selectors.ts';
import { restamped } from './store.ts';
import { aPod } from './test-support.ts';

const PODS = { apiVersion: 'v1', resource: 'pods' };
let server: SimApiServer;
let pods: KindInfo;

function names(labelSelector: string, opts: { namespace?: string; fieldSelector?: string; limit?: number; continueToken?: string } = {}): { names: string[]; continueToken?: string } {
  const page = listObjects(server.context, pods, {
    filter: { namespace: opts.namespace, labels: parseLabels(labelSelector), fields: parseFieldSelector(opts.fieldSelector ?? null) },
    ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
    ...(opts.continueToken !== undefined ? { continueToken: opts.continueToken } : {}),
  });
  return { names: page.items.map((o) => o.key), ...(page.continueToken ? { continueToken: page.continueToken } : {}) };
}

beforeAll(async () => {
  server = await startSimApiServer({ namespaces: ['default', 'one', 'two'] });
  pods = server.context.kinds.lookup('', 'v1', 'pods') as KindInfo;
  for (const [ns, name, labels, node] of [
    ['one', 'w3', { app: 'web', tier: 'front' }, 'n1'],
    ['one', 'w1', { app: 'web' }, 'n2'],
    ['two', 'w2', { app: 'web', tier: 'back' }, 'n1'],
    ['one', 'd1', { app: 'db' }, 'n1'],
    ['one', 'x1', {}, 'n2'],
  ] as const) {
    server.local.create(PODS, ns, aPod(name, { namespace: ns, labels: { ...labels }, node }));
  }
});
afterAll(async () => {
  await server.stop();
});

describe('LIST by a required label value', () => {
  it.each([
    ['app=web in every namespace, in key order', 'app=web', {}, ['one/w1', 'one/w3', 'two/w2']],
    ['app=web in one namespace', 'app=web', { namespace: 'one' }, ['one/w1', 'one/w3']],
    ['app in (web) is the same requirement', 'app in (web)', {}, ['one/w1', 'one/w3', 'two/w2']],
    ['the other terms still apply', 'app=web,tier!=front', {}, ['one/w1', 'two/w2']],
    ['and field selectors too', 'app=web', { fieldSelector: 'spec.nodeName=n1' }, ['one/w3', 'two/w2']],
    ['a value no object has', 'app=none', {}, []],
  ])('%s', (_rule, selector, opts, expected) => {
    expect(names(selector, opts).names).toEqual(expected);
  });

  it('pages in key order with limit and continue', () => {
    const first = names('app=web', { limit: 2 });
    expect(first.names).toEqual(['one/w1', 'one/w3']);
    expect(names('app=web', { limit: 2, continueToken: first.continueToken as string })).toEqual({ names: ['two/w2'] });
  });

  it('follows label changes, deletions and new objects', () => {
    expect(names('app=web').names).toEqual(['one/w1', 'one/w3', 'two/w2']);
    server.local.patch(PODS, 'one', 'w1', { metadata: { labels: { app: 'db' } } });
    server.local.patch(PODS, 'one', 'x1', { metadata: { labels: { app: 'web' } } });
    server.local.delete(PODS, 'two', 'w2', { gracePeriodSeconds: 0 });
    server.local.create(PODS, 'two', aPod('w0', { namespace: 'two', labels: { app: 'web' } }));
    expect(names('app=web').names).toEqual(['one/w3', 'one/x1', 'two/w0']);
    expect(names('app=db').names).toEqual(['one/d1', 'one/w1']);
  });
});

describe('Collection.changes', () => {
  it('counts every write and deletion of the kind', () => {
    const c = server.context.store.collection(pods);
    const before = c.changes;
    server.local.create(PODS, 'one', aPod('c1', { namespace: 'one' }));
    server.local.patch(PODS, 'one', 'c1', { metadata: { labels: { x: 'y' } } });
    // A pod's delete, even with grace period 0, stores its deletionTimestamp before it removes it: two changes.
    server.local.delete(PODS, 'one', 'c1', { gracePeriodSeconds: 0 });
    expect(c.changes - before).toBe(4);
  });
});

describe('restamped', () => {
  const base = { key: 'ns/p', namespace: 'ns', name: 'p', uid: 'u', labels: {}, fields: [] };
  it.each([
    ['changes the one resourceVersion in the text', '{"metadata":{"name":"p","resourceVersion":"41"},"spec":{}}', '{"metadata":{"name":"p","resourceVersion":"42"},"spec":{}}'],
    ['leaves text holding it twice to a full rewrite', '{"metadata":{"resourceVersion":"41"},"spec":{"x":{"resourceVersion":"41"}}}', undefined],
    ['leaves text without it to a full rewrite', '{"metadata":{"name":"p"}}', undefined],
  ])('%s', (_rule, json, expected) => {
    const out = restamped({ ...base, resourceVersion: 41, json }, 42);
    expect(out === undefined ? undefined : out.json).toEqual(expected);
    if (out) expect({ ...out, json: '' }).toEqual({ ...base, resourceVersion: 42, json: '' });
  });

  it('a DELETED event carries the last version with the deletion resourceVersion', () => {
    const seen: Array<{ type: string; rv: number; textRv: string }> = [];
    const stop = server.context.store.subscribe((e) => {
      if (e.object.key === 'one/gone') seen.push({ type: e.type, rv: e.object.resourceVersion, textRv: (JSON.parse(e.object.json) as { metadata: { resourceVersion: string } }).metadata.resourceVersion });
    });
    server.local.create(PODS, 'one', aPod('gone', { namespace: 'one' }));
    server.local.delete(PODS, 'one', 'gone', { gracePeriodSeconds: 0 });
    stop();
    // As kube-apiserver: a pod's graceless delete is an update with the deletionTimestamp, then the removal.
    expect(seen.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(seen.every((e) => String(e.rv) === e.textRv)).toBe(true);
    expect((seen[2]?.rv ?? 0) - (seen[1]?.rv ?? 0)).toBe(1);
  });
});
