// Alongside Slinky (slurm-operator v1.x) on the testbed with a REAL Slurm 24.11 (slurm/). Slinky itself needs Slurm
// 25.11 and cannot run here, so the test plays its part exactly as interop-2026.md section 2 documents it: it reads the
// Node's node-cordon-reason and drains the Slurm node through slurmrestd with `slurm-operator: ` + that reason when the
// Node is cordoned (2.3), projects the Slurm node's state onto the NodeSet pod's SlurmNodeState* conditions (2.4) and
// the pod-protect label the workload-protection PDB selects (2.5), and runs the slurmd preStop hook's reason rewrite.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_CORDON_REASON, ANNOTATION_CORDONED_BY, ANNOTATION_SLINKY_DRAINED, SLINKY_NODE_CORDON_REASON, type NodeMaintenance } from '../shared/api/index.ts';
import { ANNOTATION_SLURM_DRAINED } from '../shared/slurm/index.ts';
import { defaultRootfs, startSlurm, type SlurmCluster } from '../slurm-testbed/index.ts';
import { kubectl, testbed, waitFor } from './support/cluster.ts';
import { admin, createNM, deleteNM, driveUntil, generalNodes, getNM, installCrds, phaseOf, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';
import { kmaintArgs } from './support/kmaint-cli.ts';

const CAN_RUN = existsSync(defaultRootfs());
if (!CAN_RUN) process.stderr.write(`[test/slinky] NOT RUN: needs the Slurm root filesystem at ${defaultRootfs()} (npm run slurm -- rootfs); counted as skipped\n`);

const ns = `slinky-${randomBytes(3).toString('hex')}`;
// spec.slurm.tokenEnv must match ^SLURM_[A-Z0-9_]+$ (issue 31); the slurm/ test cluster speaks plain http (allowInsecureHttp).
const TOKEN_ENV = 'SLURM_KMAINT_TEST_SLINKY_JWT';
const CLUSTER = 'slurm';
const PREFIX = 'slurm-operator: ';
const PROTECT = 'nodeset.slinky.slurm.net/pod-protect';
const HOSTNAME = 'nodeset.slinky.slurm.net/pod-hostname';
/** Holds an evicted pod Terminating until the test has played the slurmd preStop hook. */
const PRESTOP_FINALIZER = 'kmaint.io/test-slurmd-prestop';
let slurm: SlurmCluster;
let slurmDir = '';
let workers: string[] = [];
const jobs: number[] = [];

interface RestNode {
  state: string[];
  reason: string;
}

async function slurmNode(name: string): Promise<RestNode> {
  const node = ((await slurm.rest('GET', `/slurm/v0.0.41/node/${name}`)).body as { nodes: Array<RestNode & { name: string }> }).nodes[0];
  if (!node) throw new Error(`Slurm node ${name} not found`);
  // A missed ping on a loaded machine (NOT_RESPONDING until the next) says nothing about drains.
  return { state: node.state.filter((s) => s !== 'NOT_RESPONDING'), reason: node.reason };
}

/**
 * A Slurm node after Slinky's preStop set it DOWN with its reason: the DRAIN flag and the reason (what kmaint must never
 * lift) exactly, and its base state DOWN — or IDLE once slurmctld, with ReturnToService=2, took the registered slurmd
 * back (its own doing, on its own clock: kmaint sends only DRAIN and UNDRAIN, and an UNDRAIN would drop the flag).
 */
async function afterPreStop(name: string): Promise<{ flags: string[]; base: string; reason: string }> {
  const { state, reason } = await slurmNode(name);
  const base = state.filter((s) => s === 'DOWN' || s === 'IDLE');
  return { flags: state.filter((s) => s !== 'DOWN' && s !== 'IDLE'), base: base.length === 1 ? 'DOWN or IDLE' : state.join('+'), reason };
}
const PRESTOP_DRAIN_KEPT = { flags: ['DRAIN'], base: 'DOWN or IDLE', reason: 'slurm-operator: Pod is terminating' };

async function slurmPost(name: string, body: Record<string, unknown>): Promise<void> {
  const r = await slurm.rest('POST', `/slurm/v0.0.41/node/${name}`, body);
  if (r.status !== 200) throw new Error(`POST node ${name} ${JSON.stringify(body)}: ${r.status} ${JSON.stringify(r.body)}`);
}

async function runJob(node: string): Promise<number> {
  const r = await slurm.rest('POST', '/slurm/v0.0.41/job/submit', {
    job: { name: `hold-${node}`, partition: 'debug', required_nodes: [node], current_working_directory: '/tmp', standard_output: '/dev/null', environment: ['PATH=/bin:/usr/bin'], script: '#!/bin/sh\nsleep 300\n' },
  });
  const id = (r.body as { job_id?: number }).job_id;
  if (r.status !== 200 || id === undefined) throw new Error(`job submit: ${r.status} ${JSON.stringify(r.body)}`);
  jobs.push(id);
  await waitFor(`Slurm node ${node} ALLOCATED to job ${id}`, async () => ((await slurmNode(node)).state.includes('ALLOCATED') ? true : undefined), 60_000, 50);
  return id;
}

async function endJob(id: number, node: string): Promise<void> {
  const r = await slurm.rest('DELETE', `/slurm/v0.0.41/job/${id}`);
  if (r.status !== 200) throw new Error(`job cancel ${id}: ${r.status} ${JSON.stringify(r.body)}`);
  jobs.splice(jobs.indexOf(id), 1);
  await waitFor(`Slurm node ${node} no longer busy`, async () => ((await slurmNode(node)).state.some((s) => ['ALLOCATED', 'MIXED', 'COMPLETING'].includes(s)) ? undefined : true), 60_000, 50);
}

/** A NodeSet pod as Slinky makes it: hostname and pod-hostname label = the Slurm node, cluster label. */
async function nodesetPod(name: string, node: string, slurmName: string, finalizers: string[] = []): Promise<void> {
  await admin().core.createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name, namespace: ns, labels: { 'app.kubernetes.io/name': 'slurmd', [HOSTNAME]: slurmName, 'slinky.slurm.net/cluster': CLUSTER }, annotations: { 'kmaint.io/sim-termination-seconds': '0' }, finalizers },
      spec: { nodeName: node, hostname: slurmName, terminationGracePeriodSeconds: 1, containers: [{ name: 'slurmd', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m' } } }] },
    },
  });
}

async function readPod(name: string): Promise<V1Pod | undefined> {
  try {
    return await admin().core.readNamespacedPod({ namespace: ns, name });
  } catch {
    return undefined;
  }
}

async function readNode(name: string): Promise<V1Node> {
  return admin().core.readNode({ name });
}

const STATE_CONDITIONS: Readonly<Record<string, string>> = {
  ALLOCATED: 'Allocated', DOWN: 'Down', ERROR: 'Error', FUTURE: 'Future', IDLE: 'Idle', MIXED: 'Mixed', UNKNOWN: 'Unknown',
  COMPLETING: 'Completing', DRAIN: 'Drain', FAIL: 'Fail', INVALID: 'Invalid', INVALID_REG: 'InvalidReg', MAINTENANCE: 'Maintenance', NOT_RESPONDING: 'NotResponding', UNDRAIN: 'Undrain',
};

/**
 * One Slinky reconcile of a NodeSet pod (interop-2026.md 2.3-2.5): leave a foreign reason alone; on a cordoned Node
 * set pod-cordon and DRAIN with `slurm-operator: ` + node-cordon-reason (keeping a reason the Slurm node already has,
 * v1.2); otherwise UNDRAIN its own drain; then project the Slurm state onto the pod's conditions (status True, message
 * the Slurm reason, stale ones deleted) and pod-protect=true while busy.
 */
async function slinkySync(podName: string, slurmName: string): Promise<void> {
  const pod = await readPod(podName);
  if (!pod) return;
  const node = await readNode(pod.spec?.nodeName ?? '');
  let s = await slurmNode(slurmName);
  const foreign = s.reason !== '' && !s.reason.startsWith(PREFIX);
  if (!foreign && node.spec?.unschedulable === true) {
    await kubectl(['annotate', 'pod', podName, '-n', ns, '--overwrite', 'nodeset.slinky.slurm.net/pod-cordon=true']);
    const wanted = node.metadata?.annotations?.[SLINKY_NODE_CORDON_REASON] ?? `Node (${node.metadata?.name ?? ''}) was cordoned, Pod (${ns}/${podName}) must be cordoned`;
    if (!s.state.includes('DRAIN')) await slurmPost(slurmName, s.reason !== '' ? { state: ['DRAIN'] } : { state: ['DRAIN'], reason: `${PREFIX}${wanted}` });
  } else if (!foreign && s.state.includes('DRAIN') && !s.state.includes('UNDRAIN')) {
    await slurmPost(slurmName, { state: ['UNDRAIN'] });
    await kubectl(['annotate', 'pod', podName, '-n', ns, 'nodeset.slinky.slurm.net/pod-cordon-']);
  }
  s = await slurmNode(slurmName);
  const wanted = new Set(s.state.map((w) => `SlurmNodeState${STATE_CONDITIONS[w] ?? w}`));
  const stale = (pod.status?.conditions ?? []).filter((c) => c.type.startsWith('SlurmNodeState') && !wanted.has(c.type)).map((c) => ({ type: c.type, $patch: 'delete' }));
  const conditions = [...[...wanted].map((type) => ({ type, status: 'True', message: s.reason })), ...stale];
  const status = await kubectl(['patch', 'pod', podName, '-n', ns, '--subresource=status', '--type=strategic', '-p', JSON.stringify({ status: { conditions } })]);
  if (status.code !== 0) throw new Error(`patch pod status: ${status.stderr}`);
  const busy = s.state.some((w) => ['ALLOCATED', 'MIXED', 'COMPLETING'].includes(w));
  await kubectl(['label', 'pod', podName, '-n', ns, '--overwrite', busy ? `${PROTECT}=true` : `${PROTECT}-`]);
}

/** Slinky's one workload-protection PDB of the cluster (2.5). */
async function protectionPdb(): Promise<void> {
  const pdb = {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: `slurm-workers-pdb-${CLUSTER}`, namespace: ns, labels: { 'slinky.slurm.net/cluster': CLUSTER } },
    spec: { maxUnavailable: 0, selector: { matchLabels: { [PROTECT]: 'true', 'slinky.slurm.net/cluster': CLUSTER } } },
  };
  const r = await kubectl(['apply', '-f', '-'], { input: JSON.stringify(pdb) });
  if (r.code !== 0) throw new Error(`PDB: ${r.stderr}`);
}

function message(nm: NodeMaintenance | undefined): string {
  return nm?.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? '';
}

/** Runs kmaint's passes, and Slinky's reconcile of `pod` after each round, until the Ready message is `expected`. */
async function untilMessage(name: string, expected: string, pod: [string, string]): Promise<NodeMaintenance> {
  return driveUntil(`${ns}/${name} says ${expected}`, async () => {
    await slinkySync(...pod);
    const nm = await getNM(ns, name);
    return message(nm) === expected ? nm : undefined;
  });
}

async function kmaintExplain(ref: string): Promise<string[]> {
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, kmaintArgs('--kubeconfig', testbed().kmaintKubeconfigPath, 'explain', ref), { timeout: 60_000 }, (err, out) => (err ? reject(err) : resolve(out)));
  });
  return stdout.trimEnd().split('\n');
}

const DRAIN_WORKERS = { force: true, podSelector: 'app.kubernetes.io/name=slurmd', timeoutSeconds: 0 };

describe.skipIf(!CAN_RUN)('alongside Slinky on the testbed with a real Slurm 24.11 (Slinky played as interop-2026.md section 2 documents it)', () => {
  beforeAll(async () => {
    slurmDir = mkdtempSync(join(tmpdir(), 'kmaint-slinky-'));
    // n4 for the issue 30 sweep case alone: the other cases leave n1-n3 drained or with a reason Slinky keeps.
    slurm = await startSlurm({ dir: slurmDir, nodes: 4, log: (line) => process.stderr.write(`[slurm] ${line}\n`) });
    process.env[TOKEN_ENV] = slurm.token('root');
    await installCrds();
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    await protectionPdb();
    workers = await generalNodes();
    expect(workers.length).toBeGreaterThanOrEqual(3);
  });
  afterEach(async () => {
    for (const id of jobs.splice(0)) await slurm.rest('DELETE', `/slurm/v0.0.41/job/${id}`);
    await removeAllNMs(ns);
    await setConfig(undefined);
    for (const w of workers.slice(0, 3)) {
      await setUnschedulable(w, false);
      await kubectl(['annotate', 'node', w, `${SLINKY_NODE_CORDON_REASON}-`]);
    }
    for (const p of (await admin().core.listNamespacedPod({ namespace: ns })).items) {
      if ((p.metadata?.finalizers ?? []).length > 0) await kubectl(['patch', 'pod', p.metadata?.name ?? '', '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    }
    await kubectl(['delete', 'pods', '--all', '-n', ns, '--grace-period=0', '--force']);
  });
  afterAll(async () => {
    delete process.env[TOKEN_ENV];
    await slurm?.stop();
    rmSync(slurmDir, { recursive: true, force: true });
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  it("with slurmrestd: kmaint hands Slinky its reason before the cordon, waits for Slinky's drain (recorded, never foreign), evicts once Drained, keeps ownership through the preStop rewrite and never undrains", async () => {
    const node = workers[0] as string;
    const pod: [string, string] = ['slurm-worker-n1', 'n1'];
    await nodesetPod(pod[0], node, 'n1', [PRESTOP_FINALIZER]);
    const job = await runJob('n1');
    await slinkySync(...pod);
    await setConfig({ maxParallelOperations: 2, slurm: { enabled: true, url: slurm.url, allowInsecureHttp: true, tokenEnv: TOKEN_ENV, mode: 'pod', podSelector: HOSTNAME, workerNamespaces: [ns], nameFrom: 'label', nameKey: HOSTNAME } });
    await createNM(ns, 'slinky-n1', { requestorID: 'upgrade.acme.com', nodeName: node, drainSpec: DRAIN_WORKERS });

    // The cordon carried the reason (one patch): Slinky never sees the node cordoned without it.
    await driveUntil(`node ${node} cordoned`, async () => ((await readNode(node)).spec?.unschedulable === true ? true : undefined));
    expect((await readNode(node)).metadata?.annotations?.[SLINKY_NODE_CORDON_REASON]).toBe(`kmaint: ${ns}/slinky-n1`);

    const draining = await untilMessage('slinky-n1', `waiting: Slurm node n1 draining by Slinky for this request ("slurm-operator: kmaint: ${ns}/slinky-n1"), state ALLOCATED+DRAIN`, pod);
    expect(phaseOf(draining)).toBe('Draining');
    expect(draining.metadata.annotations?.[ANNOTATION_SLINKY_DRAINED]).toBe('n1');
    expect(draining.metadata.annotations?.[ANNOTATION_SLURM_DRAINED]).toBeUndefined();
    expect(await slurmNode('n1')).toEqual({ state: ['ALLOCATED', 'DRAIN'], reason: `slurm-operator: kmaint: ${ns}/slinky-n1` });
    const workerPod = await readPod(pod[0]);
    expect([workerPod?.metadata?.annotations?.['nodeset.slinky.slurm.net/pod-cordon'], workerPod?.metadata?.labels?.[PROTECT], workerPod?.metadata?.deletionTimestamp]).toEqual(['true', 'true', undefined]);

    // The disruption controller has counted the protected pod (a bare pod: no expected count from a scale).
    await waitFor('the workload-protection PDB to count the busy slurmd pod', async () => {
      const pdb = await kubectl(['get', 'pdb', `slurm-workers-pdb-${CLUSTER}`, '-n', ns, '-o', 'jsonpath={.status.currentHealthy}']);
      return pdb.stdout === '1' ? true : undefined;
    });
    const explained = await kmaintExplain(`${ns}/slinky-n1`);
    expect(explained.filter((l) => l.startsWith('Slurm') || l.includes(`${ns}/${pod[0]}`))).toEqual([
      'Slurm (Slinky):',
      `  HELD  ${ns}/${pod[0]} waits for PodDisruptionBudget ${ns}/slurm-workers-pdb-slurm (allows 0 disruptions: needs 0 healthy, has 1 of 0 expected): Slinky's workload protection of Slurm cluster slurm: it holds each slurmd pod labelled nodeset.slinky.slurm.net/pod-protect=true while its Slurm node runs jobs, and frees it when the Slurm node is Drained and Slinky removes the label`,
    ]);
    expect(explained.at(-1)).toBe(
      "next: the jobs on the Slurm nodes above must end (Drained: Drain and none of Allocated, Mixed, Completing); then the drainer evicts the pods. kmaint never undrains Slinky's drain: Slinky does when the node is uncordoned",
    );

    await endJob(job, 'n1');
    // Drained: Slinky drops pod-protect, kmaint evicts; the pod terminates and its slurmd preStop hook runs (v1.2).
    const evicted = await driveUntil(`${ns}/${pod[0]} evicted`, async () => {
      await slinkySync(...pod);
      const p = await readPod(pod[0]);
      return p?.metadata?.deletionTimestamp ? p : undefined;
    });
    expect(evicted.metadata?.labels?.[PROTECT]).toBeUndefined();
    await slurmPost('n1', { state: ['DOWN'], reason: 'slurm-operator: Pod is terminating' });
    await kubectl(['patch', 'pod', pod[0], '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);

    const ready = await driveUntil(`${ns}/slinky-n1 Ready`, async () => {
      const nm = await getNM(ns, 'slinky-n1');
      return phaseOf(nm) === 'Ready' ? nm : undefined;
    });
    expect(message(ready)).toBe('');
    // The reason no longer names the request; kmaint's own record still does.
    expect(ready.metadata.annotations?.[ANNOTATION_SLINKY_DRAINED]).toBe('n1');
    expect(await afterPreStop('n1')).toEqual(PRESTOP_DRAIN_KEPT);

    await deleteNM(ns, 'slinky-n1');
    await driveUntil(`${ns}/slinky-n1 gone`, async () => ((await getNM(ns, 'slinky-n1')) === undefined ? true : undefined));
    // Uncordoned with the reason dropped in the same patch; the Slurm drain is Slinky's to lift, and kmaint did not.
    const after = await readNode(node);
    expect([after.spec?.unschedulable ?? false, after.metadata?.annotations?.[SLINKY_NODE_CORDON_REASON]]).toEqual([false, undefined]);
    expect(await afterPreStop('n1')).toEqual(PRESTOP_DRAIN_KEPT);
  });

  it("token-free (no slurmrestd url or token): kmaint judges Busy, Drain and Drained from the SlurmNodeState* pod conditions alone", async () => {
    const node = workers[1] as string;
    const pod: [string, string] = ['slurm-worker-n2', 'n2'];
    await nodesetPod(pod[0], node, 'n2');
    const job = await runJob('n2');
    await slinkySync(...pod);
    await setConfig({ maxParallelOperations: 2, slurm: { enabled: true, mode: 'pod', podSelector: HOSTNAME, workerNamespaces: [ns], nameFrom: 'label', nameKey: HOSTNAME } });
    await createNM(ns, 'slinky-n2', { requestorID: 'upgrade.acme.com', nodeName: node, drainSpec: DRAIN_WORKERS });

    // Before Slinky has reacted to the cordon, the conditions say Allocated and no Drain: kmaint waits for Slinky.
    const before = await driveUntil(`${ns}/slinky-n2 waits for Slinky`, async () => {
      const nm = await getNM(ns, 'slinky-n2');
      return message(nm) === 'waiting: Slurm node n2 to be drained by Slinky, state ALLOCATED' ? nm : undefined;
    });
    expect(phaseOf(before)).toBe('Draining');
    expect((await readNode(node)).metadata?.annotations?.[SLINKY_NODE_CORDON_REASON]).toBe(`kmaint: ${ns}/slinky-n2`);

    const draining = await untilMessage('slinky-n2', `waiting: Slurm node n2 draining by Slinky for this request ("slurm-operator: kmaint: ${ns}/slinky-n2"), state ALLOCATED+DRAIN`, pod);
    expect(draining.metadata.annotations?.[ANNOTATION_SLINKY_DRAINED]).toBe('n2');
    const conditions = (await readPod(pod[0]))?.status?.conditions?.filter((c) => c.type.startsWith('SlurmNodeState')).map((c) => [c.type, c.status, c.message]);
    expect(conditions).toEqual([
      ['SlurmNodeStateAllocated', 'True', `slurm-operator: kmaint: ${ns}/slinky-n2`],
      ['SlurmNodeStateDrain', 'True', `slurm-operator: kmaint: ${ns}/slinky-n2`],
    ]);
    expect((await readPod(pod[0]))?.metadata?.deletionTimestamp).toBeUndefined();

    await endJob(job, 'n2');
    const ready = await driveUntil(`${ns}/slinky-n2 Ready`, async () => {
      await slinkySync(...pod);
      const nm = await getNM(ns, 'slinky-n2');
      return phaseOf(nm) === 'Ready' ? nm : undefined;
    });
    expect(message(ready)).toBe('');
    expect(await readPod(pod[0])).toBeUndefined();
    expect(await slurmNode('n2')).toEqual({ state: ['IDLE', 'DRAIN'], reason: `slurm-operator: kmaint: ${ns}/slinky-n2` });

    await deleteNM(ns, 'slinky-n2');
    await driveUntil(`${ns}/slinky-n2 gone`, async () => ((await getNM(ns, 'slinky-n2')) === undefined ? true : undefined));
    const after = await readNode(node);
    expect([after.spec?.unschedulable ?? false, after.metadata?.annotations?.[SLINKY_NODE_CORDON_REASON]]).toEqual([false, undefined]);
    expect((await slurmNode('n2')).state).toEqual(['IDLE', 'DRAIN']);
  });

  it("token-free: a reason Slinky leaves alone (an admin's, kept by Slurm after the undrain) freezes Slinky; kmaint cannot drain either and says so, evicting nothing", async () => {
    const node = workers[2] as string;
    const pod: [string, string] = ['slurm-worker-n3', 'n3'];
    // 24.11 keeps the reason after an undrain: n3 is IDLE with the admin's old reason.
    await slurmPost('n3', { state: ['DRAIN'], reason: 'admin: was flaky' });
    await slurmPost('n3', { state: ['UNDRAIN'] });
    expect(await slurmNode('n3')).toEqual({ state: ['IDLE'], reason: 'admin: was flaky' });
    await nodesetPod(pod[0], node, 'n3');
    // Slinky has projected n3's state onto its pod before the request comes (else kmaint says the conditions are missing).
    await slinkySync(...pod);
    await setConfig({ maxParallelOperations: 2, slurm: { enabled: true, mode: 'pod', podSelector: HOSTNAME, workerNamespaces: [ns], nameFrom: 'label', nameKey: HOSTNAME } });
    await createNM(ns, 'frozen-n3', { requestorID: 'upgrade.acme.com', nodeName: node, drainSpec: DRAIN_WORKERS });

    const said = 'Slurm node n3 has a reason Slinky leaves alone ("admin: was flaky"), so Slinky will not drain it, and without slurmrestd url and token kmaint cannot: clear the reason or drain the node by hand';
    const held = await untilMessage('frozen-n3', `waiting: ${said}`, pod);
    expect(phaseOf(held)).toBe('Draining');
    // Slinky left it alone: no drain, no pod-cordon; the pod stays.
    expect(await slurmNode('n3')).toEqual({ state: ['IDLE'], reason: 'admin: was flaky' });
    const p = await readPod(pod[0]);
    expect([p?.metadata?.annotations?.['nodeset.slinky.slurm.net/pod-cordon'], p?.metadata?.deletionTimestamp]).toEqual([undefined, undefined]);
    const events = await admin().core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.kind=NodeMaintenance,involvedObject.name=frozen-n3,reason=SlurmProblem' });
    expect(events.items.map((e) => e.message)).toEqual([said]);

    await deleteNM(ns, 'frozen-n3');
    await driveUntil(`${ns}/frozen-n3 gone`, async () => ((await getNM(ns, 'frozen-n3')) === undefined ? true : undefined));
    const after = await readNode(node);
    expect([after.spec?.unschedulable ?? false, after.metadata?.annotations?.[SLINKY_NODE_CORDON_REASON]]).toEqual([false, undefined]);
  });

  it("issue 30, a request removed without its cleanup (finalizer stripped by hand): cleanup's orphan sweep lifts kmaint's cordon and drops its node-cordon-reason; Slinky then undrains the Slurm node", async () => {
    const node = workers[1] as string;
    const pod: [string, string] = ['slurm-worker-n4', 'n4'];
    await nodesetPod(pod[0], node, 'n4');
    await setConfig({ maxParallelOperations: 2, slurm: { enabled: true, url: slurm.url, allowInsecureHttp: true, tokenEnv: TOKEN_ENV, mode: 'pod', podSelector: HOSTNAME, workerNamespaces: [ns], nameFrom: 'label', nameKey: HOSTNAME } });
    await createNM(ns, 'swept-n4', { requestorID: 'upgrade.acme.com', nodeName: node, drainSpec: DRAIN_WORKERS });
    await driveUntil(`node ${node} cordoned`, async () => ((await readNode(node)).spec?.unschedulable === true ? true : undefined));
    await slinkySync(...pod);
    expect(await slurmNode('n4')).toEqual({ state: ['IDLE', 'DRAIN'], reason: `slurm-operator: kmaint: ${ns}/swept-n4` });

    // The request goes without kmaint's cleanup: its finalizer stripped, then deleted (gone at once).
    await kubectl(['patch', 'nodemaintenance', 'swept-n4', '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await deleteNM(ns, 'swept-n4');
    expect(await getNM(ns, 'swept-n4')).toBeUndefined();
    const swept = await driveUntil(`node ${node} uncordoned by the sweep`, async () => {
      const n = await readNode(node);
      return n.spec?.unschedulable === true ? undefined : n;
    });
    const annotations = swept.metadata?.annotations ?? {};
    expect([annotations[ANNOTATION_CORDONED_BY], annotations[ANNOTATION_CORDON_REASON], annotations[SLINKY_NODE_CORDON_REASON]]).toEqual([undefined, undefined, undefined]);
    // Slinky sees the Node uncordoned and lifts its own drain; kmaint never lifted it (its reason is Slinky's).
    expect((await slurmNode('n4')).state).toEqual(['IDLE', 'DRAIN']);
    await slinkySync(...pod);
    expect(await slurmNode('n4')).toEqual({ state: ['IDLE'], reason: `slurm-operator: kmaint: ${ns}/swept-n4` });
  });
});
