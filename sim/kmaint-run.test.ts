// kmaint's runUntilIdle (shared/runtime) against the sim API server over HTTP: a run that finds its function's lease
// held by another live holder backs off towards heldMaxIntervalMs (that holder does the work), and goes on once the
// lease is given back; and a run of the scheduler and the drainer leaves the node conditions to the drainer.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimApiServer, type SimApiServer } from './apiserver/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { runUntilIdle } from '../shared/runtime/index.ts';

const CRDS = fileURLToPath(new URL('../crds/', import.meta.url));
const LEASES = { apiVersion: 'coordination.k8s.io/v1', resource: 'leases' };
const NMS = { apiVersion: 'maintenance.nvidia.com/v1alpha1', resource: 'nodemaintenances' };
let server: SimApiServer;
let client: KubeClient;

const heldLease = (holder: string, durationSeconds: number) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'kmaint-scheduler', namespace: 'kmaint' },
  spec: { holderIdentity: holder, leaseDurationSeconds: durationSeconds, renewTime: new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z') },
});

beforeAll(async () => {
  server = await startSimApiServer({ crds: [CRDS] });
  for (const name of ['kmaint', 'team']) server.local.create({ apiVersion: 'v1', resource: 'namespaces' }, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  server.local.create({ apiVersion: 'v1', resource: 'nodes' }, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
  server.local.create(NMS, 'team', { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'NodeMaintenance', metadata: { name: 'm1', namespace: 'team' }, spec: { requestorID: 'team.example.com', nodeName: 'n1' } });
  server.local.create(LEASES, 'kmaint', heldLease('other-run', 300));
  client = new KubeClient(server.kubeConfig({ user: 'kmaint' }));
});
afterAll(async () => {
  await server.stop();
});

describe('runUntilIdle beside another run holding the lease', () => {
  it('backs off 500 ms, doubling up to 10 s, while the scheduler lease is held by another live holder', async () => {
    const sleeps: number[] = [];
    const run = await runUntilIdle({ client, namespace: 'kmaint', now: () => new Date(), functions: ['scheduler'], maxRounds: 7, sleep: (ms) => Promise.resolve(void sleeps.push(ms)) });
    expect({ stopped: run.stopped, sleeps, outcomes: run.passes.map((p) => `${p.outcome} ${p.leaseHolder ?? ''}`) }).toEqual({
      stopped: 'max-rounds',
      sleeps: [500, 1000, 2000, 4000, 8000, 10000],
      outcomes: Array.from({ length: 7 }, () => 'lease-held other-run'),
    });
  });

  it('once the lease is given back, the next run takes it and initializes the request', async () => {
    server.local.delete(LEASES, 'kmaint', 'kmaint-scheduler');
    server.local.create(LEASES, 'kmaint', heldLease('', 1));
    const before = { ...client.counts.byVerb };
    const run = await runUntilIdle({ client, namespace: 'kmaint', now: () => new Date(), functions: ['scheduler'], maxRounds: 3, sleep: () => Promise.resolve() });
    expect(run.passes[0]?.outcome).toBe('applied');
    // The run's passes account for every request it made, the lease's give-back at the end included (in the last pass).
    const made: Record<string, number> = {};
    for (const [k, v] of Object.entries(client.counts.byVerb)) if (v > (before[k] ?? 0)) made[k] = v - (before[k] ?? 0);
    const counted: Record<string, number> = {};
    for (const p of run.passes) for (const [k, v] of Object.entries(p.requests)) counted[k] = (counted[k] ?? 0) + v;
    expect(counted).toEqual(made);
    expect(run.passes.at(-1)?.requests['update leases']).toBe(1);
    const nm = server.local.get(NMS, 'team', 'm1') as { status?: { conditions?: Array<{ type: string; reason?: string }> } };
    expect(nm.status?.conditions?.find((c) => c.type === 'Ready')?.reason).toBe('Scheduled');
  });
});

/** A node's conditions as "Type=Status/Reason". */
function conditionsOf(name: string): string[] {
  const node = server.local.get({ apiVersion: 'v1', resource: 'nodes' }, '', name) as { status?: { conditions?: Array<{ type: string; status: string; reason?: string }> } };
  return (node.status?.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason ?? ''}`);
}

describe('runUntilIdle of the scheduler then the drainer: one Node status write per node for the phase the round reached', () => {
  it('a request admitted, cordoned and drained in one round: no MaintenancePlanned on the way, the node shows Drained once', async () => {
    server.local.create({ apiVersion: 'v1', resource: 'nodes' }, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } });
    server.local.create(NMS, 'team', { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'NodeMaintenance', metadata: { name: 'm2', namespace: 'team' }, spec: { requestorID: 'team.example.com', nodeName: 'n2', cordon: true } });
    server.local.create({ apiVersion: 'maintenance.nvidia.com/v1alpha1', resource: 'maintenanceoperatorconfigs' }, 'kmaint', {
      apiVersion: 'maintenance.nvidia.com/v1alpha1',
      kind: 'MaintenanceOperatorConfig',
      metadata: { name: 'default', namespace: 'kmaint' },
      spec: { maxParallelOperations: 2 },
    });
    // The run of the scheduler alone (above) admitted m1: with no drainer after it, it wrote n1's conditions itself.
    expect(conditionsOf('n1')).toEqual(['MaintenancePlanned=True/MaintenanceScheduled', 'MaintenanceInProgress=False/MaintenanceScheduled', 'DrainInProgress=False/DrainNotStarted', 'Drained=False/DrainNotStarted']);
    const mark = server.mark();
    await runUntilIdle({ client, namespace: 'kmaint', now: () => new Date(), functions: ['scheduler', 'drainer'], maxRounds: 5, sleep: () => Promise.resolve() });
    // The scheduler left them to the drainer; the drainer's cordoning pass to its next one (the controller's taint
    // would have refused it on a real cluster): one write per node, of the phase its request reached (m1 on n1 too).
    const statusWrites = server.requests({ since: mark, user: 'kmaint', resource: 'nodes/status' }).map((e) => `${e.verb} ${e.name} ${e.code}`);
    expect(statusWrites.sort()).toEqual(['patch n1 200', 'patch n2 200']);
    const drained = ['MaintenancePlanned=False/MaintenanceStarted', 'MaintenanceInProgress=True/MaintenanceStarted', 'DrainInProgress=False/DrainCompleted', 'Drained=True/DrainCompleted'];
    expect([conditionsOf('n1'), conditionsOf('n2')]).toEqual([drained, drained]);
  });
});
