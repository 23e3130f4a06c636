// The repair ladder (issue 44 points 2-3) on the testbed, in one run: two general Nodes fail the same check (condition
// KmaintValidationFailed True, as validation reports it), one of them with a lastTransitionTime that moves before
// every reaper pass (karpenter#2833). Both get the reboot rung through the lifecycle under maxParallelOperations 1;
// the reboot heals the flapping one (its records go, its history keeps the repair) and not the other, which goes to
// the next rung (replace: its instance terminated through the fake EC2). The healed one fails again: repaired more
// than repeatLimit times in the window, it skips the reboot. Passes are driven directly; kmaint runs as its
// ServiceAccount.
import { randomBytes } from 'node:crypto';
import { AutoScalingClient, DescribeAutoScalingInstancesCommand } from '@aws-sdk/client-auto-scaling';
import { EC2Client, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { PatchStrategy, setHeaderOptions, type V1Node } from '@kubernetes/client-node';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, NODE_MAINTENANCE_PLURAL, VERSION, type NodeMaintenance } from '../shared/api/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { runPass, type PassFunction } from '../shared/pass/index.ts';
import { awsProvider, providerMap } from '../shared/reaper/index.ts';
import { kmaintKubeConfig, waitFor } from './support/cluster.ts';
import { KMAINT_NS, admin, generalNodes, phaseOf, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';
import { repairingReaper } from './support/repair-config.ts';

const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const SINCE = 'repair.kmaint.io/unhealthy-since';
const RUNG = 'repair.kmaint.io/rung';
const HISTORY = 'repair.kmaint.io/history';
const FAILED = "conditions[?'KmaintValidationFailed'].orValue('') == 'True'";
const WEEK = 604800;

const ec2 = mockClient(EC2Client);
const asg = mockClient(AutoScalingClient);
const providers = providerMap([awsProvider({ clients: () => ({ ec2: new EC2Client({ region: 'us-east-1' }), autoScaling: new AutoScalingClient({ region: 'us-east-1' }) }) })]);
const client = new KubeClient(kmaintKubeConfig());
const tag = randomBytes(3).toString('hex');

function seconds(at: number): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

async function setFailed(node: string, status: 'True' | 'False', lastTransitionTime: string): Promise<void> {
  const condition = { type: 'KmaintValidationFailed', status, reason: status === 'True' ? 'Failed' : 'Passed', message: `repair-ladder test ${tag}`, lastHeartbeatTime: new Date().toISOString(), lastTransitionTime };
  await admin().core.patchNodeStatus({ name: node, body: { status: { conditions: [condition] } } }, strategic);
}

async function readNode(name: string): Promise<V1Node> {
  return admin().core.readNode({ name });
}

async function reaperRequests(): Promise<NodeMaintenance[]> {
  const list = (await admin().custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: KMAINT_NS, plural: NODE_MAINTENANCE_PLURAL })) as { items: NodeMaintenance[] };
  return list.items.filter((nm) => nm.spec.requestorID === 'reaper.kmaint.io');
}

function instanceOf(node: V1Node): string {
  return (node.spec?.providerID ?? '').split('/').at(-1) ?? '';
}

function terminated(): string[][] {
  return ec2.commandCalls(TerminateInstancesCommand).map((c) => c.args[0].input.InstanceIds ?? []);
}

function annotationsOf(node: V1Node): Record<string, string> {
  return node.metadata?.annotations ?? {};
}

describe('the repair ladder on the testbed', () => {
  let a = '';
  let b = '';
  /** The flapping Node's condition gets lastTransitionTime = now before every reaper pass while this is set. */
  let flapping = false;
  /** The most reaper requests past Pending (not being deleted) at once, read after every pass. */
  let mostActive = 0;
  const start = Math.floor(Date.now() / 1000) * 1000;

  async function observe(): Promise<void> {
    const active = (await reaperRequests()).filter((nm) => !nm.metadata.deletionTimestamp && !['', 'Pending', undefined].includes(phaseOf(nm)));
    mostActive = Math.max(mostActive, active.length);
  }

  /** Rounds of scheduler, drainer, cleanup and reaper (the flap applied first) until `check` answers. */
  function drive<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
    return waitFor(what, async () => {
      for (const fn of ['scheduler', 'drainer', 'cleanup'] as PassFunction[]) {
        await runPass(fn, { client, namespace: KMAINT_NS, now: () => new Date() });
        await observe();
      }
      if (flapping) await setFailed(a, 'True', seconds(Date.now()));
      await runPass('reaper', { client, namespace: KMAINT_NS, now: () => new Date(), reaperProviders: providers });
      await observe();
      return check();
    }, 300_000, 200);
  }

  async function nodeEvents(node: string, reason: string): Promise<string[]> {
    const items = (await admin().core.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.kind=Node,involvedObject.name=${node},reason=${reason}` })).items;
    return items.filter((e) => new Date(e.lastTimestamp ?? e.eventTime ?? 0).getTime() >= start).map((e) => `${e.type ?? ''} ${e.message ?? ''}`);
  }

  beforeAll(async () => {
    [a = '', b = ''] = await generalNodes();
    ec2.on(TerminateInstancesCommand).callsFake((input: { InstanceIds?: string[] }) => ({ TerminatingInstances: (input.InstanceIds ?? []).map((InstanceId) => ({ InstanceId, CurrentState: { Name: 'shutting-down' } })) }));
    asg.on(DescribeAutoScalingInstancesCommand).resolves({ AutoScalingInstances: [] });
  });

  afterAll(async () => {
    for (const node of [a, b]) {
      await admin().core.patchNodeStatus({ name: node, body: { status: { conditions: [{ type: 'KmaintValidationFailed', $patch: 'delete' }] } } }, strategic);
      const remove = Object.fromEntries(Object.keys(annotationsOf(await readNode(node))).filter((k) => k.startsWith('repair.kmaint.io/') || k === 'kmaint.io/reaped' || k === 'kmaint.io/reaper-decision').map((k) => [k, null]));
      await admin().core.patchNode({ name: node, body: { metadata: { annotations: remove } } }, mergePatch);
    }
    await setConfig(undefined);
    await removeAllNMs(KMAINT_NS);
    for (const node of [a, b]) await setUnschedulable(node, false);
  });

  it('reboot rung under limit 1 for two nodes; a flapping condition reaches it; healed -> records gone, history kept; not healed -> replace; over repeatLimit -> the reboot skipped', async () => {
    const before = { a: await readNode(a), b: await readNode(b) };
    const now = Date.now();
    // A's history before the test: one repair 8 days ago (outside the window: pruned) and one 3 days ago.
    const seeded = seconds(now - 3 * 86400_000);
    const seed = JSON.stringify([{ at: seconds(now - 8 * 86400_000), rung: 0, remedy: 'reboot' }, { at: seeded, rung: 0, remedy: 'reboot' }]);
    await admin().core.patchNode({ name: a, body: { metadata: { annotations: { [HISTORY]: seed } } } }, mergePatch);
    await setFailed(a, 'True', seconds(now));
    await setFailed(b, 'True', seconds(now));
    flapping = true;
    await setConfig({
      maxParallelOperations: 1,
      reboot: { timeoutSeconds: 120 },
      // The rung's timeout covers the reboot and the wait for health after it: 20 s, so that a loaded machine's slow
      // passes finish B's simulated reboot inside it (a landing run saw 6 s run out before the reboot was done).
      reaper: repairingReaper(FAILED, 4, { ladder: [{ when: FAILED, remedy: 'reboot', timeoutSeconds: 20 }, { when: FAILED, remedy: 'replace' }], maxConcurrentPerPool: 2, repeatLimit: 1 }),
    });

    // Until A is healed and B replaced: A's condition flaps until its reboot; its boot ID changing is the repair working.
    let firstSince: string | undefined;
    let filedA: { since: string; transition: string } | undefined;
    let rebootedB: string | undefined;
    await drive('A healed and B replaced', async () => {
      const [na, nb] = [await readNode(a), await readNode(b)];
      const requests = await reaperRequests();
      const ra = requests.find((nm) => nm.spec.nodeName === a);
      firstSince ??= annotationsOf(na)[SINCE];
      if (ra !== undefined && filedA === undefined) {
        const transition = na.status?.conditions?.find((c) => c.type === 'KmaintValidationFailed')?.lastTransitionTime;
        filedA = { since: annotationsOf(na)[SINCE] ?? '', transition: transition === undefined ? '' : seconds(new Date(transition).getTime()) };
      }
      if (flapping && na.status?.nodeInfo?.bootID !== before.a.status?.nodeInfo?.bootID) {
        flapping = false;
        await setFailed(a, 'False', seconds(Date.now()));
      }
      const rungB = annotationsOf(nb)[RUNG];
      if (rungB !== undefined && (JSON.parse(rungB) as { state: string }).state === 'rebooted') rebootedB = (JSON.parse(rungB) as { at: string }).at;
      const healed = !flapping && annotationsOf(na)[SINCE] === undefined && annotationsOf(na)[RUNG] === undefined && ra === undefined;
      const replaced = terminated().length === 1 && requests.every((nm) => nm.spec.nodeName !== b);
      return healed && replaced ? true : undefined;
    });
    const [na, nb] = [await readNode(a), await readNode(b)];
    expect(mostActive).toBe(1);
    // Both rebooted by rung 0 (new boot IDs); A's condition had moved within the last pass when its rung was filed, yet
    // kmaint's unhealthy-since had held since its first sight.
    expect([na.status?.nodeInfo?.bootID !== before.a.status?.nodeInfo?.bootID, nb.status?.nodeInfo?.bootID !== before.b.status?.nodeInfo?.bootID]).toEqual([true, true]);
    expect([filedA?.since, Date.parse(filedA?.transition ?? '') > Date.parse(filedA?.since ?? '')]).toEqual([firstSince, true]);
    const historyA = JSON.parse(annotationsOf(na)[HISTORY] ?? '[]') as Array<{ at: string; rung: number; remedy: string; validation?: string }>;
    // The new repair records the failed validation the Node showed (the condition's reason); the seeded one had none.
    expect(historyA.map((e) => [e.rung, e.remedy, e.validation])).toEqual([[0, 'reboot', undefined], [0, 'reboot', 'Failed']]);
    expect(historyA[0]?.at).toBe(seeded);
    expect(terminated()).toEqual([[instanceOf(nb)]]);
    expect(await nodeEvents(b, 'RepairEscalated')).toEqual([`Warning rung 0 (reboot) did not make the node healthy within 20 s of its reboot at ${rebootedB ?? ''}: next rung 1 (replace)`]);
    expect(JSON.parse(annotationsOf(nb)[HISTORY] ?? '[]').map((e: { remedy: string }) => e.remedy)).toEqual(['reboot', 'replace']);

    // A fails again: two repairs in the window, more than repeatLimit 1: straight to the last rung, no reboot.
    await setFailed(a, 'True', seconds(Date.now()));
    await drive('A replaced', async () => (terminated().length === 2 && (await reaperRequests()).every((nm) => nm.spec.nodeName !== a) ? true : undefined));
    const again = await readNode(a);
    expect(terminated()).toEqual([[instanceOf(nb)], [instanceOf(again)]]);
    expect(again.status?.nodeInfo?.bootID).toBe(na.status?.nodeInfo?.bootID);
    const named = historyA.map((e) => `reboot (rung 0) at ${e.at}${e.validation !== undefined ? ` after validation ${e.validation}` : ''}`).join(', ');
    expect(await nodeEvents(a, 'RepairEscalated')).toEqual([`Warning repeat offender: repaired 2 times in the last ${WEEK} s (${named}), more than repeatLimit 1: skips rung 0 (reboot) for rung 1 (replace)`]);
    expect(mostActive).toBe(1);
    // Both are over repeatLimit 1 now (A: two reboots; B: a reboot and a replace): the reaper pass's metric says 2.
    const summary = await runPass('reaper', { client, namespace: KMAINT_NS, now: () => new Date(), reaperProviders: providers });
    expect(summary.metrics?.repeatOffenders).toBe(2);
  });
});
