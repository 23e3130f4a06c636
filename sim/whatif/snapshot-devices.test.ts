// `kmaint snapshot` of a cluster with DRA devices (issue 45): the ResourceSlices' devices per node and each pod's
// held devices (its allocated claims reserved for it) are written back as loaded; a replacement pod that references a
// claim reserved for another pod holds nothing; a cluster whose slices the user may not read gives a snapshot without
// devices rather than none (buildSnapshot without the lists).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { startSimApiServer, type SimApiServer } from '../apiserver/index.ts';
import { CRDS_DIR } from '../embedded.ts';
import { kubeConfigThroughProxy, startFaultProxy } from '../../testbed/fault-proxy/index.ts';
import { buildSnapshot, readClusterSnapshot, readSnapshotFile } from './index.ts';
import { seedSnapshot } from './seed.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/gpu-cluster.json', import.meta.url));

describe('kmaint snapshot: DRA devices', () => {
  let api: SimApiServer;
  beforeAll(async () => {
    api = await startSimApiServer({ crds: [CRDS_DIR] });
    const fixture = readSnapshotFile(FIXTURE);
    seedSnapshot(api, fixture, { namespace: 'kmaint' }, Date.parse(fixture.takenAt));
    // A pod naming holder-a's claim without being in its reservedFor (a replacement nothing allocated to).
    api.local.create({ apiVersion: 'v1', resource: 'pods' }, 'ml', { metadata: { name: 'late' }, spec: { nodeName: 'gpu-01', resourceClaims: [{ name: 'devices', resourceClaimName: 'holder-a-devices' }], containers: [{ name: 'main', image: 'pause' }] } });
  });
  afterAll(async () => {
    await api.stop();
  });

  it('writes back the slices and the held devices the fixture was loaded from', async () => {
    const taken = await readClusterSnapshot(api.kubeConfig({ user: 'kmaint' }), 'kmaint', new Date('2026-01-05T10:00:00Z'));
    const fixture = readSnapshotFile(FIXTURE);
    expect(taken.resourceSlices).toEqual(fixture.resourceSlices);
    expect(taken.pods.map((p) => [p.name, p.devices])).toEqual([
      ['holder-a', ['gpu.nvidia.com/gpu-01/gpu-0']],
      ['holder-b', ['gpu.nvidia.com/gpu-01/gpu-1']],
      ['holder-c', ['gpu.nvidia.com/gpu-02/gpu-0']],
      ['late', undefined],
      ['web-1', undefined],
    ]);
  });

  it('built without DRA lists (a cluster without DRA, or slices the user may not read): no resourceSlices key, the snapshot valid', () => {
    const fixture = readSnapshotFile(FIXTURE);
    const snapshot = buildSnapshot({ nodes: [], pods: [], pdbs: [], configNamespace: 'kmaint' }, new Date(fixture.takenAt), 'test');
    expect(['resourceSlices' in snapshot, snapshot.pods]).toEqual([false, []]);
  });

  it('a user who may not list ResourceSlices (403): the snapshot of the same cluster has its nodes and pods and names no devices', async () => {
    const proxy = await startFaultProxy({ upstream: api.url, seed: 1, rules: [{ verbs: ['list'], resources: ['resourceslices'], rates: { '403': 1 } }] });
    try {
      const through = kubeConfigThroughProxy(api.kubeConfig({ user: 'kmaint' }), proxy.url);
      const taken = await readClusterSnapshot(through, 'kmaint', new Date('2026-01-05T10:00:00Z'));
      const direct = await readClusterSnapshot(api.kubeConfig({ user: 'kmaint' }), 'kmaint', new Date('2026-01-05T10:00:00Z'));
      expect(proxy.counts.faults['403']).toBeGreaterThan(0);
      expect(['resourceSlices' in taken, taken.nodes.map((n) => n.name), taken.pods.map((p) => [p.name, p.devices])]).toEqual([
        false,
        direct.nodes.map((n) => n.name),
        direct.pods.map((p) => [p.name, undefined]),
      ]);
    } finally {
      await proxy.close();
    }
  });

  it('any other refusal of the DRA lists (500) fails the snapshot, naming the list', async () => {
    const proxy = await startFaultProxy({ upstream: api.url, seed: 1, rules: [{ verbs: ['list'], resources: ['resourceslices'], rates: { '500': 1 } }] });
    try {
      await expect(readClusterSnapshot(kubeConfigThroughProxy(api.kubeConfig({ user: 'kmaint' }), proxy.url), 'kmaint', new Date('2026-01-05T10:00:00Z'))).rejects.toThrow(/resourceslices/);
    } finally {
      await proxy.close();
    }
  });
});
