// kmaint's real passes (shared/pass runPass through shared/kube KubeClient) on the simulated server, with the
// simulated kubelet running the pods: the seed README example from Pending to Ready, then deleted and cleaned up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_INITIAL_UNSCHEDULABLE, FINALIZER, GROUP, VERSION } from '../../shared/api/index.ts';
import type { NodeMaintenance } from '../../shared/api/index.ts';
import { KubeClient } from '../../shared/kube/index.ts';
import { runPass, type PassFunction } from '../../shared/pass/index.ts';
import { createCluster, generateCluster } from '../generator/index.ts';
import { SimKubelet } from '../kubelet/index.ts';
import { startSimApiServer, type SimApiServer } from './index.ts';
import { aNodeMaintenance, aPod, at, call, CRD_DIR, kubectl, until } from './test-support.ts';

const cluster = generateCluster({ profile: 'small', seed: 1 });
const worker = cluster.nodes.map((n) => n.metadata?.name ?? '').find((n) => cluster.nodes.find((x) => x.metadata?.name === n)?.metadata?.labels?.['kmaint.io/pool'] === 'general') as string;
const NM = `/apis/${GROUP}/${VERSION}/namespaces/team/nodemaintenances`;

let server: SimApiServer;
let kubelet: SimKubelet;
let client: KubeClient;

async function getNM(name: string): Promise<NodeMaintenance | undefined> {
  const r = await call(server, 'GET', `${NM}/${name}`);
  return r.status === 200 ? (r.body as unknown as NodeMaintenance) : undefined;
}

const phase = (nm: NodeMaintenance | undefined) => nm?.status?.conditions?.find((c) => c.type === 'Ready')?.reason ?? '';

async function passes(): Promise<void> {
  for (const fn of ['scheduler', 'drainer', 'cleanup'] as PassFunction[]) await runPass(fn, { client, namespace: 'kmaint', now: () => new Date() });
}

async function untilPhase(name: string, wanted: string): Promise<NodeMaintenance> {
  return until(`${name} in phase ${wanted}`, async () => {
    await passes();
    const nm = await getNM(name);
    return phase(nm) === wanted ? nm : undefined;
  });
}

const bare = (name: string, labels: Record<string, string>, requests?: Record<string, string>) => {
  const pod = aPod(name, { namespace: 'team', node: worker, labels, grace: 1 });
  const spec = pod['spec'] as { containers: Array<Record<string, unknown>> };
  if (requests) (spec.containers[0] as Record<string, unknown>)['resources'] = { requests, limits: Object.fromEntries(Object.entries(requests).filter(([k]) => k.includes('/'))) };
  return { ...pod, metadata: { ...(pod['metadata'] as object), annotations: { 'kmaint.io/sim-termination-seconds': '0' } } };
};

beforeAll(async () => {
  server = await startSimApiServer({ crds: [CRD_DIR] });
  kubelet = new SimKubelet({ kubeConfig: server.kubeConfig({ user: 'kmaint-sim-kubelet' }), nodes: cluster.nodes, podSync: 'watch', heartbeatIntervalMs: 200, podStartDelayMs: 10 });
  await kubelet.start();
  await createCluster(server.kubeConfig(), cluster);
  for (const ns of ['kmaint', 'team']) await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
  await call(server, 'POST', `/apis/${GROUP}/${VERSION}/namespaces/kmaint/maintenanceoperatorconfigs`, { apiVersion: `${GROUP}/${VERSION}`, kind: 'MaintenanceOperatorConfig', metadata: { name: 'default' }, spec: { maxParallelOperations: 1 } });
  client = new KubeClient(server.kubeConfig({ user: 'kmaint' }));
});
afterAll(async () => {
  await kubelet.stop();
  await server.stop();
});

describe('kmaint passes on the simulated server', () => {
  it('runs the seed README example: Pending -> Ready, evicting only filtered pods; deletion uncordons and the object goes', async () => {
    await call(server, 'POST', '/api/v1/namespaces/team/pods', bare('important', { app: 'important' }));
    await call(server, 'POST', '/api/v1/namespaces/team/pods', bare('gpu-user', {}, { cpu: '10m', 'nvidia.com/gpu-a100': '1' }));
    await call(server, 'POST', '/api/v1/namespaces/team/pods', bare('rdma-user', {}, { cpu: '10m', 'nvidia.com/rdma_shared_device_a': '1' }));
    await call(server, 'POST', '/api/v1/namespaces/team/pods', bare('plain', {}));
    await until('test pods running', async () => {
      const pods = (await call(server, 'GET', '/api/v1/namespaces/team/pods?fieldSelector=status.phase%3DRunning')).body['items'] as unknown[];
      return pods.length === 4 ? true : undefined;
    });
    await call(server, 'POST', NM, aNodeMaintenance('my-maintenance-operation', {
      requestorID: 'some.one.acme.com',
      nodeName: worker,
      cordon: true,
      waitForPodCompletion: { podSelector: 'app=important', timeoutSeconds: 0 },
      drainSpec: { force: true, podSelector: '', timeoutSeconds: 0, deleteEmptyDir: true, podEvictionFilters: [{ byResourceNameRegex: 'nvidia.com/gpu-*' }, { byResourceNameRegex: 'nvidia.com/rdma*' }] },
    }, 'team'));

    const scheduler = await runPass('scheduler', { client, namespace: 'kmaint', now: () => new Date() });
    expect(scheduler.admitted).toBe(1);
    expect(phase(await getNM('my-maintenance-operation'))).toBe('Scheduled');

    const waiting = await untilPhase('my-maintenance-operation', 'WaitForPodCompletion');
    expect(waiting.status?.waitForCompletion).toEqual(['team/important']);
    expect(waiting.metadata.finalizers).toEqual([FINALIZER]);
    expect(waiting.metadata.annotations?.[ANNOTATION_INITIAL_UNSCHEDULABLE]).toBe('false');
    expect(at((await call(server, 'GET', `/api/v1/nodes/${worker}`)).body, 'spec.unschedulable')).toBe(true);

    await call(server, 'DELETE', '/api/v1/namespaces/team/pods/important');
    const ready = await untilPhase('my-maintenance-operation', 'Ready');
    expect(ready.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(ready.status?.drain).toEqual({ totalPods: expect.any(Number), evictionPods: 2, drainProgress: 100 });
    const left = (await call(server, 'GET', `/api/v1/namespaces/team/pods?fieldSelector=spec.nodeName%3D${worker}`)).body['items'] as Array<{ metadata: { name: string; deletionTimestamp?: string } }>;
    expect(left.filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name)).toEqual(['plain']);
    expect(server.requests({ user: 'kmaint', resource: 'pods/eviction' }).filter((e) => e.code === 201).map((e) => e.name).sort()).toEqual(['gpu-user', 'rdma-user']);

    const events = await kubectl(server, ['get', 'events', '-n', 'team', '--field-selector', 'involvedObject.name=my-maintenance-operation,reason=ConditionChanged', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}']);
    expect(events.stdout.trim().split('\n').sort()).toEqual(['Cordon', 'Draining', 'Pending', 'Ready', 'Scheduled', 'WaitForPodCompletion']);

    await call(server, 'DELETE', `${NM}/my-maintenance-operation`);
    await until('the request gone', async () => {
      await passes();
      return (await getNM('my-maintenance-operation')) === undefined ? true : undefined;
    });
    expect(at((await call(server, 'GET', `/api/v1/nodes/${worker}`)).body, 'spec.unschedulable')).toBeUndefined();
  });

  it('a cordon whose request was removed without its cleanup (finalizer stripped by hand) is lifted by cleanup through the node record', async () => {
    await call(server, 'POST', NM, aNodeMaintenance('stripped', { requestorID: 'some.one.acme.com', nodeName: worker, cordon: true, drainSpec: { force: true, podSelector: 'none=none', timeoutSeconds: 0 } }, 'team'));
    await untilPhase('stripped', 'Ready');
    const cordoned = (await call(server, 'GET', `/api/v1/nodes/${worker}`)).body;
    expect(at(cordoned, 'spec.unschedulable')).toBe(true);
    expect(at(cordoned, 'metadata.annotations')).toMatchObject({ 'kmaint.io/cordoned-by': 'kmaint/team/stripped' });
    // An administrator forces the object out: no finalizer, so no cleanup of it runs.
    await call(server, 'PATCH', `${NM}/stripped`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    await call(server, 'DELETE', `${NM}/stripped`);
    expect(await getNM('stripped')).toBeUndefined();
    const mark = server.mark();
    const cleanup = await runPass('cleanup', { client, namespace: 'kmaint', now: () => new Date() });
    // kmaint's node conditions for the request go too, after the uncordon (the sweep's unit), not racing it.
    expect(cleanup.actions).toEqual({ uncordonNode: 1, patchNodeConditions: 1 });
    expect(cleanup.conflicts).toBe(0);
    const node = (await call(server, 'GET', `/api/v1/nodes/${worker}`)).body;
    expect(at(node, 'spec.unschedulable')).toBeUndefined();
    const annotations = (node['metadata'] as { annotations?: Record<string, string> }).annotations ?? {};
    expect(Object.keys(annotations).filter((k) => k.startsWith('kmaint.io/cordon'))).toEqual([]);
    // The orphan was confirmed by one LIST of the requests after the base snapshot's own.
    expect(server.requests({ since: mark, user: 'kmaint' }).filter((e) => e.verb === 'list' && e.resource === 'nodemaintenances').length).toBe(2);
    const again = await runPass('cleanup', { client, namespace: 'kmaint', now: () => new Date() });
    expect(again.actions).toEqual({});
  });

  it('a second pass over an unchanged cluster writes nothing', async () => {
    await passes();
    const mark = server.mark();
    await passes();
    const writes = server.requests({ since: mark, user: 'kmaint' }).filter((e) => !['get', 'list'].includes(e.verb) && !e.resource.startsWith('leases'));
    expect(writes).toEqual([]);
  });
});
