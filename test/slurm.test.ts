// Slurm-aware drain end to end: kmaint's real passes on the testbed plus a REAL Slurm 24.11 (slurmctld, 3 slurmd,
// slurmrestd with JWT) started by slurm/ from the cached trixie rootfs.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_PLURAL, GROUP, VERSION } from '../shared/api/index.ts';
import type { MaintenanceOperatorConfig, NodeMaintenance } from '../shared/api/index.ts';
import { statusRow } from '../cli/status.ts';
import { ANNOTATION_SLURM_DRAINED, ANNOTATION_SLURM_DRAIN_START, WORKER_NAMESPACES_UNSET_NOTE } from '../shared/slurm/index.ts';
import { startSlurm, type SlurmCluster } from '../slurm-testbed/index.ts';
import { portBindable } from '../testbed/processes.ts';
import { kubectl, testbed, waitFor } from './support/cluster.ts';
import { KMAINT_NS, admin, createNM, deleteNM, driveUntil, generalNodes, getNM, installCrds, phaseOf, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';
import { kmaintArgs } from './support/kmaint-cli.ts';

const ns = `slurm-${randomBytes(3).toString('hex')}`;
// spec.slurm.tokenEnv must match ^SLURM_[A-Z0-9_]+$ (issue 31); the slurm/ test cluster speaks plain http (allowInsecureHttp).
const TOKEN_ENV = 'SLURM_KMAINT_TEST_JWT';
const WORKER_LABELS = { 'app.kubernetes.io/name': 'slurmd' };
let slurm: SlurmCluster;
let slurmDir = '';
let workers: string[] = [];
/** Jobs submitted by the running test, cancelled after it. */
const jobs: number[] = [];

interface RestNode {
  name: string;
  state: string[];
  reason: string;
}

async function slurmNode(name: string): Promise<RestNode> {
  const r = await slurm.rest('GET', `/slurm/v0.0.41/node/${name}`);
  const node = (r.body as { nodes: RestNode[] }).nodes[0];
  if (!node) throw new Error(`Slurm node ${name} not found`);
  // On a loaded machine slurmctld may miss one ping of a slurmd (NOT_RESPONDING until the next); it says nothing
  // about drains, which is what these tests read.
  return { name: node.name, state: node.state.filter((s) => s !== 'NOT_RESPONDING'), reason: node.reason };
}

/**
 * Submits a job on `node` and waits until the node is ALLOCATED: `sleep seconds`, or with 'until-released' one that
 * runs until releaseJob(node), which works while slurmrestd is down (the cluster's directory is /kmt in its chroot).
 */
async function runJob(node: string, seconds: number | 'until-released'): Promise<number> {
  const script = seconds === 'until-released' ? `#!/bin/sh\nwhile [ ! -e /kmt/run/release-${node} ]; do sleep 0.1; done\ntouch /kmt/run/released-${node}\n` : `#!/bin/sh\nsleep ${seconds}\n`;
  const r = await slurm.rest('POST', '/slurm/v0.0.41/job/submit', {
    job: { name: `hold-${node}`, partition: 'debug', required_nodes: [node], current_working_directory: '/tmp', standard_output: '/dev/null', environment: ['PATH=/bin:/usr/bin'], script },
  });
  const id = (r.body as { job_id?: number }).job_id;
  if (r.status !== 200 || id === undefined) throw new Error(`job submit: ${r.status} ${JSON.stringify(r.body)}`);
  jobs.push(id);
  await waitFor(`Slurm node ${node} ALLOCATED to job ${id}`, async () => ((await slurmNode(node)).state.includes('ALLOCATED') ? true : undefined), 60_000, 50);
  return id;
}

/** Ends the 'until-released' job on `node` and waits until its script has exited. */
async function releaseJob(node: string): Promise<void> {
  writeFileSync(join(slurmDir, 'run', `release-${node}`), '');
  const released = join(slurmDir, 'run', `released-${node}`);
  await waitFor(`the job on ${node} to end after its release (${released})`, async () => (existsSync(released) ? true : undefined), 60_000, 50);
  rmSync(join(slurmDir, 'run', `release-${node}`));
  rmSync(released);
}

/** Waits until slurmctld's own log (read on the host: no slurmrestd needed) has a line containing `text`. */
async function untilCtldLogs(text: string): Promise<void> {
  const file = join(slurmDir, 'log', 'slurmctld.log');
  await waitFor(`slurmctld.log to say "${text}"`, async () => (readFileSync(file, 'utf8').includes(text) ? true : undefined), 60_000, 50);
}

/** Cancels a job (scancel): the node leaves ALLOCATED as a job that ended would, without waiting out its sleep. */
async function endJob(id: number): Promise<void> {
  const r = await slurm.rest('DELETE', `/slurm/v0.0.41/job/${id}`);
  if (r.status !== 200) throw new Error(`job cancel ${id}: ${r.status} ${JSON.stringify(r.body)}`);
  jobs.splice(jobs.indexOf(id), 1);
}

/** A Slinky-style NodeSet worker pod: hostname = Slurm node name. */
async function workerPod(name: string, node: string, hostname: string): Promise<void> {
  await admin().core.createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name, namespace: ns, labels: WORKER_LABELS, annotations: { 'kmaint.io/sim-termination-seconds': '0' } },
      spec: { nodeName: node, hostname, terminationGracePeriodSeconds: 1, containers: [{ name: 'slurmd', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m' } } }] },
    },
  });
}

async function podState(name: string): Promise<'running' | 'evicted'> {
  try {
    const pod = await admin().core.readNamespacedPod({ namespace: ns, name });
    return pod.metadata?.deletionTimestamp ? 'evicted' : 'running';
  } catch {
    return 'evicted';
  }
}

/** `kmaint status -o json` as kmaint's ServiceAccount (a List of the requests), each request as status's row. */
async function kmaintStatus(): Promise<Array<Record<string, unknown>>> {
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, kmaintArgs('--kubeconfig', testbed().kmaintKubeconfigPath, 'status', '-o', 'json'), { timeout: 60_000 }, (err, out) => (err ? reject(err) : resolve(out)));
  });
  return (JSON.parse(stdout) as { items: NodeMaintenance[] }).items.map((nm) => statusRow(nm, new Date()) as unknown as Record<string, unknown>);
}

/** `kmaint explain ns/name` as kmaint's ServiceAccount, by line. */
async function kmaintExplain(ref: string): Promise<string[]> {
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, kmaintArgs('--kubeconfig', testbed().kmaintKubeconfigPath, 'explain', ref), { timeout: 60_000 }, (err, out) => (err ? reject(err) : resolve(out)));
  });
  return stdout.trimEnd().split('\n');
}

/** The events of one reason on a request, oldest first: [firstTimestamp in ms, message]. */
async function events(name: string, reason: string): Promise<Array<[number, string]>> {
  const list = await admin().core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.kind=NodeMaintenance,involvedObject.name=${name},reason=${reason}` });
  return list.items.map((e): [number, string] => [e.firstTimestamp ? new Date(e.firstTimestamp).getTime() : 0, e.message ?? '']).sort((a, b) => a[0] - b[0]);
}

function message(nm: NodeMaintenance | undefined): string {
  return nm?.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? '';
}

async function untilMessage(name: string, expected: string | RegExp): Promise<NodeMaintenance> {
  return driveUntil(`${ns}/${name} says ${String(expected)}`, async () => {
    const nm = await getNM(ns, name);
    const m = message(nm);
    return (typeof expected === 'string' ? m === expected : expected.test(m)) ? nm : undefined;
  });
}

async function untilReady(name: string): Promise<NodeMaintenance> {
  return driveUntil(`${ns}/${name} Ready`, async () => {
    const nm = await getNM(ns, name);
    return phaseOf(nm) === 'Ready' ? nm : undefined;
  });
}

async function untilGone(name: string): Promise<void> {
  await driveUntil(`${ns}/${name} gone`, async () => ((await getNM(ns, name)) === undefined ? true : undefined));
}

function slurmConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    maxParallelOperations: 3,
    slurm: { enabled: true, url: slurm.url, allowInsecureHttp: true, tokenEnv: TOKEN_ENV, mode: 'pod', podSelector: 'app.kubernetes.io/name=slurmd', workerNamespaces: [ns], nameFrom: 'hostname', ...extra },
  };
}

const DRAIN_WORKERS = { force: true, podSelector: 'app.kubernetes.io/name=slurmd', timeoutSeconds: 0 };

describe('Slurm-aware drain on the testbed with a real Slurm 24.11', () => {
  beforeAll(async () => {
    slurmDir = mkdtempSync(join(tmpdir(), 'kmaint-slurm-'));
    slurm = await startSlurm({ dir: slurmDir, nodes: 3, log: (line) => process.stderr.write(`[slurm] ${line}\n`) });
    process.env[TOKEN_ENV] = slurm.token('root');
    await installCrds();
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    workers = await generalNodes();
    expect(workers.length).toBeGreaterThanOrEqual(3);
  });
  afterEach(async () => {
    await slurm.startRestd();
    process.env[TOKEN_ENV] = slurm.token('root');
    // A job a test left running (it failed, or it held its node on purpose) must not hold the next test's node.
    for (const id of jobs.splice(0)) await slurm.rest('DELETE', `/slurm/v0.0.41/job/${id}`);
    await removeAllNMs(ns);
    await setConfig(undefined);
    for (const w of workers) await setUnschedulable(w, false);
    await kubectl(['delete', 'pods', '--all', '-n', ns, '--grace-period=0', '--force']);
    for (const n of slurm.nodes) await slurm.rest('POST', `/slurm/v0.0.41/node/${n}`, { state: ['UNDRAIN'] });
  });
  afterAll(async () => {
    delete process.env[TOKEN_ENV];
    await slurm?.stop();
    rmSync(slurmDir, { recursive: true, force: true });
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  it('a job on n1 holds the eviction; once n1 is Drained the worker is evicted and the request is Ready; deletion undrains n1', async () => {
    const node = workers[0] as string;
    await workerPod('slurm-n1', node, 'n1');
    await setConfig(slurmConfig());
    // Longer than any wait below; the test ends it once the wait has been seen.
    const job = await runJob('n1', 300);
    await createNM(ns, 'job-on-n1', { requestorID: 'upgrade.acme.com', nodeName: node, drainSpec: DRAIN_WORKERS });

    const waiting = await untilMessage('job-on-n1', 'waiting: Slurm node n1 draining, state ALLOCATED+DRAIN');
    expect(phaseOf(waiting)).toBe('Draining');
    expect(waiting.metadata.annotations?.[ANNOTATION_SLURM_DRAINED]).toBe('n1');
    expect(await slurmNode('n1')).toEqual({ name: 'n1', state: ['ALLOCATED', 'DRAIN'], reason: `kmaint: upgrade.acme.com ${ns}/job-on-n1` });
    expect(await podState('slurm-n1')).toBe('running');
    // kmaint status and kmaint explain at once (two CLI processes); the job holds n1 until the test ends it below.
    const [rows, explained] = await Promise.all([kmaintStatus(), kmaintExplain(`${ns}/job-on-n1`)]);
    const row = rows.find((r) => r['request'] === `${ns}/job-on-n1`);
    expect([row?.['phase'], row?.['message']]).toEqual(['Draining', 'waiting: Slurm node n1 draining, state ALLOCATED+DRAIN']);
    // kmaint explain: the Slurm wait is its own section, and the next thing is the job ending.
    expect(explained.slice(1, 4)).toEqual(['  Ready: waiting: Slurm node n1 draining, state ALLOCATED+DRAIN', 'Slurm:', '  WAIT  waiting: Slurm node n1 draining, state ALLOCATED+DRAIN']);
    expect(explained.filter((l) => l.includes(`${ns}/slurm-n1`))).toEqual([`  evict ${ns}/slurm-n1 (no PodDisruptionBudget)`]);
    expect(explained.at(-1)).toBe('next: the jobs on the Slurm nodes above must end: each must read DRAINED (the DRAIN flag and none of ALLOCATED, MIXED, COMPLETING); then the drainer evicts the pods');
    expect(await podState('slurm-n1')).toBe('running');

    await endJob(job);
    const ready = await untilReady('job-on-n1');
    expect(message(ready)).toBe('');
    expect((await slurmNode('n1')).state).toEqual(['IDLE', 'DRAIN']);
    expect(await podState('slurm-n1')).toBe('evicted');

    await deleteNM(ns, 'job-on-n1');
    await untilGone('job-on-n1');
    // 24.11 keeps the reason text after an undrain; the DRAIN flag is what kmaint lifted.
    expect(await slurmNode('n1')).toEqual({ name: 'n1', state: ['IDLE'], reason: `kmaint: upgrade.acme.com ${ns}/job-on-n1` });
  });

  it("issue 31: a tenant's pod matching podSelector in another namespace, with spec.hostname n2, names no Slurm node once spec.slurm.workerNamespaces is set: only n1 is drained and undrained", async () => {
    const node = workers[0] as string;
    const tenant = `${ns}-tenant`;
    await admin().core.createNamespace({ body: { metadata: { name: tenant } } });
    try {
      await workerPod('slurm-n1', node, 'n1');
      await admin().core.createNamespacedPod({
        namespace: tenant,
        body: {
          metadata: { name: 'fake-slurmd', namespace: tenant, labels: WORKER_LABELS, annotations: { 'kmaint.io/sim-termination-seconds': '0' } },
          spec: { nodeName: node, hostname: 'n2', terminationGracePeriodSeconds: 1, containers: [{ name: 'slurmd', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m' } } }] },
        },
      });
      await setConfig(slurmConfig({ workerNamespaces: [ns] }));
      await createNM(ns, 'tenant-pod', { requestorID: 'upgrade.acme.com', nodeName: node, drainSpec: DRAIN_WORKERS });
      const ready = await untilReady('tenant-pod');
      expect(ready.metadata.annotations?.[ANNOTATION_SLURM_DRAINED]).toBe('n1');
      expect([(await slurmNode('n1')).state, (await slurmNode('n2')).state]).toEqual([['IDLE', 'DRAIN'], ['IDLE']]);
      await deleteNM(ns, 'tenant-pod');
      await untilGone('tenant-pod');
      expect([(await slurmNode('n1')).state, (await slurmNode('n2')).state]).toEqual([['IDLE'], ['IDLE']]);
    } finally {
      await kubectl(['delete', 'namespace', tenant, '--wait=false']);
    }
  });

  it("issue 31, by default: with spec.slurm.workerNamespaces unset only namespace slurm holds Slurm workers, so a tenant's pod with spec.hostname n2 names no Slurm node: nothing is drained in Slurm, and the config's Valid condition says where workers are taken from", async () => {
    const node = workers[0] as string;
    const tenant = `${ns}-dflt`;
    await admin().core.createNamespace({ body: { metadata: { name: tenant } } });
    try {
      await admin().core.createNamespacedPod({
        namespace: tenant,
        body: {
          metadata: { name: 'fake-slurmd', namespace: tenant, labels: WORKER_LABELS, annotations: { 'kmaint.io/sim-termination-seconds': '0' } },
          spec: { nodeName: node, hostname: 'n2', terminationGracePeriodSeconds: 1, containers: [{ name: 'slurmd', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m' } } }] },
        },
      });
      await setConfig(slurmConfig({ workerNamespaces: undefined }));
      await createNM(ns, 'tenant-default', { requestorID: 'upgrade.acme.com', nodeName: node, drainSpec: DRAIN_WORKERS });
      const ready = await untilReady('tenant-default');
      expect(ready.metadata.annotations?.[ANNOTATION_SLURM_DRAINED]).toBeUndefined();
      expect((await slurmNode('n2')).state).toEqual(['IDLE']);
      const cfg = (await admin().custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: KMAINT_NS, plural: CONFIG_PLURAL, name: 'default' })) as MaintenanceOperatorConfig;
      const valid = cfg.status?.conditions?.find((c) => c.type === 'Valid');
      expect([valid?.status, valid?.message]).toEqual(['True', `configuration is valid; note: ${WORKER_NAMESPACES_UNSET_NOTE}`]);
      await deleteNM(ns, 'tenant-default');
      await untilGone('tenant-default');
      expect((await slurmNode('n2')).state).toEqual(['IDLE']);
    } finally {
      await kubectl(['delete', 'namespace', tenant, '--wait=false']);
    }
  });

  it("an admin drain ('admin: bad dimm') on n2 is waited for, never recorded, and left in place after cleanup", async () => {
    const node = workers[1] as string;
    await workerPod('slurm-n2', node, 'n2');
    await setConfig(slurmConfig());
    const job = await runJob('n2', 300);
    expect((await slurm.rest('POST', '/slurm/v0.0.41/node/n2', { state: ['DRAIN'], reason: 'admin: bad dimm' })).status).toBe(200);
    await createNM(ns, 'admin-n2', { requestorID: 'upgrade.acme.com', nodeName: node, drainSpec: DRAIN_WORKERS });

    const waiting = await untilMessage('admin-n2', 'waiting: Slurm node n2 drained by someone else ("admin: bad dimm"), state ALLOCATED+DRAIN');
    expect(waiting.metadata.annotations?.[ANNOTATION_SLURM_DRAINED]).toBeUndefined();
    expect(await podState('slurm-n2')).toBe('running');

    await endJob(job);
    await untilReady('admin-n2');
    expect(await podState('slurm-n2')).toBe('evicted');
    await deleteNM(ns, 'admin-n2');
    await untilGone('admin-n2');
    expect(await slurmNode('n2')).toEqual({ name: 'n2', state: ['IDLE', 'DRAIN'], reason: 'admin: bad dimm' });
  });

  it("issue 42, kmaint leftovers: a kmaint drain left in Slurm (its request gone with kmaint) is listed and lifted by --fix; an admin's drain is neither", async () => {
    // As kmaint drains (reason `kmaint: <requestor> <ns>/<name>`) for a request an uninstall left; n2 drained by an admin.
    expect((await slurm.rest('POST', '/slurm/v0.0.41/node/n3', { state: ['DRAIN'], reason: `kmaint: upgrade.acme.com ${ns}/gone` })).status).toBe(200);
    expect((await slurm.rest('POST', '/slurm/v0.0.41/node/n2', { state: ['DRAIN'], reason: 'admin: bad dimm' })).status).toBe(200);
    const leftovers = (...args: string[]) => new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(process.execPath, kmaintArgs('--kubeconfig', testbed().kubeconfigPath, 'leftovers', '--slurm-url', slurm.url, '--slurm-token-env', TOKEN_ENV, '-o', 'json', ...args), { timeout: 60_000 }, (err, stdout) => resolve({ code: err ? Number(err.code) : 0, stdout }));
    });
    const slurmItems = (stdout: string) => (JSON.parse(stdout) as { items: Array<{ object: string }> }).items.filter((i) => i.object.startsWith('Slurm'));
    const listed = await leftovers();
    expect([listed.code, slurmItems(listed.stdout)]).toEqual([1, [{ object: 'SlurmNode/n3', record: 'drain', owner: 'kmaint', value: `kmaint: upgrade.acme.com ${ns}/gone` }]]);
    const fixed = await leftovers('--fix');
    expect([fixed.code, slurmItems(fixed.stdout)]).toEqual([0, []]);
    // 24.11 keeps the reason text after an undrain; the DRAIN flag is what --fix lifted, as kmaint's release does.
    expect([await slurmNode('n3'), await slurmNode('n2')]).toEqual([
      { name: 'n3', state: ['IDLE'], reason: `kmaint: upgrade.acme.com ${ns}/gone` },
      { name: 'n2', state: ['IDLE', 'DRAIN'], reason: 'admin: bad dimm' },
    ]);
  });

  it('node mode: slurmrestd stopped mid-drain -> the object says so and nothing is evicted; the drain finishes once it is back', async () => {
    const node = workers[2] as string;
    await kubectl(['label', 'node', node, 'slurm.kmaint.io/node-name=n3', '--overwrite']);
    try {
      // A plain pod on the node: in node mode the whole node waits for its Slurm node.
      await admin().core.createNamespacedPod({
        namespace: ns,
        body: { metadata: { name: 'plain', namespace: ns, labels: { 'kmaint.io/test': 'plain' }, annotations: { 'kmaint.io/sim-termination-seconds': '0' } }, spec: { nodeName: node, terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } },
      });
      await setConfig(slurmConfig({ mode: 'node', podSelector: undefined, nameFrom: 'label', nameKey: 'slurm.kmaint.io/node-name' }));
      const held = await runJob('n3', 'until-released');
      await createNM(ns, 'restd-down', { requestorID: 'firmware.acme.com', nodeName: node, drainSpec: { force: true, podSelector: 'kmaint.io/test=plain', timeoutSeconds: 0 } });
      await untilMessage('restd-down', 'waiting: Slurm node n3 draining, state ALLOCATED+DRAIN');

      await slurm.stopRestd();
      const down = await untilMessage('restd-down', /^waiting: cannot reach slurmrestd/);
      expect(message(down)).toBe(`waiting: cannot reach slurmrestd at ${slurm.url}: ECONNREFUSED; nothing is evicted until Slurm node n3 can be drained`);
      // The job ends while slurmrestd is down; kmaint still cannot know, so it still evicts nothing: one more round of
      // passes once slurmctld has the job's end from its slurmd.
      await releaseJob('n3');
      await untilCtldLogs(`_job_complete: JobId=${held} done`);
      await driveUntil('one more round', async () => true);
      expect(phaseOf(await getNM(ns, 'restd-down'))).toBe('Draining');
      expect(await podState('plain')).toBe('running');

      await slurm.startRestd();
      await untilReady('restd-down');
      expect(await podState('plain')).toBe('evicted');
      await deleteNM(ns, 'restd-down');
      await untilGone('restd-down');
      expect((await slurmNode('n3')).state).toEqual(['IDLE']);
    } finally {
      await kubectl(['label', 'node', node, 'slurm.kmaint.io/node-name-']);
    }
  });

  it("issue 30, node deleted: cleanup undrains the Slurm node kmaint drained for the request before the request's finalizer goes (the node-gone path)", async () => {
    // A Node of this test's own, with no kubelet: deleting it leaves the testbed's nodes whole. Node mode: its label
    // names its Slurm node, so no worker pod is needed on it.
    const gone = `${ns}-gone`;
    await admin().core.createNode({ body: { metadata: { name: gone, labels: { 'slurm.kmaint.io/node-name': 'n3' } } } });
    try {
      await setConfig(slurmConfig({ mode: 'node', podSelector: undefined, nameFrom: 'label', nameKey: 'slurm.kmaint.io/node-name' }));
      await createNM(ns, 'node-gone', { requestorID: 'upgrade.acme.com', nodeName: gone, drainSpec: { force: true, podSelector: 'kmaint.io/test=none', timeoutSeconds: 0 } });
      const ready = await untilReady('node-gone');
      expect([ready.metadata.annotations?.[ANNOTATION_SLURM_DRAINED], ready.metadata.ownerReferences?.map((o) => `${o.kind}/${o.name}`)]).toEqual(['n3', [`Node/${gone}`]]);
      expect(await slurmNode('n3')).toEqual({ name: 'n3', state: ['IDLE', 'DRAIN'], reason: `kmaint: upgrade.acme.com ${ns}/node-gone` });

      await admin().core.deleteNode({ name: gone });
      // Read right after the round whose cleanup dropped the finalizer (Kubernetes' garbage collector then deletes the
      // request with its Node, its owner: contract.test.ts shows that), before that round's Slurm sweep could lift a
      // drain left behind (the request still existed when it read): n3 is undrained by the node-gone release itself.
      const atRelease = await driveUntil(`${ns}/node-gone released`, async () => {
        const nm = await getNM(ns, 'node-gone');
        return nm === undefined || nm.metadata.finalizers === undefined ? slurmNode('n3') : undefined;
      });
      expect(atRelease).toEqual({ name: 'n3', state: ['IDLE'], reason: `kmaint: upgrade.acme.com ${ns}/node-gone` });
    } finally {
      // Gone already unless the test failed before deleting it.
      await admin().core.deleteNode({ name: gone }).catch((err: unknown) => {
        if ((err as { code?: number }).code !== 404) throw err;
      });
    }
  });

  it('a bad token, then no token, give clear messages and nothing is drained or evicted; a token from a Secret drains and undrains', async () => {
    const node = workers[0] as string;
    await workerPod('slurm-n1-bad', node, 'n1');
    await setConfig(slurmConfig());
    const good = process.env[TOKEN_ENV] ?? '';
    process.env[TOKEN_ENV] = `${good.slice(0, -4)}AAAA`;
    await createNM(ns, 'bad-token', { requestorID: 'upgrade.acme.com', nodeName: node, drainSpec: DRAIN_WORKERS });
    const nm = await untilMessage('bad-token', /^waiting: listing Slurm nodes/);
    expect(message(nm)).toBe(
      'waiting: listing Slurm nodes: slurmrestd rejected the token (511 Protocol authentication error: Failure to query nodes (error 1007)): check spec.slurm.tokenEnv / tokenSecret; nothing is evicted until Slurm node n1 can be drained',
    );
    expect(process.env[TOKEN_ENV]).not.toBe('');
    expect(message(nm)).not.toContain(process.env[TOKEN_ENV]);
    expect(await podState('slurm-n1-bad')).toBe('running');
    expect((await slurmNode('n1')).state).toEqual(['IDLE']);

    delete process.env[TOKEN_ENV];
    expect(message(await untilMessage('bad-token', /^waiting: spec\.slurm/))).toBe(
      `waiting: spec.slurm.tokenEnv: environment variable ${TOKEN_ENV} is not set in kmaint's process; nothing is evicted until Slurm node n1 can be drained`,
    );

    // The token from a Secret in kmaint's namespace, readable by kmaint's ServiceAccount through a Role naming it.
    const sa = testbed().kmaintUser.split(':').slice(2).join(':');
    await kubectl(['create', 'role', 'slurm-token-reader', '-n', KMAINT_NS, '--verb=get', '--resource=secrets', '--resource-name=slurm-token']);
    await kubectl(['create', 'rolebinding', 'slurm-token-reader', '-n', KMAINT_NS, '--role=slurm-token-reader', `--serviceaccount=${sa}`]);
    await kubectl(['create', 'secret', 'generic', 'slurm-token', '-n', KMAINT_NS, `--from-literal=auth-token=${slurm.token('root')}`]);
    try {
      await setConfig(slurmConfig({ tokenEnv: undefined, tokenSecret: { name: 'slurm-token' } }));
      const ready = await untilReady('bad-token');
      expect(ready.metadata.annotations?.[ANNOTATION_SLURM_DRAINED]).toBe('n1');
      expect((await slurmNode('n1')).state).toEqual(['IDLE', 'DRAIN']);
      expect(await podState('slurm-n1-bad')).toBe('evicted');
      // Cleanup reads the same Secret to undrain (the finalizer stays while it cannot).
      await deleteNM(ns, 'bad-token');
      await untilGone('bad-token');
      expect((await slurmNode('n1')).state).toEqual(['IDLE']);
    } finally {
      await kubectl(['delete', 'secret', 'slurm-token', '-n', KMAINT_NS]);
      await kubectl(['delete', 'rolebinding,role', 'slurm-token-reader', '-n', KMAINT_NS]);
    }
  });
  it('drainTimeoutSeconds: a job that keeps n2 ALLOCATED+DRAIN past the timeout no longer holds the eviction; SlurmDrainTimeout says so once; n2 stays drained', async () => {
    const node = workers[1] as string;
    await workerPod('slurm-n2-late', node, 'n2');
    await setConfig(slurmConfig());
    await runJob('n2', 300);
    await createNM(ns, 'late-n2', { requestorID: 'upgrade.acme.com', nodeName: node, drainSpec: DRAIN_WORKERS });
    await untilMessage('late-n2', 'waiting: Slurm node n2 draining, state ALLOCATED+DRAIN');
    expect(await podState('slurm-n2-late')).toBe('running');
    // The timeout is set once the wait has been seen: set from the start, a loaded machine's passes could take longer
    // than it between recording the wait and reading Slurm's state, and the wait would never be seen (shaking run, issue
    // 18). It counts from the start of the wait recorded on the request all the same.
    await setConfig(slurmConfig({ drainTimeoutSeconds: 3 }));

    const ready = await untilReady('late-n2');
    expect(message(ready)).toBe('');
    expect(await podState('slurm-n2-late')).toBe('evicted');
    const said = await events('late-n2', 'SlurmDrainTimeout');
    expect(said.map(([, m]) => m)).toEqual(['Slurm drain did not finish within 3 s (Slurm node n2 draining, state ALLOCATED+DRAIN); evicting anyway']);
    // Not before the timeout, counted from the start of the wait recorded on the request (both in whole seconds).
    const start = Date.parse(ready.metadata.annotations?.[ANNOTATION_SLURM_DRAIN_START] ?? '');
    expect((said[0]?.[0] ?? 0) - start).toBeGreaterThanOrEqual(3000);
    // kmaint neither cancels the job nor lifts the drain: n2 stays drained, and recorded as kmaint's, until the request goes.
    expect(ready.metadata.annotations?.[ANNOTATION_SLURM_DRAINED]).toBe('n2');
    expect(await slurmNode('n2')).toEqual({ name: 'n2', state: ['ALLOCATED', 'DRAIN'], reason: `kmaint: upgrade.acme.com ${ns}/late-n2` });
  });

  it('whenUnreachable: evict: with slurmrestd down the worker is evicted without a Slurm drain, and a SlurmProblem event says so once', async () => {
    const node = workers[2] as string;
    await workerPod('slurm-n3-blind', node, 'n3');
    await setConfig(slurmConfig({ whenUnreachable: 'evict' }));
    await slurm.stopRestd();
    await createNM(ns, 'blind-n3', { requestorID: 'upgrade.acme.com', nodeName: node, drainSpec: DRAIN_WORKERS });

    const ready = await untilReady('blind-n3');
    expect(message(ready)).toBe('');
    expect(await podState('slurm-n3-blind')).toBe('evicted');
    expect((await events('blind-n3', 'SlurmProblem')).map(([, m]) => m)).toEqual([
      `cannot reach slurmrestd at ${slurm.url}: ECONNREFUSED; evicting without a Slurm drain (spec.slurm.whenUnreachable: evict)`,
    ]);
    // Nothing recorded, nothing drained: n3 was never touched.
    expect(ready.metadata.annotations?.[ANNOTATION_SLURM_DRAINED]).toBeUndefined();
    await slurm.startRestd();
    expect((await slurmNode('n3')).state).toEqual(['IDLE']);
  });
});

describe('the Slurm runner itself', () => {
  it('a slurmd whose port is taken dies at start: the start says which and why, and starts again on fresh ports', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmaint-slurm-taken-'));
    // Two ports for slurmctld and n1 that are free now, then n2's port held by a listener of ours.
    const first = await firstFreeRun(4);
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(first + 2, '0.0.0.0', resolve));
    const logged: string[] = [];
    const picks: number[] = [];
    let again: SlurmCluster | undefined;
    try {
      again = await startSlurm({
        dir,
        nodes: 2,
        log: (line) => logged.push(line),
        pickPorts: async (count) => {
          picks.push(picks.length === 0 ? first : await firstFreeRun(count, first + 10));
          return picks[picks.length - 1] as number;
        },
      });
      expect(picks.length).toBe(2);
      expect(again.ports.slurmctld).toBe(picks[1]);
      const said = logged.find((l) => l.startsWith('slurm nodes not IDLE')) ?? '';
      // Said as soon as n2's slurmd died, not after the wait: what slurmrestd last answered depends on how far n1 got.
      const head = new RegExp(
        `^slurm nodes not IDLE \\(slurmd-n2\\.log: \\[[^\\]]+\\] fatal: Unable to bind listen port \\(${first + 2}\\): Address already in use\\); ` +
          'last seen: (no answer: [^;]+|n1 (IDLE|UNKNOWN), n2 UNKNOWN); slurmctld\\.log: ',
      );
      expect(said).toMatch(head);
      expect(said).toMatch(/; starting again with fresh ports and state \(attempt 2 of 2\)$/);
      const nodes = ((await again.rest('GET', '/slurm/v0.0.42/nodes')).body as { nodes: RestNode[] }).nodes;
      expect(nodes.map((x) => [x.name, x.state])).toEqual([
        ['n1', ['IDLE']],
        ['n2', ['IDLE']],
      ]);
    } finally {
      await again?.stop();
      blocker.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The first of `count` consecutive ports, from `from` up, that 0.0.0.0 can bind now. */
async function firstFreeRun(count: number, from = 20_000 + Math.floor(Math.random() * 10_000)): Promise<number> {
  for (let base = from; base < 32_000 - count; base++) {
    let ok = true;
    for (let p = base; p < base + count && ok; p++) ok = await portBindable(p, '0.0.0.0');
    if (ok) return base;
  }
  throw new Error(`no ${count} free ports from ${from}`);
}
