// The reaper on the testbed: a NotReady Node gets a reap request, is drained through the lifecycle and its instance
// terminated once (AWS SDK mocked at the process boundary, the provider injected); the same-zone guard stops reaping
// and says why on both Nodes; dryRun writes nothing but events (audit log). kmaint runs as its ServiceAccount.
//
// NotReady: the reap, zone-guard and join tests make the Node's simulated kubelet report Ready=False (its control
// handle, sim/kubelet/control.ts) and wait out a short unhealthyForSeconds. The force-retry and dryRun tests need a
// condition that has held for an hour at once, so they patch the Node's Ready condition to False with a
// lastTransitionTime an hour ago (status subresource, as admin) and re-apply it before every pass (the simulated
// kubelet rewrites its Node status periodically).
import { randomBytes } from 'node:crypto';
import { AutoScalingClient, DescribeAutoScalingInstancesCommand } from '@aws-sdk/client-auto-scaling';
import { EC2Client, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { PatchStrategy, PolicyV1Api, setHeaderOptions, type CoreV1Event, type V1Node } from '@kubernetes/client-node';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GROUP, NODE_MAINTENANCE_PLURAL, VERSION, type NodeMaintenance } from '../shared/api/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { runPass, type PassFunction, type PassSummary } from '../shared/pass/index.ts';
import { awsProvider, providerMap } from '../shared/reaper/index.ts';
import { KMAINT_SA_USER, POLICY_MODES, makeRequestor, policyDenied, policyRefuses, usePolicyMode, type PolicyMode } from './support/attacker.ts';
import { adminKubeConfig, auditLog, kmaintKubeConfig, setKubeletNodeReady, testbed, waitFor } from './support/cluster.ts';
import { KMAINT_NS, admin, bindPod, createNM, deleteNM, driveUntil as drivePasses, generalNodes, getNM, nodes, phaseOf, podsOn, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';

const ns = `reap-${randomBytes(3).toString('hex')}`;
const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const ZONE = 'topology.kubernetes.io/zone';
const DECISION = 'kmaint.io/reaper-decision';
const REAPED = 'kmaint.io/reaped';
const JOINED = 'kmaint.io/reaper-joined';

const ec2 = mockClient(EC2Client);
const asg = mockClient(AutoScalingClient);
const providers = providerMap([awsProvider({ clients: () => ({ ec2: new EC2Client({ region: 'us-east-1' }), autoScaling: new AutoScalingClient({ region: 'us-east-1' }) }) })]);
const client = new KubeClient(kmaintKubeConfig());

/** Node names made NotReady by the test: re-applied before every pass, restored after each test. */
const notReady = new Set<string>();
/** Node names whose simulated kubelet reports NotReady: made Ready again after each test. */
const kubeletNotReady = new Set<string>();

/** The taints the node lifecycle controller puts on a NotReady Node, as `key:effect`. */
const NOT_READY_TAINTS = ['node.kubernetes.io/not-ready:NoExecute', 'node.kubernetes.io/not-ready:NoSchedule'];

/**
 * The Node's kubelet reports Ready=False, the condition has held for `seconds` (lastTransitionTime is to the second),
 * and the node lifecycle controller has tainted it. Until its taints are on, the controller still writes the Node, and
 * a pass's write planned on the read before it is refused (409) and left to the next pass: the tests count one pass's
 * writes exactly.
 */
async function kubeletReportsNotReady(node: string, seconds: number): Promise<void> {
  kubeletNotReady.add(node);
  await setKubeletNodeReady(node, false);
  await waitFor(`${node} NotReady for ${seconds} s and tainted ${NOT_READY_TAINTS.join(', ')}`, async () => {
    const read = await admin().core.readNode({ name: node });
    const ready = read.status?.conditions?.find((c) => c.type === 'Ready');
    const since = ready?.status === 'False' ? new Date(ready.lastTransitionTime ?? 0).getTime() : undefined;
    const taints = new Set((read.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`));
    return since !== undefined && Date.now() >= since + (seconds + 1) * 1000 && NOT_READY_TAINTS.every((t) => taints.has(t)) ? true : undefined;
  }, 60_000, 250);
}

function hourAgo(): string {
  return new Date(Date.now() - 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

async function patchReady(node: string, status: 'True' | 'False', lastTransitionTime: string): Promise<void> {
  const condition = { type: 'Ready', status, reason: status === 'True' ? 'KubeletReady' : 'KubeletNotReady', message: status === 'True' ? 'kubelet is posting ready status' : 'reaper test: node made NotReady', lastHeartbeatTime: new Date().toISOString(), lastTransitionTime };
  await admin().core.patchNodeStatus({ name: node, body: { status: { conditions: [condition] } } }, strategic);
}

async function keepNotReady(): Promise<void> {
  const since = hourAgo();
  for (const node of notReady) {
    const current = (await admin().core.readNode({ name: node })).status?.conditions?.find((c) => c.type === 'Ready');
    // Keep the first lastTransitionTime: the condition has held since then.
    if (current?.status !== 'False') await patchReady(node, 'False', since);
  }
}

async function reaperPass(): Promise<PassSummary> {
  await keepNotReady();
  return runPass('reaper', { client, namespace: KMAINT_NS, now: () => new Date(), reaperProviders: providers });
}

/** Rounds of every pass (the reaper with the mocked provider) until `check` answers. */
async function driveUntil<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  return waitFor(what, async () => {
    for (const fn of ['scheduler', 'drainer', 'cleanup'] as PassFunction[]) {
      await keepNotReady();
      await runPass(fn, { client, namespace: KMAINT_NS, now: () => new Date() });
    }
    await reaperPass();
    return check();
  }, timeoutMs, 300);
}

async function reapRequests(): Promise<NodeMaintenance[]> {
  const list = (await admin().custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: KMAINT_NS, plural: NODE_MAINTENANCE_PLURAL })) as { items: NodeMaintenance[] };
  return list.items.filter((nm) => nm.spec.requestorID === 'reaper.kmaint.io');
}

/** When the current test started, to the second (events keep second precision): earlier tests' events are older. */
let testStart = new Date(0);

async function nodeEvents(node: string, reason: string): Promise<CoreV1Event[]> {
  const items = (await admin().core.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.kind=Node,involvedObject.name=${node},reason=${reason}` })).items;
  return items.filter((e) => new Date(e.lastTimestamp ?? 0).getTime() >= testStart.getTime());
}

function instanceId(node: V1Node): string {
  return (node.spec?.providerID ?? '').split('/').at(-1) ?? '';
}

/** Two general Nodes sharing a zone, and the zone. */
async function twoInOneZone(): Promise<{ zone: string; a: string; b: string }> {
  const general = new Set(await generalNodes());
  const byZone = new Map<string, string[]>();
  for (const n of await nodes()) {
    const name = n.metadata?.name ?? '';
    if (!general.has(name)) continue;
    const zone = n.metadata?.labels?.[ZONE] ?? '';
    byZone.set(zone, [...(byZone.get(zone) ?? []), name].sort());
  }
  const [zone, names] = [...byZone].find(([, list]) => list.length >= 2) ?? ['', []];
  return { zone, a: names[0] ?? '', b: names[1] ?? '' };
}

const REAPER = { enabled: true, dryRun: false, unhealthyForSeconds: 60, newNodeGracePeriodSeconds: 0, drainTimeoutSeconds: 60 };

describe('the reaper on the testbed', () => {
  beforeAll(async () => {
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
  });

  beforeEach(async () => {
    testStart = new Date(Math.floor(Date.now() / 1000) * 1000);
    ec2.reset();
    asg.reset();
    asg.on(DescribeAutoScalingInstancesCommand).resolves({ AutoScalingInstances: [] });
    ec2.on(TerminateInstancesCommand).callsFake((input: { InstanceIds?: string[] }) => ({ TerminatingInstances: (input.InstanceIds ?? []).map((InstanceId) => ({ InstanceId, CurrentState: { Name: 'shutting-down' } })) }));
    // The guards count every Node: start from a healthy, uncordoned cluster.
    const unhealthy = (await nodes()).filter((n) => n.spec?.unschedulable === true || n.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True').map((n) => n.metadata?.name);
    expect(unhealthy).toEqual([]);
  });

  afterEach(async () => {
    for (const node of kubeletNotReady) await setKubeletNodeReady(node, true);
    const revived = [...kubeletNotReady];
    kubeletNotReady.clear();
    for (const node of revived) await setUnschedulable(node, false);
    // Ready again before the next test counts the Nodes (the not-ready taints go later, at the node lifecycle
    // controller's eviction rate; pods tolerate them for 300 s, longer than this file runs).
    await waitFor('the revived Nodes Ready', async () => {
      const ready = await Promise.all(revived.map(async (node) => (await admin().core.readNode({ name: node })).status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True'));
      return ready.every(Boolean) ? true : undefined;
    }, 60_000, 250);
    const restored = [...notReady];
    notReady.clear();
    for (const node of restored) {
      await patchReady(node, 'True', new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'));
      await setUnschedulable(node, false);
    }
    for (const n of await nodes()) {
      const annotations = n.metadata?.annotations ?? {};
      if (annotations[DECISION] !== undefined || annotations[REAPED] !== undefined || annotations[JOINED] !== undefined) {
        await admin().core.patchNode({ name: n.metadata?.name ?? '', body: { metadata: { annotations: { [DECISION]: null, [REAPED]: null, [JOINED]: null, [`${JOINED}-provider-id`]: null } } } }, mergePatch);
      }
    }
    // The reaper's Node events of this test go too: the next test's start may fall in the same second as the last of them.
    const said = await admin().core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'involvedObject.kind=Node' });
    for (const e of said.items.filter((x) => ['ReapSkipped', 'InstanceTerminated', 'ReapJoined'].includes(x.reason ?? ''))) {
      await admin().core.deleteNamespacedEvent({ namespace: 'default', name: e.metadata?.name ?? '' });
    }
    await setConfig(undefined);
    await removeAllNMs(KMAINT_NS);
  });

  afterAll(async () => {
    await admin().core.deleteNamespace({ name: ns });
  });

  it('a Node NotReady for longer than unhealthyForSeconds gets one reap request, is drained, and its instance is terminated once', async () => {
    const [node] = await generalNodes();
    if (!node) throw new Error('no general node');
    const target = await admin().core.readNode({ name: node });
    await bindPod(ns, 'victim', node, { labels: { app: 'victim' } });
    await waitFor('victim bound and running', async () => ((await podsOn(node)).find((p) => p.metadata?.name === 'victim')?.status?.phase === 'Running' ? true : undefined));
    await setConfig({ reaper: { ...REAPER, unhealthyForSeconds: 3, maxNodesUnhealthy: 1, maxNodesUnhealthyInSameZone: 1 } });
    await kubeletReportsNotReady(node, 3);

    const first = await reaperPass();
    expect([first.errors, first.actions]).toEqual([[], { createMaintenance: 1, emitEvent: 1 }]);
    const [request] = await reapRequests();
    expect([request?.metadata.name, request?.metadata.namespace, request?.spec]).toEqual([
      `reap-${node}`,
      KMAINT_NS,
      { requestorID: 'reaper.kmaint.io', nodeName: node, cordon: true, drainSpec: { force: true, deleteEmptyDir: true, timeoutSeconds: 60 } },
    ]);
    expect(request?.metadata.annotations?.['kmaint.io/reaper-provider-id']).toBe(target.spec?.providerID);
    // One request per Node: a second reaper pass adds nothing while it is in progress.
    expect((await reaperPass()).planned).toBe(0);

    await driveUntil(`reap-${node} Ready, terminated and deleted`, async () => ((await getNM(KMAINT_NS, `reap-${node}`)) === undefined ? true : undefined));
    // Through the whole lifecycle: one ConditionChanged event per phase on the request. By its uid: an earlier file on
    // this testbed may have had a request of the same name in this namespace, and events outlive their objects.
    const changes = (await admin().core.listNamespacedEvent({ namespace: KMAINT_NS, fieldSelector: `involvedObject.uid=${request?.metadata.uid ?? ''},reason=ConditionChanged` })).items;
    expect([...new Set(changes.map((e) => e.message ?? ''))].sort()).toEqual(['Cordon', 'Draining', 'Pending', 'Ready', 'Scheduled', 'WaitForPodCompletion']);
    expect((await podsOn(node)).filter((p) => p.metadata?.namespace === ns)).toEqual([]);
    const reapedAt = (await admin().core.readNode({ name: node })).metadata?.annotations?.[REAPED] ?? '';
    expect(reapedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    // The Node object lingers NotReady (no cloud here deletes it): it is not reaped again, and that is said once
    // (by the pass after the request was released; this one writes nothing).
    const after = await reaperPass();
    expect([after.errors, after.actions]).toEqual([[], {}]);
    expect(await reapRequests()).toEqual([]);
    expect((await nodeEvents(node, 'ReapSkipped')).map((e) => e.message)).toEqual([`not reaped: reaped at ${reapedAt}; waiting for the Node to be removed (remove ${REAPED} to reap it again)`]);
    expect(ec2).toHaveReceivedCommandTimes(TerminateInstancesCommand, 1);
    expect(ec2).toHaveReceivedCommandWith(TerminateInstancesCommand, { InstanceIds: [instanceId(target)] });
    expect((await nodeEvents(node, 'InstanceTerminated')).map((e) => e.message)).toEqual([`terminated EC2 instance ${instanceId(target)} (shutting-down); deleting reap request ${KMAINT_NS}/reap-${node}`]);
  });

  it('forceRetryOnError: after drainTimeoutSeconds a pod whose budget never allows eviction is deleted, and the request says so', async () => {
    const [node] = await generalNodes();
    if (!node) throw new Error('no general node');
    const target = await admin().core.readNode({ name: node });
    const policy = adminKubeConfig().makeApiClient(PolicyV1Api);
    await bindPod(ns, 'held', node, { labels: { app: 'held' } });
    await policy.createNamespacedPodDisruptionBudget({ namespace: ns, body: { metadata: { name: 'held' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'held' } } } } });
    await waitFor('held running, its budget allowing no disruption', async () => {
      const running = (await podsOn(node)).find((p) => p.metadata?.name === 'held')?.status?.phase === 'Running';
      const pdb = await policy.readNamespacedPodDisruptionBudget({ namespace: ns, name: 'held' });
      return running && pdb.status?.currentHealthy === 1 && pdb.status.disruptionsAllowed === 0 ? true : undefined;
    });
    await setConfig({ reaper: { ...REAPER, drainTimeoutSeconds: 3, maxNodesUnhealthy: 1, maxNodesUnhealthyInSameZone: 1 } });
    notReady.add(node);

    // The request's uid as it is seen: its events are told from those of an earlier request of the same name by it.
    const uids = new Set<string>();
    await driveUntil(`reap-${node} force-drained, terminated and deleted`, async () => {
      const request = await getNM(KMAINT_NS, `reap-${node}`);
      if (request?.metadata.uid) uids.add(request.metadata.uid);
      return request === undefined ? true : undefined;
    });
    expect(uids.size).toBe(1);
    const events = (await admin().core.listNamespacedEvent({ namespace: KMAINT_NS, fieldSelector: `involvedObject.uid=${[...uids][0] ?? ''}` })).items;
    const said = (reason: string) => events.filter((e) => e.reason === reason).map((e) => [e.type, e.message]);
    // Every refusal named the pod, its budget and the budget's class, with its numbers.
    expect([...new Set(said('EvictionBlocked').map(([type, message]) => `${type}: ${message}`))]).toEqual([
      `Warning: pod ${ns}/held waits for PodDisruptionBudget ${ns}/held (allows 0 disruptions: needs 1 healthy, has 1 of 1 expected): a single replica: its only pod cannot leave without breaking the budget`,
    ]);
    expect(said('ForceDeleted')).toEqual([['Warning', `forceRetryOnError: deleted 1 pod with grace period 0 after the drain timeout of 3 s: ${ns}/held`]]);
    expect((await podsOn(node)).filter((p) => p.metadata?.namespace === ns)).toEqual([]);
    expect(ec2).toHaveReceivedCommandTimes(TerminateInstancesCommand, 1);
    expect(ec2).toHaveReceivedCommandWith(TerminateInstancesCommand, { InstanceIds: [instanceId(target)] });
    await policy.deleteNamespacedPodDisruptionBudget({ namespace: ns, name: 'held' });
  });

  it('two unhealthy Nodes in one zone with maxNodesUnhealthyInSameZone 1: nothing is reaped and both Nodes say why', async () => {
    const { zone, a, b } = await twoInOneZone();
    expect([a === '', b === '']).toEqual([false, false]);
    const zoneSize = (await nodes()).filter((n) => n.metadata?.labels?.[ZONE] === zone).length;
    await setConfig({ reaper: { ...REAPER, unhealthyForSeconds: 3, maxNodesUnhealthy: 10, maxNodesUnhealthyInSameZone: 1 } });
    await Promise.all([kubeletReportsNotReady(a, 3), kubeletReportsNotReady(b, 3)]);

    const summary = await reaperPass();
    expect([summary.errors, summary.conflicts, summary.actions]).toEqual([[], 0, { patchNodeAnnotations: 2, emitEvent: 2 }]);
    expect(await reapRequests()).toEqual([]);
    const why = `zone guard: 2 of ${zoneSize} nodes in zone ${zone} are unhealthy, more than maxNodesUnhealthyInSameZone 1`;
    for (const node of [a, b]) {
      expect((await nodeEvents(node, 'ReapSkipped')).map((e) => [e.type, e.message])).toEqual([['Normal', `not reaped: ${why}`]]);
      expect((await admin().core.readNode({ name: node })).metadata?.annotations?.[DECISION]).toBe(why);
    }
    // Said once: an unchanged cluster makes the next pass write nothing.
    const again = await reaperPass();
    expect([again.planned, again.actions]).toEqual([0, {}]);
    expect(ec2.calls()).toEqual([]);
  });

  it('dryRun writes nothing but events (audit log of kmaint\'s ServiceAccount)', async () => {
    const [node] = await generalNodes();
    if (!node) throw new Error('no general node');
    await setConfig({ reaper: { ...REAPER, dryRun: true } });
    notReady.add(node);
    await keepNotReady();
    const audit = auditLog();
    await audit.sync();
    const mark = audit.mark();

    const summary = await reaperPass();
    await audit.sync();
    const writes = audit.entries({ since: mark, user: testbed().kmaintUser }).filter((e) => !['get', 'list', 'watch'].includes(e.verb));
    expect(writes.map((e) => `${e.verb} ${e.resource} ${e.namespace ?? ''} ${e.code}`)).toEqual(['create events default 201']);
    expect(summary.actions).toEqual({ emitEvent: 1 });
    expect(await reapRequests()).toEqual([]);
    expect((await nodeEvents(node, 'ReapRequested')).map((e) => e.message)).toEqual([
      `dry run: would request ${KMAINT_NS}/reap-${node} to drain the node and terminate ${(await admin().core.readNode({ name: node })).spec?.providerID ?? ''}`,
    ]);
    expect(ec2.calls()).toEqual([]);
  });

  it('an invalid predicate is reported on the config object (Valid False, field named), the same by the reaper and the scheduler', async () => {
    await setConfig({ reaper: { enabled: true, dryRun: false, reapPredicate: "providerID.matches('(a+)+$')" } });
    const problem = "spec.reaper.reapPredicate: matches() runs on the JavaScript regex engine, which user patterns can stall (ReDoS); use re2Matches() (RE2) instead (at column 1); the reaper is stopped until this is fixed";
    const summary = await reaperPass();
    expect([summary.configProblems, summary.actions, summary.errors]).toEqual([[problem], { writeConfigStatus: 1, emitEvent: 1 }, []]);
    const config = (await admin().custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: KMAINT_NS, plural: 'maintenanceoperatorconfigs', name: 'default' })) as { status?: { conditions?: Array<{ type: string; status: string; reason: string; message: string }> } };
    expect(config.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([['Valid', 'False', 'InvalidValue', problem]]);
    // The scheduler reports the same condition: nothing to rewrite, no flapping between the two passes.
    const scheduler = await runPass('scheduler', { client, namespace: KMAINT_NS, now: () => new Date() });
    expect([scheduler.configProblems, scheduler.actions.writeConfigStatus]).toEqual([[problem], undefined]);
    expect(await reapRequests()).toEqual([]);
  });

  it('disabled (no spec.reaper): a reaper pass is one GET of the config, no lease, no writes', async () => {
    await setConfig({ maxParallelOperations: 1 });
    const audit = auditLog();
    await audit.sync();
    const mark = audit.mark();
    const summary = await runPass('reaper', { client, namespace: KMAINT_NS, now: () => new Date(), reaperProviders: providers });
    await audit.sync();
    expect(audit.entries({ since: mark, user: testbed().kmaintUser }).map((e) => `${e.verb} ${e.resource} ${e.name ?? ''}`)).toEqual(['get maintenanceoperatorconfigs default']);
    expect([summary.planned, summary.actions, summary.workRemains]).toEqual([0, {}, false]);
  });

  it('another requestor\'s request on the unhealthy Node: left alone (said once) unless joinExistingRequests; joined through additionalRequestors, terminated once Ready, then left to its owner', async () => {
    const [node] = await generalNodes();
    if (!node) throw new Error('no general node');
    const target = await admin().core.readNode({ name: node });
    const owner = `upgrade-${node}`;
    await createNM(KMAINT_NS, owner, { requestorID: 'upgrade.example.com', nodeName: node, cordon: true });
    await setConfig({ reaper: { ...REAPER, unhealthyForSeconds: 3, maxNodesUnhealthy: 1, maxNodesUnhealthyInSameZone: 1 } });
    await kubeletReportsNotReady(node, 3);
    // Kept NotReady at every reaper pass below as the other tests keep theirs (keepNotReady): on a loaded machine the
    // simulated kubelet's next post could land between the wait above and the pass, and the pass then sees a Ready node.
    notReady.add(node);

    // Off (the default): the Node is not reaped, and the Node says why.
    const off = await reaperPass();
    // The outcome and the plan's lines too: two landing runs saw this pass plan nothing, and they say which way.
    expect([off.outcome, off.leaseHolder, off.errors, off.actions, off.plan.length]).toEqual(['applied', undefined, [], { patchNodeAnnotations: 1, emitEvent: 1 }, 2]);
    expect((await nodeEvents(node, 'ReapSkipped')).map((e) => e.message)).toEqual([
      `not reaped: already in maintenance: ${KMAINT_NS}/${owner} by upgrade.example.com (spec.reaper.joinExistingRequests is off)`,
    ]);

    // On: the reaper joins the request instead of making its own; the request and the Node say so.
    await setConfig({ reaper: { ...REAPER, unhealthyForSeconds: 3, maxNodesUnhealthy: 1, maxNodesUnhealthyInSameZone: 1, joinExistingRequests: true } });
    const on = await reaperPass();
    expect([on.errors, on.actions]).toEqual([[], { patchMaintenanceMeta: 1, emitEvent: 2, patchNodeAnnotations: 1 }]);
    const joined = await getNM(KMAINT_NS, owner);
    expect([joined?.spec.additionalRequestors, joined?.metadata.annotations?.['kmaint.io/reaper-provider-id']]).toEqual([['reaper.kmaint.io'], target.spec?.providerID]);
    const said = `reap joined ${KMAINT_NS}/${owner} of upgrade.example.com as an additional requestor: it drains the node; the reaper terminates ${target.spec?.providerID ?? ''} once it is Ready, then leaves the list`;
    expect((await nodeEvents(node, 'ReapJoined')).map((e) => e.message)).toEqual([said]);
    const onRequest = (await admin().core.listNamespacedEvent({ namespace: KMAINT_NS, fieldSelector: `involvedObject.name=${owner},reason=ReapJoined` })).items;
    expect(onRequest.map((e) => e.message)).toEqual([said]);
    expect(await reapRequests()).toEqual([]);
    expect((await admin().core.readNode({ name: node })).metadata?.annotations?.[DECISION]).toBeUndefined();

    // The owner's request runs its lifecycle; once Ready the instance is terminated once and the reaper leaves.
    await driveUntil(`${owner} left by the reaper`, async () => {
      const nm = await getNM(KMAINT_NS, owner);
      return nm && (nm.spec.additionalRequestors ?? []).length === 0 ? nm : undefined;
    });
    expect(ec2).toHaveReceivedCommandTimes(TerminateInstancesCommand, 1);
    expect(ec2).toHaveReceivedCommandWith(TerminateInstancesCommand, { InstanceIds: [instanceId(target)] });
    expect((await nodeEvents(node, 'InstanceTerminated')).map((e) => e.message)).toEqual([`terminated EC2 instance ${instanceId(target)} (shutting-down); leaving ${KMAINT_NS}/${owner} (additionalRequestors)`]);
    const left = await getNM(KMAINT_NS, owner);
    expect([left?.status?.conditions?.find((c) => c.type === 'Ready')?.reason, left?.metadata.annotations?.['kmaint.io/reaper-provider-id'], left?.metadata.deletionTimestamp]).toEqual(['Ready', undefined, undefined]);
    expect((await admin().core.readNode({ name: node })).metadata?.annotations?.[REAPED]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    // The join record on the Node went with the reaper leaving the request (the owner table's "request" exit).
    const annotationsAfter = (await admin().core.readNode({ name: node })).metadata?.annotations ?? {};
    expect([annotationsAfter[JOINED], annotationsAfter[`${JOINED}-provider-id`]]).toEqual([undefined, undefined]);
    expect(await reapRequests()).toEqual([]);

    // The owner finishes as usual: nothing of the reaper holds its deletion.
    await deleteNM(KMAINT_NS, owner);
    await driveUntil(`${owner} gone`, async () => ((await getNM(KMAINT_NS, owner)) === undefined ? true : undefined));
    expect(ec2).toHaveReceivedCommandTimes(TerminateInstancesCommand, 1);
  });

  // Issue 30's owner table, row "reaper Node annotations", a race or a crash: a join record the reaper left behind
  // (its request deleted, or the Node's instance replaced, while no reaper pass ran) names no live join. The next
  // pass sweeps it by its own mark; a record naming a live join stays.
  it('join records left on Nodes: one naming a request that is gone and one naming another instance are swept by the next reaper pass; one naming a live join stays', async () => {
    const [gone, live, replaced] = await generalNodes();
    if (!gone || !live || !replaced) throw new Error('three general nodes needed');
    const providerID = async (node: string): Promise<string> => (await admin().core.readNode({ name: node })).spec?.providerID ?? '';
    const listing = (node: string) => createNM(ns, `upgrade-${node}`, { requestorID: 'upgrade.example.com', nodeName: node, cordon: false, additionalRequestors: ['reaper.kmaint.io'] });
    const record = (nm: NodeMaintenance, id: string) => ({ [JOINED]: `${ns}/${nm.metadata.name}/${nm.metadata.uid ?? ''}`, [`${JOINED}-provider-id`]: id });
    const written: Record<string, Record<string, string>> = {
      gone: record(await listing(gone), await providerID(gone)),
      live: record(await listing(live), await providerID(live)),
      replaced: record(await listing(replaced), 'aws:///us-east-1a/i-0replacedinstance'),
    };
    // The owner deleted its request (no pass ran, so no finalizer holds it).
    await deleteNM(ns, `upgrade-${gone}`);
    const byNode: Record<string, string> = { gone, live, replaced };
    for (const [which, annotations] of Object.entries(written)) await admin().core.patchNode({ name: byNode[which] ?? '', body: { metadata: { annotations } } }, mergePatch);
    await setConfig({ reaper: { ...REAPER, maxNodesUnhealthy: 1, maxNodesUnhealthyInSameZone: 1 } });
    try {
      const swept = await reaperPass();
      expect([swept.errors, swept.actions]).toEqual([[], { patchNodeAnnotations: 2 }]);
      const records = async (node: string) => {
        const a = (await admin().core.readNode({ name: node })).metadata?.annotations ?? {};
        return [a[JOINED], a[`${JOINED}-provider-id`]];
      };
      expect([await records(gone), await records(live), await records(replaced)]).toEqual([[undefined, undefined], [written['live']?.[JOINED], written['live']?.[`${JOINED}-provider-id`]], [undefined, undefined]]);
      const again = await reaperPass();
      expect([again.errors, again.planned, again.actions]).toEqual([[], 0, {}]);
      expect(ec2.calls()).toEqual([]);
    } finally {
      await removeAllNMs(ns);
    }
  });

  // Issue 30's owner table, row reap-<node>, "feature off": the reaper switched off after it filed a request. Nothing
  // deletes or terminates for it: the request goes on through the lifecycle, is kept Ready with its Node cordoned, and
  // the administrator deletes it (docs/security.md) to release the Node.
  it('a reap request left when the reaper is switched off (enabled: false): drained and kept Ready, its Node cordoned, nothing terminated; deleting it releases the Node', async () => {
    const [node] = await generalNodes();
    if (!node) throw new Error('no general node');
    const name = `reap-${node}`;
    notReady.add(node);
    // Its drain selects no pod (test/reaper's first test drains them all): the lifecycle runs in a few passes.
    const reaper = { ...REAPER, maxNodesUnhealthy: 1, maxNodesUnhealthyInSameZone: 1, drainSpec: { force: true, podSelector: 'kmaint.io/reap-test=none' } };
    await setConfig({ reaper });
    const filed = await reaperPass();
    expect([filed.errors, filed.actions]).toEqual([[], { createMaintenance: 1, emitEvent: 1 }]);
    await setConfig({ reaper: { ...reaper, enabled: false } });

    // The scheduler, drainer and cleanup only (the reaper is off: its pass is below, once).
    await drivePasses(`${name} Ready with the reaper off`, async () => (phaseOf(await getNM(KMAINT_NS, name)) === 'Ready' ? true : undefined));
    // Kept: another round of those passes and a reaper pass change nothing.
    await drivePasses('one more round', async () => true);
    const off = await reaperPass();
    expect([off.errors, off.planned, off.actions]).toEqual([[], 0, {}]);
    const kept = await getNM(KMAINT_NS, name);
    const cordon = async () => {
      const n = await admin().core.readNode({ name: node });
      return [n.spec?.unschedulable === true, n.metadata?.annotations?.['kmaint.io/cordoned-by']];
    };
    expect([phaseOf(kept), kept?.metadata.deletionTimestamp, await cordon()]).toEqual(['Ready', undefined, [true, `kmaint/${KMAINT_NS}/${name}`]]);
    expect(ec2.calls()).toEqual([]);

    // What the administrator does with it: delete it; cleanup uncordons the Node.
    await deleteNM(KMAINT_NS, name);
    await drivePasses(`${name} gone`, async () => ((await getNM(KMAINT_NS, name)) === undefined ? true : undefined));
    expect(await cordon()).toEqual([false, undefined]);
    expect(ec2.calls()).toEqual([]);
  });

  // Issue 31 point 1, as an attacker, in both policy modes (issue 40 point 6): a ServiceAccount limited to its own
  // namespace's NodeMaintenances and their status (test/support/attacker.ts) copies every string of a reap request
  // (requestorID, label, name, the provider-id annotation naming another Node's instance), and adds reaper.kmaint.io to
  // another request's additionalRequestors. With the chart's policy both creates are refused with their exact messages;
  // without it both reach Ready on healthy Nodes. Either way the reaper (on) terminates nothing and touches neither.
  it.each(POLICY_MODES)('a tenant forging reap requests: no instance is terminated, neither request is touched (%s)', async (mode: PolicyMode) => {
    const [first, second, victim] = await generalNodes();
    if (!first || !second || !victim) throw new Error('three general nodes needed');
    const victimID = (await admin().core.readNode({ name: victim })).spec?.providerID ?? '';
    const tenantNs = `${ns}-${mode}`;
    const tenant = await makeRequestor(tenantNs);
    const undoPolicy = await usePolicyMode(mode, () => policyRefuses(tenant, victim));
    const named = { annotations: { 'kmaint.io/reaper-provider-id': victimID } };
    const reapName = `reap-${first}`;
    const upgradeName = `upgrade-${second}`;
    try {
      const forged = [
        await tenant.create(reapName, { requestorID: 'reaper.kmaint.io', nodeName: first, cordon: false }, { labels: { 'kmaint.io/reaper': 'true' }, ...named }),
        await tenant.create(upgradeName, { requestorID: 'tenant.example.com', nodeName: second, cordon: false, additionalRequestors: ['reaper.kmaint.io'] }, named),
      ];
      const reserved = `requestorID reaper.kmaint.io is reserved to kmaint: only ${KMAINT_SA_USER} files requests for it`;
      expect(forged).toEqual(mode === 'policy' ? [policyDenied(reapName, reserved), policyDenied(upgradeName, reserved)] : ['created', 'created']);
      await setConfig({ maxParallelOperations: 2, maxUnavailable: 2, reaper: { ...REAPER, joinExistingRequests: true } });
      if (mode === 'no-policy') {
        // Every round runs the reaper too (driveUntil): each chance it had to act on the forged requests is counted.
        await drivePasses('both forged requests Ready', async () => {
          const phases = await Promise.all([getNM(tenantNs, reapName), getNM(tenantNs, upgradeName)].map(async (nm) => phaseOf(await nm)));
          return phases.every((p) => p === 'Ready') ? true : undefined;
        });
      }
      const again = await reaperPass();
      expect([again.errors, again.planned, again.actions]).toEqual([[], 0, {}]);
      expect(ec2).toHaveReceivedCommandTimes(TerminateInstancesCommand, 0);
      const [reap, upgrade] = [await getNM(tenantNs, reapName), await getNM(tenantNs, upgradeName)];
      if (mode === 'no-policy') {
        expect([reap?.metadata.deletionTimestamp, upgrade?.spec.additionalRequestors, upgrade?.metadata.annotations?.['kmaint.io/reaper-provider-id']]).toEqual([undefined, ['reaper.kmaint.io'], victimID]);
      } else {
        expect([reap, upgrade]).toEqual([undefined, undefined]);
      }
      expect((await admin().core.readNode({ name: second })).metadata?.annotations?.[JOINED]).toBeUndefined();
    } finally {
      await undoPolicy();
      await removeAllNMs(tenantNs);
      await admin().core.deleteNamespace({ name: tenantNs });
    }
  });
});
