// Issue 40, attacks 4 and 6 and the requestor quota, tried as a requestor's ServiceAccount (test/support/attacker.ts)
// with the chart's admission policy installed and with none:
//   4. a request naming `a,b` is refused by kmaint's CRD at create; where the CRD lacks the pattern (the upstream CRD
//      may be installed instead) kmaint's own check sets it apart, so a cleanup pass reading Nodes by name still
//      releases another request (exact uncordon) and the bad request too, and no Node is read by that name;
//   6. a tenant pod with the upstream operator's own-pod label is evicted by a forced drain; a pod with that label in
//      the upstream operator's namespace (spec.upstreamOperatorNamespace, default nvidia-maintenance-operator) stays;
//   the ResourceQuota of infra/requestor-quota refuses the create past its count.
// Passes are driven directly with an injected clock (named reads need a recorded full read less than 600 s old).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { DEFAULT_UPSTREAM_OPERATOR_NAMESPACE, FINALIZER, GROUP, NODE_MAINTENANCE_PLURAL, REAPER_REQUESTOR, VERSION } from '../shared/api/index.ts';
import { POLICY_MODES, makeRequestor, usePolicyMode, type Requestor } from './support/attacker.ts';
import { auditLog, kubectl, testbed, waitFor } from './support/cluster.ts';
import { KMAINT_NS, admin, bindPod, generalNodes, getNM, isUnschedulable, pass, phaseOf, podsOn, removeAllNMs, setConfig, setUnschedulable, untilPhase } from './support/kmaint.ts';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const NM_CRD_FILE = 'crds/nodemaintenances.maintenance.nvidia.com.yaml';
const QUOTA_FILE = 'infra/requestor-quota/resource-quota.yaml';
const OPERATOR_LABELS = { 'app.kubernetes.io/component': 'maintenance-operator-controller-manager' };
const UPSTREAM_NS = DEFAULT_UPSTREAM_OPERATOR_NAMESPACE;
const suffix = randomBytes(3).toString('hex');

/** kmaint's NodeMaintenance CRD without its spec.nodeName pattern and length, as the upstream CRD has neither. */
function crdWithoutNodeNameCheck(): string {
  const text = readFileSync(NM_CRD_FILE, 'utf8');
  const without = text.replace(/\n( +)maxLength: 253\n\1pattern: \^\[a-z0-9\][^\n]*/, '');
  if (without === text) throw new Error(`${NM_CRD_FILE}: spec.nodeName's maxLength and pattern not found`);
  return without;
}

/** Applies the CRD and waits until its objects can be listed (a changed schema re-initialises their storage: 429). */
async function applyCrd(yaml: string): Promise<void> {
  const r = await kubectl(['apply', '-f', '-'], { input: yaml });
  if (r.code !== 0) throw new Error(`applying the NodeMaintenance CRD: ${r.stderr}`);
  await waitFor('NodeMaintenances listed', async () => {
    try {
      await admin().custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: NODE_MAINTENANCE_PLURAL, limit: 1 });
      return true;
    } catch {
      return undefined;
    }
  }, 30_000);
}

/** The Node reads kmaint made since `mark`: the fieldSelector of each, or "every node". */
async function nodeReadsSince(mark: number): Promise<string[]> {
  const audit = auditLog();
  await audit.sync();
  const reads = audit.entries({ since: mark, user: testbed().kmaintUser, resource: 'nodes' }).filter((e) => e.verb === 'list' || e.verb === 'get');
  return reads.map((e) => `${e.verb} ${new URL(e.uri, 'https://x').searchParams.get('fieldSelector') ?? 'every node'}`);
}

async function markNow(): Promise<number> {
  const audit = auditLog();
  await audit.sync();
  return audit.mark();
}

async function forgetFullReads(): Promise<void> {
  for (const fn of ['drainer', 'cleanup']) await kubectl(['delete', 'lease', '-n', KMAINT_NS, `kmaint-${fn}`, '--ignore-not-found']);
}

let released = '';
let drained = '';

beforeAll(async () => {
  [released = '', drained = ''] = await generalNodes();
  await admin().core.createNamespace({ body: { metadata: { name: UPSTREAM_NS } } });
});

afterAll(async () => {
  await applyCrd(readFileSync(NM_CRD_FILE, 'utf8'));
  await setConfig(undefined);
  // Other files' passes start from no record of a full read (this file's clock ran ahead).
  await forgetFullReads();
  for (const node of [released, drained]) {
    await setUnschedulable(node, false);
    await admin().core.patchNode({ name: node, body: { metadata: { annotations: { 'kmaint.io/cordoned-by': null, 'kmaint.io/cordon-reason': null } } } }, mergePatch);
  }
  await admin().core.deleteNamespace({ name: UPSTREAM_NS });
  await waitFor(`namespace ${UPSTREAM_NS} gone`, async () => ((await admin().core.listNamespace({ fieldSelector: `metadata.name=${UPSTREAM_NS}` })).items.length === 0 ? true : undefined), 120_000, 500);
});

describe.each(POLICY_MODES)('issue 40 as a requestor, %s', (mode) => {
  const ns = `in-${suffix}-${mode}`;
  let requestor: Requestor;
  let undoPolicy: () => Promise<void> = async () => {};

  beforeAll(async () => {
    requestor = await makeRequestor(ns);
    // In effect once the policy refuses a request claiming the reaper's requestorID (a probe that lands is deleted again).
    undoPolicy = await usePolicyMode(mode, async () => {
      const name = `probe-${randomBytes(2).toString('hex')}`;
      const probe = await requestor.create(name, { requestorID: REAPER_REQUESTOR, nodeName: released });
      if (probe === 'created') await requestor.delete(name);
      return probe.startsWith('403 ');
    });
  });

  afterAll(async () => {
    await undoPolicy();
    await applyCrd(readFileSync(NM_CRD_FILE, 'utf8'));
    await removeAllNMs(ns);
    await admin().core.deleteNamespace({ name: ns });
    await waitFor(`namespace ${ns} gone`, async () => ((await admin().core.listNamespace({ fieldSelector: `metadata.name=${ns}` })).items.length === 0 ? true : undefined), 120_000, 500);
  });

  it('a request naming `a,b`: refused by the CRD; past a CRD without the pattern, set apart by kmaint, so cleanup reading by name releases another request and it', async () => {
    await removeAllNMs(ns);
    const T0 = Date.now();
    const at = (seconds: number): Date => new Date(T0 + seconds * 1000);
    await setConfig({ maxParallelOperations: 1, namedReadsFromNodes: 1, fullReadEverySeconds: 600 });
    await forgetFullReads();

    const pattern = String.raw`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`;
    expect(await requestor.create('bad-name', { requestorID: 'attacker.example.com', nodeName: 'a,b' })).toBe(
      `422 NodeMaintenance.maintenance.nvidia.com "bad-name" is invalid: spec.nodeName: Invalid value: "a,b": spec.nodeName in body should match '${pattern}'`,
    );

    // Attack 7: the CRD bounds the lists and strings a requestor writes.
    const many = Array.from({ length: 65 }, (_, i) => `r${i}.example.com`);
    expect(await requestor.create('too-many', { requestorID: 'attacker.example.com', nodeName: released, additionalRequestors: many })).toBe(
      '422 NodeMaintenance.maintenance.nvidia.com "too-many" is invalid: [spec.additionalRequestors: Too many: 65: must have at most 64 items, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );

    // An honest request of the same team, admitted and cordoned; every pass so far read every Node and recorded it.
    expect(await requestor.create('honest', { requestorID: 'team.example.com', nodeName: released, cordon: true })).toBe('created');
    expect((await pass('scheduler', { now: at(0) })).admitted).toBe(1);
    for (let s = 1; s <= 5 && phaseOf(await getNM(ns, 'honest')) !== 'Ready'; s++) await pass('drainer', { now: at(s) });
    expect([phaseOf(await getNM(ns, 'honest')), await isUnschedulable(released)]).toEqual(['Ready', true]);
    await pass('cleanup', { now: at(5) });

    // The CRD as upstream's: no pattern. The bad request goes in, with kmaint's finalizer so its deletion waits.
    await applyCrd(crdWithoutNodeNameCheck());
    await waitFor('a create naming a,b accepted', async () => ((await requestor.create('bad-name', { requestorID: 'attacker.example.com', nodeName: 'a,b' }, { finalizers: [FINALIZER] })) === 'created' ? true : undefined), 30_000);
    expect([await requestor.delete('bad-name'), await requestor.delete('honest')]).toEqual(['deleted', 'deleted']);

    // Cleanup within 600 s of its full read would read by name; the invalid request being deleted makes it read
    // every Node once (its cordon record may be on any), and nothing is ever read by the name `a,b`.
    const mark = await markNow();
    const summary = await pass('cleanup', { now: at(10) });
    expect([summary.outcome, summary.released]).toEqual(['applied', 2]);
    expect(await nodeReadsSince(mark)).toEqual(['list every node']);
    expect([await getNM(ns, 'honest'), await getNM(ns, 'bad-name'), await isUnschedulable(released)]).toEqual([undefined, undefined, false]);
    const annotations = (await admin().core.readNode({ name: released })).metadata?.annotations ?? {};
    expect(Object.keys(annotations).filter((k) => k.startsWith('kmaint.io/cordon'))).toEqual([]);
    await applyCrd(readFileSync(NM_CRD_FILE, 'utf8'));
  });

  it("a forced drain evicts a tenant's pod with the upstream operator's own-pod label, and leaves that label's pod in the upstream operator's namespace", async () => {
    await setConfig({ maxParallelOperations: 1 });
    const operator = `operator-${mode}`;
    await bindPod(ns, 'escaper', drained, { labels: OPERATOR_LABELS });
    await bindPod(UPSTREAM_NS, operator, drained, { labels: OPERATOR_LABELS });
    try {
      const labelled = async (phase?: string): Promise<string[]> =>
        (await podsOn(drained))
          .filter((p) => p.metadata?.labels?.['app.kubernetes.io/component'] !== undefined && (phase === undefined || p.status?.phase === phase))
          .map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`)
          .sort();
      await waitFor('both labelled pods running', async () => ((await labelled('Running')).length === 2 ? true : undefined), 30_000);
      const selector = 'app.kubernetes.io/component=maintenance-operator-controller-manager';
      expect(await requestor.create('drain', { requestorID: 'team.example.com', nodeName: drained, drainSpec: { force: true, podSelector: selector } })).toBe('created');
      const ready = await untilPhase(ns, 'drain', 'Ready', 40_000);
      // totalPods counts the node's DaemonSet pods too, which this test does not own.
      expect(ready.status?.drain).toEqual({ totalPods: expect.any(Number), evictionPods: 1, drainProgress: 100 });
      expect(await labelled()).toEqual([`${UPSTREAM_NS}/${operator}`]);
      await removeAllNMs(ns);
      expect(await isUnschedulable(drained)).toBe(false);
    } finally {
      await admin().core.deleteNamespacedPod({ namespace: UPSTREAM_NS, name: operator, gracePeriodSeconds: 0 });
      await removeAllNMs(ns);
    }
  });
});

// Issue 40: two records kmaint writes on Nodes, each with an owner on every exit path (docs/owner-table-tests.md OT1,
// OT2). Written here by the administrator exactly as kmaint writes them; requestors cannot write Nodes.
describe('records with an owner on every exit path', () => {
  const REASON = 'nodeset.slinky.slurm.net/node-cordon-reason';
  const PROBLEM = 'kmaint.io/sriov-handshake-problem';
  const annotationsOf = async (node: string): Promise<Record<string, string | undefined>> => {
    const a = (await admin().core.readNode({ name: node })).metadata?.annotations ?? {};
    return { [REASON]: a[REASON], [PROBLEM]: a[PROBLEM] };
  };

  it("kmaint's Slinky node-cordon-reason left after someone else uncordoned is swept by cleanup once its request is gone; the SR-IOV handshake's problem goes with the protocol off", async () => {
    await setConfig(undefined);
    const gone = `kmaint: ${`gone-${suffix}`}/request`;
    await admin().core.patchNode({ name: released, body: { metadata: { annotations: { [REASON]: gone } } } }, mergePatch);
    await admin().core.patchNode({ name: drained, body: { metadata: { annotations: { [REASON]: 'maintenance by the platform team', [PROBLEM]: 'NodeMaintenance kmaint/sriov-x is not kmaint\'s SR-IOV request for node x' } } } }, mergePatch);
    try {
      // The scheduler with the SR-IOV protocol off (no config): the problem goes; another party's Slinky reason stays.
      await pass('scheduler');
      expect([await annotationsOf(released), await annotationsOf(drained)]).toEqual([
        { [REASON]: gone, [PROBLEM]: undefined },
        { [REASON]: 'maintenance by the platform team', [PROBLEM]: undefined },
      ]);
      // Cleanup's full read: kmaint's reason naming a request that does not exist goes, the other party's stays.
      await pass('cleanup');
      expect([await annotationsOf(released), await annotationsOf(drained)]).toEqual([
        { [REASON]: undefined, [PROBLEM]: undefined },
        { [REASON]: 'maintenance by the platform team', [PROBLEM]: undefined },
      ]);
      // A second round writes nothing.
      expect([(await pass('scheduler')).actions, (await pass('cleanup')).actions]).toEqual([{}, {}]);
    } finally {
      await admin().core.patchNode({ name: drained, body: { metadata: { annotations: { [REASON]: null, [PROBLEM]: null } } } }, mergePatch);
      await admin().core.patchNode({ name: released, body: { metadata: { annotations: { [REASON]: null } } } }, mergePatch);
    }
  });
});

// Build point 5: the ResourceQuota example for requestor namespaces, applied as docs/security.md says, refuses the
// request past its count. A requestor's own namespace; no admission policy is in force here (the attacks above remove it).
describe('a requestor namespace under infra/requestor-quota', () => {
  const ns = `in-${suffix}-quota`;
  let requestor: Requestor;
  beforeAll(async () => {
    requestor = await makeRequestor(ns);
  });
  afterAll(async () => {
    await removeAllNMs(ns);
    await admin().core.deleteNamespace({ name: ns });
    await waitFor(`namespace ${ns} gone`, async () => ((await admin().core.listNamespace({ fieldSelector: `metadata.name=${ns}` })).items.length === 0 ? true : undefined), 120_000, 500);
  });

  it(`the ResourceQuota of ${QUOTA_FILE} refuses the requestor's create past its count`, async () => {
    await removeAllNMs(ns);
    const applied = await kubectl(['apply', '-n', ns, '-f', QUOTA_FILE]);
    expect(applied.code).toBe(0);
    try {
      const limit = 'count/nodemaintenances.maintenance.nvidia.com';
      const hard = Number((parse(readFileSync(QUOTA_FILE, 'utf8')) as { spec: { hard: Record<string, string> } }).spec.hard[limit]);
      expect(hard).toBe(20);
      // Quota admission counts against the usage the quota controller computed, which it computes again when the quota
      // changes: each poll that finds no usage of NodeMaintenances yet touches the quota, so the next computation is
      // not left to the 5-minute resync. (Early in a testbed's life, with the attacks' policy applied and removed, it
      // was seen to count nothing for over 150 s; here, after them, it counts at once.)
      let poke = 0;
      const counting = Date.now();
      const used = await waitFor('the quota counting NodeMaintenances', async () => {
        const status = (await admin().core.readNamespacedResourceQuota({ namespace: ns, name: 'kmaint-requests' })).status;
        if (status?.used?.[limit] !== undefined) return status.used[limit];
        await kubectl(['annotate', '--overwrite', '-n', ns, 'resourcequota', 'kmaint-requests', `kmaint.io/test-poke=${++poke}`]);
        return undefined;
      }, 90_000, 1000);
      process.stderr.write(`[attacks-input] the quota counted NodeMaintenances after ${((Date.now() - counting) / 1000).toFixed(1)} s, ${poke} pokes\n`);
      expect(used).toBe('0');
      const outcomes: string[] = [];
      for (let i = 0; i <= hard; i++) outcomes.push(await requestor.create(`q-${i}`, { requestorID: 'team.example.com', nodeName: `quota-${i}` }));
      expect(outcomes).toEqual([
        ...Array.from({ length: hard }, () => 'created'),
        `403 nodemaintenances.maintenance.nvidia.com "q-${hard}" is forbidden: exceeded quota: kmaint-requests, requested: ${limit}=1, used: ${limit}=${hard}, limited: ${limit}=${hard}`,
      ]);
    } finally {
      await admin().core.deleteNamespacedResourceQuota({ namespace: ns, name: 'kmaint-requests' });
      await removeAllNMs(ns);
    }
   }, 150_000);
});
