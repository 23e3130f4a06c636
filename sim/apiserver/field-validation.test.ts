// Unknown fields and the fieldValidation query parameter, and metav1.Time precision, as the testbed answers them
// (test/contract.test.ts checks the same on both clusters).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimApiServer, type SimApiServer } from './index.ts';
import { aNodeMaintenance, aPod, at, call, CRD_DIR, NM_PATH } from './test-support.ts';

let server: SimApiServer;

beforeAll(async () => {
  server = await startSimApiServer({ crds: [CRD_DIR] });
});
afterAll(async () => {
  await server?.stop();
});

const withUnknown = (name: string): Record<string, unknown> => ({
  ...aNodeMaintenance(name, { requestorID: 'ab', nodeName: 'n', zz: 1, drainSpec: { x: 2, a: 1 } }),
  metadata: { name, namespace: 'default', bogus: 1 },
  extra: 3,
});

describe('unknown fields', () => {
  it('Warn (the default): dropped, one Warning header each, metadata first, then in path order', async () => {
    const r = await call(server, 'POST', NM_PATH, withUnknown('warn') as never);
    expect(r.status).toBe(201);
    expect([at(r.body, 'metadata.bogus'), r.body['extra'], at(r.body, 'spec.zz'), at(r.body, 'spec.drainSpec')]).toEqual([undefined, undefined, undefined, { deleteEmptyDir: false, force: false, timeoutSeconds: 300 }]);
    expect(r.headers.get('warning')).toBe(['metadata.bogus', 'extra', 'spec.drainSpec.a', 'spec.drainSpec.x', 'spec.zz'].map((f) => `299 - "unknown field \\"${f}\\""`).join(', '));
  });

  it('Strict: 400 on create and update, 422 naming the patch on a patch; nothing is written', async () => {
    const create = await call(server, 'POST', `${NM_PATH}?fieldValidation=Strict`, withUnknown('strict') as never);
    expect([create.status, create.body['message']]).toEqual([
      400,
      'NodeMaintenance in version "v1alpha1" cannot be handled as a NodeMaintenance: strict decoding error: unknown field "metadata.bogus", unknown field "extra", unknown field "spec.drainSpec.a", unknown field "spec.drainSpec.x", unknown field "spec.zz"',
    ]);
    expect((await call(server, 'GET', `${NM_PATH}/strict`)).status).toBe(404);
    const patch = await call(server, 'PATCH', `${NM_PATH}/warn?fieldValidation=Strict`, { spec: { q: 1 } }, 'application/merge-patch+json');
    expect([patch.status, at(patch.body, 'details.causes.0.field'), String(patch.body['message']).endsWith('strict decoding error: unknown field "spec.q"')]).toEqual([422, 'patch', true]);
    expect(at((await call(server, 'GET', `${NM_PATH}/warn`)).body, 'spec.q')).toBeUndefined();
  });

  it('Ignore: dropped without a warning; an unknown value of the parameter is a 422', async () => {
    const r = await call(server, 'POST', `${NM_PATH}?fieldValidation=Ignore`, withUnknown('ignore') as never);
    expect([r.status, r.headers.get('warning')]).toEqual([201, null]);
    const bad = await call(server, 'POST', `${NM_PATH}?fieldValidation=Loose`, withUnknown('loose') as never);
    expect([bad.status, bad.body['message']]).toEqual([422, 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"']);
  });
});

describe('metav1.Time precision', () => {
  it('built-in kinds store times at whole seconds; MicroTime and custom resources keep what was sent', async () => {
    await call(server, 'POST', '/api/v1/namespaces/default/pods', aPod('t', { node: 'n' }));
    const status = await call(server, 'PATCH', '/api/v1/namespaces/default/pods/t/status', { status: { startTime: '2026-03-01T10:00:00.123Z', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-03-01T10:00:01.999Z' }] } }, 'application/strategic-merge-patch+json');
    expect([at(status.body, 'status.startTime'), at(status.body, 'status.conditions.0.lastTransitionTime')]).toEqual(['2026-03-01T10:00:00Z', '2026-03-01T10:00:01Z']);
    const pdb = await call(server, 'POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', { metadata: { name: 'b' }, spec: { minAvailable: 1 } });
    expect(pdb.status).toBe(201);
    const disrupted = await call(server, 'PATCH', '/apis/policy/v1/namespaces/default/poddisruptionbudgets/b/status', { status: { disruptedPods: { t: '2026-03-01T10:00:02.5Z' } } }, 'application/merge-patch+json');
    expect(at(disrupted.body, 'status.disruptedPods')).toEqual({ t: '2026-03-01T10:00:02Z' });
    const lease = await call(server, 'POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { metadata: { name: 'l' }, spec: { renewTime: '2026-03-01T10:00:00.123456Z' } });
    expect(at(lease.body, 'spec.renewTime')).toBe('2026-03-01T10:00:00.123456Z');
    const nm = await call(server, 'POST', NM_PATH, aNodeMaintenance('times', { requestorID: 'ab', nodeName: 'n' }));
    const cond = { type: 'Ready', status: 'False', reason: 'Pending', message: '', lastTransitionTime: '2026-03-01T10:00:00.5Z' };
    expect(nm.status).toBe(201);
    const nmStatus = await call(server, 'PATCH', `${NM_PATH}/times/status`, { status: { conditions: [cond] } }, 'application/merge-patch+json');
    expect(at(nmStatus.body, 'status.conditions.0.lastTransitionTime')).toBe('2026-03-01T10:00:00.5Z');
  });
});
