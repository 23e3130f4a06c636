// A scheduler pass slowed down past its lease (a 503, then a long wait before the retry) while another scheduler pass
// takes the expired lease and admits a request: the slow pass's retry must not land, or two requests would be in
// progress under maxParallelOperations 1. The write fence (shared/pass/lease-fence.ts) renews the lease before the
// retry, finds it taken and stops the pass's writes. Against the simulated API server, in process.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_ADMITTED, ANNOTATION_DEADLINE } from '../shared/api/index.ts';
import { HttpFailureError, KubeClient, type KubeTransport } from '../shared/kube/index.ts';
import { runPass } from '../shared/pass/index.ts';
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

beforeAll(async () => {
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

afterAll(async () => {
  await server.stop();
});

/** The in-process transport, with its first Node patch answered 503 (the API server overloaded). */
function failingFirstNodePatch(inner: KubeTransport): { transport: KubeTransport; failed: () => number } {
  let failures = 0;
  const transport = new Proxy(inner, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (prop !== 'patch' || typeof value !== 'function') return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      return (...args: Parameters<KubeTransport['patch']>) => {
        if (args[0].resource.plural === 'nodes' && failures === 0) {
          failures++;
          return Promise.reject(new HttpFailureError({ status: 503, message: 'the server is currently unable to handle the request', retryAfter: undefined }));
        }
        return (value as KubeTransport['patch']).apply(target, args);
      };
    },
  });
  return { transport, failed: () => failures };
}

const readyReason = (name: string): string | undefined =>
  (server.local.get(NMS, 'team', name) as { status?: { conditions?: Array<{ type: string; reason?: string }> } }).status?.conditions?.find((c) => c.type === 'Ready')?.reason;
const admittedOn = (node: string): string | undefined => (server.local.get(NODES, '', node) as { metadata: { annotations?: Record<string, string> } }).metadata.annotations?.[ANNOTATION_ADMITTED];

describe('the lease as a write fence', () => {
  it('a pass whose lease expired and was taken while it waited to retry sends none of its writes after that', async () => {
    let t = T0;
    const now = (): Date => new Date(t);
    let second: PassSummary | undefined;
    const { transport, failed } = failingFirstNodePatch(new InProcessTransport(server.local, server.context));
    // Pass A's client: its retry waits while 60 s pass (its 30 s lease runs out) and pass B runs to the end.
    const slow = new KubeClient(transport, {
      sleep: async () => {
        t += 60_000;
        // A request with a deadline ten minutes away, at risk: pass B ranks it first and admits it (n2).
        server.local.create(NMS, 'team', {
          apiVersion: 'maintenance.nvidia.com/v1alpha1',
          kind: 'NodeMaintenance',
          metadata: { name: 'z', namespace: 'team', annotations: { [ANNOTATION_DEADLINE]: new Date(t + 600_000).toISOString() } },
          spec: { requestorID: 'other.example.com', nodeName: 'n2', cordon: true },
        });
        const fresh = new KubeClient(new InProcessTransport(server.local, server.context));
        second = await runPass('scheduler', { client: fresh, namespace: 'kmaint', now, holder: 'pass-b', leaseSeconds: 30 });
      },
    });
    const first = await runPass('scheduler', { client: slow, namespace: 'kmaint', now, holder: 'pass-a', leaseSeconds: 30 });

    expect(failed()).toBe(1);
    // Pass B took the expired lease and admitted z; pass A's retry of a's admission record was never sent.
    expect({ b: second?.admitted, bErrors: second?.errors, n1: admittedOn('n1'), n2: admittedOn('n2')?.split('/').slice(0, 2).join('/'), a: readyReason('a'), z: readyReason('z') }).toEqual({
      b: 1,
      bErrors: [],
      n1: undefined,
      n2: 'team/z',
      a: 'Pending',
      z: 'Scheduled',
    });
    expect({ admitted: first.admitted, errors: first.errors, actions: first.actions }).toEqual({
      admitted: 1,
      errors: ['the rest of the plan: lease kmaint/kmaint-scheduler changed since we renewed it (conflict): this pass writes no more'],
      actions: {},
    });
    // Pass A did not give back a lease that is pass B's: B gave its own back (holder cleared) and nothing wrote it since.
    const lease = server.local.get(LEASES, 'kmaint', 'kmaint-scheduler') as { spec: { holderIdentity?: string } };
    expect(lease.spec.holderIdentity ?? '').toBe('');
  });
});
