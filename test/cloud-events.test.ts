// Cloud scheduled events on the testbed: with spec.cloudEvents on, the reaper pass (run as kmaint's ServiceAccount)
// reads the Nodes' EC2 scheduled events (AWS SDK mocked at the process boundary with aws-sdk-client-mock, the
// provider injected; the testbed's Nodes carry aws:/// providerIDs) and files one request per affected Node with the
// earliest NotBefore as kmaint.io/deadline, updates it when the events change, deletes it once they completed or
// went — after the lifecycle drained the Node, which cleanup then uncordons — and never touches another requestor's
// request. Event shapes are the EC2 API Reference's (DescribeInstanceStatus, InstanceStatusEvent).
import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { DescribeInstanceStatusCommand, EC2Client, ModifyInstanceEventStartTimeCommand, type InstanceStatus, type InstanceStatusEvent, type ModifyInstanceEventStartTimeCommandInput } from '@aws-sdk/client-ec2';
import type { CoreV1Event, V1Node } from '@kubernetes/client-node';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GROUP, NODE_MAINTENANCE_PLURAL, VERSION, rfc3339Seconds, type NodeMaintenance } from '../shared/api/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { runPass, type PassSummary } from '../shared/pass/index.ts';
import { awsProvider, providerMap } from '../shared/reaper/index.ts';
import { auditLog, kmaintKubeConfig, kubectl, testbed } from './support/cluster.ts';
import { etcdLeaseOf } from './support/etcd-lease.ts';
import { FakeEc2Events } from './support/fake-ec2-events.ts';
import { KMAINT_NS, admin, createNM, driveUntil, generalNodes, getNM, isUnschedulable, pass, removeAllNMs, setConfig } from './support/kmaint.ts';

const ec2 = mockClient(EC2Client);
const providers = providerMap([awsProvider({ clients: () => ({ ec2: new EC2Client({ region: 'us-east-1' }), autoScaling: new AutoScalingClient({ region: 'us-east-1' }) }) })]);
const client = new KubeClient(kmaintKubeConfig());
const REQUESTOR = 'cloud-events.kmaint.io';

/** What the mocked DescribeInstanceStatus lists, by instance id; set by each step of a test. */
let listed = new Map<string, InstanceStatusEvent[]>();

function cloudPass(): Promise<PassSummary> {
  return runPass('reaper', { client, namespace: KMAINT_NS, now: () => new Date(), reaperProviders: providers });
}

async function cloudRequests(): Promise<NodeMaintenance[]> {
  const list = (await admin().custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: KMAINT_NS, plural: NODE_MAINTENANCE_PLURAL })) as { items: NodeMaintenance[] };
  return list.items.filter((nm) => nm.spec.requestorID === REQUESTOR).sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
}

function instanceId(node: V1Node): string {
  return (node.spec?.providerID ?? '').split('/').at(-1) ?? '';
}

let testStart = new Date(0);
/**
 * The Events in `default` when the test started: an Event's times have whole seconds only, so the one an earlier test
 * recorded in the second this test started (a fast machine) passes the time filter; its uid does not.
 */
let eventsBefore: ReadonlySet<string> = new Set();

async function nodeEvents(node: string, reason: string): Promise<CoreV1Event[]> {
  const items = (await admin().core.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.kind=Node,involvedObject.name=${node},reason=${reason}` })).items;
  return items.filter((e) => new Date(e.lastTimestamp ?? e.eventTime ?? 0).getTime() >= testStart.getTime() && !eventsBefore.has(e.metadata?.uid ?? ''));
}

/** The config's Valid condition, as [type, status]. */
async function configValid(): Promise<[string, string] | undefined> {
  const cfg = (await admin().custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: KMAINT_NS, plural: 'maintenanceoperatorconfigs', name: 'default' })) as { status?: { conditions?: Array<{ type: string; status: string }> } };
  const valid = cfg.status?.conditions?.find((c) => c.type === 'Valid');
  return valid ? [valid.type, valid.status] : undefined;
}

/** Three general Nodes and their instance ids. */
async function threeNodes(): Promise<Array<{ name: string; id: string; providerID: string }>> {
  const names = (await generalNodes()).slice(0, 3);
  if (names.length < 3) throw new Error(`the testbed has ${names.length} general nodes, this test needs 3`);
  return Promise.all(
    names.map(async (name) => {
      const node = await admin().core.readNode({ name });
      return { name, id: instanceId(node), providerID: node.spec?.providerID ?? '' };
    }),
  );
}

const SYSTEM_REBOOT = { Code: 'system-reboot' as const, Description: 'The instance is scheduled for a reboot', NotBefore: new Date('2026-12-03T00:00:00.000Z'), NotAfter: new Date('2026-12-03T02:00:00.000Z'), NotBeforeDeadline: new Date('2026-12-10T00:00:00.000Z') };
const RETIREMENT = { Code: 'instance-retirement' as const, Description: 'The instance is running on degraded hardware', NotBefore: new Date('2026-12-02T06:30:00.000Z') };

describe('cloud scheduled events on the testbed', () => {
  beforeEach(async () => {
    testStart = new Date(Math.floor(Date.now() / 1000) * 1000);
    eventsBefore = new Set((await admin().core.listNamespacedEvent({ namespace: 'default' })).items.map((e) => e.metadata?.uid ?? ''));
    listed = new Map();
    ec2.reset();
    ec2.on(DescribeInstanceStatusCommand).callsFake((): { InstanceStatuses: InstanceStatus[] } => ({
      InstanceStatuses: [...listed].map(([InstanceId, Events]) => ({ InstanceId, AvailabilityZone: 'us-east-1a', InstanceState: { Code: 16, Name: 'running' }, Events })),
    }));
  });

  afterEach(async () => {
    await setConfig(undefined);
    await removeAllNMs(KMAINT_NS);
  });

  afterAll(() => {
    ec2.restore();
  });

  it('files one request per affected Node with its deadline, updates it, deletes it once the event completed or went, and leaves another requestor\'s request', async () => {
    const [a, b, c] = await threeNodes();
    if (!a || !b || !c) throw new Error('unreachable');
    await setConfig({ maxParallelOperations: 3, cloudEvents: { enabled: true } });
    // Node c: another requestor's request, and no event; its instance is listed only with a completed event.
    await createNM(KMAINT_NS, 'upgrade-c', { requestorID: 'upgrade.example.com', nodeName: c.name });
    listed.set(a.id, [{ InstanceEventId: 'instance-event-0d59937288b749b32', ...SYSTEM_REBOOT }]);
    listed.set(b.id, [{ InstanceEventId: 'instance-event-0aaaaaaaaaaaaaaa1', ...RETIREMENT }]);
    listed.set(c.id, [{ InstanceEventId: 'instance-event-0ccccccccccccccc3', ...SYSTEM_REBOOT, Description: '[Completed] The instance is scheduled for a reboot' }]);

    const audit = auditLog();
    await audit.sync();
    const mark = audit.mark();

    // Filed: one request each for a and b, deadline the event's NotBefore, nothing for c.
    const first = await cloudPass();
    expect([first.errors, first.actions]).toEqual([[], { createMaintenance: 2, emitEvent: 2 }]);
    expect(ec2).toHaveReceivedCommandWith(DescribeInstanceStatusCommand, { Filters: [{ Name: 'event.code', Values: ['instance-reboot', 'system-reboot', 'system-maintenance', 'instance-retirement', 'instance-stop'] }], IncludeAllInstances: true });
    const filed = await cloudRequests();
    expect(filed.map((nm) => [nm.metadata.name, nm.spec, nm.metadata.labels?.['kmaint.io/cloud-event'], nm.metadata.annotations?.['kmaint.io/deadline'], nm.metadata.annotations?.['kmaint.io/cloud-events']])).toEqual([
      [`cloud-event-${a.name}`, { requestorID: REQUESTOR, nodeName: a.name, cordon: true, drainSpec: { force: true, deleteEmptyDir: true, timeoutSeconds: 300 } }, 'true', '2026-12-03T00:00:00Z', 'system-reboot instance-event-0d59937288b749b32 2026-12-03T00:00:00Z'],
      [`cloud-event-${b.name}`, { requestorID: REQUESTOR, nodeName: b.name, cordon: true, drainSpec: { force: true, deleteEmptyDir: true, timeoutSeconds: 300 } }, 'true', '2026-12-02T06:30:00Z', 'instance-retirement instance-event-0aaaaaaaaaaaaaaa1 2026-12-02T06:30:00Z'],
    ]);
    expect((await nodeEvents(a.name, 'CloudEventFiled')).map((e) => e.message)).toEqual([`filed ${KMAINT_NS}/cloud-event-${a.name} for scheduled system-reboot; deadline 2026-12-03T00:00:00Z`]);
    // Nothing changed: the next pass writes nothing.
    expect((await cloudPass()).planned).toBe(0);

    // Updated: a's instance gets a second, earlier event; the deadline moves to it.
    listed.set(a.id, [{ InstanceEventId: 'instance-event-0d59937288b749b32', ...SYSTEM_REBOOT }, { InstanceEventId: 'instance-event-0eeeeeeeeeeeeeee4', Code: 'instance-stop', Description: 'The instance is running on degraded hardware', NotBefore: new Date('2026-12-01T12:00:00.000Z') }]);
    expect((await cloudPass()).actions).toEqual({ patchMaintenanceMeta: 1 });
    const updated = await getNM(KMAINT_NS, `cloud-event-${a.name}`);
    expect([updated?.metadata.annotations?.['kmaint.io/deadline'], updated?.metadata.annotations?.['kmaint.io/cloud-events']]).toEqual([
      '2026-12-01T12:00:00Z',
      'instance-stop instance-event-0eeeeeeeeeeeeeee4 2026-12-01T12:00:00Z\nsystem-reboot instance-event-0d59937288b749b32 2026-12-03T00:00:00Z',
    ]);

    // The lifecycle drains both Nodes (the scheduler admits them as any request) and holds them Ready.
    await driveUntil('both cloud event requests Ready', async () => {
      const phases = (await cloudRequests()).map((nm) => nm.status?.conditions?.find((x) => x.type === 'Ready')?.reason);
      return phases.length === 2 && phases.every((p) => p === 'Ready') ? true : undefined;
    });
    expect([await isUnschedulable(a.name), await isUnschedulable(b.name)]).toEqual([true, true]);

    // Deleted: a's events completed (still listed, as EC2 does for a week), b's event is no longer listed.
    listed.set(a.id, (listed.get(a.id) ?? []).map((e) => ({ ...e, Description: `[Completed] ${e.Description ?? ''}` })));
    listed.delete(b.id);
    const gone = await cloudPass();
    expect([gone.errors, gone.actions]).toEqual([[], { deleteMaintenance: 2, emitEvent: 2 }]);
    expect((await nodeEvents(b.name, 'CloudEventGone')).map((e) => e.message)).toEqual([`deleted ${KMAINT_NS}/cloud-event-${b.name}: no scheduled event is listed for its instance any more`]);
    await driveUntil('both cloud event requests released and their Nodes uncordoned', async () => ((await cloudRequests()).length === 0 && !(await isUnschedulable(a.name)) && !(await isUnschedulable(b.name)) ? true : undefined));
    // Another requestor's request is untouched.
    expect((await getNM(KMAINT_NS, 'upgrade-c'))?.spec.requestorID).toBe('upgrade.example.com');

    // As kmaint's ServiceAccount: refused nothing, and every write to a NodeMaintenance named one of its own.
    await audit.sync();
    const own = audit.entries({ since: mark, user: testbed().kmaintUser }).filter((e) => e.resource === 'nodemaintenances' && ['create', 'patch', 'delete'].includes(e.verb));
    expect(audit.entries({ since: mark, user: testbed().kmaintUser }).filter((e) => e.code === 403)).toEqual([]);
    const mine = own.filter((e) => e.name?.startsWith('cloud-event-'));
    expect([...new Set(mine.map((e) => e.verb))].sort()).toEqual(['create', 'delete', 'patch']);
    expect(own.filter((e) => e.name === 'upgrade-c' && e.verb === 'delete')).toEqual([]);
  });

  it('turned off, or the config deleted: the scheduler deletes kmaint\'s own cloud event request and cleanup uncordons its Node; a config that fails validation deletes nothing; another requestor\'s request stays', async () => {
    const [a, b, c] = await threeNodes();
    if (!a || !b || !c) throw new Error('unreachable');
    await createNM(KMAINT_NS, 'upgrade-c', { requestorID: 'upgrade.example.com', nodeName: c.name });
    const cordonedAndReady = async (node: string): Promise<true | undefined> => {
      const [nm] = await cloudRequests();
      return nm?.spec.nodeName === node && nm.status?.conditions?.find((x) => x.type === 'Ready')?.reason === 'Ready' && (await isUnschedulable(node)) ? true : undefined;
    };
    const released = async (node: string): Promise<true | undefined> => ((await cloudRequests()).length === 0 && !(await isUnschedulable(node)) ? true : undefined);

    // Off: node a's request, Ready and cordoned, outlives nothing once spec.cloudEvents.enabled is false.
    await setConfig({ maxParallelOperations: 3, cloudEvents: { enabled: true } });
    listed.set(a.id, [{ InstanceEventId: 'instance-event-0d59937288b749b32', ...SYSTEM_REBOOT }]);
    expect((await cloudPass()).actions).toEqual({ createMaintenance: 1, emitEvent: 1 });
    await driveUntil(`cloud-event-${a.name} Ready`, () => cordonedAndReady(a.name));
    // Invalid (Valid False): the switch cannot be trusted, so nothing is deleted.
    await setConfig({ maxParallelOperations: 'abc%', cloudEvents: { enabled: true } });
    const invalid = await pass('scheduler');
    expect([invalid.errors, invalid.actions.deleteMaintenance]).toEqual([[], undefined]);
    expect(await configValid()).toEqual(['Valid', 'False']);
    expect((await cloudRequests()).map((nm) => nm.metadata.name)).toEqual([`cloud-event-${a.name}`]);
    await setConfig({ maxParallelOperations: 3, cloudEvents: { enabled: false } });
    const off = await pass('scheduler');
    expect([off.errors, off.actions.deleteMaintenance, off.actions.emitEvent]).toEqual([[], 1, 1]);
    expect((await nodeEvents(a.name, 'CloudEventGone')).map((e) => e.message)).toEqual([`deleted ${KMAINT_NS}/cloud-event-${a.name}: spec.cloudEvents is off, so its scheduled events are no longer read`]);
    await driveUntil(`cloud-event-${a.name} released, ${a.name} uncordoned`, () => released(a.name));

    // Config deleted (every feature at its default, cloud events off): node b's request goes the same way.
    listed = new Map([[b.id, [{ InstanceEventId: 'instance-event-0aaaaaaaaaaaaaaa1', ...RETIREMENT }]]]);
    await setConfig({ maxParallelOperations: 3, cloudEvents: { enabled: true } });
    expect((await cloudPass()).actions).toEqual({ createMaintenance: 1, emitEvent: 1 });
    await driveUntil(`cloud-event-${b.name} Ready`, () => cordonedAndReady(b.name));
    await setConfig(undefined);
    const deleted = await pass('scheduler');
    expect([deleted.errors, deleted.actions.deleteMaintenance]).toEqual([[], 1]);
    await driveUntil(`cloud-event-${b.name} released, ${b.name} uncordoned`, () => released(b.name));
    expect((await getNM(KMAINT_NS, 'upgrade-c'))?.spec.requestorID).toBe('upgrade.example.com');
  });

  it('the Events kmaint records name it as their reporting controller, kmaint never deletes one, and the API server stores each under the --event-ttl lease (1 h) that expires it', async () => {
    const [a] = await threeNodes();
    if (!a) throw new Error('unreachable');
    const audit = auditLog();
    await audit.sync();
    const mark = audit.mark();
    await setConfig({ cloudEvents: { enabled: true } });
    listed.set(a.id, [{ InstanceEventId: 'instance-event-0d59937288b749b32', ...SYSTEM_REBOOT }]);
    expect((await cloudPass()).actions).toEqual({ createMaintenance: 1, emitEvent: 1 });
    listed.delete(a.id);
    expect((await cloudPass()).actions).toEqual({ deleteMaintenance: 1, emitEvent: 1 });
    await driveUntil(`cloud-event-${a.name} released`, async () => ((await cloudRequests()).length === 0 ? true : undefined));
    // events.k8s.io/v1 shows core/v1's reportingComponent as reportingController.
    const recorded = (await kubectl(['get', 'events.v1.events.k8s.io', '-n', 'default', '--field-selector', `regarding.name=${a.name}`, '-o', 'json'])).stdout;
    const mine = (JSON.parse(recorded) as { items: Array<{ metadata: { name: string; uid: string; creationTimestamp: string }; reason: string; reportingController: string }> }).items
      .filter((e) => ['CloudEventFiled', 'CloudEventGone'].includes(e.reason) && new Date(e.metadata.creationTimestamp).getTime() >= testStart.getTime() && !eventsBefore.has(e.metadata.uid));
    expect(mine.map((e) => [e.reason, e.reportingController]).sort()).toEqual([['CloudEventFiled', 'kmaint-reaper'], ['CloudEventGone', 'kmaint-reaper']]);
    // The API server writes each Event to etcd with a lease of --event-ttl (1 h, the default) plus its 60 s lease reuse: etcd removes it then.
    for (const e of mine) expect(await etcdLeaseOf(`/registry/events/default/${e.metadata.name}`)).toEqual({ grantedTTL: '3660' });
    await audit.sync();
    expect(audit.entries({ since: mark, user: testbed().kmaintUser }).filter((x) => x.resource === 'events' && x.verb !== 'create')).toEqual([]);
  });

  it('instances whose events cannot be read: nothing filed or deleted for them, a Warning on the config says why', async () => {
    const [a] = await threeNodes();
    if (!a) throw new Error('unreachable');
    await setConfig({ cloudEvents: { enabled: true } });
    listed.set(a.id, [{ InstanceEventId: 'instance-event-0d59937288b749b32', ...SYSTEM_REBOOT }]);
    expect((await cloudPass()).actions).toEqual({ createMaintenance: 1, emitEvent: 1 });
    ec2.reset();
    ec2.on(DescribeInstanceStatusCommand).rejects(Object.assign(new Error('You are not authorized to perform this operation.'), { name: 'UnauthorizedOperation' }));
    const unread = await cloudPass();
    expect([unread.errors, unread.actions]).toEqual([[], { emitEvent: 1 }]);
    expect((await cloudRequests()).map((nm) => nm.metadata.name)).toEqual([`cloud-event-${a.name}`]);
    const warnings = (await admin().core.listNamespacedEvent({ namespace: KMAINT_NS, fieldSelector: 'involvedObject.kind=MaintenanceOperatorConfig,reason=CloudEventsUnread' })).items;
    expect(warnings.map((e) => [e.type, e.message?.split(': ')[0]])).toEqual([['Warning', expect.stringMatching(/^scheduled events of \d+ node\(s\) could not be read, nothing filed or deleted for them this pass$/)]]);
    // The testbed's zones are us-east-1a..c: one region, one call, every Node unread for the same reason.
    expect(warnings[0]?.message).toContain(': DescribeInstanceStatus in us-east-1: You are not authorized to perform this operation.');
  });

  it('moves an event EC2 lets move into the next maintenance window (leadSeconds after it opens) before its deadline, once, the request due by the new start; one starting within 5 minutes is filed as before, saying why', async () => {
    const [a, b] = await threeNodes();
    if (!a || !b) throw new Error('unreachable');
    // A daily window opening 3 h from now (on the minute, UTC) for 2 h: the moved start is its opening + 1800 s.
    const opens = new Date(Math.ceil((Date.now() + 3 * 3_600_000) / 60_000) * 60_000);
    await setConfig({ maxParallelOperations: 3, windows: [{ schedule: `${opens.getUTCMinutes()} ${opens.getUTCHours()} * * *`, duration: '2h' }], cloudEvents: { enabled: true, moveIntoWindows: { leadSeconds: 1800 } } });
    // The fake EC2 plays ModifyInstanceEventStartTime's constraints on the real clock (test/support/fake-ec2-events.ts).
    const fake = new FakeEc2Events(() => new Date());
    ec2.on(DescribeInstanceStatusCommand).callsFake(() => ({ InstanceStatuses: fake.statuses() }));
    ec2.on(ModifyInstanceEventStartTimeCommand).callsFake((input: ModifyInstanceEventStartTimeCommandInput) => fake.modify(input));
    const aStart = new Date(opens.getTime() + 12 * 3_600_000);
    const bStart = new Date(Math.floor((Date.now() + 4 * 60_000) / 1000) * 1000);
    const deadline = new Date(opens.getTime() + 72 * 3_600_000);
    fake.set(a.id, [{ InstanceEventId: 'instance-event-0a0a0a0a0a0a0a0a1', Code: 'system-reboot', Description: 'The instance is scheduled for a reboot', NotBefore: aStart, NotAfter: new Date(aStart.getTime() + 7_200_000), NotBeforeDeadline: deadline }]);
    fake.set(b.id, [{ InstanceEventId: 'instance-event-0b0b0b0b0b0b0b0b2', Code: 'system-reboot', Description: 'The instance is scheduled for a reboot', NotBefore: bStart, NotAfter: new Date(bStart.getTime() + 7_200_000), NotBeforeDeadline: deadline }]);

    const first = await cloudPass();
    const moved = rfc3339Seconds(new Date(opens.getTime() + 1_800_000));
    expect([first.errors, first.actions]).toEqual([[], { createMaintenance: 2, moveInstanceEvent: 1, emitEvent: 3 }]);
    expect([fake.asked, fake.refused]).toEqual([[{ instanceId: a.id, eventId: 'instance-event-0a0a0a0a0a0a0a0a1', notBefore: new Date(opens.getTime() + 1_800_000).toISOString() }], []]);
    const filed = await cloudRequests();
    expect(filed.map((nm) => [nm.spec.nodeName, nm.metadata.annotations?.['kmaint.io/deadline'], nm.metadata.annotations?.['kmaint.io/cloud-events'], nm.metadata.annotations?.['kmaint.io/cloud-event-moves']])).toEqual(
      [
        [a.name, moved, `system-reboot instance-event-0a0a0a0a0a0a0a0a1 ${moved}`, `instance-event-0a0a0a0a0a0a0a0a1 ${rfc3339Seconds(aStart)} -> ${moved}`],
        [b.name, rfc3339Seconds(bStart), `system-reboot instance-event-0b0b0b0b0b0b0b0b2 ${rfc3339Seconds(bStart)}`, undefined],
      ].sort((x, y) => (`cloud-event-${x[0] ?? ''}` < `cloud-event-${y[0] ?? ''}` ? -1 : 1)),
    );
    expect((await nodeEvents(a.name, 'CloudEventMoved')).map((e) => e.message)).toEqual([
      `asked EC2 to move system-reboot instance-event-0a0a0a0a0a0a0a0a1 of instance ${a.id} from ${rfc3339Seconds(aStart)} to ${moved} (a maintenance window; deadline ${rfc3339Seconds(deadline)}); ${KMAINT_NS}/cloud-event-${a.name} is due by then`,
    ]);
    expect((await nodeEvents(b.name, 'CloudEventFiled')).map((e) => e.message)).toEqual([
      `filed ${KMAINT_NS}/cloud-event-${b.name} for scheduled system-reboot; deadline ${rfc3339Seconds(bStart)}; not moved into a window: instance-event-0b0b0b0b0b0b0b0b2: it starts at ${rfc3339Seconds(bStart)}, within 10 minutes: EC2 no longer moves it`,
    ]);
    // EC2 now lists the moved start: the next pass writes nothing, and never asks for a move again.
    expect((await cloudPass()).planned).toBe(0);
    expect(ec2).toHaveReceivedCommandTimes(ModifyInstanceEventStartTimeCommand, 1);
  });
});
