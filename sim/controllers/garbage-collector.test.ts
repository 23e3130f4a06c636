// The sim's garbage collector against the sim API server in-process: background, orphan and foreground propagation,
// owners across scopes, uids, and what the server's DELETE adds while a collector runs. Expected values as observed
// on the testbed (kube-controller-manager's collector), e.g. a dangling reference beside a live owner is removed.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimApiServer, type JsonObject, type LocalApi, type ResourceRef, type SimApiServer } from '../apiserver/index.ts';
import { aNodeMaintenance, at, call, CRD_DIR } from '../apiserver/test-support.ts';
import { GarbageCollector } from './garbage-collector.ts';

const NODES: ResourceRef = { apiVersion: 'v1', resource: 'nodes' };
const NMS: ResourceRef = { apiVersion: 'maintenance.nvidia.com/v1alpha1', resource: 'nodemaintenances' };
const CMS: ResourceRef = { apiVersion: 'v1', resource: 'configmaps' };
const NAMESPACES: ResourceRef = { apiVersion: 'v1', resource: 'namespaces' };
const PODS: ResourceRef = { apiVersion: 'v1', resource: 'pods' };
const JOBS: ResourceRef = { apiVersion: 'batch/v1', resource: 'jobs' };
const FINALIZER = 'maintenance.nvidia.com/finalizer';

let server: SimApiServer;
let local: LocalApi;
let gc: GarbageCollector;

beforeAll(async () => {
  server = await startSimApiServer({ crds: [CRD_DIR], namespaces: ['default', 'other'] });
  local = server.local;
  gc = new GarbageCollector(server.context);
  gc.start();
});
afterAll(async () => {
  gc.stop();
  await server.stop();
});
afterEach(async () => {
  await gc.idle();
  expect(gc.stats().errors).toEqual([]);
});

type Ref = { apiVersion: string; kind: string; name: string; uid: string; blockOwnerDeletion?: boolean };

function uidOf(o: JsonObject): string {
  return String(at(o, 'metadata.uid'));
}

function aNode(name: string): Ref {
  const node = local.create(NODES, '', { metadata: { name } });
  return { apiVersion: 'v1', kind: 'Node', name, uid: uidOf(node) };
}

function aConfigMap(name: string, owners: Ref[] = [], namespace = 'default'): Ref {
  const cm = local.create(CMS, namespace, { metadata: { name, namespace, ...(owners.length > 0 ? { ownerReferences: owners } : {}) } });
  return { apiVersion: 'v1', kind: 'ConfigMap', name, uid: uidOf(cm) };
}

function aMaintenance(name: string, node: string, owners: Ref[], finalizers: string[] = []): void {
  const nm = aNodeMaintenance(name, { requestorID: 'gc.example.com', nodeName: node });
  local.create(NMS, 'default', { ...nm, metadata: { name, namespace: 'default', ownerReferences: owners, ...(finalizers.length > 0 ? { finalizers } : {}) } });
}

/** [present, deletionTimestamp set, finalizers, owner names] of an object, after the collector has done its work. */
async function stateOf(ref: ResourceRef, namespace: string, name: string): Promise<[boolean, boolean, unknown, unknown]> {
  await gc.idle();
  const o = local.get(ref, namespace, name);
  const refs = at(o, 'metadata.ownerReferences') as Array<{ name: string }> | undefined;
  return [o !== undefined, at(o, 'metadata.deletionTimestamp') !== undefined, at(o, 'metadata.finalizers') ?? null, refs?.map((r) => r.name) ?? null];
}

const GONE = [false, false, null, null];

describe('background propagation (the default)', () => {
  it('a deleted Node takes its NodeMaintenance along', async () => {
    const node = aNode('gc-n1');
    aMaintenance('nm-1', 'gc-n1', [node]);
    expect(await stateOf(NMS, 'default', 'nm-1')).toEqual([true, false, null, ['gc-n1']]);
    local.delete(NODES, '', 'gc-n1');
    expect(await stateOf(NMS, 'default', 'nm-1')).toEqual(GONE);
  });

  it('a finalizer holds the dependent with a deletionTimestamp until it is removed, then it is gone', async () => {
    const node = aNode('gc-n2');
    aMaintenance('nm-2', 'gc-n2', [node], [FINALIZER]);
    local.delete(NODES, '', 'gc-n2');
    expect(await stateOf(NMS, 'default', 'nm-2')).toEqual([true, true, [FINALIZER], ['gc-n2']]);
    local.patch(NMS, 'default', 'nm-2', { metadata: { finalizers: null } });
    expect(await stateOf(NMS, 'default', 'nm-2')).toEqual(GONE);
  });

  it('with two owners and one deleted the dependent stays and only the reference to the deleted one is removed', async () => {
    const a = aNode('gc-n3a');
    const b = aNode('gc-n3b');
    aMaintenance('nm-3', 'gc-n3a', [a, { ...b, blockOwnerDeletion: true }]);
    local.delete(NODES, '', 'gc-n3a');
    expect(await stateOf(NMS, 'default', 'nm-3')).toEqual([true, false, null, ['gc-n3b']]);
    expect(at(local.get(NMS, 'default', 'nm-3'), 'metadata.ownerReferences')).toEqual([{ ...b, blockOwnerDeletion: true }]);
    local.delete(NODES, '', 'gc-n3b');
    expect(await stateOf(NMS, 'default', 'nm-3')).toEqual(GONE);
  });

  it('an owner recreated under the same name (another uid) is not the owner: the dependent goes', async () => {
    const old = aNode('gc-n4');
    aMaintenance('nm-4', 'gc-n4', [old]);
    await gc.idle();
    local.delete(NODES, '', 'gc-n4');
    const recreated = aNode('gc-n4');
    expect(recreated.uid).not.toBe(old.uid);
    expect(await stateOf(NMS, 'default', 'nm-4')).toEqual(GONE);
    expect(local.get(NODES, '', 'gc-n4') !== undefined).toBe(true);
    local.delete(NODES, '', 'gc-n4');
  });

  it.each([
    ['an owner that never existed', (): Ref => ({ apiVersion: 'v1', kind: 'Node', name: 'gc-nobody', uid: 'uid-nobody' })],
    ['an existing owner named with another uid', (): Ref => ({ ...aNode('gc-n5'), uid: 'uid-stale' })],
    ['a namespaced owner in another namespace (looked up in the dependent\'s)', (): Ref => aConfigMap('gc-owner-5', [], 'other')],
  ])('a dependent created naming %s is deleted', async (_what, owner) => {
    aConfigMap('dep-5', [owner()]);
    expect(await stateOf(CMS, 'default', 'dep-5')).toEqual(GONE);
    if (local.get(NODES, '', 'gc-n5')) local.delete(NODES, '', 'gc-n5');
  });

  it('a dependent whose owner kind is not served is left alone', async () => {
    aConfigMap('dep-6', [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'uid-w' }]);
    expect(await stateOf(CMS, 'default', 'dep-6')).toEqual([true, false, null, ['w']]);
    local.delete(CMS, 'default', 'dep-6');
  });

  it.each([
    ['that never existed', (): Ref => ({ apiVersion: 'v1', kind: 'ConfigMap', name: 'gc-nothing', uid: 'uid-nothing' })],
    ['that exists (in namespace default)', (): Ref => aConfigMap('gc-owner-8')],
  ])('a cluster-scoped dependent naming a namespaced owner %s is kept, even beside a dangling cluster-scoped owner', async (_what, owner) => {
    // As on the testbed: a Namespace owned by a ConfigMap is never collected.
    const gone = { apiVersion: 'v1', kind: 'Node', name: 'gc-nobody', uid: 'uid-nobody' };
    const namespaced = owner();
    local.create(NAMESPACES, '', { metadata: { name: 'gc-dep-8', ownerReferences: [gone, namespaced] } });
    expect(await stateOf(NAMESPACES, '', 'gc-dep-8')).toEqual([true, false, null, ['gc-nobody', namespaced.name]]);
    local.delete(NAMESPACES, '', 'gc-dep-8');
    if (local.get(CMS, 'default', 'gc-owner-8')) local.delete(CMS, 'default', 'gc-owner-8');
  });

  it('a chain goes link by link: Node -> ConfigMap -> Pod bound to no node', async () => {
    const node = aNode('gc-n7');
    const cm = aConfigMap('link-7', [node]);
    local.create(PODS, 'default', { metadata: { name: 'leaf-7', ownerReferences: [cm] }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    local.delete(NODES, '', 'gc-n7');
    expect([await stateOf(CMS, 'default', 'link-7'), await stateOf(PODS, 'default', 'leaf-7')]).toEqual([GONE, GONE]);
  });
});

describe('orphan propagation', () => {
  it('the owner gets the orphan finalizer, then goes; its dependents stay without the reference', async () => {
    const node = aNode('gc-n8');
    const other = aNode('gc-n8b');
    aMaintenance('nm-8', 'gc-n8', [node]);
    aMaintenance('nm-8b', 'gc-n8', [node, other]);
    await gc.idle();
    const r = local.delete(NODES, '', 'gc-n8', { propagationPolicy: 'Orphan' });
    expect([r.deleted, at(r.object, 'metadata.finalizers')]).toEqual([false, ['orphan']]);
    expect(await stateOf(NODES, '', 'gc-n8')).toEqual(GONE);
    expect(await stateOf(NMS, 'default', 'nm-8')).toEqual([true, false, null, null]);
    expect(await stateOf(NMS, 'default', 'nm-8b')).toEqual([true, false, null, ['gc-n8b']]);
    local.delete(NMS, 'default', 'nm-8');
    local.delete(NMS, 'default', 'nm-8b');
    local.delete(NODES, '', 'gc-n8b');
  });

  it('a Job deleted without a policy orphans its pods (its kind\'s default); with Background they go', async () => {
    const job = (name: string): Ref => {
      const j = local.create(JOBS, 'default', { metadata: { name }, spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } } } });
      return { apiVersion: 'batch/v1', kind: 'Job', name, uid: uidOf(j) };
    };
    for (const name of ['job-a', 'job-b']) local.create(PODS, 'default', { metadata: { name: `${name}-pod`, ownerReferences: [{ ...job(name), controller: true, blockOwnerDeletion: true }] }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    await gc.idle();
    expect(at(local.delete(JOBS, 'default', 'job-a').object, 'metadata.finalizers')).toEqual(['orphan']);
    local.delete(JOBS, 'default', 'job-b', { propagationPolicy: 'Background' });
    expect([await stateOf(JOBS, 'default', 'job-a'), await stateOf(PODS, 'default', 'job-a-pod'), await stateOf(PODS, 'default', 'job-b-pod')]).toEqual([GONE, [true, false, null, null], GONE]);
    local.delete(PODS, 'default', 'job-a-pod');
  });
});

describe('foreground propagation', () => {
  it('the owner stays with foregroundDeletion until its blocking dependents are gone; the others go at once', async () => {
    const owner = aConfigMap('fg-owner');
    const node = aNode('gc-n9');
    local.create(PODS, 'default', {
      metadata: { name: 'fg-blocker', ownerReferences: [{ ...owner, blockOwnerDeletion: true }] },
      spec: { nodeName: node.name, terminationGracePeriodSeconds: 30, containers: [{ name: 'c', image: 'i' }] },
    });
    aConfigMap('fg-loose', [owner]);
    await gc.idle();
    const r = local.delete(CMS, 'default', 'fg-owner', { propagationPolicy: 'Foreground' });
    expect([r.deleted, at(r.object, 'metadata.finalizers')]).toEqual([false, ['foregroundDeletion']]);
    // The bound pod terminates gracefully (its kubelet ends it); the owner waits for it.
    expect(await stateOf(PODS, 'default', 'fg-blocker')).toEqual([true, true, null, ['fg-owner']]);
    expect(await stateOf(CMS, 'default', 'fg-loose')).toEqual(GONE);
    expect(await stateOf(CMS, 'default', 'fg-owner')).toEqual([true, true, ['foregroundDeletion'], null]);
    local.delete(PODS, 'default', 'fg-blocker', { gracePeriodSeconds: 0 });
    expect([await stateOf(PODS, 'default', 'fg-blocker'), await stateOf(CMS, 'default', 'fg-owner')]).toEqual([GONE, GONE]);
    local.delete(NODES, '', 'gc-n9');
  });

  it('an owner with no blocking dependent goes at once, its dependents in the background', async () => {
    const owner = aConfigMap('fg-owner-2');
    aConfigMap('fg-dep-2', [owner]);
    await gc.idle();
    local.delete(CMS, 'default', 'fg-owner-2', { propagationPolicy: 'Foreground' });
    expect([await stateOf(CMS, 'default', 'fg-owner-2'), await stateOf(CMS, 'default', 'fg-dep-2')]).toEqual([GONE, GONE]);
  });
});

describe('DeleteOptions as the server reads them', () => {
  it.each([
    ['an unknown propagationPolicy', { propagationPolicy: 'Bogus' }, 'propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"'],
    ['both propagationPolicy and orphanDependents', { propagationPolicy: 'Orphan', orphanDependents: true }, 'propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set'],
  ])('%s is a 422 (as on the testbed)', async (_what, body, detail) => {
    aConfigMap('opts');
    const r = await call(server, 'DELETE', '/api/v1/namespaces/default/configmaps/opts', body);
    expect([r.status, r.body['message']]).toEqual([422, `DeleteOptions.meta.k8s.io "" is invalid: ${detail}`]);
    local.delete(CMS, 'default', 'opts');
  });

  it('orphanDependents=true in the query is the Orphan policy', async () => {
    aConfigMap('legacy');
    const r = await call(server, 'DELETE', '/api/v1/namespaces/default/configmaps/legacy?orphanDependents=true');
    expect([r.status, at(r.body, 'metadata.finalizers')]).toEqual([200, ['orphan']]);
    expect(await stateOf(CMS, 'default', 'legacy')).toEqual(GONE);
  });

  it('without a running collector DELETE adds no finalizer (kube-apiserver --enable-garbage-collector=false)', async () => {
    const bare = await startSimApiServer({ namespaces: ['default'] });
    try {
      bare.local.create(CMS, 'default', { metadata: { name: 'plain' } });
      expect(bare.local.delete(CMS, 'default', 'plain', { propagationPolicy: 'Orphan' }).deleted).toBe(true);
    } finally {
      await bare.stop();
    }
  });
});

describe('cost', () => {
  it('deleting one of 200 ReplicaSet-like owners of 20,000 pods touches only its 100 pods', async () => {
    const owners = Array.from({ length: 200 }, (_, i) => aConfigMap(`rs-${i}`, [], 'other'));
    for (let i = 0; i < 20_000; i++) {
      const owner = owners[i % 200] as Ref;
      local.create(PODS, 'other', { metadata: { name: `p-${i}`, namespace: 'other', ownerReferences: [{ ...owner, controller: true }] }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    }
    await gc.idle();
    const before = gc.stats();
    // How long this takes (target < 1 s) is measured by `npm run bench:unit-speed` (issue 18), not asserted here.
    local.delete(CMS, 'other', 'rs-7');
    await gc.idle();
    const after = gc.stats();
    expect([after.deleted - before.deleted, local.list(PODS, { namespace: 'other' }).length]).toEqual([100, 19_900]);
    // Nothing else written: no owner reference or finalizer removed, no conflict.
    expect([after.refsRemoved - before.refsRemoved, after.finalizersRemoved - before.finalizersRemoved, after.conflicts - before.conflicts]).toEqual([0, 0, 0]);
  });
});
