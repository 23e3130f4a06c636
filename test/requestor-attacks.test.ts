// Issue 31, tried as an attacker: a requestor's ServiceAccount that may only create, get and delete NodeMaintenances
// in its own namespace (a Role, a token from the TokenRequest API). kmaint's passes run as kmaint's ServiceAccount;
// every outcome is read back from the Node and the pods.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CustomObjectsApi, PatchStrategy, RbacAuthorizationV1Api, setHeaderOptions } from '@kubernetes/client-node';
import { ANNOTATION_INITIAL_UNSCHEDULABLE, FINALIZER, GROUP, NODE_MAINTENANCE_PLURAL, VERSION } from '../shared/api/index.ts';
import { adminKubeConfig, tokenKubeConfig, waitFor } from './support/cluster.ts';
import { admin, bindPod, generalNodes, getNM, installCrds, pass, phaseOf, podsOn, removeAllNMs, setConfig, setUnschedulable, untilPhase } from './support/kmaint.ts';

const ns = `atk-${randomBytes(3).toString('hex')}`;
/** Another team's namespace: the requests the attacker tries to overtake or block. */
const victimNs = `${ns}-v`;
const ATTACKER = 'requestor';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

let cordonedNode = '';
let drainedNode = '';
/** The two nodes of the queue cases, in name order: the victim's requests take them. */
let queueNodes: string[] = [];
let attacker: CustomObjectsApi;

/** The attacker's own create: any annotations and finalizers it likes on a request in its namespace. */
async function attackerCreates(name: string, node: string, extra: { annotations?: Record<string, string>; labels?: Record<string, string>; finalizers?: string[]; spec?: Record<string, unknown> } = {}): Promise<void> {
  await attacker.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: ns,
    plural: NODE_MAINTENANCE_PLURAL,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'NodeMaintenance',
      metadata: { name, namespace: ns, ...(extra.annotations ? { annotations: extra.annotations } : {}), ...(extra.labels ? { labels: extra.labels } : {}), ...(extra.finalizers ? { finalizers: extra.finalizers } : {}) },
      spec: { requestorID: 'attacker.example.com', nodeName: node, ...extra.spec },
    },
  });
}

/** The node's unschedulable flag and its kmaint.io/ annotations, read back as the admin. */
async function nodeState(name: string): Promise<{ unschedulable: boolean; kmaint: Record<string, string> }> {
  const node = await admin().core.readNode({ name });
  const kmaint = Object.fromEntries(Object.entries(node.metadata?.annotations ?? {}).filter(([k]) => k.startsWith('kmaint.io/')));
  return { unschedulable: node.spec?.unschedulable === true, kmaint };
}

describe('a requestor that may only create, get and delete NodeMaintenances in its own namespace', () => {
  beforeAll(async () => {
    await installCrds();
    const general = await generalNodes();
    [cordonedNode, drainedNode] = general.slice(0, 2) as [string, string];
    queueNodes = general.slice(2, 4);
    expect(queueNodes.length).toBe(2);
    const { core } = admin();
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await core.createNamespace({ body: { metadata: { name: victimNs } } });
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: ATTACKER } } });
    const rbac = adminKubeConfig().makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: ns,
      body: { metadata: { name: ATTACKER, namespace: ns }, rules: [{ apiGroups: [GROUP], resources: [NODE_MAINTENANCE_PLURAL], verbs: ['create', 'get', 'delete'] }] },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: ATTACKER, namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: ATTACKER },
        subjects: [{ kind: 'ServiceAccount', name: ATTACKER, namespace: ns }],
      },
    });
    const token = (await core.createNamespacedServiceAccountToken({ namespace: ns, name: ATTACKER, body: { spec: { audiences: [], expirationSeconds: 3600 } } })).status?.token ?? '';
    expect(token).not.toBe('');
    attacker = tokenKubeConfig(token, ATTACKER).makeApiClient(CustomObjectsApi);
    // RBAC reaches the authorizer through an informer: wait until the binding is in effect.
    await waitFor('the attacker may read its requests', async () => {
      try {
        await attacker.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: ns, plural: NODE_MAINTENANCE_PLURAL, name: 'none' });
      } catch (err) {
        return (err as { code?: number }).code === 404 ? true : undefined;
      }
      return undefined;
    }, 60_000);
  });

  afterAll(async () => {
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
    await attackerCreates('uncordon-me', cordonedNode, { annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' }, finalizers: [FINALIZER] });
    await attacker.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: ns, plural: NODE_MAINTENANCE_PLURAL, name: 'uncordon-me' });
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
    await attackerCreates('drain-me', drainedNode, { spec: { drainSpec: { force: true, podSelector: 'attack=yes' } } });
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
    await attackerCreates('jumper', queueNodes[1] as string, { annotations: { 'kmaint.io/deadline': '2000-01-01T00:00:00Z' } });
    await pass('scheduler');
    const message = (await getNM(victimNs, 'first'))?.status?.conditions?.find((c) => c.type === 'Ready')?.message;
    expect([phaseOf(await getNM(victimNs, 'first')), phaseOf(await getNM(ns, 'jumper')), message]).toEqual(['Scheduled', 'Pending', 'admitted: slot 1 of 1']);
    await removeAllNMs(victimNs);
    await removeAllNMs(ns);
  });

  it("the same kmaint.io/gang in another namespace, with a conflicting size, does not block the victim's gang", async () => {
    await setConfig({ maxParallelOperations: 3 });
    const gang = { 'kmaint.io/gang': 'train' };
    await victimCreates('train-a', queueNodes[0] as string, gang, { 'kmaint.io/gang-size': '2' });
    await victimCreates('train-b', queueNodes[1] as string, gang, { 'kmaint.io/gang-size': '2' });
    // On the administrator's cordoned node: the attacker's request only has to exist.
    await attackerCreates('blocker', cordonedNode, { labels: gang, annotations: { 'kmaint.io/gang-size': '5' } });
    await pass('scheduler');
    expect([phaseOf(await getNM(victimNs, 'train-a')), phaseOf(await getNM(victimNs, 'train-b'))]).toEqual(['Scheduled', 'Scheduled']);
    // The attacker's own gang of one, sized 5, waits for its missing members: it blocks only itself.
    expect((await getNM(ns, 'blocker'))?.status?.conditions?.find((c) => c.type === 'Ready')?.message).toBe('waiting: gang train (1 requests) cannot start: 4 of its 5 requests missing (kmaint.io/gang-size 5, 1 found)');
    await removeAllNMs(victimNs);
    await removeAllNMs(ns);
  });
});
