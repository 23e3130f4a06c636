import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport } from './http-transport.ts';
import { compressListsFrom } from './list-compression.ts';
import { LEASES, NODES, PDBS, PODS, type ApiResource, type ListQuery } from './transport.ts';
import { aLoopbackKubeConfig } from './test-builders.ts';

describe('compressListsFrom', () => {
  it.each([
    { rule: 'unset is off', env: {}, expected: false },
    { rule: 'empty is off', env: { KMAINT_COMPRESS_LISTS: '' }, expected: false },
    { rule: '"false" is off', env: { KMAINT_COMPRESS_LISTS: 'false' }, expected: false },
    { rule: '"true" is on', env: { KMAINT_COMPRESS_LISTS: 'true' }, expected: true },
    { rule: 'case and blanks do not matter', env: { KMAINT_COMPRESS_LISTS: ' TRUE ' }, expected: true },
  ])('$rule', ({ env, expected }) => {
    expect(compressListsFrom(env)).toBe(expected);
  });

  it('refuses a value it would have to guess', () => {
    expect(() => compressListsFrom({ KMAINT_COMPRESS_LISTS: 'yes' })).toThrow('KMAINT_COMPRESS_LISTS must be "true" or "false", got "yes"');
  });
});

const MAINTENANCES: ApiResource = { group: 'maintenance.nvidia.com', version: 'v1alpha1', plural: 'nodemaintenances', namespaced: true };
const SRIOV_STATES: ApiResource = { group: 'sriovnetwork.openshift.io', version: 'v1', plural: 'sriovnetworknodestates', namespaced: true };

describe('HttpTransport LIST Accept-Encoding', () => {
  let server: Server;
  /** "path accept-encoding" of each request, and the Content-Encoding each answer went with. */
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const asked = req.headers['accept-encoding'] ?? '(none)';
      const path = (req.url ?? '').split('?')[0] ?? '';
      const kind = path.endsWith('/nodes') ? 'NodeList' : 'List';
      const items = path.endsWith('/nodes') ? [{ metadata: { name: 'node-0' }, spec: {}, status: { conditions: [] } }] : [{ metadata: { name: 'x-0', namespace: 'ns' } }];
      const json = Buffer.from(JSON.stringify({ kind, apiVersion: 'v1', metadata: { resourceVersion: '7' }, items }));
      // As the API server: gzip when the client accepts it (it does so only over 128 KB; every size here).
      const gzip = asked.split(',').some((e) => e.trim() === 'gzip');
      seen.push(`${path} ${asked} -> ${gzip ? 'gzip' : 'plain'}`);
      res.writeHead(200, { 'content-type': 'application/json', ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
      res.end(gzip ? gzipSync(json) : json);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  function transport(compressLists: boolean): HttpTransport {
    return new HttpTransport(aLoopbackKubeConfig(server), { compressLists });
  }

  const LISTS: Array<{ resource: ApiResource; query: ListQuery; path: string; name: string }> = [
    { resource: NODES, query: { limit: 500 }, path: '/api/v1/nodes', name: 'node-0' },
    { resource: PODS, query: { limit: 500, fieldSelector: 'spec.nodeName=node-0' }, path: '/api/v1/pods', name: 'x-0' },
    { resource: PDBS, query: { limit: 500 }, path: '/apis/policy/v1/poddisruptionbudgets', name: 'x-0' },
    { resource: LEASES, query: { limit: 500, namespace: 'ns' }, path: '/apis/coordination.k8s.io/v1/namespaces/ns/leases', name: 'x-0' },
    { resource: MAINTENANCES, query: { limit: 500 }, path: '/apis/maintenance.nvidia.com/v1alpha1/nodemaintenances', name: 'x-0' },
    { resource: SRIOV_STATES, query: { limit: 500, namespace: 'ns' }, path: '/apis/sriovnetwork.openshift.io/v1/namespaces/ns/sriovnetworknodestates', name: 'x-0' },
  ];

  it.each([
    { rule: 'by default every LIST asks for identity: the API server does not spend its CPU on gzip', compressLists: false, sent: 'identity', answered: 'plain' },
    { rule: 'with compression on every LIST asks for gzip alone, and the gzipped answer is read', compressLists: true, sent: 'gzip', answered: 'gzip' },
  ])('$rule', async ({ compressLists, sent, answered }) => {
    seen.length = 0;
    const t = transport(compressLists);
    const names: string[] = [];
    for (const l of LISTS) {
      const page = await t.listPage(l.resource, l.query);
      names.push((page.items[0] as { metadata: { name: string } }).metadata.name);
    }
    expect(seen).toEqual(LISTS.map((l) => `${l.path} ${sent} -> ${answered}`));
    expect(names).toEqual(LISTS.map((l) => l.name));
  });
});
