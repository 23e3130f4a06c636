// The API behaviour kmaint relies on, with exact status codes and bodies, run on both clusters: the testbed (a real
// kube-apiserver, the judge) and the sim. Where they disagree the sim is fixed, never these expectations.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINALIZER, GROUP, VERSION } from '../shared/api/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { Watch, type V1Pod } from '@kubernetes/client-node';
import { adminKubeConfig, clusterKind, waitFor } from './support/cluster.ts';
import { admin, bindPod, generalNodes, setUnschedulable } from './support/kmaint.ts';
import { rawApi, type RawResponse } from './support/raw-api.ts';
import { testbedOnlyTests } from './support/testbed-only.ts';

const ns = `api-${randomBytes(3).toString('hex')}`;
const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const NM_GROUP_RESOURCE = `nodemaintenances.${GROUP}`;

type Obj = Record<string, unknown>;

const nmPath = (name?: string, namespace = ns): string => `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/nodemaintenances${name ? `/${name}` : ''}`;
const podPath = (name?: string): string => `/api/v1/namespaces/${ns}/pods${name ? `/${name}` : ''}`;
const leasePath = (name?: string): string => `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases${name ? `/${name}` : ''}`;
const pdbPath = (name?: string): string => `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets${name ? `/${name}` : ''}`;

function meta(o: Obj): Obj {
  return (o['metadata'] ?? {}) as Obj;
}

function rvOf(o: Obj): string {
  return String(meta(o)['resourceVersion'] ?? '');
}

function names(list: Obj): string[] {
  return ((list['items'] ?? []) as Obj[]).map((i) => String(meta(i)['name']));
}

/** A Status body as the API server writes it (kind, apiVersion, empty metadata, then the fields given). */
function status(code: number, message: string, reason?: string, details?: Obj): Obj {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: code < 400 ? 'Success' : 'Failure',
    ...(message ? { message } : {}),
    ...(reason ? { reason } : {}),
    ...(details ? { details } : {}),
    code,
  };
}

function conflict(groupResource: string, name: string, detail = 'the object has been modified; please apply your changes to the latest version and try again'): Obj {
  const [kind, ...group] = groupResource.split('.');
  return status(409, `Operation cannot be fulfilled on ${groupResource} "${name}": ${detail}`, 'Conflict', { name, ...(group.length ? { group: group.join('.') } : {}), kind });
}

function codeAndBody(r: RawResponse): [number, Obj] {
  return [r.status, r.body];
}

function aNodeMaintenance(name: string, spec: Obj, extra: Obj = {}): Obj {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', metadata: { name, namespace: ns, ...extra }, spec };
}

async function createNM(name: string, spec: Obj, extra: Obj = {}): Promise<Obj> {
  const r = await rawApi('POST', nmPath(), { body: aNodeMaintenance(name, spec, extra) });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

async function podPhase(name: string): Promise<string | undefined> {
  const r = await rawApi('GET', podPath(name));
  return r.status === 200 ? String(((r.body['status'] ?? {}) as Obj)['phase']) : undefined;
}

async function gone(path: string, timeoutMs = 60_000): Promise<true> {
  return waitFor(`${path} gone`, async () => ((await rawApi('GET', path)).status === 404 ? true : undefined), timeoutMs, 100);
}

describe(`API contract kmaint relies on (${clusterKind()})`, () => {
  // The simulated kubelet's kmaint.io/sim-* annotations time termination, finish pods and hold readiness back.
  const needs = testbedOnlyTests();
  let workers: string[] = [];

  beforeAll(async () => {
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    workers = await generalNodes();
    expect(workers.length).toBeGreaterThanOrEqual(2);
  });
  afterAll(async () => {
    // On the testbed the next file shares the cluster: its scheduler passes list every NodeMaintenance and its
    // drains see every pod, so this file's objects must be gone, not just going. Finalizers would hold them.
    const list = await rawApi('GET', nmPath());
    for (const name of names(list.body)) await rawApi('PATCH', nmPath(name), { body: { metadata: { finalizers: null } }, contentType: MERGE });
    await rawApi('DELETE', nmPath(), { body: { gracePeriodSeconds: 0 } });
    await rawApi('DELETE', podPath(), { body: { gracePeriodSeconds: 0 } });
    await rawApi('DELETE', `/api/v1/namespaces/${ns}`);
    await gone(`/api/v1/namespaces/${ns}`, 90_000);
  });

  describe('optimistic concurrency: 409 on a stale resourceVersion', () => {
    it('merge patch with metadata.resourceVersion: the current one applies, a stale one is refused with Conflict', async () => {
      const created = await createNM('occ-merge', { requestorID: 'a.example.com', nodeName: workers[0] });
      const rv0 = rvOf(created);
      const ok = await rawApi('PATCH', nmPath('occ-merge'), { body: { metadata: { resourceVersion: rv0, annotations: { 'kmaint.io/x': '1' } } }, contentType: MERGE });
      expect(ok.status).toBe(200);
      expect(rvOf(ok.body)).not.toBe(rv0);
      expect(meta(ok.body)['annotations']).toEqual({ 'kmaint.io/x': '1' });
      const stale = await rawApi('PATCH', nmPath('occ-merge'), { body: { metadata: { resourceVersion: rv0, annotations: { 'kmaint.io/x': '2' } } }, contentType: MERGE });
      expect(codeAndBody(stale)).toEqual([409, conflict(NM_GROUP_RESOURCE, 'occ-merge')]);
      expect(meta((await rawApi('GET', nmPath('occ-merge'))).body)['annotations']).toEqual({ 'kmaint.io/x': '1' });
    });

    it('JSON patch of the status subresource replacing metadata.resourceVersion: applies when current, 409 when stale; spec and status move apart', async () => {
      const created = await createNM('occ-status', { requestorID: 'a.example.com', nodeName: workers[0] });
      const rv0 = rvOf(created);
      const st = { conditions: [{ type: 'Ready', status: 'False', reason: 'Pending', message: 'waiting', lastTransitionTime: '2026-03-01T10:00:00Z' }] };
      const patch = (rv: string, s: Obj): Obj[] => [
        { op: 'replace', path: '/metadata/resourceVersion', value: rv },
        { op: 'add', path: '/status', value: s },
      ];
      const ok = await rawApi('PATCH', `${nmPath('occ-status')}/status`, { body: patch(rv0, st), contentType: JSON_PATCH });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body['status']).toEqual(st);
      // A status write does not count as a spec change.
      expect(meta(ok.body)['generation']).toBe(1);
      const stale = await rawApi('PATCH', `${nmPath('occ-status')}/status`, { body: patch(rv0, { conditions: [] }), contentType: JSON_PATCH });
      expect(codeAndBody(stale)).toEqual([409, conflict(NM_GROUP_RESOURCE, 'occ-status')]);

      // The status endpoint ignores spec, the main endpoint ignores status; a spec change bumps generation.
      const specViaStatus = await rawApi('PATCH', `${nmPath('occ-status')}/status`, { body: { spec: { cordon: false } }, contentType: MERGE });
      expect(specViaStatus.status).toBe(200);
      expect((specViaStatus.body['spec'] as Obj)['cordon']).toBe(true);
      const statusViaMain = await rawApi('PATCH', nmPath('occ-status'), { body: { spec: { cordon: false }, status: { conditions: [] } }, contentType: MERGE });
      expect(statusViaMain.status).toBe(200);
      expect([(statusViaMain.body['spec'] as Obj)['cordon'], statusViaMain.body['status'], meta(statusViaMain.body)['generation']]).toEqual([false, st, 2]);
    });

    it('merge patch of the config status with a stale resourceVersion is refused with Conflict', async () => {
      const path = `/apis/${GROUP}/${VERSION}/namespaces/${ns}/maintenanceoperatorconfigs`;
      const created = await rawApi('POST', path, { body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'MaintenanceOperatorConfig', metadata: { name: 'default' }, spec: {} } });
      expect(created.status).toBe(201);
      const rv0 = rvOf(created.body);
      const cond = (reason: string): Obj => ({ type: 'Valid', status: 'True', reason, message: '', lastTransitionTime: '2026-03-01T10:00:00Z' });
      const ok = await rawApi('PATCH', `${path}/default/status`, { body: { metadata: { resourceVersion: rv0 }, status: { conditions: [cond('Valid')] } }, contentType: MERGE });
      expect(ok.status, ok.text).toBe(200);
      const stale = await rawApi('PATCH', `${path}/default/status`, { body: { metadata: { resourceVersion: rv0 }, status: { conditions: [cond('Again')] } }, contentType: MERGE });
      expect(codeAndBody(stale)).toEqual([409, conflict(`maintenanceoperatorconfigs.${GROUP}`, 'default')]);
    });

    it('cordon by merge patch preconditioned on the node: stale 409; unschedulable null removes the field', async () => {
      const node = workers[1] as string;
      const before = (await rawApi('GET', `/api/v1/nodes/${node}`)).body;
      const rv0 = rvOf(before);
      try {
        const cordon = await rawApi('PATCH', `/api/v1/nodes/${node}`, { body: { metadata: { resourceVersion: rv0 }, spec: { unschedulable: true } }, contentType: MERGE });
        expect([cordon.status, (cordon.body['spec'] as Obj)['unschedulable']]).toEqual([200, true]);
        const stale = await rawApi('PATCH', `/api/v1/nodes/${node}`, { body: { metadata: { resourceVersion: rv0 }, spec: { unschedulable: null } }, contentType: MERGE });
        expect(codeAndBody(stale)).toEqual([409, conflict('nodes', node)]);
        // Others write nodes too (kube-controller-manager taints a cordoned node): as kmaint does, read again and
        // retry after a 409 until the write lands on the current version.
        const uncordon = await waitFor('uncordon on the current resourceVersion', async () => {
          const current = rvOf((await rawApi('GET', `/api/v1/nodes/${node}`)).body);
          const r = await rawApi('PATCH', `/api/v1/nodes/${node}`, { body: { metadata: { resourceVersion: current }, spec: { unschedulable: null } }, contentType: MERGE });
          if (r.status === 409) return undefined;
          return r;
        }, 60_000, 50);
        expect(uncordon.status).toBe(200);
        expect(Object.hasOwn(uncordon.body['spec'] as Obj, 'unschedulable')).toBe(false);
      } finally {
        await setUnschedulable(node, false);
      }
    });
  });

  describe('deletion: preconditions, finalizers', () => {
    it('a finalizer holds deletion: DELETE answers 200 with deletionTimestamp set; the object goes when the finalizer is removed', async () => {
      await createNM('fin', { requestorID: 'a.example.com', nodeName: workers[0] }, { finalizers: [FINALIZER] });
      const del = await rawApi('DELETE', nmPath('fin'));
      expect(del.status).toBe(200);
      const m = meta(del.body);
      expect([typeof m['deletionTimestamp'], m['deletionGracePeriodSeconds'], m['finalizers']]).toEqual(['string', 0, [FINALIZER]]);
      const held = await rawApi('GET', nmPath('fin'));
      expect([held.status, meta(held.body)['deletionTimestamp']]).toEqual([200, m['deletionTimestamp']]);
      // A deleting object still takes spec changes (additionalRequestors) but no new finalizer.
      const spec = await rawApi('PATCH', nmPath('fin'), { body: { spec: { additionalRequestors: ['b.example.com'] } }, contentType: MERGE });
      expect(spec.status).toBe(200);
      const more = await rawApi('PATCH', nmPath('fin'), { body: { metadata: { finalizers: [FINALIZER, 'kmaint.io/other'] } }, contentType: MERGE });
      expect(codeAndBody(more)).toEqual([
        422,
        status(422, `NodeMaintenance.${GROUP} "fin" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"kmaint.io/other"}`, 'Invalid', {
          name: 'fin',
          group: GROUP,
          kind: 'NodeMaintenance',
          // Reported twice (the generic and the custom resource checks both run), once in the message.
          causes: [1, 2].map(() => ({ reason: 'FieldValueForbidden', message: 'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"kmaint.io/other"}', field: 'metadata.finalizers' })),
        }),
      ]);
      const release = await rawApi('PATCH', nmPath('fin'), { body: { metadata: { resourceVersion: rvOf(spec.body), finalizers: null } }, contentType: MERGE });
      expect(release.status).toBe(200);
      expect((await rawApi('GET', nmPath('fin'))).status).toBe(404);
    });

    it('DELETE preconditions: a stale resourceVersion or another uid is a Conflict naming both values; a missing object is NotFound', async () => {
      const created = await createNM('precond', { requestorID: 'a.example.com', nodeName: workers[0] });
      const { uid } = meta(created) as { uid: string };
      const moved = await rawApi('PATCH', nmPath('precond'), { body: { metadata: { labels: { moved: 'yes' } } }, contentType: MERGE });
      const rv0 = rvOf(created);
      const rv1 = rvOf(moved.body);
      const byRv = await rawApi('DELETE', nmPath('precond'), { body: { preconditions: { resourceVersion: rv0 } } });
      const preconditionFailed = (detail: string): Obj =>
        status(409, `Operation cannot be fulfilled on NodeMaintenance.${GROUP} "precond": ${detail}`, 'Conflict', { name: 'precond', group: GROUP, kind: 'NodeMaintenance' });
      expect(codeAndBody(byRv)).toEqual([409, preconditionFailed(`the ResourceVersion in the precondition (${rv0}) does not match the ResourceVersion in record (${rv1}). The object might have been modified`)]);
      const otherUid = '00000000-0000-0000-0000-000000000000';
      const byUid = await rawApi('DELETE', nmPath('precond'), { body: { preconditions: { uid: otherUid } } });
      expect(codeAndBody(byUid)).toEqual([409, preconditionFailed(`the UID in the precondition (${otherUid}) does not match the UID in record (${uid}). The object might have been deleted and then recreated`)]);
      const ok = await rawApi('DELETE', nmPath('precond'), { body: { preconditions: { uid, resourceVersion: rv1 } } });
      // A deleted custom resource answers with a success Status without a code.
      expect(codeAndBody(ok)).toEqual([200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'precond', group: GROUP, kind: 'nodemaintenances', uid } }]);
      const missing = await rawApi('DELETE', nmPath('precond'));
      expect(codeAndBody(missing)).toEqual([404, status(404, `${NM_GROUP_RESOURCE} "precond" not found`, 'NotFound', { name: 'precond', group: GROUP, kind: 'nodemaintenances' })]);
    });
  });

  describe('graceful pod deletion', () => {
    needs.it('a running pod keeps running with deletionTimestamp = now + its grace period until the kubelet stops it', 'the simulated kubelet', async () => {
      const node = workers[0] as string;
      await admin().core.createNamespacedPod({
        namespace: ns,
        body: {
          metadata: { name: 'graceful', annotations: { 'kmaint.io/sim-termination-seconds': '3' } },
          spec: { nodeName: node, terminationGracePeriodSeconds: 30, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
        },
      });
      await waitFor('graceful Running', async () => ((await podPhase('graceful')) === 'Running' ? true : undefined));
      const asked = Date.now();
      const del = await rawApi('DELETE', podPath('graceful'));
      const answered = Date.now();
      expect(del.status).toBe(200);
      const m = meta(del.body);
      expect([del.body['kind'], m['deletionGracePeriodSeconds'], (del.body['status'] as Obj)['phase']]).toEqual(['Pod', 30, 'Running']);
      // The server set it to its own now + 30 s while the DELETE was in flight; RFC 3339 seconds drop up to 1 s. Bracketed
      // by this side's clock before and after, so a slow answer on a loaded machine moves both bounds alike.
      const deletionAt = Date.parse(String(m['deletionTimestamp']));
      expect(deletionAt).toBeGreaterThan(asked + 30_000 - 1000);
      expect(deletionAt).toBeLessThanOrEqual(answered + 30_000);
      expect((await rawApi('GET', podPath('graceful'))).status).toBe(200);
      await gone(podPath('graceful'));
      // The kubelet took its 3 s, not the 30 s of grace: the pod was gone before its deletionTimestamp.
      expect(Date.now()).toBeLessThan(deletionAt);
    });

    const goesAtOnce = async ({ name, bound, finished, options }: { name: string; bound: boolean; finished: boolean; options: Obj | undefined }): Promise<void> => {
      await admin().core.createNamespacedPod({
        namespace: ns,
        body: {
          metadata: { name, annotations: { 'kmaint.io/sim-termination-seconds': '20', ...(finished ? { 'kmaint.io/sim-run-seconds': '0' } : {}) } },
          spec: {
            ...(bound ? { nodeName: workers[0] } : { nodeSelector: { 'kmaint.io/no-such-label': 'x' } }),
            ...(finished ? { restartPolicy: 'Never' } : {}),
            terminationGracePeriodSeconds: 30,
            containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }],
          },
        },
      });
      const expected = bound ? (finished ? 'Succeeded' : 'Running') : 'Pending';
      await waitFor(`${name} ${expected}`, async () => ((await podPhase(name)) === expected ? true : undefined));
      if (!bound) {
        // The scheduler writes PodScheduled=False once it has tried the pod; wait for that write so the watch below
        // starts after it (a real CI run saw it land between the LIST and the DELETE).
        await waitFor(`${name} marked Unschedulable`, async () => {
          const conditions = (((await rawApi('GET', podPath(name))).body['status'] ?? {}) as Obj)['conditions'] as Obj[] | undefined;
          return conditions?.some((c) => c['type'] === 'PodScheduled' && c['status'] === 'False' && c['reason'] === 'Unschedulable') ? true : undefined;
        });
      }
      // What a watcher sees: the graceless delete is stored first (deletionTimestamp, grace 0), then the pod is removed.
      const seen: string[] = [];
      const listed = String(meta((await rawApi('GET', podPath())).body)['resourceVersion']);
      const watch = await new Watch(adminKubeConfig()).watch(`/api/v1/namespaces/${ns}/pods`, { resourceVersion: listed, fieldSelector: `metadata.name=${name}` }, (type, obj: V1Pod) => {
        seen.push(`${type} ${obj.metadata?.deletionTimestamp ? 'deleting' : 'live'} grace=${obj.metadata?.deletionGracePeriodSeconds ?? '-'}`);
      }, () => undefined);
      try {
        const del = await rawApi('DELETE', podPath(name), options ? { body: options } : {});
        expect([del.status, del.body['kind']]).toEqual([200, 'Pod']);
        expect((await rawApi('GET', podPath(name))).status).toBe(404);
        await waitFor(`${name} DELETED on the watch`, () => Promise.resolve(seen.some((e) => e.startsWith('DELETED')) ? true : undefined), 60_000);
        expect(seen).toEqual(['MODIFIED deleting grace=0', 'DELETED deleting grace=0']);
      } finally {
        watch.abort();
      }
    };
    it.each([
      { rule: 'gracePeriodSeconds 0 deletes a running pod at once', name: 'grace-zero', bound: true, finished: false, options: { gracePeriodSeconds: 0 } },
      { rule: 'a pod never scheduled goes at once', name: 'unscheduled', bound: false, finished: false, options: undefined },
    ])('$rule', goesAtOnce);
    // kmaint.io/sim-run-seconds: 0 finishes the pod; a real kubelet runs pause until it is stopped.
    needs.it('a pod that has finished goes at once', 'the simulated kubelet', () => goesAtOnce({ name: 'finished', bound: true, finished: true, options: undefined }));
  });

  // Both tests time termination and readiness with kmaint.io/sim-* annotations.
  needs.describe('eviction and PodDisruptionBudgets', 'the simulated kubelet', () => {
    const evict = (name: string): Promise<RawResponse> =>
      rawApi('POST', `${podPath(name)}/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: ns } } });
    const pdb = async (name: string): Promise<Obj> => ((await rawApi('GET', pdbPath(name))).body['status'] ?? {}) as Obj;

    needs.it("kmaint's eviction and delete name the pod it read: one recreated under the same name on another node answers 409 and is left alone", 'the simulated kubelet', async () => {
      const client = new KubeClient(adminKubeConfig());
      const first = await bindPod(ns, 'same-name', workers[0] as string);
      const oldUid = first.metadata?.uid ?? '';
      expect((await rawApi('DELETE', podPath('same-name'), { body: { gracePeriodSeconds: 0 } })).status).toBe(200);
      await gone(podPath('same-name'));
      const second = await bindPod(ns, 'same-name', workers[1] as string);
      const newUid = second.metadata?.uid ?? '';
      expect(newUid).not.toBe(oldUid);
      const outcomes = [await client.evictPod(ns, 'same-name', oldUid), await client.deletePod(ns, 'same-name', 0, oldUid)];
      const now = await rawApi('GET', podPath('same-name'));
      expect([outcomes.map((o) => o.kind), meta(now.body)['uid'], meta(now.body)['deletionTimestamp'] ?? null, (now.body['spec'] as Obj)['nodeName']]).toEqual([['conflict', 'conflict'], newUid, null, workers[1]]);
      // Named by the uid read now, the same eviction goes through.
      expect((await client.evictPod(ns, 'same-name', newUid)).kind).toBe('ok');
    });

    needs.it('201 spends the budget, 429 with the DisruptionBudget cause when spent, pending pods go without a check, two budgets are a 500', 'the simulated kubelet', async () => {
      const node = workers[1] as string;
      await bindPod(ns, 'ev-a', node, { labels: { evict: 'yes' } });
      await bindPod(ns, 'ev-b', node, { labels: { evict: 'yes' } });
      const created = await rawApi('POST', pdbPath(), { body: { metadata: { name: 'guard' }, spec: { minAvailable: 1, selector: { matchLabels: { evict: 'yes' } } } } });
      expect(created.status).toBe(201);
      await waitFor('budget guard allows 1 of 2', async () => {
        const s = await pdb('guard');
        return s['currentHealthy'] === 2 && s['disruptionsAllowed'] === 1 ? true : undefined;
      });
      const settled = await pdb('guard');
      expect(settled).toMatchObject({ currentHealthy: 2, desiredHealthy: 1, disruptionsAllowed: 1, expectedPods: 2, observedGeneration: 1 });
      // metav1.Time is stored at whole seconds whatever the writer sent.
      expect(settled['conditions']).toEqual([{ type: 'DisruptionAllowed', status: 'True', observedGeneration: 1, lastTransitionTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/), reason: 'SufficientPods', message: '' }]);

      expect(codeAndBody(await evict('ev-a'))).toEqual([201, status(201, '')]);
      // The eviction itself spends the disruption, before the disruption controller looks again.
      expect((await pdb('guard'))['disruptionsAllowed']).toBe(0);
      await gone(podPath('ev-a'));
      await waitFor('budget guard at 1 healthy', async () => ((await pdb('guard'))['currentHealthy'] === 1 ? true : undefined));

      const refused = await evict('ev-b');
      expect(codeAndBody(refused)).toEqual([
        429,
        status(429, "Cannot evict pod as it would violate the pod's disruption budget.", 'TooManyRequests', { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget guard needs 1 healthy pods and has 1 currently' }] }),
      ]);
      expect(refused.headers['retry-after']).toBeUndefined();
      expect(await podPhase('ev-b')).toBe('Running');

      // A pod that never started is evicted without consulting the budget (and, never scheduled, goes at once).
      await admin().core.createNamespacedPod({
        namespace: ns,
        body: { metadata: { name: 'ev-pending', labels: { evict: 'yes' } }, spec: { nodeSelector: { 'kmaint.io/no-such-label': 'x' }, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } },
      });
      expect(codeAndBody(await evict('ev-pending'))).toEqual([201, status(201, '')]);
      expect((await rawApi('GET', podPath('ev-pending'))).status).toBe(404);

      // A pod already terminating is evicted again without a budget check: its deletion is not moved.
      await admin().core.createNamespacedPod({
        namespace: ns,
        body: {
          metadata: { name: 'ev-leaving', labels: { evict: 'yes' }, annotations: { 'kmaint.io/sim-termination-seconds': '20' } },
          spec: { nodeName: node, terminationGracePeriodSeconds: 30, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
        },
      });
      await waitFor('ev-leaving Running', async () => ((await podPhase('ev-leaving')) === 'Running' ? true : undefined));
      const deleted = meta((await rawApi('DELETE', podPath('ev-leaving'))).body);
      expect(codeAndBody(await evict('ev-leaving'))).toEqual([201, status(201, '')]);
      const after = meta((await rawApi('GET', podPath('ev-leaving'))).body);
      expect([after['deletionTimestamp'], after['deletionGracePeriodSeconds']]).toEqual([deleted['deletionTimestamp'], 30]);

      const second = await rawApi('POST', pdbPath(), { body: { metadata: { name: 'guard-2' }, spec: { maxUnavailable: 1, selector: { matchLabels: { evict: 'yes' } } } } });
      expect(second.status).toBe(201);
      expect(codeAndBody(await evict('ev-b'))).toEqual([500, status(500, 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.')]);
      expect(codeAndBody(await evict('no-such-pod'))).toEqual([404, status(404, 'pods "no-such-pod" not found', 'NotFound', { name: 'no-such-pod', kind: 'pods' })]);
    });

    needs.it('a running pod that is not Ready goes without spending the budget while the budget is healthy, or always with AlwaysAllow', 'the simulated kubelet', async () => {
      const node = workers[1] as string;
      // uh-a and uh-d turn Ready; uh-b and uh-c run but never do (a readiness probe that keeps failing).
      for (const [name, neverReady] of [['uh-a', false], ['uh-b', true], ['uh-c', true], ['uh-d', false]] as const) {
        await admin().core.createNamespacedPod({
          namespace: ns,
          body: {
            metadata: { name, labels: { unhealthy: 'yes' }, annotations: { 'kmaint.io/sim-termination-seconds': '0', ...(neverReady ? { 'kmaint.io/sim-never-ready': 'true' } : {}) } },
            spec: { nodeName: node, terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
          },
        });
      }
      await waitFor('uh pods Running', async () => ((await Promise.all(['uh-a', 'uh-b', 'uh-c', 'uh-d'].map(podPhase))).every((p) => p === 'Running') ? true : undefined));
      expect((await rawApi('POST', pdbPath(), { body: { metadata: { name: 'uh' }, spec: { minAvailable: 2, selector: { matchLabels: { unhealthy: 'yes' } } } } })).status).toBe(201);
      await waitFor('budget uh: 2 of 4 healthy, none to spare', async () => {
        const s = await pdb('uh');
        return s['currentHealthy'] === 2 && s['expectedPods'] === 4 && s['disruptionsAllowed'] === 0 ? true : undefined;
      });
      const spent = (healthy: number): Obj =>
        status(429, "Cannot evict pod as it would violate the pod's disruption budget.", 'TooManyRequests', { causes: [{ reason: 'DisruptionBudget', message: `The disruption budget uh needs 2 healthy pods and has ${healthy} currently` }] });
      // A Ready pod would cost a disruption the budget does not have; a not-Ready one goes while 2 of 2 are healthy.
      expect(codeAndBody(await evict('uh-a'))).toEqual([429, spent(2)]);
      expect(codeAndBody(await evict('uh-b'))).toEqual([201, status(201, '')]);
      await gone(podPath('uh-b'));
      // With a healthy pod gone the budget is short, and the default policy (IfHealthyBudget) keeps even unhealthy pods.
      expect((await rawApi('DELETE', podPath('uh-d'))).status).toBe(200);
      await gone(podPath('uh-d'));
      await waitFor('budget uh: 1 healthy', async () => ((await pdb('uh'))['currentHealthy'] === 1 ? true : undefined));
      expect(codeAndBody(await evict('uh-c'))).toEqual([429, spent(1)]);
      expect((await rawApi('PATCH', pdbPath('uh'), { body: { spec: { unhealthyPodEvictionPolicy: 'AlwaysAllow' } }, contentType: MERGE })).status).toBe(200);
      await waitFor('budget uh observed again', async () => ((await pdb('uh'))['observedGeneration'] === 2 ? true : undefined));
      expect(codeAndBody(await evict('uh-c'))).toEqual([201, status(201, '')]);
      expect(codeAndBody(await evict('uh-a'))).toEqual([429, spent(1)]);
    });
  });

  describe('selectors', () => {
    beforeAll(async () => {
      const [w0, w1] = workers as [string, string];
      await bindPod(ns, 'sel-a', w0, { labels: { app: 'a', tier: 'web' } });
      await bindPod(ns, 'sel-b', w1, { labels: { app: 'b', tier: 'db' } });
      await bindPod(ns, 'sel-c', w0);
      await admin().core.createNamespacedPod({
        namespace: ns,
        body: { metadata: { name: 'sel-u', labels: { app: 'a' } }, spec: { nodeSelector: { 'kmaint.io/no-such-label': 'x' }, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } },
      });
      await waitFor('sel pods running', async () => ((await Promise.all(['sel-a', 'sel-b', 'sel-c'].map(podPhase))).every((p) => p === 'Running') ? true : undefined));
    });
    const selected = async (query: string): Promise<string[]> => {
      const r = await rawApi('GET', `${podPath()}?${query}`);
      expect(r.status, r.text).toBe(200);
      return names(r.body).filter((n) => n.startsWith('sel-')).sort();
    };

    it.each([
      ['labelSelector=app%3Da', ['sel-a', 'sel-u']],
      ['labelSelector=app+in+(a,b)', ['sel-a', 'sel-b', 'sel-u']],
      ['labelSelector=!app', ['sel-c']],
      ['labelSelector=app,tier+notin+(db)', ['sel-a', 'sel-u']],
      ['labelSelector=tier!%3Dweb', ['sel-b', 'sel-c', 'sel-u']],
      ['fieldSelector=spec.nodeName%3D', ['sel-u']],
      ['fieldSelector=status.phase%3DPending', ['sel-u']],
    ])('pods %s -> %j', async (query, expected) => {
      expect(await selected(query)).toEqual(expected);
    });

    it('fieldSelector spec.nodeName: exactly the pods bound to the node, in every namespace, combined with a label selector', async () => {
      const [w0, w1] = workers as [string, string];
      expect(await selected(`fieldSelector=spec.nodeName%3D${w0}`)).toEqual(['sel-a', 'sel-c']);
      expect(await selected(`fieldSelector=spec.nodeName!%3D${w0}`)).toEqual(['sel-b', 'sel-u']);
      expect(await selected(`fieldSelector=spec.nodeName%3D${w0}&labelSelector=app%3Da`)).toEqual(['sel-a']);
      const all = (await rawApi('GET', '/api/v1/pods')).body['items'] as Obj[];
      const onW1 = all.filter((p) => (p['spec'] as Obj)['nodeName'] === w1).map((p) => `${String(meta(p)['namespace'])}/${String(meta(p)['name'])}`).sort();
      const byField = ((await rawApi('GET', `/api/v1/pods?fieldSelector=spec.nodeName%3D${w1}`)).body['items'] as Obj[]).map((p) => `${String(meta(p)['namespace'])}/${String(meta(p)['name'])}`).sort();
      expect(byField).toEqual(onW1);
      expect(byField).toContain(`${ns}/sel-b`);
    });

    it('an unsupported field label is a 400; a malformed label selector too', async () => {
      const field = await rawApi('GET', `${podPath()}?fieldSelector=spec.bogus%3Dx`);
      expect(codeAndBody(field)).toEqual([400, status(400, 'field label not supported: spec.bogus', 'BadRequest')]);
      const label = await rawApi('GET', `${podPath()}?labelSelector=app+in+a`);
      expect(field.status).toBe(400);
      expect([label.status, label.body['reason']]).toEqual([400, 'BadRequest']);
    });

    it('NodeMaintenances by their selectable fields spec.nodeName and spec.requestorID; events by involvedObject.name and reason', async () => {
      const [w0, w1] = workers as [string, string];
      await createNM('sf-0', { requestorID: 'x.example.com', nodeName: w0 });
      await createNM('sf-1', { requestorID: 'y.example.com', nodeName: w1 });
      expect(names((await rawApi('GET', `${nmPath()}?fieldSelector=spec.nodeName%3D${w1}`)).body).filter((n) => n.startsWith('sf-'))).toEqual(['sf-1']);
      expect(names((await rawApi('GET', `${nmPath()}?fieldSelector=spec.requestorID%3Dx.example.com`)).body).filter((n) => n.startsWith('sf-'))).toEqual(['sf-0']);
      for (const [i, reason] of ['ConditionChanged', 'EvictionBlocked'].entries()) {
        const ev = await rawApi('POST', `/api/v1/namespaces/${ns}/events`, {
          body: {
            metadata: { name: `sf-0.${i}` },
            involvedObject: { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', name: 'sf-0', namespace: ns },
            type: 'Normal',
            reason,
            message: reason,
            source: { component: 'kmaint' },
            reportingComponent: 'kmaint',
            reportingInstance: 'kmaint',
            firstTimestamp: '2026-03-01T10:00:00Z',
            lastTimestamp: '2026-03-01T10:00:00Z',
            count: 1,
          },
        });
        expect(ev.status).toBe(201);
      }
      const events = await rawApi('GET', `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3Dsf-0,reason%3DEvictionBlocked`);
      expect(names(events.body)).toEqual(['sf-0.1']);
    });
  });

  describe('paging with limit and continue', () => {
    it('NodeMaintenances of a namespace in pages of 2: name order, remainingItemCount, no continue on the last page', async () => {
      const pageNs = `${ns}-pages`;
      await admin().core.createNamespace({ body: { metadata: { name: pageNs } } });
      try {
        for (const i of [3, 0, 4, 1, 2]) {
          const r = await rawApi('POST', nmPath(undefined, pageNs), { body: { ...aNodeMaintenance(`page-${i}`, { requestorID: 'p.example.com', nodeName: workers[0] }), metadata: { name: `page-${i}` } } });
          expect(r.status).toBe(201);
        }
        const pages: Array<[string[], unknown, boolean]> = [];
        let cont = '';
        do {
          const r = await rawApi('GET', `${nmPath(undefined, pageNs)}?limit=2${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
          expect(r.status).toBe(200);
          const m = meta(r.body);
          cont = typeof m['continue'] === 'string' ? m['continue'] : '';
          pages.push([names(r.body), m['remainingItemCount'], cont !== '']);
        } while (cont);
        expect(pages).toEqual([
          [['page-0', 'page-1'], 3, true],
          [['page-2', 'page-3'], 1, true],
          [['page-4'], undefined, false],
        ]);
      } finally {
        await rawApi('DELETE', `/api/v1/namespaces/${pageNs}`);
        await gone(`/api/v1/namespaces/${pageNs}`, 60_000);
      }
    });

    it('all pods in pages of 7 and one node pods in pages of 3 add up to the unpaged lists, each pod once', async () => {
      const collect = async (path: string, limit: number): Promise<{ keys: string[]; sizes: number[] }> => {
        const keys: string[] = [];
        const sizes: number[] = [];
        let cont = '';
        do {
          const r = await rawApi('GET', `${path}${path.includes('?') ? '&' : '?'}limit=${limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
          const items = (r.body['items'] ?? []) as Obj[];
          sizes.push(items.length);
          keys.push(...items.map((p) => `${String(meta(p)['namespace'])}/${String(meta(p)['name'])}`));
          cont = String(meta(r.body)['continue'] ?? '');
        } while (cont);
        return { keys, sizes };
      };
      const keysOf = async (path: string): Promise<string[]> => ((await rawApi('GET', path)).body['items'] as Obj[]).map((p) => `${String(meta(p)['namespace'])}/${String(meta(p)['name'])}`);
      // Only pods that stay put: the cluster's own workloads are settled, this file's pods are not touched here.
      const all = await collect('/api/v1/pods', 7);
      expect(all.keys).toEqual(await keysOf('/api/v1/pods'));
      expect(new Set(all.keys).size).toBe(all.keys.length);
      expect(all.sizes.slice(0, -1).every((s) => s === 7)).toBe(true);
      const node = workers[0] as string;
      const onNode = await collect(`/api/v1/pods?fieldSelector=spec.nodeName%3D${node}`, 3);
      expect(onNode.keys).toEqual(await keysOf(`/api/v1/pods?fieldSelector=spec.nodeName%3D${node}`));
      expect(onNode.sizes.every((s) => s <= 3)).toBe(true);
    });
  });

  describe('CRD defaults and validation', () => {
    it('NodeMaintenance defaults: cordon true, drainSpec and waitForPodCompletion fields filled in; unknown fields dropped with a warning each', async () => {
      const body = aNodeMaintenance('defaults', { requestorID: 'd.example.com', nodeName: workers[0], drainSpec: { x: 2 }, waitForPodCompletion: {}, bogus: 1 }, { bogus: 1 });
      const r = await rawApi('POST', nmPath(), { body: { ...body, extra: 3 } });
      expect(r.status).toBe(201);
      expect(r.body['spec']).toEqual({
        requestorID: 'd.example.com',
        nodeName: workers[0],
        cordon: true,
        drainSpec: { force: false, timeoutSeconds: 300, deleteEmptyDir: false },
        waitForPodCompletion: { timeoutSeconds: 0 },
      });
      expect([r.body['extra'], meta(r.body)['bogus']]).toEqual([undefined, undefined]);
      // Metadata's unknown fields first, then the schema's in path order.
      expect(r.warnings).toEqual(['metadata.bogus', 'extra', 'spec.bogus', 'spec.drainSpec.x'].map((f) => `299 - "unknown field \\"${f}\\""`));
      const patched = await rawApi('PATCH', `${nmPath('defaults')}/status`, { body: { status: { zzz: 1 } }, contentType: MERGE });
      expect([patched.status, patched.warnings]).toEqual([200, ['299 - "unknown field \\"status.zzz\\""']]);
    });

    it('fieldValidation=Strict (what kubectl sends) refuses unknown fields with 400; Ignore drops them silently', async () => {
      const body = aNodeMaintenance('strict', { requestorID: 's.example.com', nodeName: workers[0], bogus: 1, drainSpec: { x: 2 } });
      const strict = await rawApi('POST', `${nmPath()}?fieldValidation=Strict`, { body });
      expect(codeAndBody(strict)).toEqual([
        400,
        status(400, 'NodeMaintenance in version "v1alpha1" cannot be handled as a NodeMaintenance: strict decoding error: unknown field "spec.bogus", unknown field "spec.drainSpec.x"', 'BadRequest'),
      ]);
      expect((await rawApi('GET', nmPath('strict'))).status).toBe(404);
      const ignored = await rawApi('POST', `${nmPath()}?fieldValidation=Ignore`, { body });
      expect([ignored.status, ignored.warnings, (ignored.body['spec'] as Obj)['bogus']]).toEqual([201, [], undefined]);
      const bad = await rawApi('PATCH', `${nmPath('strict')}?fieldValidation=Nope`, { body: { spec: {} }, contentType: MERGE });
      const cause = { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Nope": supported values: "", "Ignore", "Strict", "Warn"', field: 'fieldValidation' };
      expect(codeAndBody(bad)).toEqual([422, status(422, `PatchOptions.meta.k8s.io "" is invalid: fieldValidation: ${cause.message}`, 'Invalid', { group: 'meta.k8s.io', kind: 'PatchOptions', causes: [cause] })]);
    });

    it('a NodeMaintenance violating the schema is a 422 naming each field', async () => {
      const r = await rawApi('POST', nmPath(), { body: aNodeMaintenance('invalid', { requestorID: '-x-', drainSpec: { timeoutSeconds: -1 } }) });
      const pattern = '^([a-z0-9A-Z]([-a-z0-9A-Z]*[a-z0-9A-Z])?(\\.[a-z0-9A-Z]([-a-z0-9A-Z]*[a-z0-9A-Z])?)*)$';
      // Sibling properties come in Go map order (random on the real server: compare them as a set), then the missing
      // required ones, then the note that the CEL rules were not run; the message lists the causes in their order.
      const causes = [
        { reason: 'FieldValueInvalid', message: 'Invalid value: -1: spec.drainSpec.timeoutSeconds in body should be greater than or equal to 0', field: 'spec.drainSpec.timeoutSeconds' },
        { reason: 'FieldValueInvalid', message: `Invalid value: "-x-": spec.requestorID in body should match '${pattern}'`, field: 'spec.requestorID' },
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.nodeName' },
        { reason: 'FieldValueInvalid', message: 'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation', field: '<nil>' },
      ];
      const got = ((r.body['details'] ?? {}) as { causes?: typeof causes }).causes ?? [];
      const byField = (a: { field: string }, b: { field: string }): number => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0);
      expect([...got.slice(0, 2)].sort(byField)).toEqual(causes.slice(0, 2));
      expect(got.slice(2)).toEqual(causes.slice(2));
      expect(codeAndBody(r)).toEqual([
        422,
        status(422, `NodeMaintenance.${GROUP} "invalid" is invalid: [${got.map((c) => `${c.field}: ${c.message}`).join(', ')}]`, 'Invalid', { name: 'invalid', group: GROUP, kind: 'NodeMaintenance', causes: got }),
      ]);
    });

    it('nodeName is immutable; a status condition with an invalid reason is refused', async () => {
      await createNM('immutable', { requestorID: 'i.example.com', nodeName: workers[0] });
      const moved = await rawApi('PATCH', nmPath('immutable'), { body: { spec: { nodeName: workers[1] } }, contentType: MERGE });
      const cause = { reason: 'FieldValueInvalid', message: `Invalid value: "${String(workers[1])}": Value is immutable`, field: 'spec.nodeName' };
      expect(codeAndBody(moved)).toEqual([422, status(422, `NodeMaintenance.${GROUP} "immutable" is invalid: spec.nodeName: ${cause.message}`, 'Invalid', { name: 'immutable', group: GROUP, kind: 'NodeMaintenance', causes: [cause] })]);
      const badStatus = await rawApi('PATCH', `${nmPath('immutable')}/status`, {
        body: { status: { conditions: [{ type: 'Ready', status: 'Maybe', reason: 'not valid', message: '', lastTransitionTime: '2026-03-01T10:00:00Z' }] } },
        contentType: MERGE,
      });
      expect(badStatus.status).toBe(422);
      const statusCauses = ((badStatus.body['details'] as Obj)['causes'] as Obj[]).map((c) => [String(c['field']), c['reason']]);
      // The two sibling fields in either order (Go map order), then the note that CEL rules were skipped.
      expect([...statusCauses.slice(0, 2)].sort()).toEqual([
        ['status.conditions[0].reason', 'FieldValueInvalid'],
        ['status.conditions[0].status', 'FieldValueNotSupported'],
      ]);
      expect(statusCauses.slice(2)).toEqual([['<nil>', 'FieldValueInvalid']]);
      // A custom resource is stored as sent: its date-time strings keep their precision.
      const precise = { type: 'Ready', status: 'False', reason: 'Pending', message: '', lastTransitionTime: '2026-03-01T10:00:00.5Z' };
      const kept = await rawApi('PATCH', `${nmPath('immutable')}/status`, { body: { status: { conditions: [precise] } }, contentType: MERGE });
      expect([kept.status, (kept.body['status'] as Obj)['conditions']]).toEqual([200, [precise]]);
    });

    it('MaintenanceOperatorConfig defaults; an int-or-percent is stored as given for kmaint to judge; an unknown logLevel is a 422', async () => {
      const cfgNs = `/apis/${GROUP}/${VERSION}/namespaces/${ns}/maintenanceoperatorconfigs`;
      const body = (name: string, spec: Obj): Obj => ({ apiVersion: `${GROUP}/${VERSION}`, kind: 'MaintenanceOperatorConfig', metadata: { name }, spec });
      const defaults = await rawApi('POST', cfgNs, { body: body('defaults', {}) });
      expect([defaults.status, defaults.body['spec']]).toEqual([201, { maxParallelOperations: 1, logLevel: 'info', maxNodeMaintenanceTimeSeconds: 3600 }]);
      const percent = await rawApi('POST', cfgNs, { body: body('percent', { maxParallelOperations: 'abc%', maxUnavailable: '10%' }) });
      expect([percent.status, percent.body['spec']]).toEqual([201, { maxParallelOperations: 'abc%', maxUnavailable: '10%', logLevel: 'info', maxNodeMaintenanceTimeSeconds: 3600 }]);
      const bad = await rawApi('POST', cfgNs, { body: body('bad', { logLevel: 'verbose' }) });
      expect([bad.status, ((bad.body['details'] as Obj)['causes'] as Obj[]).map((c) => [c['field'], c['reason'], c['message']])]).toEqual([
        422,
        [['spec.logLevel', 'FieldValueNotSupported', 'Unsupported value: "verbose": supported values: "debug", "info", "error"']],
      ]);
    });
  });

  describe('leases', () => {
    it('create twice is AlreadyExists; update with the current resourceVersion applies, a stale one is a Conflict; MicroTime keeps microseconds', async () => {
      const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'kmaint-scheduler' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 30, acquireTime: '2026-03-01T10:00:00.123456Z', renewTime: '2026-03-01T10:00:00.123456Z' } };
      const created = await rawApi('POST', leasePath(), { body: lease });
      expect(created.status).toBe(201);
      expect((created.body['spec'] as Obj)['renewTime']).toBe('2026-03-01T10:00:00.123456Z');
      expect(codeAndBody(await rawApi('POST', leasePath(), { body: lease }))).toEqual([
        409,
        status(409, 'leases.coordination.k8s.io "kmaint-scheduler" already exists', 'AlreadyExists', { name: 'kmaint-scheduler', group: 'coordination.k8s.io', kind: 'leases' }),
      ]);
      const rv0 = rvOf(created.body);
      const renewed = { ...created.body, spec: { ...(created.body['spec'] as Obj), holderIdentity: 'b', renewTime: '2026-03-01T10:00:05.000001Z' } };
      const ok = await rawApi('PUT', leasePath('kmaint-scheduler'), { body: renewed });
      expect([ok.status, (ok.body['spec'] as Obj)['holderIdentity'], (ok.body['spec'] as Obj)['renewTime']]).toEqual([200, 'b', '2026-03-01T10:00:05.000001Z']);
      expect(rvOf(ok.body)).not.toBe(rv0);
      const stale = await rawApi('PUT', leasePath('kmaint-scheduler'), { body: { ...renewed, spec: { ...(renewed.spec as Obj), holderIdentity: 'c' } } });
      expect(codeAndBody(stale)).toEqual([409, conflict('leases.coordination.k8s.io', 'kmaint-scheduler')]);
    });
  });

  // Last in the file: kube-controller-manager's collector starts watching a new CRD's resource at its next 30 s sync.
  describe('garbage collection', () => {
    it('deleting a Node deletes the NodeMaintenances it owns; one with a finalizer is marked deleting and goes once released', async () => {
      const node = `gc-${ns}`;
      const { core } = admin();
      const spec = { requestorID: 'gc.example.com', nodeName: node };
      // kube-controller-manager's collector watches a CRD's resource only from its next discovery sync (every 30 s):
      // a NodeMaintenance naming an owner that never existed goes once it does.
      const canaryStarted = Date.now();
      await createNM('gc-canary', spec, { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: `${node}-absent`, uid: '00000000-0000-4000-8000-000000000000' }] });
      await gone(nmPath('gc-canary'));
      const canaryMs = Date.now() - canaryStarted;
      try {
        const created = await rawApi('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: node } } });
        expect(created.status, created.text).toBe(201);
        const owner = { apiVersion: 'v1', kind: 'Node', name: node, uid: String(meta(created.body)['uid']) };
        await createNM('gc-plain', spec, { ownerReferences: [owner] });
        await createNM('gc-held', spec, { ownerReferences: [owner], finalizers: [FINALIZER] });
        expect((await rawApi('DELETE', `/api/v1/nodes/${node}`)).status).toBe(200);
        const started = Date.now();
        await gone(nmPath('gc-plain'));
        const held = await waitFor('gc-held marked for deletion', async () => {
          const r = await rawApi('GET', nmPath('gc-held'));
          return meta(r.body)['deletionTimestamp'] ? r.body : undefined;
        }, 60_000, 100);
        process.stderr.write(`[contract] garbage collector: a dangling owner reference in ${canaryMs} ms, the NodeMaintenances of a deleted Node in ${Date.now() - started} ms\n`);
        expect([meta(held)['finalizers'], meta(held)['ownerReferences']]).toEqual([[FINALIZER], [owner]]);
        const release = await rawApi('PATCH', nmPath('gc-held'), { body: { metadata: { finalizers: null } }, contentType: MERGE });
        expect(release.status).toBe(200);
        await gone(nmPath('gc-held'));
      } finally {
        await rawApi('DELETE', `/api/v1/nodes/${node}`);
        // The DaemonSet controller made pods for the node (no kubelet runs them): they go now, not while others test.
        await waitFor(`the pods made for ${node} gone`, async () => {
          const pods = (await core.listPodForAllNamespaces()).items.filter((p) => p.spec?.nodeName === node || JSON.stringify(p.spec?.affinity ?? {}).includes(`"${node}"`));
          for (const p of pods) await core.deleteNamespacedPod({ namespace: p.metadata?.namespace ?? '', name: p.metadata?.name ?? '', gracePeriodSeconds: 0 }).catch(() => undefined);
          return pods.length === 0 ? true : undefined;
        }, 60_000);
      }
    });

    it('a cluster-scoped object naming a namespaced owner is never collected; one naming only a missing Node is', async () => {
      const missingNode = { apiVersion: 'v1', kind: 'Node', name: `${ns}-absent`, uid: '00000000-0000-4000-8000-000000000001' };
      const configMap = { apiVersion: 'v1', kind: 'ConfigMap', name: 'never-there', uid: '00000000-0000-4000-8000-000000000002' };
      const kept = `${ns}-gc-kept`;
      const control = `${ns}-gc-control`;
      const later = `${ns}-gc-later`;
      const nsPath = (name: string): string => `/api/v1/namespaces/${name}`;
      const collected = (name: string): Promise<true> =>
        waitFor(`${name} deleted by the garbage collector`, async () => {
          const r = await rawApi('GET', nsPath(name));
          return r.status === 404 || meta(r.body)['deletionTimestamp'] ? true : undefined;
        }, 60_000, 100);
      const make = async (name: string, owners: Obj[]): Promise<void> => {
        const r = await rawApi('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, ownerReferences: owners } } });
        expect(r.status, r.text).toBe(201);
      };
      try {
        await make(kept, [missingNode, configMap]);
        await make(control, [missingNode]);
        // Both wait in the collector's queue for the missing Node (kube-controller-manager queues a Node's dependents
        // together once it is confirmed absent; the sim's collector queues objects as they are made, kept first).
        await collected(control);
        // A later step of the same queue: an object made only now, naming only the missing Node, is collected after
        // kept was taken from the queue, so kept has been judged by then.
        await make(later, [missingNode]);
        await collected(later);
        const r = await rawApi('GET', nsPath(kept));
        expect([r.status, meta(r.body)['deletionTimestamp'] ?? null, ((meta(r.body)['ownerReferences'] ?? []) as Obj[]).map((o) => o['name'])]).toEqual([200, null, [missingNode.name, 'never-there']]);
      } finally {
        await rawApi('DELETE', nsPath(kept));
        await rawApi('DELETE', nsPath(control));
        await rawApi('DELETE', nsPath(later));
      }
    });
  });

  // kube-controller-manager's PodGC looks every 20 s, so this waits up to 30 s. An orphan (a pod bound to a missing
  // Node) waits a 40 s quarantine more: sim/controllers/pod-gc.test.ts covers that on a manual clock.
  describe('pod garbage collection', () => {
    it('an unscheduled pod deleted while a finalizer holds it is marked Failed (no condition) and goes once released', async () => {
      const name = 'podgc-unscheduled';
      const hold = 'example.com/podgc-hold';
      // A scheduler nobody runs: neither cluster's scheduler binds it.
      const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name, finalizers: [hold] }, spec: { schedulerName: 'kmaint-nobody', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } };
      const created = await rawApi('POST', podPath(), { body });
      expect(created.status, created.text).toBe(201);
      try {
        expect((await rawApi('DELETE', podPath(name))).status).toBe(200);
        const started = Date.now();
        const failed = await waitFor(`${name} marked Failed`, async () => {
          const r = await rawApi('GET', podPath(name));
          return ((r.body['status'] ?? {}) as Obj)['phase'] === 'Failed' ? r.body : undefined;
        }, 60_000, 100);
        process.stderr.write(`[contract] pod garbage collector: an unscheduled terminating pod marked Failed in ${Date.now() - started} ms\n`);
        const podStatus = (failed['status'] ?? {}) as Obj;
        expect([meta(failed)['deletionGracePeriodSeconds'], meta(failed)['finalizers'], podStatus['conditions'] ?? null, podStatus['observedGeneration']]).toEqual([0, [hold], null, 2]);
      } finally {
        await rawApi('PATCH', podPath(name), { body: { metadata: { finalizers: null } }, contentType: MERGE });
      }
      await gone(podPath(name));
    });

    // Here, not after this describe: vitest collects the describes above only after the outer body has run.
    needs.report();
  });
});
