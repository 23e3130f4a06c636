// Issue 40, attacks 3 and 5 (the Slurm half), tried as a requestor's ServiceAccount limited to its namespace's
// NodeMaintenances and their status (test/support/attacker.ts), with the chart's admission policy and with none, against
// a REAL Slurm 26.05 (forky's, started by slurm/ from its cached rootfs; 24.11's slurmrestd serves reservations read-only).
// 3: 42 requests on one node with not-before 4 h apart (and two more on two other nodes, namespace cap 2) make one
//    reservation per node and two in all, read back from slurmrestd, however many passes run.
// 5: kmaint.io/slurm-drained and an old kmaint.io/slurm-drain-start-time preset on a request: refused at create by the
//    policy; without it, kmaint sends the drain and waits for the job: nothing is evicted until Slurm's own drain time
//    is older than spec.slurm.drainTimeoutSeconds.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_NOT_BEFORE, rfc3339Seconds } from '../shared/api/index.ts';
import { ANNOTATION_SLURM_DRAINED, ANNOTATION_SLURM_DRAIN_START } from '../shared/slurm/index.ts';
import type { PassSummary } from '../shared/pass/index.ts';
import { startSlurm, type SlurmCluster } from '../slurm-testbed/index.ts';
import { POLICY_MODES, POLICY_NAME, makeRequestor, policyModeRuns, usePolicyMode, type Requestor } from './support/attacker.ts';
import { kubectl, waitFor } from './support/cluster.ts';
import { admin, driveUntil, generalNodes, getNM, installCrds, pass, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';

const id = randomBytes(3).toString('hex');
/** The Slurm worker pods' namespace (spec.slurm.workerNamespaces): the administrator's, never the requestor's. */
const workerNs = `atk-slurm-${id}-w`;
const TOKEN_ENV = 'SLURM_KMAINT_TEST_ATTACK_JWT';
const API = 'v0.0.43';
const HOUR = 3600_000;
const KMAINT_USER = 'system:serviceaccount:kmaint:kmaint';
const DRAIN_WORKERS = { force: true, podSelector: 'app.kubernetes.io/name=slurmd', timeoutSeconds: 0 };
const DRAIN_TIMEOUT_SECONDS = 3600;
let slurm: SlurmCluster;
let slurmDir = '';
let workers: string[] = [];

async function slurmReservations(prefix: string): Promise<Array<[string, string]>> {
  const r = await slurm.rest('GET', `/slurm/${API}/reservations/`);
  expect(r.status).toBe(200);
  const all = (r.body as { reservations: Array<{ name: string; node_list: string }> }).reservations;
  return all.filter((x) => x.name.startsWith(prefix)).map((x): [string, string] => [x.name, x.node_list]).sort();
}

/** The Slurm node's state (without flags slurmctld sets on its own cycle or a missed ping) and reason. */
async function slurmNode(name: string): Promise<[string[], string]> {
  const body = (await slurm.rest('GET', `/slurm/${API}/node/${name}`)).body as { nodes: Array<{ state: string[]; reason: string }> };
  return [(body.nodes[0]?.state ?? []).filter((s) => !['RESERVED', 'MAINTENANCE', 'NOT_RESPONDING'].includes(s)), body.nodes[0]?.reason ?? ''];
}

/** A job on `node` running far longer than the test; cancelled by the test. */
async function longJob(node: string): Promise<number> {
  const r = await slurm.rest('POST', `/slurm/${API}/job/submit`, {
    job: { name: `hold-${node}`, partition: 'debug', required_nodes: [node], time_limit: { set: true, number: 60 }, current_working_directory: '/tmp', standard_output: '/dev/null', environment: ['PATH=/bin:/usr/bin'], script: '#!/bin/sh\nsleep 3000\n' },
  });
  const job = (r.body as { job_id?: number }).job_id;
  if (job === undefined) throw new Error(`job submit: ${r.status} ${JSON.stringify(r.body)}`);
  await waitFor(`Slurm node ${node} ALLOCATED to job ${job}`, async () => ((await slurmNode(node))[0].includes('ALLOCATED') ? true : undefined), 60_000, 50);
  return job;
}

async function workerPod(index: number): Promise<void> {
  const name = `slurm-n${index + 1}`;
  await kubectl(['delete', 'pod', name, '-n', workerNs, '--ignore-not-found', '--grace-period=0', '--force']);
  await admin().core.createNamespacedPod({
    namespace: workerNs,
    body: {
      metadata: { name, namespace: workerNs, labels: { 'app.kubernetes.io/name': 'slurmd' }, annotations: { 'kmaint.io/sim-termination-seconds': '0' } },
      spec: { nodeName: workers[index] as string, hostname: `n${index + 1}`, terminationGracePeriodSeconds: 1, containers: [{ name: 'slurmd', image: 'registry.k8s.io/pause:3.10' }] },
    },
  });
}

async function podRunning(name: string): Promise<boolean> {
  const pod = await admin().core.readNamespacedPod({ namespace: workerNs, name }).catch(() => undefined);
  return pod !== undefined && pod.metadata?.deletionTimestamp === undefined;
}

const slurmWritesOf = (summaries: PassSummary[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const s of summaries) for (const [k, v] of Object.entries(s.actions)) if (k.startsWith('slurm')) out[k] = (out[k] ?? 0) + v;
  return out;
};

beforeAll(async () => {
  slurmDir = mkdtempSync(join(tmpdir(), 'kmaint-slurm-attack-'));
  slurm = await startSlurm({ dir: slurmDir, nodes: 3, release: 'forky', log: (line) => process.stderr.write(`[slurm] ${line}\n`) });
  process.env[TOKEN_ENV] = slurm.token('root');
  await installCrds();
  await admin().core.createNamespace({ body: { metadata: { name: workerNs } } });
  workers = (await generalNodes()).slice(0, 3);
  expect(workers.length).toBe(3);
  await setConfig({
    maxParallelOperations: 3,
    slurm: {
      enabled: true, url: slurm.url, allowInsecureHttp: true, tokenEnv: TOKEN_ENV, mode: 'pod', podSelector: 'app.kubernetes.io/name=slurmd', workerNamespaces: [workerNs], nameFrom: 'hostname',
      reservationsPerNamespace: 2, drainTimeoutSeconds: DRAIN_TIMEOUT_SECONDS,
    },
  });
});

afterAll(async () => {
  await setConfig(undefined);
  delete process.env[TOKEN_ENV];
  await slurm?.stop();
  rmSync(slurmDir, { recursive: true, force: true });
  await kubectl(['delete', 'namespace', workerNs, '--wait=false']);
});

describe.each(POLICY_MODES)('issue 40, Slurm, as a requestor (%s)', (mode) => {
  const ns = `atk-slurm-${id}-${mode}`;
  let requestor: Requestor;
  let undoPolicy: () => Promise<void> = async () => {};
  const jobs: number[] = [];

  beforeAll(async () => {
    expect(policyModeRuns(mode), 'the policy mode needs helm: npm run helm:build').toBe(true);
    requestor = await makeRequestor(ns);
    // In effect once a preset record is refused (the probe leaves nothing behind when it lands).
    undoPolicy = await usePolicyMode(mode, async () => {
      const r = await requestor.create('probe', { requestorID: 'attacker.example.com', nodeName: workers[0] as string }, { annotations: { [ANNOTATION_SLURM_DRAINED]: 'n9' } });
      if (r === 'created') await requestor.delete('probe');
      return r.startsWith('403 ');
    });
    for (const i of [0, 1, 2]) await workerPod(i);
  });

  afterAll(async () => {
    for (const job of jobs.splice(0)) await slurm.rest('DELETE', `/slurm/${API}/job/${job}`);
    await removeAllNMs(ns);
    await undoPolicy();
    for (const w of workers) await setUnschedulable(w, false);
    for (const n of slurm.nodes) await slurm.rest('POST', `/slurm/${API}/node/${n}`, { state: ['UNDRAIN'] });
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  it('42 requests on one node 4 h apart and two on two others make 2 reservations (one per node, namespace cap 2) in 3 passes and none after; preset Slurm drain records are refused or ignored: the job keeps its worker until Slurm has drained for drainTimeoutSeconds', async () => {
    // Attack 3: every request is one a requestor may file (not-before within the policy's horizon).
    const first = Math.floor((Date.now() + HOUR) / 1000) * 1000;
    const at = (ms: number) => ({ annotations: { [ANNOTATION_NOT_BEFORE]: rfc3339Seconds(new Date(ms)) } });
    const created: string[] = [];
    for (let i = 0; i < 42; i++) created.push(await requestor.create(`req-${String(i).padStart(2, '0')}`, { requestorID: 'attacker.example.com', nodeName: workers[0] as string }, at(first + 4 * i * HOUR)));
    created.push(await requestor.create('second', { requestorID: 'attacker.example.com', nodeName: workers[1] as string }, at(first + HOUR / 2)));
    created.push(await requestor.create('third', { requestorID: 'attacker.example.com', nodeName: workers[2] as string }, at(first + HOUR)));
    expect(created).toEqual(Array.from({ length: 44 }, () => 'created'));

    const passes: PassSummary[] = [];
    for (let i = 0; i < 3; i++) passes.push(await pass('scheduler'));
    expect(slurmWritesOf(passes)).toEqual({ slurmReserve: 2 });
    // Each pass reads the worker pods of the two nodes to reserve (before issue 40: of all three, one after another).
    expect(passes.map((p) => p.requests['list pods'] ?? 0)).toEqual([2, 2, 2]);
    expect(await slurmReservations(`kmaint_${ns}_`)).toEqual([[`kmaint_${ns}_req-00`, 'n1'], [`kmaint_${ns}_second`, 'n2']]);
    const more = [await pass('scheduler'), await pass('cleanup')];
    expect(slurmWritesOf(more)).toEqual({});
    expect(await slurmReservations(`kmaint_${ns}_`)).toEqual([[`kmaint_${ns}_req-00`, 'n1'], [`kmaint_${ns}_second`, 'n2']]);
    // Deleted: cleanup deletes both reservations before it lets the requests go.
    await removeAllNMs(ns);
    expect(await slurmReservations(`kmaint_${ns}_`)).toEqual([]);

    // Attack 5: the records that gate an eviction, preset on a request for n3, where a job runs.
    jobs.push(await longJob('n3'));
    const preset = await requestor.create('preset', { requestorID: 'attacker.example.com', nodeName: workers[2] as string, drainSpec: DRAIN_WORKERS }, { annotations: { [ANNOTATION_SLURM_DRAINED]: 'n3', [ANNOTATION_SLURM_DRAIN_START]: '2020-01-01T00:00:00Z' } });
    if (mode === 'policy') {
      expect(preset).toBe(
        `403 nodemaintenances.maintenance.nvidia.com "preset" is forbidden: ValidatingAdmissionPolicy '${POLICY_NAME}' with binding '${POLICY_NAME}' denied request: annotation ${ANNOTATION_SLURM_DRAINED}, ${ANNOTATION_SLURM_DRAIN_START} is a record only kmaint writes: only ${KMAINT_USER} may set, change or remove it`,
      );
      await driveUntil('one round', async () => true);
      expect([await getNM(ns, 'preset'), await slurmNode('n3'), await podRunning('slurm-n3')]).toEqual([undefined, [['ALLOCATED'], ''], true]);
      return;
    }
    expect(preset).toBe('created');
    const reason = `kmaint: attacker.example.com ${ns}/preset`;
    await driveUntil('n3 drained for the request', async () => ((await slurmNode('n3'))[0].includes('DRAIN') ? true : undefined));
    // Passes after the drain: on the code before issue 40 the first of them evicted the worker (the preset start was
    // years past drainTimeoutSeconds); now the timeout counts from Slurm's own drain time, seconds ago.
    for (let i = 0; i < 3; i++) await pass('drainer');
    const waiting = await getNM(ns, 'preset');
    expect([waiting?.status?.conditions?.find((c) => c.type === 'Ready')?.message, await slurmNode('n3'), await podRunning('slurm-n3')]).toEqual([
      'waiting: Slurm node n3 draining, state ALLOCATED+DRAIN',
      [['ALLOCATED', 'DRAIN'], reason],
      true,
    ]);
    // An hour and more after Slurm took the drain (kmaint's clock ahead, Slurm's real), the timeout evicts as configured.
    await pass('drainer', { now: new Date(Date.now() + DRAIN_TIMEOUT_SECONDS * 1000 + HOUR) });
    expect(await podRunning('slurm-n3')).toBe(false);
  });
});
