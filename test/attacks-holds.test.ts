// Issue 40, attack 1, tried as an attacker (a ServiceAccount limited to its namespace's NodeMaintenances and their
// status), with the chart's admission policy and with none: a request that can never start (a gang of one that
// declares two, with a deadline one second after its creation, so it ranks first) or that waits on its own not-before
// holds nothing: an administrator's request on its node starts, and the reaper files and starts its own. A clique gang
// that one third-party requestor files one request at a time starts alone after gangIncompleteAdmitAfterSeconds.
import { randomBytes } from 'node:crypto';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_DEADLINE, ANNOTATION_GANG_SIZE, ANNOTATION_NOT_BEFORE, LABEL_GANG } from '../shared/api/index.ts';
import { makeRequestor, POLICY_MODES, POLICY_NAME, usePolicyMode, type Requestor } from './support/attacker.ts';
import { holdKubeletStatusPosts, kubectl, waitFor } from './support/cluster.ts';
import { admin, createNM, generalNodes, getNM, installCrds, isUnschedulable, KMAINT_NS, pass, phaseOf, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const CLIQUE = 'example.com/nvlink-clique';
const DENIED = (name: string): string => `nodemaintenances.maintenance.nvidia.com "${name}" is forbidden: ValidatingAdmissionPolicy '${POLICY_NAME}' with binding '${POLICY_NAME}' denied request: `;

/** RFC 3339 to the second, as the API server stamps creationTimestamp. */
function seconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** [phase, Ready message] of a request, read back as the admin. */
async function stateOf(namespace: string, name: string): Promise<[string | undefined, string | undefined]> {
  const nm = await getNM(namespace, name);
  return [phaseOf(nm), nm?.status?.conditions?.find((c) => c.type === 'Ready')?.message];
}

/** What the node lifecycle controller puts on a NotReady Node. */
const NOT_READY_TAINTS = ['node.kubernetes.io/not-ready:NoSchedule', 'node.kubernetes.io/not-ready:NoExecute'];

async function setReady(node: string, status: 'True' | 'False', since: string): Promise<void> {
  const condition = { type: 'Ready', status, reason: status === 'True' ? 'KubeletReady' : 'KubeletNotReady', message: `attacks-holds: ${status}`, lastHeartbeatTime: new Date().toISOString(), lastTransitionTime: since };
  await admin().core.patchNodeStatus({ name: node, body: { status: { conditions: [condition] } } }, strategic);
}

describe.each(POLICY_MODES)('a waiting request holds nothing (issue 40), %s', (mode) => {
  const ns = `holds-${mode === 'policy' ? 'p' : 'n'}-${randomBytes(3).toString('hex')}`;
  const adminNs = `${ns}-admin`;
  let attacker: Requestor;
  let undo: () => Promise<void> = async () => {};
  let x = '';
  let y = '';
  let z = '';
  /** A create the policy refuses: a deadline an hour before the request's creation. */
  const pastDeadline = async (name: string): Promise<{ outcome: string; before: number; after: number }> => {
    const before = Date.now();
    const outcome = await attacker.create(name, { requestorID: 'attacker.example.com', nodeName: z }, { annotations: { [ANNOTATION_DEADLINE]: seconds(before - 3600_000) } });
    return { outcome, before, after: Date.now() };
  };

  beforeAll(async () => {
    await installCrds();
    [x, y, z] = (await generalNodes()).slice(0, 3) as [string, string, string];
    attacker = await makeRequestor(ns);
    await admin().core.createNamespace({ body: { metadata: { name: adminNs } } });
    let probe = 0;
    undo = await usePolicyMode(mode, async () => {
      const name = `probe-${(probe += 1)}`;
      const { outcome } = await pastDeadline(name);
      if (outcome === 'created') await attacker.delete(name);
      return outcome !== 'created';
    });
  });
  afterEach(async () => {
    await removeAllNMs(ns);
    await removeAllNMs(adminNs);
    await removeAllNMs(KMAINT_NS);
    await setConfig(undefined);
    for (const node of [x, y, z]) {
      await setUnschedulable(node, false);
      await admin().core.patchNode({ name: node, body: { metadata: { labels: { [CLIQUE]: null }, annotations: { 'kmaint.io/reaper-decision': null } } } }, merge);
    }
  });
  afterAll(async () => {
    await undo();
    await kubectl(['delete', 'namespace', ns, adminNs, '--wait=false']);
  });

  it('a gang of one that declares two, ranked first by its own deadline, and a request waiting on its not-before hold nothing: the administrator\'s requests start and cordon their nodes', async () => {
    await setConfig({ maxParallelOperations: 2 });
    // The policy refuses a deadline before the request's creation (its message names the creation, stamped by the API
    // server); one second after the creation is the attacker's to set.
    const past = await pastDeadline('past-deadline');
    if (mode === 'policy') {
      const stamped = new Set([seconds(past.before), seconds(past.after)]);
      const messages = [...stamped].map((created) =>
        `422 ${DENIED('past-deadline')}kmaint.io/deadline ${seconds(past.before - 3600_000)} is refused: it must be an RFC 3339 time (e.g. 2026-12-01T06:00:00Z) no earlier than the request's creation ${created}`,
      );
      expect(messages).toContain(past.outcome);
    } else {
      expect([past.outcome, await attacker.delete('past-deadline')]).toEqual(['created', 'deleted']);
    }
    const deadline = seconds(Date.now() + 1000);
    expect(
      await attacker.create('blocker', { requestorID: 'attacker.example.com', nodeName: x }, { labels: { [LABEL_GANG]: 'never' }, annotations: { [ANNOTATION_GANG_SIZE]: '2', [ANNOTATION_DEADLINE]: deadline } }),
    ).toBe('created');
    const notBefore = seconds(Date.now() + 3600_000);
    expect(await attacker.create('later', { requestorID: 'attacker.example.com', nodeName: y }, { annotations: { [ANNOTATION_NOT_BEFORE]: notBefore, [ANNOTATION_DEADLINE]: notBefore } })).toBe('created');
    const gangWait = 'waiting: gang never (1 requests) cannot start: 1 of its 2 requests missing (kmaint.io/gang-size 2, 1 found)';
    await pass('scheduler');
    expect(await stateOf(ns, 'blocker')).toEqual(['Pending', gangWait]);

    await createNM(adminNs, 'admin-x', { requestorID: 'admin.example.com', nodeName: x, cordon: true });
    await createNM(adminNs, 'admin-y', { requestorID: 'admin.example.com', nodeName: y, cordon: true });
    const scheduled = await pass('scheduler');
    expect([scheduled.admitted, scheduled.waiting]).toEqual([2, 2]);
    await pass('drainer');
    expect({
      blocker: await stateOf(ns, 'blocker'),
      later: await stateOf(ns, 'later'),
      adminX: phaseOf(await getNM(adminNs, 'admin-x')),
      adminY: phaseOf(await getNM(adminNs, 'admin-y')),
      x: await isUnschedulable(x),
      y: await isUnschedulable(y),
    }).toEqual({
      blocker: ['Pending', `waiting: another request for node ${x} is in progress (${adminNs}/admin-x)`],
      later: ['Pending', `waiting: not before ${notBefore} (kmaint.io/not-before)`],
      adminX: 'Ready',
      adminY: 'Ready',
      x: true,
      y: true,
    });
  });

  it('with the reaper on and joinExistingRequests off, an unstartable request on an unhealthy node neither keeps the reaper off nor holds the node', async () => {
    await setConfig({ maxParallelOperations: 1, reaper: { enabled: true, dryRun: false, provider: 'none', unhealthyForSeconds: 60, newNodeGracePeriodSeconds: 0, maxNodesUnhealthy: 1, maxNodesUnhealthyInSameZone: 1 } });
    expect(
      await attacker.create('blocker', { requestorID: 'attacker.example.com', nodeName: z }, { labels: { [LABEL_GANG]: 'never' }, annotations: { [ANNOTATION_GANG_SIZE]: '2', [ANNOTATION_DEADLINE]: seconds(Date.now() + 1000) } }),
    ).toBe('created');
    // NotReady for an hour, and the simulated kubelet's status posts held (its Lease still renewed) so none flips it
    // back. The node lifecycle controller then taints the node; the passes run once both taints are on, so none lands
    // between a pass's read of the Node and its write there (a conflict: the unit would stop, and the row with it).
    await holdKubeletStatusPosts(z, true);
    try {
      await setReady(z, 'False', seconds(Date.now() - 3600_000));
      await waitFor(`${z} tainted ${NOT_READY_TAINTS.join(', ')}`, async () => {
        const taints = new Set(((await admin().core.readNode({ name: z })).spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`));
        return NOT_READY_TAINTS.every((t) => taints.has(t)) ? true : undefined;
      }, 60_000);
      await pass('reaper');
      const reap = await getNM(KMAINT_NS, `reap-${z}`);
      expect([reap?.spec.requestorID, reap?.spec.nodeName, phaseOf(reap)]).toEqual(['reaper.kmaint.io', z, '']);
      expect((await admin().core.readNode({ name: z })).metadata?.annotations?.['kmaint.io/reaper-decision']).toBeUndefined();
      await pass('scheduler');
      expect({ reap: await stateOf(KMAINT_NS, `reap-${z}`), blocker: await stateOf(ns, 'blocker') }).toEqual({
        reap: ['Scheduled', 'admitted: slot 1 of 1, node already unavailable'],
        blocker: ['Pending', `waiting: another request for node ${z} is in progress (${KMAINT_NS}/reap-${z})`],
      });
    } finally {
      await setReady(z, 'True', seconds(Date.now()));
      await holdKubeletStatusPosts(z, false);
    }
  });

  it('a third-party requestor\'s lone request on a clique node starts alone once its gang has been incomplete for gangIncompleteAdmitAfterSeconds, with a Warning saying so', async () => {
    for (const node of [x, y]) await admin().core.patchNode({ name: node, body: { metadata: { labels: { [CLIQUE]: 'rack-1' } } } }, merge);
    await setConfig({ maxParallelOperations: 2, gangNodeLabel: CLIQUE, gangIncompleteAdmitAfterSeconds: 2 });
    expect(await attacker.create('firmware-x', { requestorID: 'firmware.example.com', nodeName: x })).toBe('created');
    const created = Date.parse((await getNM(ns, 'firmware-x'))?.metadata.creationTimestamp ?? '');
    await pass('scheduler', { now: new Date(created + 1000) });
    const gang = `${CLIQUE}=rack-1`;
    expect(await stateOf(ns, 'firmware-x')).toEqual(['Pending', `waiting: gang ${gang} (1 requests) cannot start: node ${y} of the gang has no request`]);
    // Two seconds after the oldest request's creation, by the pass's clock (never before the real one).
    const admitted = await pass('scheduler', { now: new Date(Math.max(Date.now(), created + 2000)) });
    expect(admitted.admitted).toBe(1);
    expect(await stateOf(ns, 'firmware-x')).toEqual(['Scheduled', `admitted: slot 1 of 2, with gang ${gang} (1 requests)`]);
    const events = await waitFor('the GangAdmittedIncomplete event', async () => {
      const list = await admin().core.listNamespacedEvent({ namespace: ns, fieldSelector: 'reason=GangAdmittedIncomplete' });
      return list.items.length > 0 ? list.items : undefined;
    }, 10_000, 200);
    expect(events.map((e) => [e.type, e.involvedObject.name, e.message])).toEqual([
      ['Warning', 'firmware-x', `gang ${gang} admitted as its 1 request: incomplete since ${seconds(created)}, longer than gangIncompleteAdmitAfterSeconds 2; no request for node ${y}`],
    ]);
  });
});

