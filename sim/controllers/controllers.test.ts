// The controllers' loop against the sim API server on a manual clock: each round's reads, plans and writes.
import { AppsV1Api, CoreV1Api, PatchStrategy, PolicyV1Api, setHeaderOptions, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimApiServer, type SimApiServer } from '../apiserver/index.ts';
import { manualClock } from '../clock.ts';
import { SimControllers } from './controllers.ts';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const T0 = new Date('2026-03-01T12:00:00Z');

describe('SimControllers on the sim API server', () => {
  let server: SimApiServer;
  let kc: KubeConfig;
  let core: CoreV1Api;
  const clock = manualClock(T0);

  beforeAll(async () => {
    server = await startSimApiServer({ port: 0, clock, namespaces: ['default', 'web', 'kube-system'] });
    kc = server.kubeConfig({ user: 'test' });
    core = kc.makeApiClient(CoreV1Api);
    for (const name of ['n1', 'n2', 'n3']) {
      await core.createNode({ body: { metadata: { name, labels: { 'kubernetes.io/hostname': name } } } });
      await core.patchNodeStatus(
        { name, body: { status: { allocatable: { cpu: '2', memory: '4Gi', pods: '110' }, capacity: { cpu: '2', memory: '4Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: '' }] } } },
        mergePatch,
      );
    }
    const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image: 'pause', resources: { requests: { cpu: '100m' } } }] } };
    await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace: 'web', body: { metadata: { name: 'web' }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template } } });
    await kc.makeApiClient(PolicyV1Api).createNamespacedPodDisruptionBudget({ namespace: 'web', body: { metadata: { name: 'web' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } } } });
  });

  afterAll(async () => {
    await server.stop();
  });

  const webPods = async (): Promise<V1Pod[]> => (await core.listNamespacedPod({ namespace: 'web' })).items.filter((p) => !p.metadata?.deletionTimestamp);
  const markReady = async (pods: readonly V1Pod[]): Promise<void> => {
    for (const p of pods) {
      await core.patchNamespacedPodStatus(
        { namespace: 'web', name: p.metadata?.name ?? '', body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } } },
        mergePatch,
      );
    }
  };

  it('round 1 creates the ReplicaSet, round 2 its pods, bound one per node; the budget allows nothing yet', async () => {
    const controllers = new SimControllers({ kubeConfig: kc, clock, seed: 7 });
    const first = await controllers.reconcileOnce();
    expect(first.applied).toMatchObject({ createReplicaSet: 1 });
    expect(first.errors).toEqual([]);
    const second = await controllers.reconcileOnce();
    expect(second.applied).toMatchObject({ createPod: 3, bindPod: 3 });
    const pods = await webPods();
    expect(pods.map((p) => p.spec?.nodeName).sort()).toEqual(['n1', 'n2', 'n3']);
    expect(pods.every((p) => p.metadata?.ownerReferences?.[0]?.kind === 'ReplicaSet' && p.metadata.labels?.['pod-template-hash'])).toBe(true);
    const pdb = await kc.makeApiClient(PolicyV1Api).readNamespacedPodDisruptionBudget({ namespace: 'web', name: 'web' });
    expect(pdb.status).toMatchObject({ currentHealthy: 0, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 0, observedGeneration: 1 });
  });

  it('Ready pods make the budget allow one disruption; an eviction spends it, the replacement avoids the cordoned node', async () => {
    const controllers = new SimControllers({ kubeConfig: kc, clock, seed: 8 });
    await markReady(await webPods());
    await controllers.reconcileOnce();
    const policy = kc.makeApiClient(PolicyV1Api);
    expect((await policy.readNamespacedPodDisruptionBudget({ namespace: 'web', name: 'web' })).status).toMatchObject({ currentHealthy: 3, disruptionsAllowed: 1 });

    const victim = (await webPods()).find((p) => p.spec?.nodeName === 'n1');
    await core.patchNode({ name: 'n1', body: { spec: { unschedulable: true } } }, mergePatch);
    await core.createNamespacedPodEviction({ namespace: 'web', name: victim?.metadata?.name ?? '', body: { metadata: { name: victim?.metadata?.name ?? '', namespace: 'web' } } });
    await clock.advance(1000);
    const round = await controllers.reconcileOnce();
    expect(round.applied).toMatchObject({ createPod: 1, bindPod: 1, updatePdbStatus: 1 });
    const live = await webPods();
    expect(live).toHaveLength(3);
    expect(live.filter((p) => p.spec?.nodeName === 'n1')).toEqual([]);
    // The evicted pod is terminating: not healthy; the replacement is not Ready yet.
    // An integer minAvailable counts every selected pod, the terminating one included (as kube-controller-manager does).
    expect((await policy.readNamespacedPodDisruptionBudget({ namespace: 'web', name: 'web' })).status).toMatchObject({ currentHealthy: 2, desiredHealthy: 2, expectedPods: 4, disruptionsAllowed: 0 });
  });

  it('settles within a few rounds (statuses trail by a round each), then writes nothing', async () => {
    const controllers = new SimControllers({ kubeConfig: kc, clock, seed: 9 });
    let rounds = 0;
    while ((await controllers.reconcileOnce()).planned > 0) expect(++rounds).toBeLessThan(5);
    const mark = server.mark();
    const round = await controllers.reconcileOnce();
    expect(round.applied).toEqual({});
    expect(Object.keys(server.requestCounts({ since: mark }).byVerb).every((k) => k.startsWith('list '))).toBe(true);
  });
});
