// Issue 21 point 4, the Slurm part, on the testbed with a REAL Slurm 26.05 (Debian forky's, started by slurm/ from its
// cached rootfs; 24.11's slurmrestd serves reservations read-only): a request with kmaint.io/not-before ahead makes
// kmaint reserve its node's Slurm node from that time (MAINT, recorded on the request first), so Slurm does not start a
// job there whose time limit would cross it while a short one runs; moving not-before moves the reservation; deleting
// the request deletes the reservation, and so does deleting it after its maintenance (the reservation stays through
// the drain). Times are relative to the test's start (Slurm's own clock is the real one); the second case runs kmaint's
// passes with their clock past not-before rather than waiting for it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ANNOTATION_NOT_BEFORE, FINALIZER, GROUP, NODE_MAINTENANCE_PLURAL, rfc3339Seconds, VERSION, type NodeMaintenanceSpec } from '../shared/api/index.ts';
import { ANNOTATION_SLURM_DRAINED, ANNOTATION_SLURM_RESERVATION, EVENT_REASON_SLURM_RESERVATION, SlurmRestClient } from '../shared/slurm/index.ts';
import { startSlurm, type SlurmCluster } from '../slurm-testbed/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { runPass } from '../shared/pass/index.ts';
import { KMAINT_SA_USER, POLICY_MODES, makeRequestor, policyDenied, policyRefuses, usePolicyMode, type PolicyMode } from './support/attacker.ts';
import { kmaintKubeConfig, kubectl, testbed, waitFor } from './support/cluster.ts';
import { runKmaint } from './support/kmaint-cli.ts';
import { KMAINT_NS, admin, deleteNM, driveUntil, generalNodes, getNM, installCrds, patchNM, phaseOf, removeAllNMs, setConfig } from './support/kmaint.ts';

const ns = `slurm-resv-${randomBytes(3).toString('hex')}`;
// spec.slurm.tokenEnv must match ^SLURM_[A-Z0-9_]+$ (issue 31); the slurm/ test cluster speaks plain http (allowInsecureHttp).
const TOKEN_ENV = 'SLURM_KMAINT_TEST_RESV_JWT';
const WORKER_LABELS = { 'app.kubernetes.io/name': 'slurmd' };
const API = 'v0.0.43';
const MINUTE = 60_000;
let slurm: SlurmCluster;
let slurmDir = '';
let workers: string[] = [];

interface RestReservation {
  name: string;
  node_list: string;
  start_time: { number: number };
  end_time: { number: number };
  flags: string[];
  users: string;
}

interface RestJob {
  job_id: number;
  job_state: string[];
  state_reason: string;
  nodes: string;
}

async function reservations(): Promise<RestReservation[]> {
  const r = await slurm.rest('GET', `/slurm/${API}/reservations/`);
  expect(r.status).toBe(200);
  return (r.body as { reservations: RestReservation[] }).reservations;
}

/** Submits `sleep 1` on `node` with a time limit of `minutes`; a reserved node makes Slurm say so and keep it pending. */
async function submit(name: string, node: string, minutes: number): Promise<number> {
  const r = await slurm.rest('POST', `/slurm/${API}/job/submit`, {
    job: { name, partition: 'debug', required_nodes: [node], time_limit: { set: true, number: minutes }, current_working_directory: '/tmp', standard_output: '/dev/null', environment: ['PATH=/bin:/usr/bin'], script: '#!/bin/sh\nsleep 1\n' },
  });
  const id = (r.body as { job_id?: number }).job_id;
  if (id === undefined) throw new Error(`job submit: ${r.status} ${JSON.stringify(r.body)}`);
  return id;
}

async function job(id: number): Promise<RestJob> {
  const r = await slurm.rest('GET', `/slurm/${API}/job/${id}`);
  const j = (r.body as { jobs: RestJob[] }).jobs[0];
  if (!j) throw new Error(`job ${id} not found: ${JSON.stringify(r.body)}`);
  return j;
}

/** Waits until the job has run to completion and returns the node it ran on. */
async function ranOn(id: number): Promise<string> {
  return waitFor(`Slurm job ${id} COMPLETED`, async () => {
    const j = await job(id);
    return j.job_state.includes('COMPLETED') ? j.nodes : undefined;
  }, 60_000, 100);
}

/**
 * The job once slurmctld says the reserved node is what it waits for (ReqNodeNotAvail); before that a just-submitted
 * job says None, and one evaluated while the node was still completing the last job may say Resources.
 */
async function heldByReservation(id: number): Promise<{ state: string[]; reason: string }> {
  return waitFor(`Slurm job ${id} pending on ReqNodeNotAvail`, async () => {
    const j = await job(id);
    return j.state_reason === 'ReqNodeNotAvail' ? { state: j.job_state, reason: j.state_reason } : undefined;
  }, 60_000, 100);
}

/**
 * A Slurm node's state without the flags this test does not judge: RESERVED and MAINTENANCE, which slurmctld sets and
 * clears on its own cycle while a MAINT reservation is active (the reservation itself is read from /reservations/),
 * and NOT_RESPONDING, a missed slurmd ping on a loaded machine.
 */
function drainState(state: string[] | undefined): string[] {
  return (state ?? []).filter((x) => !['RESERVED', 'MAINTENANCE', 'NOT_RESPONDING'].includes(x));
}

/** Rounds of kmaint's passes with their clock `offsetMs` ahead of the real one, until `check` answers. */
async function driveAt<T>(offsetMs: number, what: string, check: () => Promise<T | undefined>): Promise<T> {
  const client = new KubeClient(kmaintKubeConfig());
  return waitFor(what, async () => {
    for (const fn of ['scheduler', 'drainer', 'cleanup'] as const) await runPass(fn, { client, namespace: KMAINT_NS, now: () => new Date(Date.now() + offsetMs) });
    return check();
  }, 90_000, 300);
}

/** Creates request `name` for the first node with kmaint.io/not-before ten minutes ahead (whole seconds, as Slurm keeps). */
async function requestTenMinutesAhead(name: string, spec: Partial<NodeMaintenanceSpec>): Promise<Date> {
  const notBefore = new Date(Math.floor((Date.now() + 10 * MINUTE) / 1000) * 1000);
  await admin().custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: ns,
    plural: NODE_MAINTENANCE_PLURAL,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'NodeMaintenance',
      metadata: { name, namespace: ns, annotations: { [ANNOTATION_NOT_BEFORE]: rfc3339Seconds(notBefore) } },
      spec: { requestorID: 'upgrade.acme.com', nodeName: workers[0] as string, ...spec },
    },
  });
  return notBefore;
}

async function events(name: string): Promise<Array<[string, string]>> {
  const list = await admin().core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.kind=NodeMaintenance,involvedObject.name=${name},reason=${EVENT_REASON_SLURM_RESERVATION}` });
  return list.items.map((e): [string, string] => [e.type ?? '', e.message ?? '']);
}

/**
 * docs/security.md "Uninstalling": `kmaint leftovers --fix` with slurmrestd given (after an uninstall the
 * MaintenanceOperatorConfig that names it is gone), as an administrator runs it; the page shows this command line.
 */
const DOCUMENTED_FIX = ['--kmaint-namespace', 'kmaint', 'leftovers', '--fix', '--slurm-url'];

/** A Slurm node's drain state (drainState) and reason. */
async function slurmNode(name: string): Promise<[string[], string]> {
  const body = (await slurm.rest('GET', `/slurm/${API}/node/${name}`)).body as { nodes: Array<{ state: string[]; reason: string }> };
  return [drainState(body.nodes[0]?.state), body.nodes[0]?.reason ?? ''];
}

/** Deletes a Node this file made (404: gone already). */
async function deleteOwnNode(name: string): Promise<void> {
  await admin().core.deleteNode({ name }).catch((err: unknown) => {
    if ((err as { code?: number }).code !== 404) throw err;
  });
}

function slurmOn(): Record<string, unknown> {
  return { maxParallelOperations: 3, slurm: { enabled: true, url: slurm.url, allowInsecureHttp: true, tokenEnv: TOKEN_ENV, mode: 'pod', podSelector: 'app.kubernetes.io/name=slurmd', workerNamespaces: [ns], nameFrom: 'hostname' } };
}

describe('Slurm maintenance reservation from kmaint.io/not-before, with a real Slurm 26.05', () => {
  beforeAll(async () => {
    slurmDir = mkdtempSync(join(tmpdir(), 'kmaint-slurm-resv-'));
    slurm = await startSlurm({ dir: slurmDir, nodes: 2, release: 'forky', log: (line) => process.stderr.write(`[slurm] ${line}\n`) });
    process.env[TOKEN_ENV] = slurm.token('root');
    await installCrds();
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    workers = await generalNodes();
    expect(workers.length).toBeGreaterThanOrEqual(1);
    await setConfig(slurmOn());
  });
  beforeEach(async () => {
    // The Slurm worker of n1 on the first node (a drain evicts it): a fresh one for each test.
    await kubectl(['delete', 'pod', 'slurm-n1', '-n', ns, '--ignore-not-found', '--grace-period=0', '--force']);
    await admin().core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'slurm-n1', namespace: ns, labels: WORKER_LABELS, annotations: { 'kmaint.io/sim-termination-seconds': '0' } },
        spec: { nodeName: workers[0] as string, hostname: 'n1', terminationGracePeriodSeconds: 1, containers: [{ name: 'slurmd', image: 'registry.k8s.io/pause:3.10' }] },
      },
    });
  });
  afterAll(async () => {
    await removeAllNMs(ns);
    await setConfig(undefined);
    delete process.env[TOKEN_ENV];
    await slurm?.stop();
    rmSync(slurmDir, { recursive: true, force: true });
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  it('reserves n1 from not-before: a job whose time limit crosses it is not started on n1, a short one is; moving not-before moves it; deletion deletes it', async () => {
    const notBefore = await requestTenMinutesAhead('window', {});
    const name = `kmaint_${ns}_window`;

    const made = await driveUntil(`Slurm reservation ${name}`, async () => (await reservations()).find((r) => r.name === name));
    // (slurmrestd's GET shows no comment; SPEC_NODES is Slurm's own, for a reservation of named nodes)
    expect([made.node_list, made.start_time.number, made.flags, made.users]).toEqual(['n1', notBefore.getTime() / 1000, ['MAINT', 'IGNORE_JOBS', 'SPEC_NODES'], 'root']);
    const nm = await getNM(ns, 'window');
    expect(nm?.metadata.annotations?.[ANNOTATION_SLURM_RESERVATION]).toBe(name);
    expect(nm?.metadata.finalizers).toEqual([FINALIZER]);
    expect(phaseOf(nm)).toBe('Pending');
    expect(nm?.status?.conditions?.find((c) => c.type === 'Ready')?.message).toBe(`waiting: not before ${rfc3339Seconds(notBefore)} (kmaint.io/not-before)`);
    expect(await events('window')).toEqual([['Normal', `reserving Slurm node n1 from ${rfc3339Seconds(notBefore)} (MAINT reservation ${name}): jobs that would still run then are not started there`]]);

    // One minute ends before the reservation ten minutes ahead: started on n1. 30 minutes would cross it: not started.
    expect(await ranOn(await submit('short-on-n1', 'n1', 1))).toBe('n1');
    const long = await submit('long-on-n1', 'n1', 30);
    expect(await heldByReservation(long)).toEqual({ state: ['PENDING'], reason: 'ReqNodeNotAvail' });
    // The same long job on n2, which is not reserved, runs: the reservation is what keeps it off n1.
    expect(await ranOn(await submit('long-on-n2', 'n2', 30))).toBe('n2');
    expect((await job(long)).job_state).toEqual(['PENDING']);

    // not-before moves five minutes later: the reservation is made again from the new time.
    const later = new Date(notBefore.getTime() + 5 * MINUTE);
    await patchNM(ns, 'window', { metadata: { annotations: { [ANNOTATION_NOT_BEFORE]: rfc3339Seconds(later) } } });
    const moved = await driveUntil(`Slurm reservation ${name} from ${rfc3339Seconds(later)}`, async () => (await reservations()).find((r) => r.name === name && r.start_time.number === later.getTime() / 1000));
    expect(moved.node_list).toBe('n1');
    expect((await job(long)).job_state).toEqual(['PENDING']);

    // Deleting the request deletes the reservation before the finalizer goes; then the long job starts on n1.
    await deleteNM(ns, 'window');
    await driveUntil(`${ns}/window gone`, async () => ((await getNM(ns, 'window')) === undefined ? true : undefined));
    expect((await reservations()).map((r) => r.name)).toEqual([]);
    expect(await ranOn(long)).toBe('n1');
  });

  it('kept through the maintenance: admitted once not-before has come, Slurm node drained, Ready with the reservation in place; deleting the request undrains n1 and deletes the reservation', async () => {
    // kmaint's passes are run with their clock past not-before below (Slurm's stays real).
    const notBefore = await requestTenMinutesAhead('soon', { drainSpec: { force: true, podSelector: 'app.kubernetes.io/name=slurmd', timeoutSeconds: 0 } });
    const name = `kmaint_${ns}_soon`;
    const made = await driveUntil(`Slurm reservation ${name}`, async () => (await reservations()).find((r) => r.name === name));
    expect([made.node_list, made.start_time.number]).toEqual(['n1', notBefore.getTime() / 1000]);

    // Not admitted before not-before: after the passes that made the reservation it is still Pending.
    expect(phaseOf(await getNM(ns, 'soon'))).toBe('Pending');
    // kmaint's clock past not-before (Slurm's stays real, so the reservation has not started): the window has come,
    // the reservation starts at not-before and is kept; the request is admitted, n1 drained, and the request Ready.
    const ready = await driveAt(notBefore.getTime() + MINUTE - Date.now(), `${ns}/soon Ready`, async () => {
      const nm = await getNM(ns, 'soon');
      return phaseOf(nm) === 'Ready' ? nm : undefined;
    });
    expect(ready.metadata.annotations?.['kmaint.io/slurm-drained']).toBe('n1');
    const n1 = (await slurm.rest('GET', `/slurm/${API}/node/n1`)).body as { nodes: Array<{ state: string[]; reason: string }> };
    expect([drainState(n1.nodes[0]?.state), n1.nodes[0]?.reason]).toEqual([['IDLE', 'DRAIN'], `kmaint: upgrade.acme.com ${ns}/soon`]);
    expect((await reservations()).map((r) => r.name)).toEqual([name]);

    await deleteNM(ns, 'soon');
    await driveAt(notBefore.getTime() + MINUTE - Date.now(), `${ns}/soon gone`, async () => ((await getNM(ns, 'soon')) === undefined ? true : undefined));
    expect((await reservations()).map((r) => r.name)).toEqual([]);
    const after = (await slurm.rest('GET', `/slurm/${API}/node/n1`)).body as { nodes: Array<{ state: string[] }> };
    expect(drainState(after.nodes[0]?.state)).toEqual(['IDLE']);
  });

  it('issue 31: a not-before 30 days ahead reserves nothing (beyond the 7-day horizon): no record, no reservation, no event; the request just waits', async () => {
    const far = new Date(Math.floor((Date.now() + 30 * 24 * 60 * MINUTE) / 1000) * 1000);
    await admin().custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns,
      plural: NODE_MAINTENANCE_PLURAL,
      body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', metadata: { name: 'far', namespace: ns, annotations: { [ANNOTATION_NOT_BEFORE]: rfc3339Seconds(far) } }, spec: { requestorID: 'upgrade.acme.com', nodeName: workers[0] as string } },
    });
    // Three scheduler passes: on the code before the horizon the first recorded the reservation and the second made it (endless).
    for (let i = 0; i < 3; i++) await runPass('scheduler', { client: new KubeClient(kmaintKubeConfig()), namespace: KMAINT_NS, now: () => new Date() });
    const nm = await getNM(ns, 'far');
    expect([phaseOf(nm), nm?.metadata.annotations?.[ANNOTATION_SLURM_RESERVATION], nm?.metadata.finalizers]).toEqual(['Pending', undefined, undefined]);
    expect((await reservations()).map((r) => r.name)).toEqual([]);
    expect(await events('far')).toEqual([]);
    await deleteNM(ns, 'far');
  });

  it('spec.slurm turned off: cleanup holds the deleted request\'s finalizer and says why, and releases it once Slurm is on again; a kmaint_ reservation whose request is gone is deleted by the sweep', async () => {
    await requestTenMinutesAhead('held', {});
    const name = `kmaint_${ns}_held`;
    await driveUntil(`Slurm reservation ${name}`, async () => (await reservations()).find((r) => r.name === name));
    await setConfig({ maxParallelOperations: 3 });
    await deleteNM(ns, 'held');
    const cleanup = await runPass('cleanup', { client: new KubeClient(kmaintKubeConfig()), namespace: KMAINT_NS, now: () => new Date() });
    expect(cleanup.errors).toEqual([]);
    const held = await getNM(ns, 'held');
    expect([held?.metadata.finalizers, held?.status?.conditions?.find((c) => c.type === 'Ready')?.message]).toEqual([
      [FINALIZER],
      `releasing: spec.slurm is not enabled: cannot delete Slurm reservation ${name} (drop annotation ${ANNOTATION_SLURM_RESERVATION} to release without deleting it)`,
    ]);
    // Said once: the next cleanup pass writes nothing.
    expect((await runPass('cleanup', { client: new KubeClient(kmaintKubeConfig()), namespace: KMAINT_NS, now: () => new Date() })).actions).toEqual({});
    expect((await reservations()).map((r) => r.name)).toEqual([name]);
    await setConfig(slurmOn());
    await driveUntil(`${ns}/held gone`, async () => ((await getNM(ns, 'held')) === undefined ? true : undefined));
    expect((await reservations()).map((r) => r.name)).toEqual([]);

    // A reservation with kmaint's name for a request that does not exist (one that landed after its request went).
    const now = Math.floor(Date.now() / 1000);
    const client = new SlurmRestClient({ url: slurm.url, token: process.env[TOKEN_ENV] ?? '' });
    expect(await client.createReservation({ name: `kmaint_${ns}_ghost`, nodes: ['n2'], startTime: now + 600, endTime: now + 600 + 4 * 3600, users: ['root'], comment: 'left by a race' })).toEqual({ ok: true, value: undefined });
    expect((await reservations()).map((r) => r.name)).toEqual([`kmaint_${ns}_ghost`]);
    await driveUntil(`kmaint_${ns}_ghost swept`, async () => ((await reservations()).length === 0 ? true : undefined));
  });

  // Issue 31's forgeries as a requestor's ServiceAccount (test/support/attacker.ts), in both policy modes (issue 40 point 6):
  // with the chart's policy the forged records are refused at create; without it kmaint ignores them.
  it.each(POLICY_MODES)("issue 31: forged kmaint.io/slurm-reservation and slurm-drained touch neither another request's reservation nor its drain; the reservation has an end kmaint can move; the sweep lifts the drain once its request is gone (%s)", async (mode: PolicyMode) => {
    const attackerNs = `${ns}-${mode}`;
    const attacker = await makeRequestor(attackerNs);
    const undoPolicy = await usePolicyMode(mode, () => policyRefuses(attacker, workers[0] as string));
    try {
      const notBefore = await requestTenMinutesAhead('victim', {});
      const name = `kmaint_${ns}_victim`;
      const made = await driveUntil(`Slurm reservation ${name}`, async () => (await reservations()).find((r) => r.name === name));
      // Never unbounded: 4 h from its start.
      expect([made.start_time.number, made.end_time.number]).toEqual([notBefore.getTime() / 1000, notBefore.getTime() / 1000 + 4 * 3600]);
      // n2 drained for the victim (as the drainer would): its reason names it.
      const victimReason = `kmaint: upgrade.acme.com ${ns}/victim`;
      expect((await slurm.rest('POST', `/slurm/${API}/node/n2`, { state: ['DRAIN'], reason: victimReason })).status).toBe(200);
      const n2 = async (): Promise<[string[], string]> => {
        const body = (await slurm.rest('GET', `/slurm/${API}/node/n2`)).body as { nodes: Array<{ state: string[]; reason: string }> };
        return [drainState(body.nodes[0]?.state), body.nodes[0]?.reason ?? ''];
      };

      // A waiting request (not-before beyond the horizon) naming the victim's reservation: nothing deleted.
      const far = rfc3339Seconds(new Date(Date.now() + 30 * 24 * 60 * MINUTE));
      const spec = { requestorID: 'attacker.example.com', nodeName: workers[0] as string };
      const forged = [
        await attacker.create('forger', spec, { annotations: { [ANNOTATION_NOT_BEFORE]: far, [ANNOTATION_SLURM_RESERVATION]: name } }),
        // A deleted request with the finalizer naming the victim's reservation and n2: released, neither touched.
        await attacker.create('forger-2', spec, { finalizers: [FINALIZER], annotations: { [ANNOTATION_SLURM_RESERVATION]: name, [ANNOTATION_SLURM_DRAINED]: 'n2' } }),
      ];
      const record = (keys: string): string => `annotation ${keys} is a record only kmaint writes: only ${KMAINT_SA_USER} may set, change or remove it`;
      expect(forged).toEqual(
        mode === 'policy'
          ? [policyDenied('forger', record(ANNOTATION_SLURM_RESERVATION)), policyDenied('forger-2', record(`${ANNOTATION_SLURM_RESERVATION}, ${ANNOTATION_SLURM_DRAINED}`))]
          : ['created', 'created'],
      );
      if (mode === 'no-policy') {
        await driveUntil(`${attackerNs}/forger Pending`, async () => (phaseOf(await getNM(attackerNs, 'forger')) === 'Pending' ? true : undefined));
        expect(await attacker.delete('forger-2')).toBe('deleted');
        await driveUntil(`${attackerNs}/forger-2 gone`, async () => ((await getNM(attackerNs, 'forger-2')) === undefined ? true : undefined));
      }
      expect((await reservations()).map((r) => r.name)).toEqual([name]);
      expect(await n2()).toEqual([['IDLE', 'DRAIN'], victimReason]);

      // The end moves on the real slurmrestd (what the sweep sends once less than 2 h are left).
      const client = new SlurmRestClient({ url: slurm.url, token: process.env[TOKEN_ENV] ?? '' });
      expect(await client.extendReservation(name, made.end_time.number + 3600)).toEqual({ ok: true, value: undefined });
      expect((await reservations()).find((r) => r.name === name)?.end_time.number).toBe(made.end_time.number + 3600);

      // The victim deleted: its reservation goes with it; n2, which it never recorded, is lifted by the sweep once it is gone.
      await deleteNM(ns, 'victim');
      if (mode === 'no-policy') expect(await attacker.delete('forger')).toBe('deleted');
      await driveUntil('n2 undrained by the sweep', async () => ((await n2())[0].includes('DRAIN') ? undefined : true));
      expect((await reservations()).map((r) => r.name)).toEqual([]);
      expect(await getNM(ns, 'victim')).toBeUndefined();
    } finally {
      await undoPolicy();
      await removeAllNMs(attackerNs);
      await admin().core.deleteNamespace({ name: attackerNs });
    }
  });

  it('issue 30, node deleted: cleanup deletes the reservation of a request whose Node is gone before it drops the finalizer; the request, not admitted yet (so not owned by the Node), stays and waits', async () => {
    // A Node of this test's own, with no kubelet (deleting it leaves the testbed's nodes whole), and n2's worker pod on it.
    const gone = `${ns}-gone`;
    await admin().core.createNode({ body: { metadata: { name: gone } } });
    try {
      await admin().core.createNamespacedPod({
        namespace: ns,
        body: { metadata: { name: 'slurm-n2-gone', namespace: ns, labels: WORKER_LABELS }, spec: { nodeName: gone, hostname: 'n2', containers: [{ name: 'slurmd', image: 'registry.k8s.io/pause:3.10' }] } },
      });
      await requestTenMinutesAhead('orphan', { nodeName: gone });
      const name = `kmaint_${ns}_orphan`;
      const made = await driveUntil(`Slurm reservation ${name}`, async () => (await reservations()).find((r) => r.name === name));
      expect(made.node_list).toBe('n2');
      const waiting = await getNM(ns, 'orphan');
      expect([waiting?.metadata.finalizers, waiting?.metadata.ownerReferences]).toEqual([[FINALIZER], undefined]);

      await admin().core.deleteNode({ name: gone });
      // Read right after the round whose cleanup dropped the finalizer: the reservation was deleted first (the Slurm
      // sweep would not have: the request still lives and its not-before is ahead).
      const released = await driveUntil(`${ns}/orphan released`, async () => {
        const nm = await getNM(ns, 'orphan');
        return nm?.metadata.finalizers === undefined ? { nm, left: (await reservations()).map((r) => r.name) } : undefined;
      });
      expect(released.left).toEqual([]);
      expect([phaseOf(released.nm), released.nm?.metadata.annotations?.[ANNOTATION_SLURM_RESERVATION], released.nm?.status?.conditions?.find((c) => c.type === 'Ready')?.message]).toEqual(['Pending', undefined, `waiting: node ${gone} not found`]);
      // Another round makes nothing again for a request whose Node is gone.
      await driveUntil('one more round', async () => true);
      expect([(await getNM(ns, 'orphan'))?.metadata.finalizers, (await reservations()).map((r) => r.name)]).toEqual([undefined, []]);
      await deleteNM(ns, 'orphan');
    } finally {
      await kubectl(['delete', 'pod', 'slurm-n2-gone', '-n', ns, '--ignore-not-found', '--grace-period=0', '--force']);
      await deleteOwnNode(gone);
    }
  });

  it("issue 30, uninstall with a request in flight: kmaint no longer running leaves its Slurm drain and reservation; docs/security.md's `kmaint leftovers --fix` lifts exactly those on the real Slurm (and kmaint's records on the Kubernetes side), and the request then goes with nothing left to lift", async () => {
    const notBefore = await requestTenMinutesAhead('left', { drainSpec: { force: true, podSelector: 'app.kubernetes.io/name=slurmd', timeoutSeconds: 0 } });
    const name = `kmaint_${ns}_left`;
    await driveUntil(`Slurm reservation ${name}`, async () => (await reservations()).find((r) => r.name === name));
    // kmaint's clock past not-before (as in "kept through the maintenance"): admitted, n1 drained, Ready.
    await driveAt(notBefore.getTime() + MINUTE - Date.now(), `${ns}/left Ready`, async () => (phaseOf(await getNM(ns, 'left')) === 'Ready' ? true : undefined));
    // Someone else's state in Slurm, which the commands must leave: an administrator's drain and reservation on n2.
    const now = Math.floor(Date.now() / 1000);
    const client = new SlurmRestClient({ url: slurm.url, token: process.env[TOKEN_ENV] ?? '' });
    expect(await client.createReservation({ name: 'admin_window', nodes: ['n2'], startTime: now + 600, endTime: now + 4200, users: ['root'], comment: 'an administrator\'s' })).toEqual({ ok: true, value: undefined });
    expect((await slurm.rest('POST', `/slurm/${API}/node/n2`, { state: ['DRAIN'], reason: 'admin: bad dimm' })).status).toBe(200);
    try {
      // kmaint stops running here: no pass runs from now on, which is what an uninstall leaves (the helm test shows the
      // uninstall itself and its Kubernetes side). In Slurm: n1 drained for the request, and its reservation.
      expect(await slurmNode('n1')).toEqual([['IDLE', 'DRAIN'], `kmaint: upgrade.acme.com ${ns}/left`]);
      expect((await reservations()).map((r) => r.name).sort()).toEqual(['admin_window', name]);

      expect(readFileSync(new URL('../docs/security.md', import.meta.url), 'utf8')).toContain(`kmaint ${DOCUMENTED_FIX.join(' ')} `);
      const ran = await runKmaint(['--kubeconfig', testbed().kubeconfigPath, ...DOCUMENTED_FIX, slurm.url, '--slurm-token-env', TOKEN_ENV], 60_000);
      expect([ran.code, ran.stdout, ran.stderr.split('\n').filter((l) => l.startsWith('fixed:') || l.startsWith('not fixed') || l.includes('still left'))]).toEqual([0, '', ['fixed: undrain Slurm node n1', `fixed: delete Slurm reservation ${name}`]]);
      expect([(await slurmNode('n1'))[0], await slurmNode('n2')]).toEqual([['IDLE'], [['IDLE', 'DRAIN'], 'admin: bad dimm']]);
      expect((await reservations()).map((r) => r.name)).toEqual(['admin_window']);
      const again = await runKmaint(['--kubeconfig', testbed().kubeconfigPath, '--kmaint-namespace', 'kmaint', 'leftovers', '--slurm-url', slurm.url, '--slurm-token-env', TOKEN_ENV], 60_000);
      expect([again.code, again.stdout]).toEqual([0, '']);

      // --fix also took kmaint's finalizer (no kmaint runs to release it): the request, deleted, goes at once, and a
      // kmaint back (re-installed) finds nothing in Slurm to lift.
      await deleteNM(ns, 'left');
      await driveUntil(`${ns}/left gone`, async () => ((await getNM(ns, 'left')) === undefined ? true : undefined));
      expect([(await slurmNode('n1'))[0], await slurmNode('n2'), (await reservations()).map((r) => r.name)]).toEqual([['IDLE'], [['IDLE', 'DRAIN'], 'admin: bad dimm'], ['admin_window']]);
    } finally {
      await slurm.rest('POST', `/slurm/${API}/node/n2`, { state: ['UNDRAIN'] });
      await slurm.rest('DELETE', `/slurm/${API}/reservation/admin_window`);
    }
  });
});
