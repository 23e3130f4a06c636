// The reboot Job's create after its record (issue 43): the drainer records the boot ID, the start and the Job on the
// request, then creates the Job in the same write unit, and writes `Rebooting` only once the create landed. A create
// that does not land (refused, or the pass stopped) used to leave the request waiting for a Job that was never there
// until spec.reboot.timeoutSeconds ran out; a create that landed with its answer lost met 409 on its retry and stopped
// the unit. Against the simulated API server, in process, with the pass's transport failing the create.
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANNOTATION_REBOOT, ANNOTATION_REBOOT_BOOT_ID, ANNOTATION_REBOOT_ISSUED } from '../shared/api/index.ts';
import { HttpFailureError, KubeClient, type KubeTransport } from '../shared/kube/index.ts';
import { failingFirst } from '../shared/kube/test-builders.ts';
import { runPass } from '../shared/pass/index.ts';
import { startSimApiServer, type SimApiServer } from './apiserver/index.ts';
import { InProcessTransport } from './whatif/in-process-transport.ts';

const CRDS = fileURLToPath(new URL('../crds/', import.meta.url));
const NMS = { apiVersion: 'maintenance.nvidia.com/v1alpha1', resource: 'nodemaintenances' };
const NODES = { apiVersion: 'v1', resource: 'nodes' };
const JOBS = { apiVersion: 'batch/v1', resource: 'jobs' };
let server: SimApiServer;
let uid = '';

// A cluster of its own for each case: Node n1 (Ready, boot ID boot-1), request r on it asking for a reboot.
beforeEach(async () => {
  server = await startSimApiServer({ crds: [CRDS] });
  for (const name of ['kmaint', 'team']) server.local.create({ apiVersion: 'v1', resource: 'namespaces' }, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  server.local.create(NODES, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
  server.local.patch(NODES, '', 'n1', { status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { bootID: 'boot-1' } } }, 'merge', 'status');
  server.local.create({ apiVersion: 'maintenance.nvidia.com/v1alpha1', resource: 'maintenanceoperatorconfigs' }, 'kmaint', {
    apiVersion: 'maintenance.nvidia.com/v1alpha1',
    kind: 'MaintenanceOperatorConfig',
    metadata: { name: 'default', namespace: 'kmaint' },
    spec: { maxParallelOperations: 1, reboot: { timeoutSeconds: 1800 } },
  });
  const created = server.local.create(NMS, 'team', {
    apiVersion: 'maintenance.nvidia.com/v1alpha1',
    kind: 'NodeMaintenance',
    metadata: { name: 'r', namespace: 'team', annotations: { [ANNOTATION_REBOOT]: 'true' } },
    spec: { requestorID: 'team.example.com', nodeName: 'n1', cordon: true },
  }) as { metadata: { uid: string } };
  uid = created.metadata.uid;
});

afterEach(async () => {
  await server.stop();
});

/** The in-process transport, its first Job create failed by `fail` (which may let the create land first). */
function failingFirstJobCreate(inner: KubeTransport, fail: (create: () => ReturnType<KubeTransport['create']>) => ReturnType<KubeTransport['create']>): { transport: KubeTransport; failed: () => number } {
  return failingFirst(inner, 'create', (resource) => resource.plural === 'jobs', fail);
}

const plain = (): KubeClient => new KubeClient(new InProcessTransport(server.local, server.context));
const pass = (fn: 'scheduler' | 'drainer', client: KubeClient = plain()): ReturnType<typeof runPass> => runPass(fn, { client, namespace: 'kmaint', now: () => new Date() });
const request = (): { annotations: Record<string, string>; phase: string | undefined; message: string | undefined } => {
  const nm = server.local.get(NMS, 'team', 'r') as { metadata: { annotations?: Record<string, string> }; status?: { conditions?: Array<{ type: string; reason?: string; message?: string }> } };
  const ready = nm.status?.conditions?.find((c) => c.type === 'Ready');
  return { annotations: nm.metadata.annotations ?? {}, phase: ready?.reason, message: ready?.message };
};
const jobs = (): string[] => server.local.list(JOBS, { namespace: 'kmaint' }).map((j) => (j as { metadata: { name: string } }).metadata.name);

describe('the reboot Job when the pass that recorded it could not create it', () => {
  it('a create refused (403): the record stays, the request is not Rebooting, and the next drainer pass creates the same Job; the reboot then finishes', async () => {
    await pass('scheduler');
    const refusing = failingFirstJobCreate(new InProcessTransport(server.local, server.context), () =>
      Promise.reject(new HttpFailureError({ status: 403, message: 'jobs.batch is forbidden: an admission webhook said no', retryAfter: undefined })),
    );
    const first = await pass('drainer', new KubeClient(refusing.transport));
    expect(refusing.failed()).toBe(1);
    const job = `kmaint/kmaint-reboot-${uid}`;
    expect(first.errors).toEqual([`create reboot Job ${job} on node n1: reboot node n1 (boot ID boot-1): creating Job ${job}: HTTP 403: jobs.batch is forbidden: an admission webhook said no`]);
    const recorded = request();
    expect([recorded.annotations[ANNOTATION_REBOOT_BOOT_ID], recorded.annotations[ANNOTATION_REBOOT_ISSUED], jobs()]).toEqual(['boot-1', `job kmaint/kmaint-reboot-${uid}`, []]);
    expect(recorded.phase).not.toBe('Rebooting');

    await pass('drainer');
    expect([jobs(), request().phase, request().message]).toEqual([
      [`kmaint-reboot-${uid}`],
      'Rebooting',
      `rebooting node n1: job kmaint/kmaint-reboot-${uid} created again (recorded by a pass whose writes did not all land); waiting for a new boot ID (was boot-1) and Ready`,
    ]);
    // Created once: the next pass only waits.
    await pass('drainer');
    expect([jobs(), request().message]).toEqual([[`kmaint-reboot-${uid}`], `rebooting node n1: job kmaint/kmaint-reboot-${uid} issued; waiting for a new boot ID (was boot-1)`]);

    server.local.patch(NODES, '', 'n1', { status: { nodeInfo: { bootID: 'boot-2' } } }, 'merge', 'status');
    await pass('drainer');
    expect([request().phase, request().message]).toEqual(['Ready', 'node n1 rebooted (boot ID boot-1 -> boot-2)']);
  });

  it('a create that landed with its answer lost (a 504 after it): the retry meets 409, which counts as created, and the request is Rebooting in that same pass with one Job', async () => {
    await pass('scheduler');
    const losing = failingFirstJobCreate(new InProcessTransport(server.local, server.context), async (create) => {
      await create();
      throw new HttpFailureError({ status: 504, message: 'the answer was lost on the way back', retryAfter: undefined });
    });
    const first = await pass('drainer', new KubeClient(losing.transport, { sleep: () => Promise.resolve() }));
    expect([losing.failed(), first.errors]).toEqual([1, []]);
    expect([jobs(), request().phase, request().message]).toEqual([
      [`kmaint-reboot-${uid}`],
      'Rebooting',
      `rebooting node n1: job kmaint/kmaint-reboot-${uid} issued; waiting for a new boot ID (was boot-1) and Ready`,
    ]);
  });
});
