// DELETE over real HTTP: preconditions, finalizers, pods' graceful deletion, namespaces emptied, collections.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimApiServer, type SimApiServer } from './index.ts';
import { aNodeMaintenance, aPod, at, call, CRD_DIR, NM_PATH } from './test-support.ts';

let server: SimApiServer;
let clockMs = Date.parse('2026-03-01T10:00:00Z');
const PODS = '/api/v1/namespaces/default/pods';

beforeAll(async () => {
  server = await startSimApiServer({ crds: [CRD_DIR], clock: { now: () => clockMs } });
});
afterAll(async () => {
  await server.stop();
});

describe('preconditions', () => {
  it.each([
    ['uid', { uid: 'abc' }, (uid: string) => `Operation cannot be fulfilled on Pod "pre": the UID in the precondition (abc) does not match the UID in record (${uid}). The object might have been deleted and then recreated`],
    ['resourceVersion', { resourceVersion: '1' }, (_uid: string, rv: string) => `Operation cannot be fulfilled on Pod "pre": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${rv}). The object might have been modified`],
  ])('a stale %s precondition is a 409 naming the kind', async (_what, preconditions, message) => {
    const created = await call(server, 'POST', PODS, aPod('pre'));
    const r = await call(server, 'DELETE', `${PODS}/pre`, { preconditions });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ reason: 'Conflict', details: { name: 'pre', kind: 'Pod' }, message: message(String(at(created.body, 'metadata.uid')), String(at(created.body, 'metadata.resourceVersion'))) });
    await call(server, 'DELETE', `${PODS}/pre`);
  });

  it('a custom resource precondition failure names Kind.group', async () => {
    await call(server, 'POST', NM_PATH, aNodeMaintenance('pre', { requestorID: 'ab', nodeName: 'n' }));
    const r = await call(server, 'DELETE', `${NM_PATH}/pre`, { preconditions: { uid: 'abc' } });
    expect(String(r.body['message'])).toMatch(/^Operation cannot be fulfilled on NodeMaintenance\.maintenance\.nvidia\.com "pre": the UID in the precondition \(abc\)/);
  });
});

describe('finalizers', () => {
  it('keep the object with a deletionTimestamp, grace 0 and a new generation until the last one goes', async () => {
    clockMs += 1000;
    await call(server, 'POST', NM_PATH, { ...aNodeMaintenance('fin', { requestorID: 'ab', nodeName: 'n' }), metadata: { name: 'fin', finalizers: ['x/y'] } });
    const deleting = await call(server, 'DELETE', `${NM_PATH}/fin`);
    expect(deleting.status).toBe(200);
    expect(deleting.body['metadata']).toMatchObject({ deletionTimestamp: new Date(clockMs).toISOString().replace('.000', ''), deletionGracePeriodSeconds: 0, generation: 2, finalizers: ['x/y'] });
    const again = await call(server, 'DELETE', `${NM_PATH}/fin`);
    expect(at(again.body, 'metadata.resourceVersion')).toBe(at(deleting.body, 'metadata.resourceVersion'));
    const added = await call(server, 'PATCH', `${NM_PATH}/fin`, { metadata: { finalizers: ['x/y', 'a/b'] } }, 'application/merge-patch+json');
    expect(added.body['message']).toBe('NodeMaintenance.maintenance.nvidia.com "fin" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"a/b"}');
    const removed = await call(server, 'PATCH', `${NM_PATH}/fin`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect(removed.status).toBe(200);
    expect((await call(server, 'GET', `${NM_PATH}/fin`)).status).toBe(404);
  });

  it('a deleted custom resource without finalizers answers with a success Status', async () => {
    const created = await call(server, 'POST', NM_PATH, aNodeMaintenance('plain', { requestorID: 'ab', nodeName: 'n' }));
    const r = await call(server, 'DELETE', `${NM_PATH}/plain`);
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'plain', group: 'maintenance.nvidia.com', kind: 'nodemaintenances', uid: at(created.body, 'metadata.uid') } });
  });
});

describe('graceful pod deletion', () => {
  it('a pod bound to a node and not finished gets deletionTimestamp = now + grace and stays until deleted with grace 0', async () => {
    await call(server, 'POST', PODS, aPod('bound', { node: 'node-001', grace: 20 }));
    const r = await call(server, 'DELETE', `${PODS}/bound`);
    expect(r.body['metadata']).toMatchObject({ deletionTimestamp: new Date(clockMs + 20_000).toISOString().replace('.000', ''), deletionGracePeriodSeconds: 20, generation: 2 });
    expect((await call(server, 'GET', `${PODS}/bound`)).status).toBe(200);
    const longer = await call(server, 'DELETE', `${PODS}/bound`, { gracePeriodSeconds: 60 });
    expect(at(longer.body, 'metadata.deletionGracePeriodSeconds')).toBe(20);
    const shorter = await call(server, 'DELETE', `${PODS}/bound`, { gracePeriodSeconds: 5 });
    expect(shorter.body['metadata']).toMatchObject({ deletionTimestamp: new Date(clockMs + 5_000).toISOString().replace('.000', ''), deletionGracePeriodSeconds: 5 });
    await call(server, 'DELETE', `${PODS}/bound?gracePeriodSeconds=0`);
    expect((await call(server, 'GET', `${PODS}/bound`)).status).toBe(404);
  });

  it.each([
    ['not bound to a node', aPod('unbound')],
    ['finished', aPod('done', { node: 'node-001' })],
  ])('a pod %s goes at once, answered with its last state', async (_what, pod) => {
    const name = String(at(pod, 'metadata.name'));
    await call(server, 'POST', PODS, pod);
    if (name === 'done') await call(server, 'PATCH', `${PODS}/done/status`, { status: { phase: 'Succeeded' } }, 'application/merge-patch+json');
    const r = await call(server, 'DELETE', `${PODS}/${name}`);
    expect(r.body).toMatchObject({ kind: 'Pod', metadata: { deletionGracePeriodSeconds: 0 } });
    expect((await call(server, 'GET', `${PODS}/${name}`)).status).toBe(404);
  });

  it('a terminating pod with a finalizer stays after its grace-0 delete until the finalizer goes', async () => {
    await call(server, 'POST', PODS, aPod('held', { node: 'node-001', finalizers: ['x/y'] }));
    await call(server, 'DELETE', `${PODS}/held`);
    const zero = await call(server, 'DELETE', `${PODS}/held`, { gracePeriodSeconds: 0 });
    expect(at(zero.body, 'metadata.deletionGracePeriodSeconds')).toBe(0);
    expect((await call(server, 'GET', `${PODS}/held`)).status).toBe(200);
    await call(server, 'PATCH', `${PODS}/held`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect((await call(server, 'GET', `${PODS}/held`)).status).toBe(404);
  });
});

describe('namespaces and collections', () => {
  it('deleting a namespace marks it Terminating, refuses new content, and purges it once its pods are gone', async () => {
    await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'gone' } });
    await call(server, 'POST', '/api/v1/namespaces/gone/pods', aPod('running', { namespace: 'gone', node: 'node-001' }));
    await call(server, 'POST', '/api/v1/namespaces/gone/pods', aPod('idle', { namespace: 'gone' }));
    const r = await call(server, 'DELETE', '/api/v1/namespaces/gone');
    expect(r.body).toMatchObject({ kind: 'Namespace', status: { phase: 'Terminating' } });
    expect((await call(server, 'GET', '/api/v1/namespaces/gone/pods/idle')).status).toBe(404);
    expect(at((await call(server, 'GET', '/api/v1/namespaces/gone/pods/running')).body, 'metadata.deletionGracePeriodSeconds')).toBe(30);
    const refused = await call(server, 'POST', '/api/v1/namespaces/gone/pods', aPod('late', { namespace: 'gone' }));
    expect(refused.body).toMatchObject({ code: 403, message: 'pods "late" is forbidden: unable to create new content in namespace gone because it is being terminated' });
    await call(server, 'DELETE', '/api/v1/namespaces/gone/pods/running?gracePeriodSeconds=0');
    expect((await call(server, 'GET', '/api/v1/namespaces/gone')).status).toBe(404);
  });

  it('deletecollection deletes what the selector selects', async () => {
    for (const [name, tier] of [['a', 'web'], ['b', 'web'], ['c', 'db']] as const) await call(server, 'POST', PODS, aPod(`dc-${name}`, { labels: { tier } }));
    const r = await call(server, 'DELETE', `${PODS}?labelSelector=tier%3Dweb`);
    expect(r.body['kind']).toBe('PodList');
    const left = await call(server, 'GET', `${PODS}?labelSelector=tier`);
    expect((left.body['items'] as Array<{ metadata: { name: string } }>).map((p) => p.metadata.name)).toEqual(['dc-c']);
  });
});
