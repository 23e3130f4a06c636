// The node-annotation handshake on the testbed, driven only by a node agent whose RBAC lets it get and patch its own
// Node and nothing else (a ClusterRole with resourceNames, a ServiceAccount token from the TokenRequest API). kmaint's
// passes run as kmaint's ServiceAccount; every annotation value is read back from the Node.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, RbacAuthorizationV1Api, setHeaderOptions } from '@kubernetes/client-node';
import { GROUP, NODE_MAINTENANCE_PLURAL, VERSION } from '../shared/api/index.ts';
import { adminKubeConfig, auditLog, testbed, tokenKubeConfig, waitFor } from './support/cluster.ts';
import { KMAINT_NS, admin, bindPod, driveUntil, generalNodes, getNM, installCrds, isUnschedulable, pass, phaseOf, podsOn, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';

const suffix = randomBytes(3).toString('hex');
const ns = `hs-${suffix}`;
const AGENT = 'node-agent';
const AGENT_ROLE = `kmaint-test-node-agent-${suffix}`;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

const DESIRED = 'kmaint.io/desired-state';
const CURRENT = 'kmaint.io/current-state';
const REQUESTOR = 'kmaint.io/requestor';
const PROBLEM = 'kmaint.io/handshake-problem';
const HANDSHAKE_KEYS = [DESIRED, CURRENT, REQUESTOR, PROBLEM];

/** The pool's template selects these pods; the cluster-wide one would select others (proving the pool's was used). */
const POOL_SELECTOR = 'hs-role=device-user';
const CLUSTER_SELECTOR = 'hs-role=cluster-template';

let node = '';
let other = '';
let agent: CoreV1Api;
let agentCustom: CustomObjectsApi;

/** The Node's handshake annotations, nothing else. */
async function handshakeAnnotations(name: string): Promise<Record<string, string>> {
  const annotations = (await admin().core.readNode({ name })).metadata?.annotations ?? {};
  return Object.fromEntries(Object.entries(annotations).filter(([key]) => HANDSHAKE_KEYS.includes(key)).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** What a node agent does: a merge patch of its own Node's annotations, with its own token. */
async function agentSets(annotations: Record<string, string | null>): Promise<void> {
  await agent.patchNode({ name: node, body: { metadata: { annotations } } }, mergePatch);
}

/** Scheduler passes (only) until the Node's current-state is `value`: a 409 from a kubelet status update is decided again. */
async function schedulerUntilCurrent(value: string | undefined): Promise<void> {
  await waitFor(`${CURRENT} of ${node} = ${String(value)}`, async () => {
    await pass('scheduler');
    return (await handshakeAnnotations(node))[CURRENT] === value ? true : undefined;
  }, 60_000, 200);
}

function requestName(): string {
  return `handshake-${node}`;
}

function statusCode(err: unknown): number | undefined {
  return (err as { code?: number }).code;
}

describe('node-annotation handshake on the testbed, driven by an agent that may patch only its own Node', () => {
  beforeAll(async () => {
    await installCrds();
    [node, other] = (await generalNodes()).slice(0, 2) as [string, string];
    const { core } = admin();
    // Files before this one share the testbed's nodes (test/sriov refuses an SR-IOV state on the same node): their
    // HandshakeRefused events are not this file's, so they go before it starts and its counts stay exact.
    await core.deleteCollectionNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.kind=Node,involvedObject.name=${node},reason=HandshakeRefused` });
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: AGENT } } });
    const rbac = adminKubeConfig().makeApiClient(RbacAuthorizationV1Api);
    await rbac.createClusterRole({
      body: { metadata: { name: AGENT_ROLE }, rules: [{ apiGroups: [''], resources: ['nodes'], resourceNames: [node], verbs: ['get', 'patch'] }] },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: AGENT_ROLE },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: AGENT_ROLE },
        subjects: [{ kind: 'ServiceAccount', name: AGENT, namespace: ns }],
      },
    });
    const token = (await core.createNamespacedServiceAccountToken({ namespace: ns, name: AGENT, body: { spec: { audiences: [], expirationSeconds: 3600 } } })).status?.token ?? '';
    expect(token).not.toBe('');
    const kc = tokenKubeConfig(token, AGENT);
    agent = kc.makeApiClient(CoreV1Api);
    agentCustom = kc.makeApiClient(CustomObjectsApi);
    // RBAC reaches the authorizer through an informer: wait until the binding is in effect.
    await waitFor('the agent can read its Node', async () => ((await agent.readNode({ name: node })).metadata?.name === node ? true : undefined), 60_000);
    await setConfig({
      nodeHandshake: { drainSpec: { podSelector: CLUSTER_SELECTOR, force: true } },
      pools: [{ name: 'general', nodeSelector: { matchLabels: { 'kmaint.io/pool': 'general' } }, nodeHandshake: { drainSpec: { podSelector: POOL_SELECTOR, force: true } } }],
    });
  });

  afterAll(async () => {
    await admin().core.patchNode({ name: node, body: { metadata: { annotations: Object.fromEntries(HANDSHAKE_KEYS.map((key) => [key, null])) } } }, mergePatch);
    await removeAllNMs(KMAINT_NS);
    await setConfig(undefined);
    await setUnschedulable(node, false);
    const rbac = adminKubeConfig().makeApiClient(RbacAuthorizationV1Api);
    await rbac.deleteClusterRoleBinding({ name: AGENT_ROLE });
    await rbac.deleteClusterRole({ name: AGENT_ROLE });
    await admin().core.deleteNamespace({ name: ns });
    // Gone before the next file starts: its pods, still running on the node while the namespace terminates, would
    // show in that file's view of the node.
    await waitFor(`namespace ${ns} gone`, async () => {
      const left = await admin().core.listNamespace({ fieldSelector: `metadata.name=${ns}` });
      return left.items.length === 0 ? true : undefined;
    }, 120_000, 500);
  });

  it('the agent may get and patch its own Node only: another Node and NodeMaintenances are refused (403)', async () => {
    await agentSets({ [DESIRED]: 'Idle' });
    expect(await handshakeAnnotations(node)).toEqual({ [DESIRED]: 'Idle' });
    const refused: Array<number | undefined> = [];
    for (const attempt of [
      () => agent.patchNode({ name: other, body: { metadata: { annotations: { [DESIRED]: 'Drain_Required' } } } }, mergePatch),
      () => agent.readNode({ name: other }),
      () => agentCustom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: KMAINT_NS, plural: NODE_MAINTENANCE_PLURAL, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', metadata: { name: 'by-agent' }, spec: { requestorID: 'x.example.com', nodeName: node } } }),
    ]) {
      try {
        await attempt();
        refused.push(200);
      } catch (err) {
        refused.push(statusCode(err));
      }
    }
    expect(refused).toEqual([403, 403, 403]);
    expect(await handshakeAnnotations(other)).toEqual({});
  });

  it('an invalid desired-state: one Warning event on the Node and its problem annotation, no request; cleared when fixed', async () => {
    await agentSets({ [DESIRED]: 'Drain_required' });
    const problem = `${DESIRED} "Drain_required" is not Idle, Drain_Required or Reboot_Required; nothing is done until it is`;
    await waitFor('the refusal recorded', async () => {
      await pass('scheduler');
      return (await handshakeAnnotations(node))[PROBLEM] === problem ? true : undefined;
    }, 60_000, 200);
    // Nothing changed since: the next pass writes nothing at all.
    expect((await pass('scheduler')).planned).toBe(0);
    expect(await handshakeAnnotations(node)).toEqual({ [DESIRED]: 'Drain_required', [PROBLEM]: problem });
    expect(await getNM(KMAINT_NS, requestName())).toBeUndefined();
    const events = await admin().core.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.kind=Node,involvedObject.name=${node},reason=HandshakeRefused` });
    expect(events.items.map((e) => [e.type, e.message, e.involvedObject.uid !== undefined, e.source?.component])).toEqual([['Warning', problem, true, 'kmaint-scheduler']]);

    await agentSets({ [DESIRED]: 'Idle' });
    await waitFor('the refusal cleared', async () => {
      await pass('scheduler');
      return (await handshakeAnnotations(node))[PROBLEM] === undefined ? true : undefined;
    }, 60_000, 200);
    expect(await handshakeAnnotations(node)).toEqual({ [DESIRED]: 'Idle' });
  });

  it("issue 31: a Node claiming the reaper's requestorID is refused: no request is filed as reaper.kmaint.io", async () => {
    await agentSets({ [REQUESTOR]: 'reaper.kmaint.io', [DESIRED]: 'Drain_Required' });
    const problem = `${REQUESTOR} "reaper.kmaint.io" is reserved for kmaint's own requests (reaper.kmaint.io, cloud-events.kmaint.io, sriov-network-operator.kmaint.io, reboot-sentinel.kmaint.io); no request is created`;
    await waitFor('the refusal recorded', async () => {
      await pass('scheduler');
      return (await handshakeAnnotations(node))[PROBLEM] === problem ? true : undefined;
    }, 60_000, 200);
    expect(await getNM(KMAINT_NS, requestName())).toBeUndefined();
    await agentSets({ [REQUESTOR]: null, [DESIRED]: 'Idle' });
    await waitFor('the refusal cleared', async () => {
      await pass('scheduler');
      return (await handshakeAnnotations(node))[PROBLEM] === undefined ? true : undefined;
    }, 60_000, 200);
    expect(await handshakeAnnotations(node)).toEqual({ [DESIRED]: 'Idle' });
  });

  it('Idle -> Drain_Required -> Draining -> DrainComplete -> Idle: only the pool template\'s pods evicted, the Node uncordoned at the end, one Node write per transition', async () => {
    expect(await isUnschedulable(node)).toBe(false);
    await bindPod(ns, 'device-user', node, { labels: { 'hs-role': 'device-user' } });
    await bindPod(ns, 'cluster-template', node, { labels: { 'hs-role': 'cluster-template' } });
    await bindPod(ns, 'bystander', node);
    await waitFor('the three pods running', async () => {
      const running = (await podsOn(node)).filter((p) => p.metadata?.namespace === ns && p.status?.phase === 'Running');
      return running.length === 3 ? true : undefined;
    });
    const podKey = (p: { metadata?: { namespace?: string; name?: string; uid?: string } }): string => `${p.metadata?.namespace}/${p.metadata?.name}/${p.metadata?.uid}`;
    const before = (await podsOn(node)).map(podKey).sort();

    const audit = auditLog();
    await audit.sync();
    const mark = audit.mark();

    // Idle, as the agent left it: kmaint writes nothing (no current-state means Idle).
    expect(await handshakeAnnotations(node)).toEqual({ [DESIRED]: 'Idle' });
    expect((await pass('scheduler')).planned).toBe(0);

    // Drain_Required: the scheduler creates the request with the pool's template; the Node is not written yet.
    await agentSets({ [DESIRED]: 'Drain_Required', [REQUESTOR]: 'sriov-agent.example.com' });
    expect((await pass('scheduler')).actions).toEqual({ createMaintenance: 1 });
    const created = await getNM(KMAINT_NS, requestName());
    expect(created?.metadata.labels).toEqual({ 'kmaint.io/handshake': 'Drain_Required' });
    expect(created?.metadata.annotations).toEqual({ 'maintenance.nvidia.com/garbage-collector.ignore': 'true' });
    expect(created?.spec).toEqual({
      requestorID: 'sriov-agent.example.com',
      nodeName: node,
      cordon: true,
      drainSpec: { podSelector: POOL_SELECTOR, force: true, timeoutSeconds: 300, deleteEmptyDir: false },
    });
    expect(await handshakeAnnotations(node)).toEqual({ [DESIRED]: 'Drain_Required', [REQUESTOR]: 'sriov-agent.example.com' });

    // Admitted: Draining, written by the same pass that admits the request.
    await schedulerUntilCurrent('Draining');
    expect(phaseOf(await getNM(KMAINT_NS, requestName()))).toBe('Scheduled');
    expect(await handshakeAnnotations(node)).toEqual({ [DESIRED]: 'Drain_Required', [REQUESTOR]: 'sriov-agent.example.com', [CURRENT]: 'Draining' });

    // Drained: DrainComplete once the request is Ready; only the pool template's pod left the Node.
    await driveUntil(`${CURRENT} of ${node} = DrainComplete`, async () => ((await handshakeAnnotations(node))[CURRENT] === 'DrainComplete' ? true : undefined));
    expect(phaseOf(await getNM(KMAINT_NS, requestName()))).toBe('Ready');
    expect(await handshakeAnnotations(node)).toEqual({ [DESIRED]: 'Drain_Required', [REQUESTOR]: 'sriov-agent.example.com', [CURRENT]: 'DrainComplete' });
    expect(await isUnschedulable(node)).toBe(true);
    const during = (await podsOn(node)).filter((p) => !p.metadata?.deletionTimestamp);
    expect(during.filter((p) => p.metadata?.namespace === ns).map((p) => p.metadata?.name).sort()).toEqual(['bystander', 'cluster-template']);
    expect(during.map(podKey).sort()).toEqual(before.filter((key) => !key.startsWith(`${ns}/device-user/`)));
    // Nothing changed since: the scheduler writes nothing.
    expect((await pass('scheduler')).planned).toBe(0);

    // Idle: the request is deleted; current-state stays DrainComplete until cleanup has uncordoned and released it.
    await agentSets({ [DESIRED]: 'Idle' });
    await waitFor('the request being deleted', async () => {
      await pass('scheduler');
      return (await getNM(KMAINT_NS, requestName()))?.metadata.deletionTimestamp !== undefined ? true : undefined;
    }, 60_000, 200);
    expect(await handshakeAnnotations(node)).toEqual({ [DESIRED]: 'Idle', [REQUESTOR]: 'sriov-agent.example.com', [CURRENT]: 'DrainComplete' });
    expect((await pass('cleanup')).released).toBe(1);
    expect(await getNM(KMAINT_NS, requestName())).toBeUndefined();
    expect(await isUnschedulable(node)).toBe(false);
    expect((await handshakeAnnotations(node))[CURRENT]).toBe('DrainComplete');
    await schedulerUntilCurrent('Idle');
    expect(await handshakeAnnotations(node)).toEqual({ [DESIRED]: 'Idle', [REQUESTOR]: 'sriov-agent.example.com', [CURRENT]: 'Idle' });
    expect((await pass('scheduler')).planned).toBe(0);
    expect(await isUnschedulable(node)).toBe(false);

    // kmaint wrote the Node exactly five times: Draining, cordon, DrainComplete, uncordon, Idle.
    await audit.sync();
    const user = testbed().kmaintUser;
    const nodeWrites = audit.entries({ since: mark, user, verb: 'patch', resource: 'nodes' }).filter((e) => e.name === node && e.code === 200);
    expect(nodeWrites.length).toBe(5);
    // The agent's own writes: its Node only.
    const agentUser = `system:serviceaccount:${ns}:${AGENT}`;
    expect([...new Set(audit.entries({ since: mark, user: agentUser }).map((e) => `${e.verb} ${e.resource} ${e.name ?? ''} ${e.code}`))]).toEqual([`patch nodes ${node} 200`]);
  });
});
