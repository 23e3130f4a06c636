// `kmaint run drainer` (runUntilIdle: passes planned before the run's lease is taken) on a cluster at
// spec.namedReadsFromNodes (1 here), against the sim API server over HTTP: the first run reads every Node once and
// records it on its Lease, then reads the request's Node by name; the next run (another process) finds the record on
// the Lease and reads only that Node.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimApiServer, type SimApiServer } from './apiserver/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { runUntilIdle } from '../shared/runtime/index.ts';

const CRDS = fileURLToPath(new URL('../crds/', import.meta.url));
const NMS = { apiVersion: 'maintenance.nvidia.com/v1alpha1', resource: 'nodemaintenances' };
const LEASES = { apiVersion: 'coordination.k8s.io/v1', resource: 'leases' };
let server: SimApiServer;
let client: KubeClient;
const T0 = Date.parse('2026-03-01T00:00:00Z');

beforeAll(async () => {
  server = await startSimApiServer({ crds: [CRDS] });
  for (const name of ['kmaint', 'team']) server.local.create({ apiVersion: 'v1', resource: 'namespaces' }, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  for (const name of ['n1', 'n2', 'n3']) server.local.create({ apiVersion: 'v1', resource: 'nodes' }, '', { apiVersion: 'v1', kind: 'Node', metadata: { name } });
  server.local.create({ apiVersion: 'maintenance.nvidia.com/v1alpha1', resource: 'maintenanceoperatorconfigs' }, 'kmaint', {
    apiVersion: 'maintenance.nvidia.com/v1alpha1',
    kind: 'MaintenanceOperatorConfig',
    metadata: { name: 'default', namespace: 'kmaint' },
    spec: { namedReadsFromNodes: 1, fullReadEverySeconds: 600 },
  });
  server.local.create(NMS, 'team', { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'NodeMaintenance', metadata: { name: 'm1', namespace: 'team' }, spec: { requestorID: 'team.example.com', nodeName: 'n1', cordon: true } });
  client = new KubeClient(server.kubeConfig({ user: 'kmaint' }));
  await runUntilIdle({ client, namespace: 'kmaint', now: () => new Date(T0), functions: ['scheduler'], maxRounds: 2, sleep: () => Promise.resolve() });
});

afterAll(async () => {
  await server.stop();
});

/** The Node reads of kmaint since `mark`: the Node each selected, or "every node". */
function nodeReads(mark: number): string[] {
  return server.requests({ since: mark, user: 'kmaint', resource: 'nodes' }).filter((e) => e.verb === 'list').map((e) => new URL(e.uri, 'http://x').searchParams.get('fieldSelector') ?? 'every node');
}

const phase = (): string | undefined =>
  (server.local.get(NMS, 'team', 'm1') as { status?: { conditions?: Array<{ type: string; reason?: string }> } }).status?.conditions?.find((c) => c.type === 'Ready')?.reason;
const annotations = (): Record<string, string> => (server.local.get(LEASES, 'kmaint', 'kmaint-drainer') as { metadata: { annotations?: Record<string, string> } }).metadata.annotations ?? {};

describe('kmaint run drainer at namedReadsFromNodes', () => {
  it('the first run reads every Node once and records it on its Lease; then, and in the next run, only the named Node', async () => {
    let mark = server.mark();
    const first = await runUntilIdle({ client, namespace: 'kmaint', now: () => new Date(T0 + 1000), functions: ['drainer'], maxRounds: 6, sleep: () => Promise.resolve() });
    expect([first.stopped, phase()]).toEqual(['idle', 'Ready']);
    const reads = nodeReads(mark);
    expect([reads[0], reads.slice(1).every((r) => r === 'metadata.name=n1'), reads.length]).toEqual(['every node', true, first.passes.length + 1]);
    expect(annotations()).toEqual({ 'kmaint.io/full-node-read-time': new Date(T0 + 1000).toISOString(), 'kmaint.io/full-node-read-nodes': '3' });

    mark = server.mark();
    const next = await runUntilIdle({ client, namespace: 'kmaint', now: () => new Date(T0 + 60_000), functions: ['drainer'], maxRounds: 2, sleep: () => Promise.resolve() });
    expect([next.stopped, next.passes.length, nodeReads(mark), server.requests({ since: mark, user: 'kmaint', resource: 'leases' }).map((e) => e.verb)]).toEqual(['idle', 1, ['metadata.name=n1'], ['get']]);
  });
});
