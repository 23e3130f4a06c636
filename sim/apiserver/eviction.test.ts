// pods/eviction against PodDisruptionBudget status written by the test (no disruption controller runs here):
// the real rules, codes, messages and causes, through raw HTTP and through kmaint's KubeClient.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KubeClient } from '../../shared/kube/index.ts';
import { startSimApiServer, type SimApiServer } from './index.ts';
import type { JsonObject } from './json-value.ts';
import { aPod, at, call } from './test-support.ts';

let server: SimApiServer;
let ns = '';
let seq = 0;
const pods = () => `/api/v1/namespaces/${ns}/pods`;
const pdbs = () => `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`;

function evict(name: string, body?: JsonObject) {
  return call(server, 'POST', `${pods()}/${name}/eviction`, body ?? { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: ns } });
}

/** A pod bound to a node, Running and (unless told otherwise) Ready, as a kubelet would report it. */
async function runningPod(name: string, ready = true): Promise<void> {
  await call(server, 'POST', pods(), aPod(name, { namespace: ns, node: 'node-001', labels: { app: 'ev' }, grace: 20 }));
  await call(server, 'PATCH', `${pods()}/${name}/status`, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } }, 'application/strategic-merge-patch+json');
}

async function budget(name: string, status: Record<string, unknown>, spec: Record<string, unknown> = { minAvailable: 2 }): Promise<void> {
  await call(server, 'POST', pdbs(), { metadata: { name }, spec: { ...spec, selector: { matchLabels: { app: 'ev' } } } });
  const r = await call(server, 'PATCH', `${pdbs()}/${name}/status`, { status: { observedGeneration: 1, ...status } }, 'application/merge-patch+json');
  expect(r.status).toBe(200);
}

beforeAll(async () => {
  server = await startSimApiServer({ clock: { now: () => Date.parse('2026-03-01T10:00:00Z') } });
});
beforeEach(async () => {
  ns = `ev${++seq}`;
  await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
});
afterAll(async () => {
  await server.stop();
});

describe('eviction', () => {
  it('spends one disruption: 201, the budget records the pod, the pod gets DisruptionTarget and its grace period', async () => {
    await runningPod('p1');
    await budget('pdb', { disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3 });
    const r = await evict('p1');
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const pdb = await call(server, 'GET', `${pdbs()}/pdb`);
    expect(pdb.body['status']).toMatchObject({
      disruptionsAllowed: 0,
      disruptedPods: { p1: '2026-03-01T10:00:00Z' },
      conditions: [{ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '', observedGeneration: 1 }],
    });
    const pod = await call(server, 'GET', `${pods()}/p1`);
    expect(at(pod.body, 'metadata.deletionGracePeriodSeconds')).toBe(20);
    expect((at(pod.body, 'status.conditions') as object[]).find((c) => (c as { type: string }).type === 'DisruptionTarget')).toEqual({
      type: 'DisruptionTarget',
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: '2026-03-01T10:00:00Z',
      reason: 'EvictionByEvictionAPI',
      message: 'Eviction API: evicting',
    });
  });

  it('refuses with 429 and the budget numbers when no disruption is allowed', async () => {
    await runningPod('p1');
    await budget('pdb-a', { disruptionsAllowed: 0, currentHealthy: 3, desiredHealthy: 3, expectedPods: 3 });
    const r = await evict('p1');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBeNull();
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: 'TooManyRequests',
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget pdb-a needs 3 healthy pods and has 3 currently' }] },
      code: 429,
    });
  });

  it('refuses with 429 and Retry-After 10 while the budget is not yet observed at its generation', async () => {
    await runningPod('p1');
    await call(server, 'POST', pdbs(), { metadata: { name: 'fresh' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'ev' } } } });
    const r = await evict('p1');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('10');
    expect(at(r.body, 'details.causes')).toEqual([{ reason: 'DisruptionBudget', message: 'The disruption budget fresh is still being processed by the server.' }]);
  });

  it('answers 500 when more than one budget selects the pod', async () => {
    await runningPod('p1');
    await budget('one', { disruptionsAllowed: 1 });
    await budget('two', { disruptionsAllowed: 1 });
    const r = await evict('p1');
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 });
  });

  it.each([
    ['Pending', async () => call(server, 'POST', pods(), aPod('p1', { namespace: ns, labels: { app: 'ev' } }))],
    ['already terminating', async () => {
      await runningPod('p1');
      await call(server, 'DELETE', `${pods()}/p1`);
    }],
    ['Succeeded', async () => {
      await runningPod('p1');
      await call(server, 'PATCH', `${pods()}/p1/status`, { status: { phase: 'Succeeded' } }, 'application/merge-patch+json');
    }],
  ])('deletes a %s pod without looking at the budget', async (_what, setup) => {
    await setup();
    await budget('pdb', { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 3 });
    expect((await evict('p1')).status).toBe(201);
    expect(at((await call(server, 'GET', `${pdbs()}/pdb`)).body, 'status.disruptionsAllowed')).toBe(0);
  });

  it('deletes an unready pod without spending a disruption when the budget is otherwise healthy', async () => {
    await runningPod('p1', false);
    await budget('pdb', { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 });
    expect((await evict('p1')).status).toBe(201);
    expect(at((await call(server, 'GET', `${pdbs()}/pdb`)).body, 'status.disruptedPods')).toBeUndefined();
  });

  it('evicts a pod no budget selects; a missing pod is 404 and a mismatched name 400', async () => {
    await runningPod('p1');
    expect((await evict('p1')).status).toBe(201);
    expect((await evict('nope')).body).toMatchObject({ code: 404, message: 'pods "nope" not found' });
    expect((await evict('p1', { metadata: { name: 'other' } })).body).toMatchObject({ code: 400, message: 'name in URL does not match name in Eviction object' });
  });

  it('a budget whose selector changes is matched by its new selector at the next eviction', async () => {
    await runningPod('p1');
    await runningPod('p2');
    await budget('pdb', { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2, expectedPods: 2 });
    expect((await evict('p1')).status).toBe(429);
    const moved = await call(server, 'PATCH', `${pdbs()}/pdb`, { spec: { selector: { matchLabels: { app: 'other' } } } }, 'application/merge-patch+json');
    expect(moved.status).toBe(200);
    expect((await evict('p1')).status).toBe(201);
    await call(server, 'PATCH', `${pdbs()}/pdb`, { spec: { selector: { matchLabels: { app: 'ev' } } } }, 'application/merge-patch+json');
    expect((await evict('p2')).status).toBe(429);
  });

  it("kmaint's KubeClient sees a budget refusal and the two-budget 500 as `blocked`", async () => {
    await runningPod('p1');
    await budget('pdb-a', { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 });
    const client = new KubeClient(server.kubeConfig({ user: 'kmaint' }));
    expect(await client.evictPod(ns, 'p1')).toEqual({ kind: 'blocked', message: "Cannot evict pod as it would violate the pod's disruption budget." });
    await budget('pdb-b', { disruptionsAllowed: 1 });
    expect(await client.evictPod(ns, 'p1')).toMatchObject({ kind: 'blocked', message: expect.stringContaining('more than one PodDisruptionBudget') });
    expect(server.requests({ user: 'kmaint' }).map((e) => [e.verb, e.resource, e.code])).toEqual([
      ['create', 'pods/eviction', 429],
      ['create', 'pods/eviction', 500],
    ]);
  });
});
