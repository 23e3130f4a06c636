// kured's sentinel on the testbed (issue 43 point 2): node-problem-detector's RebootRequired condition on a Node becomes
// one reboot request of kmaint's own, admitted and rebooted like any other, deleted by kmaint once Ready with the
// condition cleared, which uncordons the node. The condition is NPD's: the test writes it as NPD would, kmaint only reads it.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, NODE_MAINTENANCE_PLURAL, VERSION, type NodeMaintenance } from '../shared/api/index.ts';
import { KMAINT_NS, admin, driveUntil, getNM, installCrds, isUnschedulable, nodes, pass, phaseOf, removeAllNMs, setConfig } from './support/kmaint.ts';

const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
let node = '';

/** NPD's custom plugin posting its condition: True while /var/run/reboot-required exists, False once it is gone. */
async function setRebootRequired(status: 'True' | 'False'): Promise<void> {
  const now = new Date();
  const reason = status === 'True' ? 'RebootRequired' : 'NoRebootRequired';
  const condition = { type: 'RebootRequired', status, reason, message: status === 'True' ? '/var/run/reboot-required exists' : 'no reboot required', lastHeartbeatTime: now, lastTransitionTime: now };
  await admin().core.patchNodeStatus({ name: node, body: { status: { conditions: [condition] } } }, strategic);
}

async function kmaintRequests(): Promise<NodeMaintenance[]> {
  const list = (await admin().custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: KMAINT_NS, plural: NODE_MAINTENANCE_PLURAL })) as { items: NodeMaintenance[] };
  return list.items;
}

async function bootID(): Promise<string> {
  return (await admin().core.readNode({ name: node })).status?.nodeInfo?.bootID ?? '';
}

describe(`the reboot sentinel on the ${process.env['KMAINT_TEST_CLUSTER'] ?? 'testbed'}`, () => {
  beforeAll(async () => {
    await installCrds();
    node = (await nodes()).map((n) => n.metadata?.name ?? '').sort()[0] ?? '';
  });
  afterAll(async () => {
    await setRebootRequired('False');
    await removeAllNMs(KMAINT_NS);
    await setConfig(undefined);
  });

  it('RebootRequired=True files one reboot-<node> of kmaint\'s, never a second; the node reboots, the request is held until the condition clears, then deleted and the node uncordoned', async () => {
    await setConfig({ rebootSentinel: {}, reboot: { timeoutSeconds: 300 } });
    const before = await bootID();
    await setRebootRequired('True');

    await pass('scheduler');
    const filed = await kmaintRequests();
    expect(filed.map((nm) => [nm.metadata.name, nm.spec.nodeName, nm.spec.requestorID, nm.metadata.labels?.['kmaint.io/reboot-sentinel'], nm.metadata.annotations?.['kmaint.io/reboot']])).toEqual([
      [`reboot-${node}`, node, 'reboot-sentinel.kmaint.io', 'true', 'true'],
    ]);
    const uid = filed[0]?.metadata.uid;

    // A second pass (which admits it) files nothing new.
    await pass('scheduler');
    expect((await kmaintRequests()).map((nm) => [nm.metadata.name, nm.metadata.uid])).toEqual([[`reboot-${node}`, uid]]);

    // Drainer passes until the simulated kubelet rebooted the node and the request is Ready.
    const ready = await driveUntil('reboot request Ready', async () => {
      const nm = await getNM(KMAINT_NS, `reboot-${node}`);
      return phaseOf(nm) === 'Ready' ? nm : undefined;
    }, 120_000);
    const after = await bootID();
    expect([after !== before, after !== '', ready.metadata.annotations?.['kmaint.io/reboot-boot-id']]).toEqual([true, true, before]);
    // The kubelet's own posts leave NPD's condition alone: still True, so the request is held and the node stays cordoned.
    await pass('scheduler');
    expect([phaseOf(await getNM(KMAINT_NS, `reboot-${node}`)), await isUnschedulable(node)]).toEqual(['Ready', true]);

    // NPD after the reboot: the sentinel file is gone, the condition False. kmaint deletes its request, cleanup releases.
    await setRebootRequired('False');
    await driveUntil('reboot request deleted', async () => ((await getNM(KMAINT_NS, `reboot-${node}`)) === undefined ? true : undefined), 60_000);
    expect([(await kmaintRequests()).length, await isUnschedulable(node)]).toEqual([0, false]);
    const events = await admin().core.listEventForAllNamespaces({ fieldSelector: `involvedObject.name=${node},involvedObject.kind=Node` });
    expect(events.items.filter((e) => e.reason === 'RebootRequested' || e.reason === 'RebootDone').map((e) => [e.reason, e.message])).toEqual([
      ['RebootRequested', `filed kmaint/reboot-${node}: condition RebootRequired is True`],
      ['RebootDone', `deleted kmaint/reboot-${node}: rebooted and its RebootRequired condition is no longer True`],
    ]);
  });
});
