// The drainer's reads when the DRA read fails: the pods and budgets are still returned, with the problem, so the
// pass goes on (only filtered drains of nodes whose pods reference claims hold, lifecycle/plan-drainer.ts). A loopback
// server answers as the API server does; a refused or failing ResourceClaim LIST is its only fault.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from '../kube/index.ts';
import { aLifecycleMaintenance, aNodeWithUid } from '../lifecycle/test-builders.ts';
import type { V1Node } from '@kubernetes/client-node';
import { withAdmissionRecords } from '../scheduling/test-builders.ts';
import { ownPodsOf, readDrainPods, upstreamOperatorNamespaceOf, type BaseSnapshot } from './snapshot.ts';
import { aLoopbackClient } from '../kube/test-builders.ts';

const pod = (name: string, claims: boolean): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'ml', uid: `uid-${name}`, resourceVersion: '1' },
  spec: { nodeName: 'worker-01', containers: [{ name: 'c', image: 'x' }], ...(claims ? { resourceClaims: [{ name: 'gpu', resourceClaimName: `${name}-gpu` }] } : {}) },
  status: { phase: 'Running' },
});

describe('readDrainPods when the ResourceClaim LIST fails', () => {
  let server: Server;
  /** The claims LIST's answer: a status code and its message. */
  let claimsAnswer: { code: number; message: string } = { code: 403, message: 'forbidden' };
  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = req.url ?? '';
      const json = (code: number, body: unknown): void => void res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (url.startsWith('/api/v1/pods')) return json(200, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [pod('trainer', true), pod('plain', false)] });
      if (url.startsWith('/apis/policy/v1/poddisruptionbudgets')) return json(200, { kind: 'PodDisruptionBudgetList', apiVersion: 'policy/v1', metadata: { resourceVersion: '5' }, items: [] });
      if (url.startsWith('/apis/resource.k8s.io/')) return json(claimsAnswer.code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: claimsAnswer.code, message: claimsAnswer.message });
      return json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, message: 'not found' });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  function client(): KubeClient {
    return aLoopbackClient(server);
  }

  // A request kmaint admitted: its Node carries the admission record (issue 40).
  const draining = aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', phase: 'Draining' });
  const [worker] = withAdmissionRecords([aNodeWithUid({ name: 'worker-01', unschedulable: true })], [draining]);
  const base: BaseSnapshot = {
    nodes: new Map([['worker-01', worker as V1Node]]),
    nodeList: [worker as V1Node],
    maintenances: [draining],
    malformed: [],
    rawConfig: undefined,
  };

  it.each([
    { rule: 'refused (RBAC)', answer: { code: 403, message: 'resourceclaims.resource.k8s.io is forbidden' }, problem: 'listing resourceclaims (resource.k8s.io/v1): HTTP 403: resourceclaims.resource.k8s.io is forbidden' },
    { rule: 'an API server error', answer: { code: 500, message: 'etcd unavailable' }, problem: 'listing resourceclaims (resource.k8s.io/v1): HTTP 500: etcd unavailable' },
  ])('$rule: the pods and budgets come back with the problem, nothing is thrown', async ({ answer, problem }) => {
    claimsAnswer = answer;
    const read = await readDrainPods(client(), base);
    expect({ pods: [...read.podsByNode.entries()].map(([node, pods]) => [node, pods.map((p) => p.metadata?.name)]), pdbs: read.pdbs, claims: read.claims, claimsProblem: read.claimsProblem }).toEqual({
      pods: [['worker-01', ['trainer', 'plain']]],
      pdbs: [],
      claims: [],
      claimsProblem: problem,
    });
  });
});

describe('ownPodsOf', () => {
  it.each([
    { rule: 'infra/base and a Helm release named kmaint: ServiceAccount kmaint', env: {}, expected: { namespace: 'ops', serviceAccounts: ['kmaint'] } },
    { rule: 'the chart names its ServiceAccount in KMAINT_SERVICE_ACCOUNT', env: { KMAINT_SERVICE_ACCOUNT: 'maint-kmaint' }, expected: { namespace: 'ops', serviceAccounts: ['maint-kmaint'] } },
    { rule: 'an empty KMAINT_SERVICE_ACCOUNT is no name', env: { KMAINT_SERVICE_ACCOUNT: ' ' }, expected: { namespace: 'ops', serviceAccounts: ['kmaint'] } },
  ])('$rule', ({ env, expected }) => {
    expect(ownPodsOf('ops', env)).toEqual(expected);
  });

  it.each([
    { rule: 'spec.upstreamOperatorNamespace set: the upstream exemption applies there', spec: { upstreamOperatorNamespace: 'network-operator' }, expected: { namespace: 'ops', serviceAccounts: ['kmaint'], upstreamOperatorNamespace: 'network-operator' } },
    { rule: 'unset: the default (select-pods.ts)', spec: {}, expected: { namespace: 'ops', serviceAccounts: ['kmaint'] } },
    { rule: 'not a namespace name (a config that bypassed the CRD): the default', spec: { upstreamOperatorNamespace: 'a,b' }, expected: { namespace: 'ops', serviceAccounts: ['kmaint'] } },
  ])('$rule', ({ spec, expected }) => {
    expect(ownPodsOf('ops', {}, upstreamOperatorNamespaceOf({ metadata: { name: 'default', namespace: 'ops' }, spec }))).toEqual(expected);
  });
});
