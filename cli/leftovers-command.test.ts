// `kmaint leftovers` end to end over an API server that serves Jobs but no DeviceTaintRule version (the simulated API
// server started without them, as a cluster without the DRA device-taint API): the missing API is no error and is not mentioned; kmaint's
// reboot Job is found (exit 1) and deleted by --fix (exit 0), a look-alike Job is kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../shared/kube/index.ts';
import { rebootJobManifest } from '../shared/reboot/index.ts';
import { startSimApiServer, type SimApiServer } from '../sim/apiserver/index.ts';
import { CRD_DIR } from '../sim/apiserver/test-support.ts';
import { InProcessTransport } from '../sim/whatif/in-process-transport.ts';
import { leftoversCommand, type LeftoversContext } from './leftovers-command.ts';

const JOB = 'kmaint-reboot-5e1f0000-0000-4000-8000-000000000001';
let server: SimApiServer;
let client: KubeClient;

beforeAll(async () => {
  server = await startSimApiServer({ crds: [CRD_DIR], deviceTaintRules: false });
  server.local.create({ apiVersion: 'v1', resource: 'namespaces' }, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kmaint' } });
  client = new KubeClient(new InProcessTransport(server.local, server.context));
  expect((await client.createJob('kmaint', rebootJobManifest({ namespace: 'kmaint', name: JOB, nodeName: 'n1', image: 'debian', command: ['true'], privileged: true, hostPID: true, request: 'team/fw' }))).kind).toBe('ok');
  // Someone else's Job under kmaint's name form, without kmaint's labels.
  const lookalike = { metadata: { name: 'kmaint-reboot-nightly', namespace: 'kmaint', labels: { app: 'nightly' } }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } } } };
  expect((await client.createJob('kmaint', lookalike)).kind).toBe('ok');
});
afterAll(async () => {
  await server.stop();
});

function context(notes: string[]): LeftoversContext {
  return { client, kmaintNamespace: 'kmaint', output: 'text', env: {}, note: (line) => void notes.push(line), now: () => new Date('2026-12-02T16:00:00Z') };
}

describe('kmaint leftovers on a cluster without DeviceTaintRules', () => {
  it("lists kmaint's reboot Job (exit 1) with no word about the missing API; --fix deletes it (exit 0) and keeps the look-alike", async () => {
    // The API is not served: every version's LIST is a 404.
    expect(await client.listDeviceTaintRules()).toBeUndefined();
    const flags = { slurmTokenEnv: 'SLURM_JWT', slurmReasonPrefix: 'kmaint:' };
    const listing: string[] = [];
    expect(await leftoversCommand(flags, context(listing))).toBe(1);
    expect(listing).toEqual(['Slurm not read: no MaintenanceOperatorConfig kmaint/default and no --slurm-url']);
    const fixing: string[] = [];
    expect(await leftoversCommand({ ...flags, fix: true }, context(fixing))).toBe(0);
    expect(fixing).toEqual(['Slurm not read: no MaintenanceOperatorConfig kmaint/default and no --slurm-url', `fix: delete reboot Job kmaint/${JOB}: kmaint's reboot Job for team/fw, with no kmaint to delete it`]);
    expect((await client.listJobs('kmaint')).map((j) => j.metadata?.name)).toEqual(['kmaint-reboot-nightly']);
  });
});
