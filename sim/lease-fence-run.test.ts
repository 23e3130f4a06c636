// A scheduler pass slowed down past its lease (a 503, then a long wait before the retry) while another scheduler pass
// takes the expired lease and admits a request: the slow pass's retry must not land, or two requests would be in
// progress under maxParallelOperations 1. The write fence (shared/pass/lease-fence.ts) renews the lease before the
// retry, finds it taken and stops the pass's writes. Against the simulated API server, in process.
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANNOTATION_ADMITTED, ANNOTATION_DEADLINE } from '../shared/api/index.ts';
import { HttpFailureError, KubeClient, type KubeTransport } from '../shared/kube/index.ts';
import { failingFirst } from '../shared/kube/test-builders.ts';
import { runPass } from '../shared/pass/index.ts';
import { runUntilIdle } from '../shared/runtime/index.ts';
import type { PassSummary } from '../shared/pass/index.ts';
import { startSimApiServer, type SimApiServer } from './apiserver/index.ts';
import { InProcessTransport } from './whatif/in-process-transport.ts';

const CRDS = fileURLToPath(new URL('../crds/', import.meta.url));
const NMS = { apiVersion: 'maintenance.nvidia.com/v1alpha1', resource: 'nodemaintenances' };
const NODES = { apiVersion: 'v1', resource: 'nodes' };
const LEASES = { apiVersion: 'coordination.k8s.io/v1', resource: 'leases' };
// The pass clock starts at the real one: the API server stamps creationTimestamp, and a deadline before it is not believed.
const T0 = Date.now();
let server: SimApiServer;

// A cluster of its own for each case: two Nodes, maxParallelOperations 1, request a on n1.
beforeEach(async () => {
  server = await startSimApiServer({ crds: [CRDS] });
  for (const name of ['kmaint', 'team']) server.local.create({ apiVersion: 'v1', resource: 'namespaces' }, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  for (const name of ['n1', 'n2']) server.local.create(NODES, '', { apiVersion: 'v1', kind: 'Node', metadata: { name } });
  server.local.create({ apiVersion: 'maintenance.nvidia.com/v1alpha1', resource: 'maintenanceoperatorconfigs' }, 'kmaint', {
    apiVersion: 'maintenance.nvidia.com/v1alpha1',
    kind: 'MaintenanceOperatorConfig',
    metadata: { name: 'default', namespace: 'kmaint' },
    spec: { maxParallelOperations: 1 },
  });
  server.local.create(NMS, 'team', { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'NodeMaintenance', metadata: { name: 'a', namespace: 'team' }, spec: { requestorID: 'team.example.com', nodeName: 'n1', cordon: true } });
});

afterEach(async () => {
  await server.stop();
});

/** The in-process transport, with its first Node patch answered 503 (the API server overloaded). */
function failingFirstNodePatch(inner: KubeTransport): { transport: KubeTransport; failed: () => number } {
  return failingFirst(inner, 'patch', (target) => target.resource.plural === 'nodes', () =>
    Promise.reject(new HttpFailureError({ status: 503, message: 'the server is currently unable to handle the request', retryAfter: undefined })),
  );
}

const readyReason = (name: string): string | undefined =>
  (server.local.get(NMS, 'team', name) as { status?: { conditions?: Array<{ type: string; reason?: string }> } }).status?.conditions?.find((c) => c.type === 'Ready')?.reason;
const admittedOn = (node: string): string | undefined => (server.local.get(NODES, '', node) as { metadata: { annotations?: Record<string, string> } }).metadata.annotations?.[ANNOTATION_ADMITTED];

/**
 * The client of the pass that stalls: its first Node patch is answered 503, and while it waits to retry 60 s pass (its
 * 30 s lease runs out), request z with a deadline ten minutes away (at risk: ranked first) is created on n2, and
 * another scheduler pass (`pass-b`) runs to its end on a client of its own.
 */
function stalledClient(clock: { t: number }, now: () => Date, seen: { second?: PassSummary }): { client: KubeClient; failed: () => number } {
  const { transport, failed } = failingFirstNodePatch(new InProcessTransport(server.local, server.context));
  const client = new KubeClient(transport, {
    sleep: async () => {
      clock.t += 60_000;
      server.local.create(NMS, 'team', {
        apiVersion: 'maintenance.nvidia.com/v1alpha1',
        kind: 'NodeMaintenance',
        metadata: { name: 'z', namespace: 'team', annotations: { [ANNOTATION_DEADLINE]: new Date(clock.t + 600_000).toISOString() } },
        spec: { requestorID: 'other.example.com', nodeName: 'n2', cordon: true },
      });
      const fresh = new KubeClient(new InProcessTransport(server.local, server.context));
      seen.second = await runPass('scheduler', { client: fresh, namespace: 'kmaint', now, holder: 'pass-b', leaseSeconds: 30 });
    },
  });
  return { client, failed };
}

/** What the cluster says after both passes: pass B admitted z (n2), a stayed Pending with no record on n1. */
function afterBoth(second: PassSummary | undefined): unknown {
  return { b: second?.admitted, bErrors: second?.errors, n1: admittedOn('n1'), n2: admittedOn('n2')?.split('/').slice(0, 2).join('/'), a: readyReason('a'), z: readyReason('z') };
}
const BOTH = { b: 1, bErrors: [], n1: undefined, n2: 'team/z', a: 'Pending', z: 'Scheduled' };
const STOPPED = 'the rest of the plan: lease kmaint/kmaint-scheduler changed since we renewed it (conflict): this pass writes no more';

describe('the lease as a write fence', () => {
  it('a pass whose lease expired and was taken while it waited to retry sends none of its writes after that', async () => {
    const clock = { t: T0 };
    const now = (): Date => new Date(clock.t);
    const seen: { second?: PassSummary } = {};
    const { client, failed } = stalledClient(clock, now, seen);
    const first = await runPass('scheduler', { client, namespace: 'kmaint', now, holder: 'pass-a', leaseSeconds: 30 });

    expect(failed()).toBe(1);
    // Pass B took the expired lease and admitted z; pass A's retry of a's admission record was never sent.
    expect(afterBoth(seen.second)).toEqual(BOTH);
    expect({ admitted: first.admitted, errors: first.errors, actions: first.actions }).toEqual({ admitted: 1, errors: [STOPPED], actions: {} });
    // Pass A did not give back a lease that is pass B's: B gave its own back (holder cleared) and nothing wrote it since.
    const lease = server.local.get(LEASES, 'kmaint', 'kmaint-scheduler') as { spec: { holderIdentity?: string } };
    expect(lease.spec.holderIdentity ?? '').toBe('');
  });

  it('the same in `kmaint run` (the run keeps its lease across passes): the stalled run stops writing, and says why', async () => {
    const clock = { t: T0 };
    const now = (): Date => new Date(clock.t);
    const seen: { second?: PassSummary } = {};
    const { client, failed } = stalledClient(clock, now, seen);
    const run = await runUntilIdle({ client, namespace: 'kmaint', now, holder: 'run-a', leaseSeconds: 30, functions: ['scheduler'], maxRounds: 1, sleep: () => Promise.resolve() });

    expect(failed()).toBe(1);
    expect(afterBoth(seen.second)).toEqual(BOTH);
    expect(run.passes.map((p) => ({ fn: p.fn, admitted: p.admitted, errors: p.errors, actions: p.actions }))).toEqual([{ fn: 'scheduler', admitted: 1, errors: [STOPPED], actions: {} }]);
  });
});
