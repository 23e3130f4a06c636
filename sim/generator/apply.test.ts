// createCluster against a loopback fake API server: order, 409 tolerance, mirror pod owners.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeConfig } from '@kubernetes/client-node';
import { FakeApiServer } from '../kubelet/testing/fake-apiserver.ts';
import { createCluster } from './apply.ts';
import { generateCluster } from './cluster.ts';
import { preboundPods } from './prebound.ts';

describe('createCluster', () => {
  let fake: FakeApiServer;
  let kubeConfig: KubeConfig;
  const cluster = generateCluster({ profile: 'small', seed: 2 });

  beforeEach(async () => {
    fake = new FakeApiServer();
    kubeConfig = await fake.start();
    // The kubelet registers nodes; here they are put straight into the fake.
    for (const node of cluster.nodes) fake.put('nodes', node as unknown as Record<string, unknown>);
  });

  afterEach(() => fake.stop());

  it('creates namespaces (with their default ServiceAccount) first, then every workload and bound pod', async () => {
    const result = await createCluster(kubeConfig, cluster, { concurrency: 4 });
    const w = cluster.workloads;
    expect(result.created).toEqual({
      Namespace: cluster.namespaces.length,
      ServiceAccount: cluster.namespaces.length,
      Service: w.services.length,
      PodDisruptionBudget: w.podDisruptionBudgets.length,
      StatefulSet: w.statefulSets.length,
      Deployment: w.deployments.length,
      DaemonSet: w.daemonSets.length,
      Job: w.jobs.length,
      Pod: w.pods.length,
    });
    const posts = fake.requests.filter((r) => r.method === 'POST').map((r) => r.path);
    const lastNamespace = posts.findLastIndex((p) => p === '/api/v1/namespaces');
    const firstOther = posts.findIndex((p) => p !== '/api/v1/namespaces' && !p.endsWith('/serviceaccounts'));
    expect(lastNamespace).toBeLessThan(firstOther);
    expect(posts).toContain('/apis/policy/v1/namespaces/web/poddisruptionbudgets');
    expect(posts).toContain('/apis/batch/v1/namespaces/batch/jobs');
  });

  it('mirror pods get their Node uid as owner', async () => {
    await createCluster(kubeConfig, cluster);
    const mirror = fake.list('pods').find((p) => p.metadata.namespace === 'kube-system');
    const owner = (mirror?.metadata.ownerReferences as Array<{ kind: string; name: string; uid: string }>)[0];
    expect(owner?.kind).toBe('Node');
    expect(owner?.uid).toBe(fake.get('nodes', '', owner?.name ?? '')?.metadata.uid);
    expect(owner?.uid).not.toBe('');
  });

  it('a second run finds everything existing (409) and fails nothing', async () => {
    await createCluster(kubeConfig, cluster);
    const again = await createCluster(kubeConfig, cluster);
    expect(again.created).toEqual({});
    expect(Object.values(again.existed).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });

  it('says which Node is missing when a mirror pod cannot be owned', async () => {
    await fake.stop();
    fake = new FakeApiServer();
    kubeConfig = await fake.start();
    await expect(createCluster(kubeConfig, cluster)).rejects.toThrow(/Node node-\d+ is not registered/);
  });

  it('streams prebound pods', async () => {
    const large = generateCluster({ profile: 'large', seed: 1, nodes: 5 });
    for (const node of large.nodes) fake.put('nodes', node as unknown as Record<string, unknown>);
    const result = await createCluster(kubeConfig, large, { concurrency: 8 });
    expect(result.created.Pod).toBe([...preboundPods(large)].length);
    expect(fake.list('pods').every((p) => (p.spec as { nodeName?: string }).nodeName)).toBe(true);
  });
});
