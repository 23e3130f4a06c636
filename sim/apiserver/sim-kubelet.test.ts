// The simulated kubelet (an ordinary client-node client) against the simulated server, in both pod sync modes:
// nodes registered Ready with leases, the generated cluster created, pods run, graceful deletion completed, and
// kubectl drain finishing through the eviction API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCluster, generateCluster } from '../generator/index.ts';
import { SimKubelet } from '../kubelet/index.ts';
import { startSimApiServer, type SimApiServer } from './index.ts';
import { aPod, at, call, kubectl, until } from './test-support.ts';

const cluster = generateCluster({ profile: 'small', seed: 1 });
const nodeNames = cluster.nodes.map((n) => n.metadata?.name ?? '');
const worker = nodeNames[1] as string;

type Obj = Record<string, unknown>;
const condition = (o: Obj, type: string) => ((at(o as never, 'status.conditions') ?? []) as Array<{ type: string; status: string }>).find((c) => c.type === type)?.status;

describe.each(['poll', 'watch'] as const)('SimKubelet (%s) on the simulated server', (podSync) => {
  let server: SimApiServer;
  let kubelet: SimKubelet;

  beforeAll(async () => {
    server = await startSimApiServer();
    kubelet = new SimKubelet({
      kubeConfig: server.kubeConfig({ user: 'kmaint-sim-kubelet' }),
      nodes: cluster.nodes,
      podSync,
      heartbeatIntervalMs: 100,
      podStartDelayMs: 20,
      pollIntervalMs: 50,
      defaultTerminationSeconds: 0.2,
    });
    await kubelet.start();
    await createCluster(server.kubeConfig(), cluster);
  });
  afterAll(async () => {
    await kubelet.stop();
    await server.stop();
  });

  it('registers every node Ready with its capacity and a lease renewed in the background', async () => {
    const nodes = (await call(server, 'GET', '/api/v1/nodes')).body['items'] as Obj[];
    expect(nodes.map((n) => at(n as never, 'metadata.name')).sort()).toEqual([...nodeNames].sort());
    for (const n of nodes) {
      expect(condition(n, 'Ready')).toBe('True');
      expect(at(n as never, 'status.capacity.pods')).toBe('110');
    }
    const renew = async () => at((await call(server, 'GET', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${worker}`)).body, 'spec.renewTime');
    const first = await renew();
    await until('a lease renewal', async () => ((await renew()) !== first ? true : undefined));
  });

  it("runs the generated cluster's bound pods to Running and Ready", async () => {
    const bound = await until('every bound pod Running', async () => {
      const pods = (await call(server, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName!%3D')).body['items'] as Obj[];
      return pods.length > 0 && pods.every((p) => at(p as never, 'status.phase') === 'Running' && condition(p, 'Ready') === 'True') ? pods : undefined;
    });
    expect(bound.length).toBe(cluster.workloads.pods.length);
  });

  it('starts a new pod and completes its graceful deletion with a grace-0 delete preconditioned on its uid', async () => {
    await call(server, 'POST', '/api/v1/namespaces/default/pods', aPod('p1', { node: worker }));
    await until('the pod Running', async () => (at((await call(server, 'GET', '/api/v1/namespaces/default/pods/p1')).body, 'status.phase') === 'Running' ? true : undefined));
    const deleted = await call(server, 'DELETE', '/api/v1/namespaces/default/pods/p1');
    expect(at(deleted.body, 'metadata.deletionGracePeriodSeconds')).toBe(30);
    await until('the kubelet to delete the pod', async () => ((await call(server, 'GET', '/api/v1/namespaces/default/pods/p1')).status === 404 ? true : undefined));
    const deletes = server.requests({ verb: 'delete', resource: 'pods', user: 'kmaint-sim-kubelet' });
    expect(deletes.map((d) => [d.name, d.code])).toEqual([['p1', 200]]);
    expect(deletes[0]?.uri).toContain('gracePeriodSeconds=0');
  });

  // kubectl drain runs once, in watch mode (the mode the embedded cluster uses); kubectl fails loudly if missing.
  const watchOnly = podSync === 'watch' ? it : (() => undefined) as unknown as typeof it;
  watchOnly('kubectl drain evicts the pods and finishes once the kubelet has deleted them', async () => {
    await call(server, 'POST', '/api/v1/namespaces/default/pods', { ...aPod('drained', { node: nodeNames[2] as string }), metadata: { name: 'drained', namespace: 'default', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }] } });
    await until('the pod Running', async () => (at((await call(server, 'GET', '/api/v1/namespaces/default/pods/drained')).body, 'status.phase') === 'Running' ? true : undefined));
    const r = await kubectl(server, ['drain', nodeNames[2] as string, '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=60s']);
    expect(r.stdout).toContain(`node/${nodeNames[2] as string} drained`);
    expect(r.code).toBe(0);
    expect(server.requests({ verb: 'create', resource: 'pods/eviction' }).some((e) => e.name === 'drained' && e.code === 201)).toBe(true);
  });
});
