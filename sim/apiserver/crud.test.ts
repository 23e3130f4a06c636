// CRUD over real HTTP: status bodies, conflicts, generateName, generation, custom resource defaults and the
// kmaint CRDs' validation — every expected message was read from kube-apiserver 1.35 on the testbed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimApiServer, type SimApiServer } from './index.ts';
import { aNodeMaintenance, aPod, at, call, CRD_DIR, NM_PATH } from './test-support.ts';

let server: SimApiServer;

beforeAll(async () => {
  server = await startSimApiServer({ crds: [CRD_DIR] });
});
afterAll(async () => {
  await server.stop();
});

describe('status bodies', () => {
  it.each([
    ['a missing pod', '/api/v1/namespaces/default/pods/nope', { message: 'pods "nope" not found', reason: 'NotFound', details: { name: 'nope', kind: 'pods' }, code: 404 }],
    ['a missing custom resource', `${NM_PATH}/nope`, { message: 'nodemaintenances.maintenance.nvidia.com "nope" not found', reason: 'NotFound', details: { name: 'nope', group: 'maintenance.nvidia.com', kind: 'nodemaintenances' }, code: 404 }],
    ['an unknown resource', '/api/v1/widgets', { message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 }],
  ])('GET of %s is a 404 Status', async (_what, path, expected) => {
    const r = await call(server, 'GET', path);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...expected });
  });

  it('a second create is 409 AlreadyExists naming the resource', async () => {
    const r = await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'kube-system' } });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ message: 'namespaces "kube-system" already exists', reason: 'AlreadyExists', details: { name: 'kube-system', kind: 'namespaces' } });
  });

  it('creating in a missing namespace is 404 for the namespace', async () => {
    const r = await call(server, 'POST', '/api/v1/namespaces/nope/pods', aPod('x', { namespace: 'nope' }));
    expect(r.body).toMatchObject({ code: 404, message: 'namespaces "nope" not found' });
  });
});

describe('writes', () => {
  it('a new namespace gets its name label, the kubernetes finalizer, phase Active and a default ServiceAccount', async () => {
    const r = await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'crud' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'crud', labels: { 'kubernetes.io/metadata.name': 'crud' } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
    expect((await call(server, 'GET', '/api/v1/namespaces/crud/serviceaccounts/default')).status).toBe(200);
  });

  it('PUT and merge patch with a stale resourceVersion are 409 Conflict with the real message', async () => {
    const ns = await call(server, 'GET', '/api/v1/namespaces/crud');
    const stale = String(Number(at(ns.body, 'metadata.resourceVersion')) - 1);
    const expected = { reason: 'Conflict', code: 409, message: 'Operation cannot be fulfilled on namespaces "crud": the object has been modified; please apply your changes to the latest version and try again' };
    expect((await call(server, 'PUT', '/api/v1/namespaces/crud', { metadata: { name: 'crud', resourceVersion: stale } })).body).toMatchObject(expected);
    expect((await call(server, 'PATCH', '/api/v1/namespaces/crud', { metadata: { resourceVersion: stale } }, 'application/merge-patch+json')).body).toMatchObject(expected);
  });

  it('a write that changes nothing keeps the resourceVersion; one that changes something bumps it', async () => {
    const before = await call(server, 'GET', '/api/v1/namespaces/crud');
    const same = await call(server, 'PATCH', '/api/v1/namespaces/crud', { metadata: { labels: { 'kubernetes.io/metadata.name': 'crud' } } }, 'application/merge-patch+json');
    expect(at(same.body, 'metadata.resourceVersion')).toBe(at(before.body, 'metadata.resourceVersion'));
    const changed = await call(server, 'PATCH', '/api/v1/namespaces/crud', { metadata: { labels: { team: 'a' } } }, 'application/merge-patch+json');
    expect(Number(at(changed.body, 'metadata.resourceVersion'))).toBeGreaterThan(Number(at(before.body, 'metadata.resourceVersion')));
  });

  it('generateName appends five characters of the real alphabet', async () => {
    const r = await call(server, 'POST', '/api/v1/namespaces/crud/pods', { metadata: { generateName: 'web-' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    expect(at(r.body, 'metadata.name')).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('a pod is admitted as the real server does: defaults, tolerations, Pending, QoS class, generation 1', async () => {
    const r = await call(server, 'POST', '/api/v1/namespaces/crud/pods', aPod('p1', { namespace: 'crud' }));
    expect(r.body).toMatchObject({
      metadata: { generation: 1 },
      spec: {
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        serviceAccountName: 'default',
        schedulerName: 'default-scheduler',
        priority: 0,
        tolerations: [
          { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
          { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        ],
        containers: [{ name: 'c', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {} }],
      },
      status: { phase: 'Pending', qosClass: 'BestEffort' },
    });
  });

  it('the main endpoint ignores status and the status endpoint ignores everything else', async () => {
    const pod = await call(server, 'GET', '/api/v1/namespaces/crud/pods/p1');
    const main = await call(server, 'PATCH', '/api/v1/namespaces/crud/pods/p1', { metadata: { labels: { a: 'b' } }, status: { phase: 'Running' } }, 'application/strategic-merge-patch+json');
    expect(at(main.body, 'status.phase')).toBe('Pending');
    expect(at(main.body, 'metadata.labels.a')).toBe('b');
    const status = await call(server, 'PATCH', '/api/v1/namespaces/crud/pods/p1/status', { spec: { nodeName: 'x' }, status: { phase: 'Running' } }, 'application/strategic-merge-patch+json');
    expect(at(status.body, 'status.phase')).toBe('Running');
    expect(at(status.body, 'spec.nodeName')).toBeUndefined();
    expect(at(status.body, 'metadata.generation')).toBe(at(pod.body, 'metadata.generation'));
  });

  it('pod spec updates other than images are forbidden', async () => {
    const r = await call(server, 'PATCH', '/api/v1/namespaces/crud/pods/p1', { spec: { restartPolicy: 'Never' } }, 'application/merge-patch+json');
    expect(r.status).toBe(422);
    expect(String(r.body['message'])).toContain('Pod "p1" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`');
  });

  it('a deployment gets its defaults and a new generation only when its spec changes', async () => {
    const body = { metadata: { name: 'd1' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i:1' }] } } } };
    const created = await call(server, 'POST', '/apis/apps/v1/namespaces/crud/deployments', body);
    expect(created.body).toMatchObject({ metadata: { generation: 1 }, spec: { replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } } }, status: {} });
    const labelled = await call(server, 'PATCH', '/apis/apps/v1/namespaces/crud/deployments/d1', { metadata: { labels: { x: 'y' } } }, 'application/merge-patch+json');
    expect(at(labelled.body, 'metadata.generation')).toBe(1);
    const scaled = await call(server, 'PATCH', '/apis/apps/v1/namespaces/crud/deployments/d1', { spec: { replicas: 3 } }, 'application/merge-patch+json');
    expect(at(scaled.body, 'metadata.generation')).toBe(2);
  });

  it('a Node keeps the status it is created with, allocatable defaulting to capacity', async () => {
    const r = await call(server, 'POST', '/api/v1/nodes', { metadata: { name: 'n-alloc' }, status: { capacity: { pods: '10', cpu: '4' } } });
    expect(r.body['status']).toEqual({ capacity: { pods: '10', cpu: '4' }, allocatable: { pods: '10', cpu: '4' } });
  });

  it('a Job gets the controller-uid selector and template labels', async () => {
    const r = await call(server, 'POST', '/apis/batch/v1/namespaces/crud/jobs', { metadata: { name: 'j1' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } } } });
    const uid = String(at(r.body, 'metadata.uid'));
    expect(at(r.body, 'spec.selector')).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    expect(at(r.body, 'spec.template.metadata.labels')).toEqual({ 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'j1', 'controller-uid': uid, 'job-name': 'j1' });
  });
});

describe('kmaint CRDs', () => {
  it('a NodeMaintenance gets the CRD defaults of the fields present, sorted keys, generation 1 and no status', async () => {
    const r = await call(server, 'POST', NM_PATH, { ...aNodeMaintenance('nm2', { requestorID: 'ab', nodeName: 'node-001', drainSpec: {}, waitForPodCompletion: {} }), status: { x: 1 } });
    expect(r.status).toBe(201);
    const { metadata, ...rest } = r.body;
    expect(rest).toEqual({
      apiVersion: 'maintenance.nvidia.com/v1alpha1',
      kind: 'NodeMaintenance',
      spec: { cordon: true, drainSpec: { deleteEmptyDir: false, force: false, timeoutSeconds: 300 }, nodeName: 'node-001', requestorID: 'ab', waitForPodCompletion: { timeoutSeconds: 0 } },
    });
    expect(Object.keys(metadata as object)).toEqual(['creationTimestamp', 'generation', 'name', 'namespace', 'resourceVersion', 'uid']);
  });

  it('a MaintenanceOperatorConfig gets maxParallelOperations 1, logLevel info and maxNodeMaintenanceTimeSeconds 3600', async () => {
    const r = await call(server, 'POST', '/apis/maintenance.nvidia.com/v1alpha1/namespaces/default/maintenanceoperatorconfigs', { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'MaintenanceOperatorConfig', metadata: { name: 'default' }, spec: {} });
    expect(r.body['spec']).toEqual({ logLevel: 'info', maxNodeMaintenanceTimeSeconds: 3600, maxParallelOperations: 1 });
  });

  it.each([
    [
      'a requestorID not matching the pattern',
      { requestorID: '-bad_', nodeName: 'node-001' },
      `NodeMaintenance.maintenance.nvidia.com "bad" is invalid: spec.requestorID: Invalid value: "-bad_": spec.requestorID in body should match '^([a-z0-9A-Z]([-a-z0-9A-Z]*[a-z0-9A-Z])?(\\.[a-z0-9A-Z]([-a-z0-9A-Z]*[a-z0-9A-Z])?)*)$'`,
    ],
    [
      'a short requestorID and no nodeName',
      { requestorID: 'a' },
      'NodeMaintenance.maintenance.nvidia.com "bad" is invalid: [spec.requestorID: Invalid value: "a": spec.requestorID in body should be at least 2 chars long, spec.nodeName: Required value, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    ],
    [
      'a string cordon and a negative drain timeout',
      { requestorID: 'ab', nodeName: 'n', drainSpec: { timeoutSeconds: -1 }, cordon: 'yes' },
      'NodeMaintenance.maintenance.nvidia.com "bad" is invalid: [spec.cordon: Invalid value: "string": spec.cordon in body must be of type boolean: "string", spec.drainSpec.timeoutSeconds: Invalid value: -1: spec.drainSpec.timeoutSeconds in body should be greater than or equal to 0, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    ],
    [
      'a requestorID over 63 characters',
      { requestorID: 'a'.repeat(95), nodeName: 'n' },
      'NodeMaintenance.maintenance.nvidia.com "bad" is invalid: [spec.requestorID: Too long: may not be more than 63 bytes, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    ],
    [
      // Issue 40: as the testbed answers it (test/attacks-input.test.ts).
      '65 additionalRequestors',
      { requestorID: 'ab', nodeName: 'n', additionalRequestors: Array.from({ length: 65 }, (_, i) => `r${i}.example.com`) },
      'NodeMaintenance.maintenance.nvidia.com "bad" is invalid: [spec.additionalRequestors: Too many: 65: must have at most 64 items, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    ],
    [
      'a nodeName that is not a Node name',
      { requestorID: 'ab', nodeName: 'a,b' },
      `NodeMaintenance.maintenance.nvidia.com "bad" is invalid: spec.nodeName: Invalid value: "a,b": spec.nodeName in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'`,
    ],
  ])('refuses %s with 422 and the real message', async (_what, spec, message) => {
    const r = await call(server, 'POST', NM_PATH, aNodeMaintenance('bad', spec));
    expect(r.status).toBe(422);
    expect(r.body['message']).toBe(message);
    expect(at(r.body, 'details.kind')).toBe('NodeMaintenance');
  });

  it('a config with a boolean maxParallelOperations reports the anyOf failure as the real server does', async () => {
    const r = await call(server, 'POST', '/apis/maintenance.nvidia.com/v1alpha1/namespaces/default/maintenanceoperatorconfigs', { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'MaintenanceOperatorConfig', metadata: { name: 'y' }, spec: { maxParallelOperations: true } });
    expect(r.body['message']).toBe(
      'MaintenanceOperatorConfig.maintenance.nvidia.com "y" is invalid: [spec.maxParallelOperations: Invalid value: "boolean": spec.maxParallelOperations in body must be of type integer,string: "boolean", <nil>: Invalid value: "": "spec.maxParallelOperations" must validate at least one schema (anyOf), spec.maxParallelOperations: Invalid value: "boolean": spec.maxParallelOperations in body must be of type integer: "boolean"]',
    );
  });

  it('requestorID and nodeName are immutable (CEL transition rules), reported together', async () => {
    const r = await call(server, 'PATCH', `${NM_PATH}/nm2`, { spec: { requestorID: 'other.one', nodeName: 'node-002' } }, 'application/merge-patch+json');
    expect(r.status).toBe(422);
    expect(r.body['message']).toBe('NodeMaintenance.maintenance.nvidia.com "nm2" is invalid: [spec.nodeName: Invalid value: "node-002": Value is immutable, spec.requestorID: Invalid value: "other.one": Value is immutable]');
    expect(at(r.body, 'details.causes')).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "node-002": Value is immutable', field: 'spec.nodeName' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "other.one": Value is immutable', field: 'spec.requestorID' },
    ]);
  });

  it('a PUT of a custom resource must carry a resourceVersion', async () => {
    const r = await call(server, 'PUT', `${NM_PATH}/nm2`, aNodeMaintenance('nm2', { requestorID: 'ab', nodeName: 'node-001' }));
    expect(r.status).toBe(422);
    expect(r.body['message']).toBe('nodemaintenances.maintenance.nvidia.com "nm2" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update');
  });

  it('unknown fields are pruned; spec changes bump the generation, status and metadata changes do not', async () => {
    const created = await call(server, 'POST', NM_PATH, aNodeMaintenance('nm3', { requestorID: 'ab', nodeName: 'node-001', bogus: 1 }));
    expect(at(created.body, 'spec.bogus')).toBeUndefined();
    const status = await call(server, 'PATCH', `${NM_PATH}/nm3/status`, { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Pending', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] } }, 'application/merge-patch+json');
    expect(at(status.body, 'metadata.generation')).toBe(1);
    const spec = await call(server, 'PATCH', `${NM_PATH}/nm3`, { spec: { cordon: false } }, 'application/merge-patch+json');
    expect(at(spec.body, 'metadata.generation')).toBe(2);
    expect(at(spec.body, 'status.conditions.0.reason')).toBe('Pending');
  });

  it("the CRD's selectableFields are field selectors; other spec fields are not", async () => {
    const r = await call(server, 'GET', '/apis/maintenance.nvidia.com/v1alpha1/nodemaintenances?fieldSelector=spec.nodeName%3Dnode-001,spec.requestorID%3Dab');
    expect((r.body['items'] as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name)).toEqual(['nm2', 'nm3']);
    expect((await call(server, 'GET', '/apis/maintenance.nvidia.com/v1alpha1/nodemaintenances?fieldSelector=spec.cordon%3Dtrue')).body).toMatchObject({ code: 400, message: 'field label not supported: spec.cordon' });
  });

  it('a JSON patch on the status subresource with a stale resourceVersion is a Conflict', async () => {
    const r = await call(server, 'PATCH', `${NM_PATH}/nm3/status`, [{ op: 'replace', path: '/metadata/resourceVersion', value: '1' }, { op: 'add', path: '/status', value: {} }], 'application/json-patch+json');
    expect(r.body).toMatchObject({ code: 409, message: 'Operation cannot be fulfilled on nodemaintenances.maintenance.nvidia.com "nm3": the object has been modified; please apply your changes to the latest version and try again' });
  });

  it('strategic merge patch is not a custom resource patch type (415)', async () => {
    const r = await call(server, 'PATCH', `${NM_PATH}/nm3`, { spec: { cordon: true } }, 'application/strategic-merge-patch+json');
    expect(r.status).toBe(415);
    expect(r.body['message']).toBe('the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
  });

  it.each([
    ['a failing test', [{ op: 'test', path: '/spec/nodeName', value: 'x' }]],
    ['removing a missing field', [{ op: 'remove', path: '/spec/nope' }]],
    ['adding below a missing parent', [{ op: 'add', path: '/a/b/c', value: 1 }]],
  ])('a JSON patch with %s is 422 "the server rejected our request"', async (_what, ops) => {
    const r = await call(server, 'PATCH', `${NM_PATH}/nm3`, ops, 'application/json-patch+json');
    expect(r.body).toMatchObject({ code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request' });
  });

  it('a JSON patch that is not a list is 400', async () => {
    const r = await call(server, 'PATCH', `${NM_PATH}/nm3`, { op: 'replace' }, 'application/json-patch+json');
    expect(r.body).toMatchObject({ code: 400, message: 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp' });
  });
});
