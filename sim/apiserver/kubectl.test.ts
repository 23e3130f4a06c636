// The testbed's kubectl (v1.35) against the simulated server: discovery, server-side Table printing of nodes,
// pods and the CRDs' printer columns, cordon/uncordon, create/apply (OpenAPI v3 field validation), and the protobuf
// bodies kubectl sends for built-in kinds (decoded, or refused with what to do instead).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimApiServer, type SimApiServer } from './index.ts';
import type { JsonObject } from './json-value.ts';
import { aNodeMaintenance, aPod, call, CRD_DIR, kubectl, NM_PATH } from './test-support.ts';

let server: SimApiServer;
let now = Date.parse('2026-03-01T10:00:00Z');

function aNode(name: string, labels: Record<string, string>, ip: string): JsonObject {
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
    status: {
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
      addresses: [{ type: 'InternalIP', address: ip }],
      nodeInfo: { kubeletVersion: 'v1.35.0', osImage: 'Amazon Linux 2023', kernelVersion: '6.12.40-sim', containerRuntimeVersion: 'containerd://2.1.4' },
    },
  };
}

/** Table lines split on runs of two or more spaces (column widths depend on content). */
function rows(stdout: string): string[][] {
  return stdout
    .trim()
    .split('\n')
    .map((l) => l.trim())
    .map((l) => (l === '' ? [] : l.split(/\s{2,}/)));
}

describe('kubectl against the simulated server', () => {
  beforeAll(async () => {
    server = await startSimApiServer({ crds: [CRD_DIR], clock: { now: () => now } });
    await call(server, 'POST', '/api/v1/nodes', aNode('node-000', { 'node-role.kubernetes.io/control-plane': '' }, '10.2.0.10'));
    await call(server, 'POST', '/api/v1/nodes', aNode('node-001', {}, '10.2.0.11'));
    now += 40_000;
    await call(server, 'POST', '/api/v1/namespaces/default/pods', aPod('web-1', { node: 'node-001' }));
    await call(server, 'PATCH', '/api/v1/namespaces/default/pods/web-1/status', {
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], podIPs: [{ ip: '10.64.1.2' }], containerStatuses: [{ name: 'c', ready: true, restartCount: 0, image: 'i', imageID: '', state: { running: { startedAt: '2026-03-01T10:00:40Z' } } }] },
    }, 'application/strategic-merge-patch+json');
    await call(server, 'POST', '/api/v1/namespaces/kube-system/pods', aPod('pending-1', { namespace: 'kube-system' }));
    now += 20_000;
    await call(server, 'POST', NM_PATH, aNodeMaintenance('nm-1', { requestorID: 'some.one.acme.com', nodeName: 'node-001' }));
    await call(server, 'PATCH', `${NM_PATH}/nm-1/status`, { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-03-01T10:01:00Z' }] } }, 'application/merge-patch+json');
    now += 5_000;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('kubectl get nodes,pods,nodemaintenances -A prints the real columns', async () => {
    const r = await kubectl(server, ['get', 'nodes,pods,nodemaintenances', '-A']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(rows(r.stdout)).toEqual([
      ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION'],
      ['node/node-000', 'Ready', 'control-plane', '65s', 'v1.35.0'],
      ['node/node-001', 'Ready', '<none>', '65s', 'v1.35.0'],
      [],
      ['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'],
      ['default', 'pod/web-1', '1/1', 'Running', '0', '25s'],
      ['kube-system', 'pod/pending-1', '0/1', 'Pending', '0', '25s'],
      [],
      ['NAMESPACE', 'NAME', 'NODE', 'REQUESTOR', 'READY', 'PHASE', 'WAITING', 'FAILED', 'AGE'],
      ['default', 'nodemaintenance.maintenance.nvidia.com/nm-1', 'node-001', 'some.one.acme.com', 'True', 'Ready', '5s'],
    ]);
  });

  it('kubectl get nm -o wide and pods -o wide show the priority-1 columns', async () => {
    const nm = await kubectl(server, ['get', 'nm', '-n', 'default']);
    expect(rows(nm.stdout)).toEqual([
      ['NAME', 'NODE', 'REQUESTOR', 'READY', 'PHASE', 'WAITING', 'FAILED', 'AGE'],
      ['nm-1', 'node-001', 'some.one.acme.com', 'True', 'Ready', '5s'],
    ]);
    const pods = await kubectl(server, ['get', 'pods', '-o', 'wide']);
    expect(rows(pods.stdout)).toEqual([
      ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES'],
      ['web-1', '1/1', 'Running', '0', '25s', '10.64.1.2', 'node-001', '<none>', '<none>'],
    ]);
  });

  it('kubectl get deployments and pdb print the real columns', async () => {
    await call(server, 'POST', '/apis/apps/v1/namespaces/default/deployments', { metadata: { name: 'api' }, spec: { replicas: 4, selector: { matchLabels: { app: 'api' } }, template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] } } } });
    await call(server, 'PATCH', '/apis/apps/v1/namespaces/default/deployments/api/status', { status: { readyReplicas: 3, updatedReplicas: 4, availableReplicas: 3 } }, 'application/merge-patch+json');
    await call(server, 'POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', { metadata: { name: 'api' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'api' } } } });
    expect(rows((await kubectl(server, ['get', 'deploy,pdb', '-o', 'wide'])).stdout)).toEqual([
      ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR'],
      ['deployment.apps/api', '3/4', '4', '3', '0s', 'main', 'registry.k8s.io/pause:3.10', 'app=api'],
      [],
      ['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE'],
      ['poddisruptionbudget.policy/api', 'N/A', '1', '0', '0s'],
    ]);
  });

  it('kubectl cordon and uncordon set and clear spec.unschedulable', async () => {
    const cordon = await kubectl(server, ['cordon', 'node-001']);
    expect([cordon.code, cordon.stdout.trim(), cordon.stderr]).toEqual([0, 'node/node-001 cordoned', '']);
    expect((await call(server, 'GET', '/api/v1/nodes/node-001')).body['spec']).toEqual({ unschedulable: true });
    expect(rows((await kubectl(server, ['get', 'node', 'node-001'])).stdout)[1]).toEqual(['node-001', 'Ready,SchedulingDisabled', '<none>', '65s', 'v1.35.0']);
    const uncordon = await kubectl(server, ['uncordon', 'node-001']);
    expect(uncordon.stdout.trim()).toBe('node/node-001 uncordoned');
    expect((await call(server, 'GET', '/api/v1/nodes/node-001')).body['spec']).toEqual({});
    expect(server.requests({ verb: 'patch', resource: 'nodes' }).map((e) => [e.name, e.code])).toEqual([
      ['node-001', 200],
      ['node-001', 200],
    ]);
  });

  it('kubectl create, apply and delete work with server-side field validation', async () => {
    const yaml = 'apiVersion: maintenance.nvidia.com/v1alpha1\nkind: NodeMaintenance\nmetadata: {name: nm-2, namespace: default}\nspec: {requestorID: a.b, nodeName: node-000}\n';
    expect(await kubectl(server, ['create', '-f', '-'], yaml)).toMatchObject({ code: 0, stdout: 'nodemaintenance.maintenance.nvidia.com/nm-2 created\n' });
    expect(await kubectl(server, ['apply', '-f', '-'], yaml.replace('a.b', 'x.y'))).toMatchObject({ code: 1 });
    const applied = await kubectl(server, ['apply', '-f', '-'], yaml.replace('nm-2', 'nm-3'));
    expect(applied).toMatchObject({ code: 0, stdout: 'nodemaintenance.maintenance.nvidia.com/nm-3 created\n' });
    expect((await kubectl(server, ['apply', '-f', '-'], yaml.replace('nm-2', 'nm-3'))).stdout).toBe('nodemaintenance.maintenance.nvidia.com/nm-3 unchanged\n');
    expect((await kubectl(server, ['delete', 'nm', 'nm-2', 'nm-3'])).stdout).toBe('nodemaintenance.maintenance.nvidia.com "nm-2" deleted from default namespace\nnodemaintenance.maintenance.nvidia.com "nm-3" deleted from default namespace\n');
  });

  it('kubectl apply -f crds/ and kubectl wait --for=condition=Established work on a fresh server', async () => {
    const fresh = await startSimApiServer();
    try {
      const applied = await kubectl(fresh, ['apply', '-f', CRD_DIR]);
      expect(applied.stdout).toBe('customresourcedefinition.apiextensions.k8s.io/maintenanceoperatorconfigs.maintenance.nvidia.com created\ncustomresourcedefinition.apiextensions.k8s.io/nodemaintenances.maintenance.nvidia.com created\n');
      const waited = await kubectl(fresh, ['wait', '--for=condition=Established', 'crd/nodemaintenances.maintenance.nvidia.com', 'crd/maintenanceoperatorconfigs.maintenance.nvidia.com', '--timeout=30s']);
      expect(waited.stdout).toBe('customresourcedefinition.apiextensions.k8s.io/nodemaintenances.maintenance.nvidia.com condition met\ncustomresourcedefinition.apiextensions.k8s.io/maintenanceoperatorconfigs.maintenance.nvidia.com condition met\n');
      expect(await kubectl(fresh, ['get', 'nm', '-A'])).toMatchObject({ code: 0, stdout: '', stderr: 'No resources found\n' });
      expect((await kubectl(fresh, ['apply', '-f', CRD_DIR])).stdout).toContain('nodemaintenances.maintenance.nvidia.com unchanged');
    } finally {
      await fresh.stop();
    }
  });

  it('an invalid object is refused with the field named, as on the real server', async () => {
    const r = await kubectl(server, ['apply', '-f', '-'], 'apiVersion: maintenance.nvidia.com/v1alpha1\nkind: NodeMaintenance\nmetadata: {name: bad, namespace: default}\nspec: {requestorID: "-x-", nodeName: n}\n');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('spec.requestorID: Invalid value: "-x-": spec.requestorID in body should match');
  });

  it('a protobuf body the server cannot decode is refused with 415 saying to send JSON, and that advice works', async () => {
    const refused = await kubectl(server, ['create', 'serviceaccount', 'robot']);
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: failed to create serviceaccount: the embedded API server cannot decode this protobuf body: it decodes protobuf only for Namespace (v1), ConfigMap (v1), Pod (v1), Deployment (apps/v1), Eviction (policy/v1), DeleteOptions (v1), and this body is ServiceAccount (v1); send the object as JSON instead: `kubectl create … --dry-run=client -o yaml | kubectl create -f -` (kubectl create -f and kubectl apply send JSON), or Content-Type: application/json from another client\n',
    });
    const yaml = await kubectl(server, ['create', 'serviceaccount', 'robot', '--dry-run=client', '-o', 'yaml']);
    expect(await kubectl(server, ['create', '-f', '-'], yaml.stdout)).toEqual({ code: 0, stdout: 'serviceaccount/robot created\n', stderr: '' });
    expect((await call(server, 'GET', '/api/v1/namespaces/default/serviceaccounts/robot')).status).toBe(200);
  });

  it('a CBOR body is refused with 415 naming the switch that makes kubectl send it', async () => {
    const r = await fetch(`${server.url}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/cbor' }, body: Uint8Array.from([0xa0]) });
    expect([r.status, await r.json()]).toEqual([
      415,
      {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'the embedded API server does not read CBOR (kubectl sends it when KUBE_FEATURE_ClientsPreferCBOR is true: unset it); send the object as JSON instead: `kubectl create … --dry-run=client -o yaml | kubectl create -f -` (kubectl create -f and kubectl apply send JSON), or Content-Type: application/json from another client',
        reason: 'UnsupportedMediaType',
        code: 415,
      },
    ]);
  });

  it('a body sent as protobuf that is not protobuf is a 400 saying where it broke', async () => {
    const r = await fetch(`${server.url}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' }, body: '{"metadata":{"name":"x"}}' });
    expect([r.status, ((await r.json()) as { message: string }).message]).toEqual([400, 'the request body is not valid Kubernetes protobuf: the body does not start with the protobuf magic "k8s\\0" (107 56 115 0) at byte 0']);
  });
});
