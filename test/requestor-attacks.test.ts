// Issue 31, tried as an attacker, and again for issue 40 in both policy modes: a requestor's ServiceAccount limited to
// its own namespace's NodeMaintenances and their status (test/support/attacker.ts), once with the chart's
// ValidatingAdmissionPolicy installed and once with none (as kustomize and the Lambda install). kmaint's passes run as
// kmaint's ServiceAccount; every outcome is read back from the Node and the pods. Where the policy refuses an attacker's
// create, the refusal is asserted exactly and the attack goes on with what the policy lets through.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { ANNOTATION_INITIAL_UNSCHEDULABLE, FINALIZER, GROUP, NODE_MAINTENANCE_PLURAL, VERSION } from '../shared/api/index.ts';
import { KMAINT_SA_USER, POLICY_MODES, makeRequestor, policyDenied, policyRefuses, usePolicyMode, type PolicyMode, type Requestor } from './support/attacker.ts';
import { waitFor } from './support/cluster.ts';
import { admin, bindPod, generalNodes, getNM, installCrds, pass, phaseOf, podsOn, removeAllNMs, setConfig, setUnschedulable, untilPhase } from './support/kmaint.ts';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** The node's unschedulable flag and its kmaint.io/ annotations, read back as the admin. */
async function nodeState(name: string): Promise<{ unschedulable: boolean; kmaint: Record<string, string> }> {
  const node = await admin().core.readNode({ name });
  const kmaint = Object.fromEntries(Object.entries(node.metadata?.annotations ?? {}).filter(([k]) => k.startsWith('kmaint.io/')));
  return { unschedulable: node.spec?.unschedulable === true, kmaint };
}

describe.each(POLICY_MODES)('a requestor limited to its namespace\'s NodeMaintenances and their status (%s)', (mode: PolicyMode) => {
const ns = `atk-${mode}-${randomBytes(3).toString('hex')}`;
/** Another team's namespace: the requests the attacker tries to overtake or block. */
const victimNs = `${ns}-v`;
let cordonedNode = '';
let drainedNode = '';
/** The two nodes of the queue cases, in name order: the victim's requests take them. */
let queueNodes: string[] = [];
let attacker: Requestor;
let undoPolicy: () => Promise<void> = async () => {};
const policy = mode === 'policy';

/** The attacker's own create: any annotations and finalizers it likes on a request in its namespace. */
function attackerCreates(name: string, node: string, extra: { annotations?: Record<string, string>; labels?: Record<string, string>; finalizers?: string[]; spec?: Record<string, unknown> } = {}): Promise<string> {
  return attacker.create(name, { requestorID: 'attacker.example.com', nodeName: node, ...extra.spec }, { ...(extra.annotations ? { annotations: extra.annotations } : {}), ...(extra.labels ? { labels: extra.labels } : {}), ...(extra.finalizers ? { finalizers: extra.finalizers } : {}) });
}

  beforeAll(async () => {
    await installCrds();
    const general = await generalNodes();
    [cordonedNode, drainedNode] = general.slice(0, 2) as [string, string];
    queueNodes = general.slice(2, 4);
    expect(queueNodes.length).toBe(2);
    await admin().core.createNamespace({ body: { metadata: { name: victimNs } } });
    attacker = await makeRequestor(ns);
    undoPolicy = await usePolicyMode(mode, () => policyRefuses(attacker, queueNodes[0] as string));
  });

  afterAll(async () => {
    await undoPolicy();
    await removeAllNMs(ns);
    await removeAllNMs(victimNs);
    await setConfig(undefined);
    await admin().core.deleteNamespace({ name: victimNs });
    for (const node of [cordonedNode, drainedNode]) {
      await setUnschedulable(node, false);
      await admin().core.patchNode({ name: node, body: { metadata: { annotations: { 'kmaint.io/cordoned-by': null, 'kmaint.io/cordon-reason': null } } } }, mergePatch);
    }
    await admin().core.deleteNamespace({ name: ns });
    // Gone before the next file starts: its pods would show in that file's view of the node.
    await waitFor(`namespace ${ns} gone`, async () => ((await admin().core.listNamespace({ fieldSelector: `metadata.name=${ns}` })).items.length === 0 ? true : undefined), 120_000, 500);
  });

  it("a preset node-initial-state \"false\" and the finalizer do not lift an administrator's cordon", async () => {
    await setUnschedulable(cordonedNode, true);
    const forged = await attackerCreates('uncordon-me', cordonedNode, { annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' }, finalizers: [FINALIZER] });
    // The policy refuses the record at create; the finalizer alone is let through, and the attack goes on with it.
    expect(forged).toBe(policy ? policyDenied('uncordon-me', `annotation ${ANNOTATION_INITIAL_UNSCHEDULABLE} is a record only kmaint writes: only ${KMAINT_SA_USER} or a user who may patch Node ${cordonedNode} may set, change or remove it`) : 'created');
    if (policy) expect(await attackerCreates('uncordon-me', cordonedNode, { finalizers: [FINALIZER] })).toBe('created');
    expect(await attacker.delete('uncordon-me')).toBe('deleted');
    expect((await getNM(ns, 'uncordon-me'))?.metadata.deletionTimestamp).toEqual(expect.any(String));

    for (const fn of ['scheduler', 'drainer', 'cleanup'] as const) await pass(fn);
    // Released (kmaint's finalizer gone, so the object is), and the node exactly as the administrator left it.
    expect(await getNM(ns, 'uncordon-me')).toBeUndefined();
    expect(await nodeState(cordonedNode)).toEqual({ unschedulable: true, kmaint: {} });
    // A second round changes nothing.
    for (const fn of ['scheduler', 'drainer', 'cleanup'] as const) await pass(fn);
    expect(await nodeState(cordonedNode)).toEqual({ unschedulable: true, kmaint: {} });
  });

  it('a tenant pod labelled app.kubernetes.io/name=kmaint is drained like any other', async () => {
    await bindPod(ns, 'looks-like-kmaint', drainedNode, { labels: { 'app.kubernetes.io/name': 'kmaint', attack: 'yes' } });
    await waitFor('the pod running', async () => ((await podsOn(drainedNode)).some((p) => p.metadata?.name === 'looks-like-kmaint' && p.status?.phase === 'Running') ? true : undefined), 30_000);
    expect(await attackerCreates('drain-me', drainedNode, { spec: { drainSpec: { force: true, podSelector: 'attack=yes' } } })).toBe('created');
    const ready = await untilPhase(ns, 'drain-me', 'Ready', 40_000);
    expect(phaseOf(ready)).toBe('Ready');
    // totalPods counts the node's DaemonSet pods too, which this test does not own.
    expect(ready.status?.drain).toEqual({ totalPods: expect.any(Number), evictionPods: 1, drainProgress: 100 });
    expect((await podsOn(drainedNode)).filter((p) => p.metadata?.namespace === ns).map((p) => p.metadata?.name)).toEqual([]);
  });

  /** The victim team's request, created by the administrator, with the labels and annotations given. */
  async function victimCreates(name: string, node: string, labels: Record<string, string> = {}, annotations: Record<string, string> = {}): Promise<void> {
    await admin().custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: victimNs,
      plural: NODE_MAINTENANCE_PLURAL,
      body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', metadata: { name, namespace: victimNs, labels, annotations }, spec: { requestorID: 'victim.example.com', nodeName: node } },
    });
  }

  it('a kmaint.io/deadline long past does not jump the queue: it is before the request was created, so it ranks as none', async () => {
    // The earlier cases' requests are done: none of them holds a slot here.
    await removeAllNMs(ns);
    await setConfig({ maxParallelOperations: 1 });
    // Same second or later, and a node name first: without the forged deadline the victim ranks first.
    await victimCreates('first', queueNodes[0] as string);
    const jumper = await attackerCreates('jumper', queueNodes[1] as string, { annotations: { 'kmaint.io/deadline': '2000-01-01T00:00:00Z' } });
    // The policy refuses a deadline before the create (422, naming the creation time); without it the request waits.
    if (policy) expect(jumper).toMatch(new RegExp(`^${escapeRe(policyDenied('jumper', "kmaint.io/deadline 2000-01-01T00:00:00Z is refused: it must be an RFC 3339 time (e.g. 2026-12-01T06:00:00Z) no earlier than the request's creation ", 422))}\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$`));
    else expect(jumper).toBe('created');
    await pass('scheduler');
    const message = (await getNM(victimNs, 'first'))?.status?.conditions?.find((c) => c.type === 'Ready')?.message;
    expect([phaseOf(await getNM(victimNs, 'first')), phaseOf(await getNM(ns, 'jumper')), message]).toEqual(['Scheduled', policy ? undefined : 'Pending', 'admitted: slot 1 of 1']);
    await removeAllNMs(victimNs);
    await removeAllNMs(ns);
  });

  it("the same kmaint.io/gang in another namespace, with a conflicting size, does not block the victim's gang", async () => {
    await setConfig({ maxParallelOperations: 3 });
    const gang = { 'kmaint.io/gang': 'train' };
    await victimCreates('train-a', queueNodes[0] as string, gang, { 'kmaint.io/gang-size': '2' });
    await victimCreates('train-b', queueNodes[1] as string, gang, { 'kmaint.io/gang-size': '2' });
    // On the administrator's cordoned node: the attacker's request only has to exist.
    expect(await attackerCreates('blocker', cordonedNode, { labels: gang, annotations: { 'kmaint.io/gang-size': '5' } })).toBe('created');
    await pass('scheduler');
    expect([phaseOf(await getNM(victimNs, 'train-a')), phaseOf(await getNM(victimNs, 'train-b'))]).toEqual(['Scheduled', 'Scheduled']);
    // The attacker's own gang of one, sized 5, waits for its missing members: it blocks only itself.
    expect((await getNM(ns, 'blocker'))?.status?.conditions?.find((c) => c.type === 'Ready')?.message).toBe('waiting: gang train (1 requests) cannot start: 4 of its 5 requests missing (kmaint.io/gang-size 5, 1 found)');
    await removeAllNMs(victimNs);
    await removeAllNMs(ns);
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
