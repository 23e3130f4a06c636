// Validation before return to service (issue 44 point 1) on the testbed: cleanup runs spec.validation's Job pinned to a
// released node (the real Job controller makes its pod; the simulated kubelet ends it as its env says, never running the
// command) and uncordons only when it succeeded. Failure and timeout keep the node cordoned with KmaintValidationFailed
// and a Warning event; a later release that validates successfully lifts that cordon; a request can opt out.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchV1Api, type V1Node } from '@kubernetes/client-node';
import type { NodeMaintenance } from '../shared/api/index.ts';
import { adminKubeConfig, kubectl, waitFor } from './support/cluster.ts';
import { KMAINT_NS, admin, createNM, deleteNM, driveUntil, getNM, installCrds, nodes, pass, patchNM, phaseOf, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';

const ns = `val-${randomBytes(3).toString('hex')}`;
const IMAGE = 'registry.example/validate:1';
/** spec.validation whose Job's pod the simulated kubelet ends with `exitCode` after `runSeconds`. */
const validation = (exitCode: number, runSeconds: number, timeoutSeconds = 300): Record<string, unknown> => ({
  maxParallelOperations: 4,
  validation: { job: { image: IMAGE, command: ['dcgmi', 'diag', '-r', '3'], env: [{ name: 'KMAINT_SIM_EXIT_CODE', value: String(exitCode) }, { name: 'KMAINT_SIM_RUN_SECONDS', value: String(runSeconds) }] }, timeoutSeconds },
});
let names: string[] = [];

async function node(name: string): Promise<V1Node> {
  return admin().core.readNode({ name });
}

/** The node's validation.kmaint.io/ annotations. */
async function records(name: string): Promise<Record<string, string>> {
  return Object.fromEntries(Object.entries((await node(name)).metadata?.annotations ?? {}).filter(([k]) => k.startsWith('validation.kmaint.io/')));
}

async function failedCondition(name: string): Promise<{ status?: string; reason?: string; message?: string } | undefined> {
  const c = (await node(name)).status?.conditions?.find((x) => x.type === 'KmaintValidationFailed');
  return c && { status: c.status, reason: c.reason ?? '', message: c.message ?? '' };
}

/** The validation Jobs in kmaint's namespace, by name, with the phases of their pods (what kmaint reads). */
async function jobs(): Promise<Array<[string, string[]]>> {
  const list = await adminKubeConfig().makeApiClient(BatchV1Api).listNamespacedJob({ namespace: KMAINT_NS, labelSelector: 'kmaint.io/validation-pod=true' });
  const pods = (await admin().core.listNamespacedPod({ namespace: KMAINT_NS, labelSelector: 'kmaint.io/validation-pod=true' })).items;
  const phases = (job: string): string[] => pods.filter((p) => p.metadata?.labels?.['job-name'] === job && !p.metadata.deletionTimestamp).map((p) => p.status?.phase ?? '');
  return list.items.filter((j) => !j.metadata?.deletionTimestamp).map((j): [string, string[]] => [j.metadata?.name ?? '', phases(j.metadata?.name ?? '')]).sort(([a], [b]) => a.localeCompare(b));
}

/** This file's events of `reason` on Node `name` (its requests' namespace in the message): other files on the same testbed leave theirs. */
async function nodeEvents(name: string, reason: string): Promise<string[]> {
  const list = await admin().core.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.name=${name},reason=${reason}` });
  return list.items.filter((e) => (e.message ?? '').includes(`(${ns}/`)).map((e) => `${e.type ?? ''} ${e.message ?? ''}`);
}

function gone(name: string): Promise<true> {
  return driveUntil(`${ns}/${name} released`, async () => ((await getNM(ns, name)) === undefined ? true : undefined), 120_000);
}

const uidOf = (nm: NodeMaintenance): string => nm.metadata.uid ?? '';

describe(`validation before return to service on the ${process.env['KMAINT_TEST_CLUSTER'] ?? 'testbed'}`, () => {
  beforeAll(async () => {
    await installCrds();
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    names = (await nodes()).map((n) => n.metadata?.name ?? '').sort().slice(0, 4);
  });
  afterAll(async () => {
    await removeAllNMs(ns);
    await setConfig(undefined);
    // What the failed validations left on purpose: the kept Jobs, the nodes' records, condition and cordon.
    await kubectl(['delete', 'jobs', '-n', KMAINT_NS, '-l', 'kmaint.io/validation-pod=true', '--ignore-not-found', '--wait=true']);
    for (const n of names) {
      const drop = Object.fromEntries(Object.keys(await records(n)).map((k) => [k, null]));
      // The admission record of a request whose failed validation kept the cordon goes with the cordon lifted here.
      const admitted = (await node(n)).metadata?.annotations?.['kmaint.io/admitted'] ?? '';
      await kubectl(['annotate', 'node', n, ...Object.keys(drop).map((k) => `${k}-`), ...(admitted.startsWith(`${ns}/`) ? ['kmaint.io/admitted-'] : [])]);
      const conditions = (await node(n)).status?.conditions ?? [];
      const at = conditions.findIndex((c) => c.type === 'KmaintValidationFailed');
      if (at >= 0) await kubectl(['patch', 'node', n, '--subresource=status', '--type=json', '-p', JSON.stringify([{ op: 'remove', path: `/status/conditions/${at}` }])]);
      await setUnschedulable(n, false);
    }
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  it('passes -> uncordoned; opted out -> uncordoned unvalidated; fails -> stays cordoned with condition and event, Job kept for its logs; times out -> the same; a later pass lifts the kept cordon', async () => {
    expect(names.length).toBe(4);
    const [passes, skips, fails, hangs] = names as [string, string, string, string];
    // The passing Job runs 8 s: long enough to see the node still cordoned while it runs.
    await setConfig(validation(0, 8));
    const requests = { passes: 'v-passes', skips: 'v-skips', fails: 'v-fails', hangs: 'v-hangs' };
    for (const [key, n] of [['passes', passes], ['skips', skips], ['fails', fails], ['hangs', hangs]] as const) await createNM(ns, requests[key], { requestorID: 'validation.example.com', nodeName: n });
    await patchNM(ns, requests.skips, { metadata: { annotations: { 'kmaint.io/validation': 'skip' } } });
    const ready = await driveUntil('all four Ready', async () => {
      const got = await Promise.all(Object.values(requests).map((r) => getNM(ns, r)));
      return got.every((nm) => phaseOf(nm) === 'Ready') ? (got as NodeMaintenance[]) : undefined;
    }, 120_000);
    const uid = Object.fromEntries(ready.map((nm) => [nm.metadata.name, uidOf(nm)]));

    // Passes, and the opt-out: the opted-out request is released at once, the other's node stays cordoned while its Job runs.
    await deleteNM(ns, requests.passes);
    await deleteNM(ns, requests.skips);
    await gone(requests.skips);
    expect([(await node(skips)).spec?.unschedulable ?? false, await records(skips)]).toEqual([false, {}]);
    expect([(await node(passes)).spec?.unschedulable, (await records(passes))['validation.kmaint.io/job'], (await jobs()).map(([j]) => j)]).toEqual([true, `kmaint/kmaint-validate-${uid['v-passes']}`, [`kmaint-validate-${uid['v-passes']}`]]);
    await gone(requests.passes);
    expect([(await node(passes)).spec?.unschedulable ?? false, await records(passes), await failedCondition(passes), await jobs()]).toEqual([
      false,
      { 'validation.kmaint.io/for': `${ns}/v-passes/${uid['v-passes']}`, 'validation.kmaint.io/outcome': 'Passed' },
      undefined,
      [],
    ]);
    expect(await nodeEvents(passes, 'ValidationPassed')).toEqual([`Normal validation Job kmaint/kmaint-validate-${uid['v-passes']} succeeded on node ${passes} (${ns}/v-passes)`]);

    // Fails: the release completes, the node stays cordoned under validation's record, the failed Job is kept.
    await setConfig(validation(1, 1));
    await deleteNM(ns, requests.fails);
    await gone(requests.fails);
    const failJob = `kmaint-validate-${uid['v-fails']}`;
    const failMessage = `validation Job kmaint/${failJob} failed on node ${fails} (${ns}/v-fails); it stays cordoned; logs: kubectl logs job/${failJob} -n kmaint (the Job is kept until the node's next validation)`;
    expect([(await node(fails)).spec?.unschedulable, (await node(fails)).metadata?.annotations?.['kmaint.io/cordoned-by'], await records(fails), await failedCondition(fails), await jobs()]).toEqual([
      true,
      undefined,
      { 'validation.kmaint.io/for': `${ns}/v-fails/${uid['v-fails']}`, 'validation.kmaint.io/job': `kmaint/${failJob}`, 'validation.kmaint.io/outcome': 'Failed', 'validation.kmaint.io/cordoned-by': `kmaint/${ns}/v-fails` },
      { status: 'True', reason: 'Failed', message: failMessage },
      [[failJob, ['Failed']]],
    ]);
    expect(await nodeEvents(fails, 'ValidationFailed')).toEqual([`Warning ${failMessage}`]);
    // Nothing lifts it behind validation's back: another cleanup pass leaves it cordoned.
    await pass('cleanup');
    expect((await node(fails)).spec?.unschedulable).toBe(true);

    // Times out: a pod that runs an hour, and a cleanup pass 301 s after the Job was issued.
    await setConfig(validation(0, 3600, 300));
    await deleteNM(ns, requests.hangs);
    const hangJob = `kmaint-validate-${uid['v-hangs']}`;
    // Each pass may meet a conflict on the Node (its heartbeats move it): passes until the attempt is recorded.
    expect(await driveUntil('the hanging attempt recorded', async () => (await records(hangs))['validation.kmaint.io/job'])).toBe(`kmaint/${hangJob}`);
    const issued = Date.parse((await records(hangs))['validation.kmaint.io/start-time'] ?? '');
    await waitFor('v-hangs released by cleanup passes 301 s after the Job was issued', async () => {
      await pass('cleanup', { now: new Date(issued + 301_000) });
      return (await getNM(ns, requests.hangs)) === undefined ? true : undefined;
    }, 60_000, 300);
    expect([await getNM(ns, requests.hangs), (await node(hangs)).spec?.unschedulable, (await records(hangs))['validation.kmaint.io/outcome'], await failedCondition(hangs)]).toEqual([
      undefined,
      true,
      'TimedOut',
      { status: 'True', reason: 'TimedOut', message: `validation Job kmaint/${hangJob} did not succeed within 300 s on node ${hangs} (${ns}/v-hangs); it stays cordoned; logs: kubectl logs job/${hangJob} -n kmaint (the Job is kept until the node's next validation)` },
    ]);

    // A later request on the failed node whose validation passes: the kept Job goes, the cordon and the condition too.
    await setConfig(validation(0, 1));
    await createNM(ns, 'v-again', { requestorID: 'repair.example.com', nodeName: fails });
    const again = await driveUntil('v-again Ready', async () => {
      const nm = await getNM(ns, 'v-again');
      return phaseOf(nm) === 'Ready' ? nm : undefined;
    }, 120_000);
    await deleteNM(ns, 'v-again');
    await gone('v-again');
    expect([(await node(fails)).spec?.unschedulable ?? false, await records(fails), await failedCondition(fails), (await jobs()).map(([j]) => j)]).toEqual([
      false,
      { 'validation.kmaint.io/for': `${ns}/v-again/${uidOf(again)}`, 'validation.kmaint.io/outcome': 'Passed' },
      undefined,
      [hangJob],
    ]);
  }, 400_000);
});
