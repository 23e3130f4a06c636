// DeviceTaintRules (resource.k8s.io/v1alpha3, issue 45) on the simulated server as on the testbed's 1.35 control plane
// with DRADeviceTaints and DRADeviceTaintRules on: discovery beside resource.k8s.io/v1, cluster-scoped CRUD, the
// taint's timeAdded stamped, label selectors, and kmaint's own KubeClient finding v1alpha3 after v1beta2's 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_TAINT_KEY, LABEL_DEVICE_MAINTENANCE } from '../../shared/api/index.ts';
import { deviceTaintRuleManifest } from '../../shared/devices/index.ts';
import { KubeClient } from '../../shared/kube/index.ts';
import { manualClock } from '../clock.ts';
import { startSimApiServer, type SimApiServer } from './index.ts';
import { at, call } from './test-support.ts';

const RULES = '/apis/resource.k8s.io/v1alpha3/devicetaintrules';
const clock = manualClock(new Date('2026-03-01T10:00:00.750Z'));
let server: SimApiServer;

const aRule = (name: string, labels: Record<string, string> = {}, taint: Record<string, string> = { key: 'kmaint.io/maintenance', effect: 'NoSchedule' }) => ({
  apiVersion: 'resource.k8s.io/v1alpha3',
  kind: 'DeviceTaintRule',
  metadata: { name, labels },
  spec: { deviceSelector: { driver: 'gpu.nvidia.com', pool: 'gpu-01', device: 'gpu-1' }, taint },
});

beforeAll(async () => {
  server = await startSimApiServer({ clock });
});
afterAll(async () => {
  await server.stop();
});

describe('discovery', () => {
  it('resource.k8s.io lists v1 (preferred) and v1alpha3; v1alpha3 serves devicetaintrules and their status, v1beta2 nothing', async () => {
    const group = await call(server, 'GET', '/apis/resource.k8s.io');
    expect([at(group.body, 'versions'), at(group.body, 'preferredVersion')]).toEqual([
      [
        { groupVersion: 'resource.k8s.io/v1', version: 'v1' },
        { groupVersion: 'resource.k8s.io/v1alpha3', version: 'v1alpha3' },
      ],
      { groupVersion: 'resource.k8s.io/v1', version: 'v1' },
    ]);
    const list = await call(server, 'GET', '/apis/resource.k8s.io/v1alpha3');
    expect(at(list.body, 'resources')).toEqual([
      { name: 'devicetaintrules', singularName: 'devicetaintrule', namespaced: false, kind: 'DeviceTaintRule', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] },
      { name: 'devicetaintrules/status', singularName: '', namespaced: false, kind: 'DeviceTaintRule', verbs: ['get', 'patch', 'update'] },
    ]);
    expect((await call(server, 'GET', '/apis/resource.k8s.io/v1beta2/devicetaintrules')).status).toBe(404);
    expect((await call(server, 'GET', '/apis/resource.k8s.io/v1/devicetaintrules')).status).toBe(404);
  });
});

describe('CRUD', () => {
  it('a create is cluster-scoped, generation 1, status empty, the taint stamped with timeAdded at whole seconds', async () => {
    const r = await call(server, 'POST', RULES, aRule('rule-a', { [LABEL_DEVICE_MAINTENANCE]: 'true' }));
    expect(r.status).toBe(201);
    expect([at(r.body, 'apiVersion'), at(r.body, 'metadata.namespace'), at(r.body, 'metadata.generation'), at(r.body, 'status'), at(r.body, 'spec')]).toEqual([
      'resource.k8s.io/v1alpha3',
      undefined,
      1,
      {},
      { deviceSelector: { driver: 'gpu.nvidia.com', pool: 'gpu-01', device: 'gpu-1' }, taint: { key: 'kmaint.io/maintenance', effect: 'NoSchedule', timeAdded: '2026-03-01T10:00:00Z' } },
    ]);
    const got = await call(server, 'GET', `${RULES}/rule-a`);
    expect([got.status, at(got.body, 'spec.taint.timeAdded')]).toEqual([200, '2026-03-01T10:00:00Z']);
  });

  it('a timeAdded the client sets is kept (at whole seconds)', async () => {
    const r = await call(server, 'POST', RULES, aRule('rule-b', {}, { key: 'example.com/other', effect: 'NoExecute', timeAdded: '2026-02-01T08:00:00.500Z' }));
    expect([r.status, at(r.body, 'spec.taint')]).toEqual([201, { key: 'example.com/other', effect: 'NoExecute', timeAdded: '2026-02-01T08:00:00Z' }]);
  });

  it.each([
    ['no effect', { key: 'kmaint.io/maintenance' }, 'DeviceTaintRule.resource.k8s.io "bad" is invalid: spec.taint.effect: Required value'],
    ['an unknown effect', { key: 'kmaint.io/maintenance', effect: 'NoWay' }, 'DeviceTaintRule.resource.k8s.io "bad" is invalid: spec.taint.effect: Unsupported value: "NoWay": supported values: "NoExecute", "NoSchedule", "None"'],
  ])('a taint with %s is 422 Invalid', async (_what, taint, message) => {
    const r = await call(server, 'POST', RULES, aRule('bad', {}, taint));
    expect([r.status, at(r.body, 'message')]).toEqual([422, message]);
  });

  it('a LIST selects by label; a second create is 409; DELETE answers with the object, then 404', async () => {
    const labelled = await call(server, 'GET', `${RULES}?labelSelector=${encodeURIComponent(`${LABEL_DEVICE_MAINTENANCE}=true`)}`);
    expect([at(labelled.body, 'kind'), (at(labelled.body, 'items') as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name)]).toEqual(['DeviceTaintRuleList', ['rule-a']]);
    const all = await call(server, 'GET', RULES);
    expect((at(all.body, 'items') as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name)).toEqual(['rule-a', 'rule-b']);
    expect(at((await call(server, 'POST', RULES, aRule('rule-a'))).body, 'message')).toBe('devicetaintrules.resource.k8s.io "rule-a" already exists');
    const deleted = await call(server, 'DELETE', `${RULES}/rule-b`);
    expect([deleted.status, at(deleted.body, 'kind'), at(deleted.body, 'metadata.name')]).toEqual([200, 'DeviceTaintRule', 'rule-b']);
    expect((await call(server, 'GET', `${RULES}/rule-b`)).status).toBe(404);
  });
});

describe("kmaint's KubeClient", () => {
  it('lists in v1alpha3 after v1beta2 answers 404, creates the rule of a device request there and deletes it once', async () => {
    const client = new KubeClient(server.kubeConfig({ user: 'kmaint' }));
    await call(server, 'DELETE', `${RULES}/rule-a`);
    expect(await client.listDeviceTaintRules()).toEqual({ version: 'v1alpha3', rules: [] });
    const manifest = deviceTaintRuleManifest({ name: 'kmaint-device-uid-1-0', device: { driver: 'gpu.nvidia.com', pool: 'gpu-01', device: 'gpu-3' }, request: 'ops/fix-gpu', owner: { name: 'gpu-01', uid: 'node-uid' } });
    expect((await client.createDeviceTaintRule(manifest)).kind).toBe('ok');
    expect((await client.createDeviceTaintRule(manifest)).kind).toBe('conflict');
    const listed = await client.listDeviceTaintRules();
    expect(listed?.rules.map((r) => [r.metadata?.name, (r as { spec?: unknown }).spec])).toEqual([
      ['kmaint-device-uid-1-0', { deviceSelector: { driver: 'gpu.nvidia.com', pool: 'gpu-01', device: 'gpu-3' }, taint: { key: DEVICE_TAINT_KEY, effect: 'NoSchedule', timeAdded: '2026-03-01T10:00:00Z' } }],
    ]);
    expect((await client.deleteDeviceTaintRule('kmaint-device-uid-1-0')).kind).toBe('ok');
    expect((await client.deleteDeviceTaintRule('kmaint-device-uid-1-0')).kind).toBe('notFound');
  });
});
