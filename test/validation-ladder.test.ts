// Validation before return to service handing a node to the repair ladder (issue 44, "Done when": validation fails ->
// handed to the ladder; the reboot rung succeeds: new boot ID, validation passes), on the testbed, with spec.validation
// and spec.reaper.repair both set and nothing set by hand on the Node: kmaint's real passes (scheduler, drainer, cleanup,
// reaper) run as its ServiceAccount, the real Job controller makes the validation pods and the simulated kubelet ends
// them as their env says (KMAINT_SIM_EXIT_CODE, KMAINT_SIM_RUN_SECONDS: the config's job.env, changed between runs) and
// reboots the node for the reboot Job. Two rounds on one node:
//  1. a request released -> its validation Job fails -> cordoned, KmaintValidationFailed True, and the reaper's next pass
//     files rung 0 (reboot) through a NodeMaintenance; the node reboots (new boot ID), the rung's release validates again
//     and passes -> uncordoned, the ladder's rung and unhealthy-since gone, its history kept, no next rung.
//  2. the same again, but the validation after the reboot runs 10 s while the rung's timeoutSeconds is 2 s: reaper passes
//     past the rung's timeout file no next rung while it runs (docs/configure.md: the ladder waits for a validation's
//     outcome); it passes -> uncordoned, the history keeps both repairs, nothing replaced.
import { randomBytes } from 'node:crypto';
import { AutoScalingClient, DescribeAutoScalingInstancesCommand } from '@aws-sdk/client-auto-scaling';
import { EC2Client, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import type { V1Node } from '@kubernetes/client-node';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, NODE_MAINTENANCE_PLURAL, VERSION, type NodeMaintenance } from '../shared/api/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { runPass, type PassFunction, type PassSummary } from '../shared/pass/index.ts';
import { awsProvider, providerMap } from '../shared/reaper/index.ts';
import { kmaintKubeConfig, kubectl, waitFor } from './support/cluster.ts';
import { KMAINT_NS, admin, createNM, deleteNM, generalNodes, getNM, phaseOf, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';
import { repairingReaper } from './support/repair-config.ts';

const ns = `vl-${randomBytes(3).toString('hex')}`;
const FAILED = "conditions[?'KmaintValidationFailed'].orValue('') == 'True'";
const SINCE = 'repair.kmaint.io/unhealthy-since';
const RUNG = 'repair.kmaint.io/rung';
const HISTORY = 'repair.kmaint.io/history';
const REQUESTOR = 'validation.example.com';

const ec2 = mockClient(EC2Client);
const asg = mockClient(AutoScalingClient);
const providers = providerMap([awsProvider({ clients: () => ({ ec2: new EC2Client({ region: 'us-east-1' }), autoScaling: new AutoScalingClient({ region: 'us-east-1' }) }) })]);
const client = new KubeClient(kmaintKubeConfig());

/**
 * Both features on: spec.validation's Job ends with `exitCode` after `runSeconds` on the simulated kubelet; the ladder
 * is reboot (while KmaintValidationFailed is True, for `rungSeconds` after its release) then replace.
 */
function config(exitCode: number, runSeconds: number, rungSeconds: number): Record<string, unknown> {
  return {
    maxParallelOperations: 1,
    reboot: { timeoutSeconds: 120 },
    validation: {
      job: { image: 'registry.example/validate:1', command: ['dcgmi', 'diag', '-r', '3'], env: [{ name: 'KMAINT_SIM_EXIT_CODE', value: String(exitCode) }, { name: 'KMAINT_SIM_RUN_SECONDS', value: String(runSeconds) }] },
      timeoutSeconds: 300,
    },
    reaper: repairingReaper(FAILED, 0, { ladder: [{ when: FAILED, remedy: 'reboot', timeoutSeconds: rungSeconds }, { when: FAILED, remedy: 'replace' }], maxConcurrentPerPool: 1, repeatLimit: 2 }),
  };
}

function seconds(at: number): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

async function readNode(name: string): Promise<V1Node> {
  return admin().core.readNode({ name });
}

function annotationsOf(node: V1Node, prefix: string): Record<string, string> {
  return Object.fromEntries(Object.entries(node.metadata?.annotations ?? {}).filter(([k]) => k.startsWith(prefix)));
}

function failedCondition(node: V1Node): { status: string; reason: string; at: string } | undefined {
  const c = node.status?.conditions?.find((x) => x.type === 'KmaintValidationFailed');
  return c && { status: c.status, reason: c.reason ?? '', at: c.lastTransitionTime ? seconds(new Date(c.lastTransitionTime).getTime()) : '' };
}

async function reaperRequests(): Promise<NodeMaintenance[]> {
  const list = (await admin().custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: KMAINT_NS, plural: NODE_MAINTENANCE_PLURAL })) as { items: NodeMaintenance[] };
  return list.items.filter((nm) => nm.spec.requestorID === 'reaper.kmaint.io');
}

/** The validation pods' phases by Job name (what cleanup reads of a validation Job). */
async function validationPods(): Promise<Record<string, string>> {
  const pods = (await admin().core.listNamespacedPod({ namespace: KMAINT_NS, labelSelector: 'kmaint.io/validation-pod=true' })).items;
  return Object.fromEntries(pods.filter((p) => !p.metadata?.deletionTimestamp).map((p) => [p.metadata?.labels?.['job-name'] ?? '', p.status?.phase ?? '']));
}

function terminated(): string[][] {
  return ec2.commandCalls(TerminateInstancesCommand).map((c) => c.args[0].input.InstanceIds ?? []);
}

function reaperPass(): Promise<PassSummary> {
  return runPass('reaper', { client, namespace: KMAINT_NS, now: () => new Date(), reaperProviders: providers });
}

function lifecyclePasses(): Promise<void> {
  return (['scheduler', 'drainer', 'cleanup'] as PassFunction[]).reduce(async (prev, fn) => {
    await prev;
    await runPass(fn, { client, namespace: KMAINT_NS, now: () => new Date() });
  }, Promise.resolve());
}

describe('validation hands a failed node to the repair ladder on the testbed', () => {
  let node = '';
  const start = Math.floor(Date.now() / 1000) * 1000;
  /** Phases the reaper's rung request showed after each pass, consecutive repeats dropped. */
  let rungPhases: string[] = [];
  /** Every reaper request ever seen past creation, by uid: one per rung filed. */
  const filed = new Map<string, string>();

  async function observeRung(): Promise<void> {
    for (const nm of await reaperRequests()) {
      filed.set(nm.metadata.uid ?? '', `${nm.metadata.name} ${nm.metadata.annotations?.['kmaint.io/reboot'] === 'true' ? 'reboot' : 'no reboot'}`);
      const phase = phaseOf(nm) ?? '';
      if (rungPhases.at(-1) !== phase) rungPhases.push(phase);
    }
  }

  /** Rounds of scheduler, drainer, cleanup and reaper, with `after` run after each reaper pass, until `check` answers. */
  function drive<T>(what: string, check: () => Promise<T | undefined>, after?: () => Promise<void>): Promise<T> {
    return waitFor(what, async () => {
      await lifecyclePasses();
      await observeRung();
      await reaperPass();
      await observeRung();
      await after?.();
      return check();
    }, 180_000, 200);
  }

  async function nodeEvents(reason: string): Promise<string[]> {
    const items = (await admin().core.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.kind=Node,involvedObject.name=${node},reason=${reason}` })).items;
    return items
      .filter((e) => new Date(e.lastTimestamp ?? e.eventTime ?? 0).getTime() >= start)
      .sort((a, b) => new Date(a.lastTimestamp ?? a.eventTime ?? 0).getTime() - new Date(b.lastTimestamp ?? b.eventTime ?? 0).getTime())
      .map((e) => `${e.type ?? ''} ${e.message ?? ''}`);
  }

  /** A request of a user on the node, Ready, then deleted and released: its validation fails (config set before). */
  async function releaseFailing(name: string): Promise<NodeMaintenance> {
    await createNM(ns, name, { requestorID: REQUESTOR, nodeName: node });
    const ready = await drive(`${ns}/${name} Ready`, async () => {
      const nm = await getNM(ns, name);
      return phaseOf(nm) === 'Ready' ? nm : undefined;
    });
    await deleteNM(ns, name);
    // Lifecycle passes only: the reaper's next pass is the one that must file the rung.
    await waitFor(`${ns}/${name} released`, async () => {
      await lifecyclePasses();
      return (await getNM(ns, name)) === undefined ? true : undefined;
    }, 120_000, 200);
    return ready;
  }

  /** Reaper passes (only) until it filed its request for the node; the first such pass files it, holding nothing back. */
  async function rungFiled(): Promise<NodeMaintenance> {
    return waitFor('the reaper files its rung request', async () => {
      await reaperPass();
      return (await reaperRequests()).find((nm) => nm.spec.nodeName === node);
    }, 60_000, 200);
  }

  beforeAll(async () => {
    [node = ''] = await generalNodes();
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    ec2.on(TerminateInstancesCommand).callsFake((input: { InstanceIds?: string[] }) => ({ TerminatingInstances: (input.InstanceIds ?? []).map((InstanceId) => ({ InstanceId, CurrentState: { Name: 'shutting-down' } })) }));
    asg.on(DescribeAutoScalingInstancesCommand).resolves({ AutoScalingInstances: [] });
  });

  afterAll(async () => {
    await setConfig(undefined);
    await removeAllNMs(ns);
    await removeAllNMs(KMAINT_NS);
    await kubectl(['delete', 'jobs', '-n', KMAINT_NS, '-l', 'kmaint.io/validation-pod=true', '--ignore-not-found', '--wait=true']);
    const n = await readNode(node);
    const admitted = n.metadata?.annotations?.['kmaint.io/admitted'] ?? '';
    // The admission record goes too when it names this file's requests (a later file's leftovers listing is exact).
    const ours = admitted.startsWith(`${ns}/`) || admitted.startsWith(`${KMAINT_NS}/reap-${node}/`);
    const drop = Object.keys(n.metadata?.annotations ?? {}).filter((k) => k.startsWith('validation.kmaint.io/') || k.startsWith('repair.kmaint.io/') || k === 'kmaint.io/reaper-decision' || (k === 'kmaint.io/admitted' && ours));
    if (drop.length > 0) await kubectl(['annotate', 'node', node, ...drop.map((k) => `${k}-`)]);
    const at = (n.status?.conditions ?? []).findIndex((c) => c.type === 'KmaintValidationFailed');
    if (at >= 0) await kubectl(['patch', 'node', node, '--subresource=status', '--type=json', '-p', JSON.stringify([{ op: 'remove', path: `/status/conditions/${at}` }])]);
    await setUnschedulable(node, false);
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  it('validation fails -> cordoned, KmaintValidationFailed, the reaper\'s next pass files the reboot rung; rebooted (new boot ID), validated again: passes -> uncordoned, rung cleared, history kept, no next rung; a rung timeout shorter than the validation after the reboot files no next rung while it runs', async () => {
    expect(node).not.toBe('');
    const before = await readNode(node);
    const providerID = before.spec?.providerID ?? '';
    const bootIDs = [before.status?.nodeInfo?.bootID ?? ''];

    // ---- Round 1: the user's request released, its validation fails (exit 1 after 1 s).
    await setConfig(config(1, 1, 60));
    const first = await releaseFailing('vl-1');
    const job1 = `kmaint-validate-${first.metadata.uid ?? ''}`;
    let n = await readNode(node);
    const failed1 = failedCondition(n);
    expect([n.spec?.unschedulable, failed1?.status, failed1?.reason, annotationsOf(n, 'validation.kmaint.io/'), annotationsOf(n, 'repair.kmaint.io/'), await reaperRequests()]).toEqual([
      true,
      'True',
      'Failed',
      { 'validation.kmaint.io/for': `${ns}/vl-1/${first.metadata.uid ?? ''}`, 'validation.kmaint.io/job': `kmaint/${job1}`, 'validation.kmaint.io/outcome': 'Failed', 'validation.kmaint.io/cordoned-by': `kmaint/${ns}/vl-1` },
      {},
      [],
    ]);

    // The reaper's next pass: rung 0 (reboot) through kmaint's NodeMaintenance, the Node's records written with it.
    const rung1 = await rungFiled();
    n = await readNode(node);
    const filed1 = JSON.parse(n.metadata?.annotations?.[RUNG] ?? '{}') as { at?: string };
    expect([rung1.metadata.name, rung1.metadata.labels, rung1.metadata.annotations, rung1.spec]).toEqual([
      `reap-${node}`,
      { 'kmaint.io/reaper': 'true' },
      { 'kmaint.io/reaper-provider-id': providerID, 'kmaint.io/reaper-force-retry-on-error': 'true', 'kmaint.io/reboot': 'true' },
      { requestorID: 'reaper.kmaint.io', nodeName: node, cordon: true, drainSpec: { force: true, deleteEmptyDir: true, timeoutSeconds: 60 } },
    ]);
    const entry1 = { at: filed1.at, rung: 0, remedy: 'reboot', validation: 'Failed' };
    expect(annotationsOf(n, 'repair.kmaint.io/')).toEqual({
      [SINCE]: failed1?.at,
      [RUNG]: JSON.stringify({ rung: 0, remedy: 'reboot', state: 'requested', at: filed1.at }),
      [HISTORY]: JSON.stringify([entry1]),
    });
    expect(n.metadata?.annotations?.['kmaint.io/reaper-decision']).toBeUndefined();

    // The validation after the rung's release passes this time.
    await setConfig(config(0, 1, 60));
    const rung1Uid = rung1.metadata.uid ?? '';
    await drive('round 1: the node back in service and the ladder\'s records settled', async () => {
      const now = await readNode(node);
      const a = now.metadata?.annotations ?? {};
      return now.spec?.unschedulable !== true && (await reaperRequests()).length === 0 && a[SINCE] === undefined && a[RUNG] === undefined ? now : undefined;
    });
    n = await readNode(node);
    bootIDs.push(n.status?.nodeInfo?.bootID ?? '');
    expect([rungPhases.at(-1), rungPhases.includes('Rebooting'), new Set(bootIDs).size]).toEqual(['Ready', true, 2]);
    expect([failedCondition(n), annotationsOf(n, 'validation.kmaint.io/'), annotationsOf(n, 'repair.kmaint.io/'), await validationPods()]).toEqual([
      undefined,
      { 'validation.kmaint.io/for': `kmaint/reap-${node}/${rung1Uid}`, 'validation.kmaint.io/outcome': 'Passed' },
      { [HISTORY]: JSON.stringify([entry1]) },
      {},
    ]);

    // ---- Round 2: fails again; after the reboot its validation runs 10 s, and the rung's timeout is lowered to 2 s.
    rungPhases = [];
    await setConfig(config(1, 1, 60));
    const second = await releaseFailing('vl-2');
    const failed2 = failedCondition(await readNode(node));
    const rung2 = await rungFiled();
    n = await readNode(node);
    const filed2 = JSON.parse(n.metadata?.annotations?.[RUNG] ?? '{}') as { at?: string };
    const entry2 = { at: filed2.at, rung: 0, remedy: 'reboot', validation: 'Failed' };
    // Two repairs in the window, not more than repeatLimit 2: still the reboot.
    expect([rung2.metadata.annotations?.['kmaint.io/reboot'], annotationsOf(n, 'repair.kmaint.io/')]).toEqual([
      'true',
      { [SINCE]: failed2?.at, [RUNG]: JSON.stringify({ rung: 0, remedy: 'reboot', state: 'requested', at: filed2.at }), [HISTORY]: JSON.stringify([entry1, entry2]) },
    ]);
    await setConfig(config(0, 10, 60));
    const rebooted = await drive('round 2: rung 0 released after the reboot', async () => {
      const r = (await readNode(node)).metadata?.annotations?.[RUNG];
      const rec = r === undefined ? undefined : (JSON.parse(r) as { state: string; at: string });
      return rec?.state === 'rebooted' ? rec : undefined;
    });
    // From here the rung's clock is the wait for health: 2 s, shorter than the 10 s validation now starting.
    await setConfig(config(0, 10, 2));
    const due = Date.parse(rebooted.at) + 2000;
    const rung2Uid = rung2.metadata.uid ?? '';
    const job2 = `kmaint-validate-${rung2Uid}`;
    /** After each reaper pass past the rung's timeout while the validation pod runs: what the ladder had done. */
    const whileValidating: string[] = [];
    await drive(
      'round 2: validated and back in service',
      async () => {
        const now = await readNode(node);
        const a = now.metadata?.annotations ?? {};
        return now.spec?.unschedulable !== true && (await reaperRequests()).length === 0 && a[SINCE] === undefined && a[RUNG] === undefined ? true : undefined;
      },
      async () => {
        if (Date.now() <= due || (await validationPods())[job2] !== 'Running') return;
        const requests = (await reaperRequests()).map((nm) => `${nm.metadata.name}${nm.metadata.deletionTimestamp ? ' (being released)' : ''} ${nm.metadata.uid === rung2Uid ? 'rung 0' : 'another'}`);
        whileValidating.push(`${requests.join(', ')}; ${(await readNode(node)).metadata?.annotations?.[RUNG] ?? ''}`);
      },
    );
    n = await readNode(node);
    bootIDs.push(n.status?.nodeInfo?.bootID ?? '');
    // At least one reaper pass ran past the rung's timeout while the validation ran, and each saw only rung 0's request,
    // held by cleanup's validation step, and the rung record unchanged: no next rung.
    expect(whileValidating.length).toBeGreaterThan(0);
    expect(new Set(whileValidating)).toEqual(new Set([`reap-${node} (being released) rung 0; ${JSON.stringify({ rung: 0, remedy: 'reboot', state: 'rebooted', at: rebooted.at })}`]));
    expect([rungPhases.at(-1), rungPhases.includes('Rebooting'), new Set(bootIDs).size]).toEqual(['Ready', true, 3]);
    expect([n.spec?.unschedulable ?? false, failedCondition(n), annotationsOf(n, 'validation.kmaint.io/'), annotationsOf(n, 'repair.kmaint.io/')]).toEqual([
      false,
      undefined,
      { 'validation.kmaint.io/for': `kmaint/reap-${node}/${rung2Uid}`, 'validation.kmaint.io/outcome': 'Passed' },
      { [HISTORY]: JSON.stringify([entry1, entry2]) },
    ]);
    // Two rungs filed in all, both reboots; none escalated, nothing terminated.
    expect([[...filed.values()], await nodeEvents('RepairEscalated'), terminated()]).toEqual([[`reap-${node} reboot`, `reap-${node} reboot`], [], []]);
    expect(await nodeEvents('Repair')).toEqual([
      `Normal repair rung 0 (reboot) requested: kmaint/reap-${node} drains the node and reboots it (kmaint.io/reboot), then is released`,
      `Normal repair rung 0 (reboot): the node rebooted, kmaint/reap-${node} released; the next rung follows if the node is still unhealthy 60 s from now`,
      `Normal repair rung 0 (reboot) requested: kmaint/reap-${node} drains the node and reboots it (kmaint.io/reboot), then is released`,
      `Normal repair rung 0 (reboot): the node rebooted, kmaint/reap-${node} released; the next rung follows if the node is still unhealthy 60 s from now`,
    ]);
    const failedJob = (nm: NodeMaintenance): string => `kmaint-validate-${nm.metadata.uid ?? ''}`;
    const failure = (nm: NodeMaintenance): string =>
      `Warning validation Job kmaint/${failedJob(nm)} failed on node ${node} (${ns}/${nm.metadata.name}); it stays cordoned; logs: kubectl logs job/${failedJob(nm)} -n kmaint (the Job is kept until the node's next validation)`;
    expect(await nodeEvents('ValidationFailed')).toEqual([failure(first), failure(second)]);
    expect((await nodeEvents('ValidationPassed')).map((m) => m.split(' on node ')[0])).toEqual([`Normal validation Job kmaint/kmaint-validate-${rung1Uid} succeeded`, `Normal validation Job kmaint/${job2} succeeded`]);
  }, 300_000);
});
