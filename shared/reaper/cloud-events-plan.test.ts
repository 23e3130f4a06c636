// The cloud scheduled events plan: which Nodes get a request of cloud-events.kmaint.io, with which deadline, when it is
// updated and deleted, and that other requestors' requests and unread Nodes are never touched.
import { describe, expect, it } from 'vitest';
import { describeAction, type Action, type NodeMaintenance } from '../api/index.ts';
import { loadCloudEventsConfig, type CloudEventsConfig } from './cloud-events-config.ts';
import { cloudEventRequestName, planCloudEvents, type CloudEventsSnapshot } from './cloud-events-plan.ts';
import type { ScheduledEvent } from './scheduled-events.ts';
import { aReaperNode, aRequest, instanceIdOf } from './test-builders.ts';
import { compileWindows } from '#config';

const CONFIG_REF = { namespace: 'kmaint', name: 'default', uid: 'uid-config' };
const pid = (node: string): string => `aws:///eu-west-1a/${instanceIdOf(node)}`;

function config(cloudEvents: Record<string, unknown> = {}): CloudEventsConfig {
  const loaded = loadCloudEventsConfig({ metadata: { name: 'default', namespace: 'kmaint' }, spec: { cloudEvents: { enabled: true, ...cloudEvents } } });
  if (loaded.kind !== 'enabled') throw new Error(`cloudEvents config did not load: ${JSON.stringify(loaded)}`);
  return loaded.config;
}

const reboot: ScheduledEvent = { id: 'instance-event-0d59937288b749b32', code: 'system-reboot', description: 'The instance is scheduled for a reboot', notBefore: new Date('2026-01-03T00:00:00.000Z'), notAfter: new Date('2026-01-03T02:00:00.000Z'), state: 'active' };
const retire: ScheduledEvent = { id: 'instance-event-0aaaaaaaaaaaaaaa1', code: 'instance-retirement', description: 'The instance is running on degraded hardware', notBefore: new Date('2026-01-02T06:30:00.000Z'), state: 'active' };
const done = (e: ScheduledEvent): ScheduledEvent => ({ ...e, description: `[Completed] ${e.description}`, state: 'completed' });
const canceled = (e: ScheduledEvent): ScheduledEvent => ({ ...e, description: `[Canceled] ${e.description}`, state: 'canceled' });

/** kmaint's own: in its namespace, with the name it computes, its label and its requestorID. */
function ours(node: string, annotations: Record<string, string>, more: Partial<NodeMaintenance['metadata']> = {}): NodeMaintenance {
  return aRequest(cloudEventRequestName(node), node, 'cloud-events.kmaint.io', 'Ready', { annotations, labels: { 'kmaint.io/cloud-event': 'true' }, ...more });
}

interface Row {
  name: string;
  nodes: string[];
  maintenances?: NodeMaintenance[];
  events: Record<string, ScheduledEvent[]>;
  unread?: Record<string, string>;
  codes?: string[];
  expected: string[];
  counts: { filed: number; updated: number; deleted: number; unread: number };
}

const REBOOT_LINE = 'system-reboot instance-event-0d59937288b749b32 2026-01-03T00:00:00Z';
const RETIRE_LINE = 'instance-retirement instance-event-0aaaaaaaaaaaaaaa1 2026-01-02T06:30:00Z';

const ROWS: Row[] = [
  {
    name: 'an active event files one request, deadline its NotBefore, held from garbage collection, and says so on the Node',
    nodes: ['node-a'],
    events: { 'node-a': [reboot] },
    expected: [
      `create kmaint/cloud-event-node-a for node node-a: node node-a has scheduled events: system-reboot; deadline 2026-01-03T00:00:00Z`,
      'event Normal CloudEventFiled on node node-a: filed kmaint/cloud-event-node-a for scheduled system-reboot; deadline 2026-01-03T00:00:00Z',
    ],
    counts: { filed: 1, updated: 0, deleted: 0, unread: 0 },
  },
  {
    name: 'two events: one request, deadline the earliest NotBefore, both listed earliest first',
    nodes: ['node-a'],
    events: { 'node-a': [reboot, retire] },
    expected: [
      'create kmaint/cloud-event-node-a for node node-a: node node-a has scheduled events: instance-retirement, system-reboot; deadline 2026-01-02T06:30:00Z',
      'event Normal CloudEventFiled on node node-a: filed kmaint/cloud-event-node-a for scheduled instance-retirement, system-reboot; deadline 2026-01-02T06:30:00Z',
    ],
    counts: { filed: 1, updated: 0, deleted: 0, unread: 0 },
  },
  {
    name: 'completed and canceled events file nothing, nor do Nodes without events',
    nodes: ['node-a', 'node-b', 'node-c'],
    events: { 'node-a': [done(reboot)], 'node-b': [canceled(retire)], 'node-c': [] },
    expected: [],
    counts: { filed: 0, updated: 0, deleted: 0, unread: 0 },
  },
  {
    name: 'a code left out of spec.cloudEvents.codes files nothing',
    nodes: ['node-a'],
    events: { 'node-a': [reboot] },
    codes: ['instance-retirement', 'instance-stop'],
    expected: [],
    counts: { filed: 0, updated: 0, deleted: 0, unread: 0 },
  },
  {
    name: 'our request already says the same: nothing to write',
    nodes: ['node-a'],
    maintenances: [ours('node-a', { 'kmaint.io/deadline': '2026-01-03T00:00:00Z', 'kmaint.io/cloud-events': REBOOT_LINE })],
    events: { 'node-a': [reboot] },
    expected: [],
    counts: { filed: 0, updated: 0, deleted: 0, unread: 0 },
  },
  {
    name: 'a new, earlier event on a Node with our request: the deadline and the list are updated in place',
    nodes: ['node-a'],
    maintenances: [ours('node-a', { 'kmaint.io/deadline': '2026-01-03T00:00:00Z', 'kmaint.io/cloud-events': REBOOT_LINE })],
    events: { 'node-a': [reboot, retire] },
    expected: [
      'patch kmaint/cloud-event-node-a annotations kmaint.io/deadline,kmaint.io/cloud-events: cloud events of node node-a changed: instance-retirement, system-reboot; deadline 2026-01-02T06:30:00Z',
    ],
    counts: { filed: 0, updated: 1, deleted: 0, unread: 0 },
  },
  {
    name: 'the event completed: our request is deleted and the Node says why',
    nodes: ['node-a'],
    maintenances: [ours('node-a', { 'kmaint.io/deadline': '2026-01-03T00:00:00Z', 'kmaint.io/cloud-events': REBOOT_LINE })],
    events: { 'node-a': [done(reboot)] },
    expected: [
      'delete kmaint/cloud-event-node-a: cloud event request for node node-a: its scheduled events are over: system-reboot instance-event-0d59937288b749b32 completed',
      'event Normal CloudEventGone on node node-a: deleted kmaint/cloud-event-node-a: its scheduled events are over: system-reboot instance-event-0d59937288b749b32 completed',
    ],
    counts: { filed: 0, updated: 0, deleted: 1, unread: 0 },
  },
  {
    name: 'the event is no longer listed: our request is deleted',
    nodes: ['node-a'],
    maintenances: [ours('node-a', { 'kmaint.io/deadline': '2026-01-03T00:00:00Z' })],
    events: { 'node-a': [] },
    expected: [
      'delete kmaint/cloud-event-node-a: cloud event request for node node-a: no scheduled event is listed for its instance any more',
      'event Normal CloudEventGone on node node-a: deleted kmaint/cloud-event-node-a: no scheduled event is listed for its instance any more',
    ],
    counts: { filed: 0, updated: 0, deleted: 1, unread: 0 },
  },
  {
    name: "another requestor's request on a Node without events is never deleted; one on a Node with an event does not stop ours",
    nodes: ['node-a', 'node-b'],
    maintenances: [aRequest('upgrade-a', 'node-a', 'upgrade.example.com', 'Ready'), aRequest('upgrade-b', 'node-b', 'upgrade.example.com', 'Pending')],
    events: { 'node-a': [], 'node-b': [reboot] },
    expected: [
      'create kmaint/cloud-event-node-b for node node-b: node node-b has scheduled events: system-reboot; deadline 2026-01-03T00:00:00Z',
      'event Normal CloudEventFiled on node node-b: filed kmaint/cloud-event-node-b for scheduled system-reboot; deadline 2026-01-03T00:00:00Z',
    ],
    counts: { filed: 1, updated: 0, deleted: 0, unread: 0 },
  },
  {
    name: 'a copy of our request in another namespace (same name, label and requestorID) is not ours: never updated or deleted, and ours is filed',
    nodes: ['node-a', 'node-b'],
    maintenances: [ours('node-a', { 'kmaint.io/deadline': '2026-01-09T00:00:00Z' }, { namespace: 'tenant' }), ours('node-b', {}, { namespace: 'tenant' })],
    events: { 'node-a': [reboot], 'node-b': [] },
    expected: [
      'create kmaint/cloud-event-node-a for node node-a: node node-a has scheduled events: system-reboot; deadline 2026-01-03T00:00:00Z',
      'event Normal CloudEventFiled on node node-a: filed kmaint/cloud-event-node-a for scheduled system-reboot; deadline 2026-01-03T00:00:00Z',
    ],
    counts: { filed: 1, updated: 0, deleted: 0, unread: 0 },
  },
  {
    name: 'in kmaint\'s namespace, a request without our label, or under another name, or of another requestor is not ours either',
    nodes: ['node-a'],
    maintenances: [
      ours('node-a', {}, { labels: {} }),
      aRequest('cloud-event-other', 'node-a', 'cloud-events.kmaint.io', 'Ready', { labels: { 'kmaint.io/cloud-event': 'true' } }),
    ],
    events: { 'node-a': [] },
    expected: [],
    counts: { filed: 0, updated: 0, deleted: 0, unread: 0 },
  },
  {
    name: 'events that could not be read: nothing filed or deleted for that Node, one Warning on the config',
    nodes: ['node-a', 'node-b'],
    maintenances: [ours('node-a', { 'kmaint.io/deadline': '2026-01-03T00:00:00Z' })],
    events: {},
    unread: { 'node-a': 'DescribeInstanceStatus in eu-west-1: UnauthorizedOperation', 'node-b': 'DescribeInstanceStatus in eu-west-1: UnauthorizedOperation' },
    expected: [
      'event Warning CloudEventsUnread on kmaint/default: scheduled events of 2 node(s) could not be read, nothing filed or deleted for them this pass: node-a: DescribeInstanceStatus in eu-west-1: UnauthorizedOperation; node-b: DescribeInstanceStatus in eu-west-1: UnauthorizedOperation',
    ],
    counts: { filed: 0, updated: 0, deleted: 0, unread: 2 },
  },
  {
    name: 'our request for a Node that is gone is deleted; a Node no provider read (not in the result) is left alone',
    nodes: ['node-b'],
    maintenances: [ours('node-a', {}), ours('node-b', {})],
    events: {},
    expected: ['delete kmaint/cloud-event-node-a: cloud event request for node node-a: the node is gone'],
    counts: { filed: 0, updated: 0, deleted: 1, unread: 0 },
  },
  {
    name: 'our request being deleted already is not deleted again, and a new one waits for it to go',
    nodes: ['node-a'],
    maintenances: [ours('node-a', {}, { deletionTimestamp: '2026-01-01T11:00:00Z' })],
    events: { 'node-a': [reboot] },
    expected: [
      'create kmaint/cloud-event-node-a for node node-a: node node-a has scheduled events: system-reboot; deadline 2026-01-03T00:00:00Z',
      'event Normal CloudEventFiled on node node-a: filed kmaint/cloud-event-node-a for scheduled system-reboot; deadline 2026-01-03T00:00:00Z',
    ],
    counts: { filed: 1, updated: 0, deleted: 0, unread: 0 },
  },
];

function snapshot(row: Row): CloudEventsSnapshot {
  return {
    nodes: row.nodes.map((name) => aReaperNode({ name })),
    maintenances: row.maintenances ?? [],
    namespace: 'kmaint',
    config: CONFIG_REF,
    read: { events: new Map(Object.entries(row.events).map(([node, events]) => [pid(node), events])), unread: new Map(Object.entries(row.unread ?? {}).map(([node, why]) => [pid(node), why])) },
  };
}

describe('planCloudEvents', () => {
  it.each(ROWS)('$name', (row) => {
    const input = snapshot(row);
    const frozen = JSON.stringify(input.maintenances);
    const plan = planCloudEvents(input, config(row.codes ? { codes: row.codes } : {}));
    expect(plan.actions.map(describeAction)).toEqual(row.expected);
    expect({ filed: plan.filed, updated: plan.updated, deleted: plan.deleted, unread: plan.unread }).toEqual(row.counts);
    expect(JSON.stringify(input.maintenances)).toBe(frozen);
    // Never a write to another requestor's request.
    const touched = plan.actions.flatMap((a: Action) => (a.kind === 'deleteMaintenance' || a.kind === 'patchMaintenanceMeta' ? [a.target.name] : []));
    expect(touched.every((name) => name.startsWith('cloud-event-'))).toBe(true);
  });

  it('the request filed carries the wire fields: requestor, label, deadline, event list, gc-ignore, cordon and the drainSpec', () => {
    const plan = planCloudEvents(snapshot({ ...(ROWS[1] as Row) }), config({ drainSpec: { force: false, timeoutSeconds: 600 } }));
    expect(plan.actions[0]).toEqual({
      kind: 'createMaintenance',
      target: { namespace: 'kmaint', name: 'cloud-event-node-a' },
      labels: { 'kmaint.io/cloud-event': 'true' },
      annotations: { 'kmaint.io/deadline': '2026-01-02T06:30:00Z', 'kmaint.io/cloud-events': `${RETIRE_LINE}\n${REBOOT_LINE}`, 'maintenance.nvidia.com/garbage-collector.ignore': 'true' },
      spec: { requestorID: 'cloud-events.kmaint.io', nodeName: 'node-a', cordon: true, drainSpec: { force: false, timeoutSeconds: 600, deleteEmptyDir: false } },
      reason: 'node node-a has scheduled events: instance-retirement, system-reboot; deadline 2026-01-02T06:30:00Z',
    });
  });

  it('an update patches exactly the annotations that changed, on the resourceVersion seen', () => {
    const row = ROWS.find((r) => r.counts.updated === 1) as Row;
    expect(planCloudEvents(snapshot(row), config()).actions).toEqual([
      {
        kind: 'patchMaintenanceMeta',
        target: { namespace: 'kmaint', name: 'cloud-event-node-a', uid: 'uid-cloud-event-node-a', resourceVersion: '11' },
        annotations: { 'kmaint.io/deadline': '2026-01-02T06:30:00Z', 'kmaint.io/cloud-events': `${RETIRE_LINE}\n${REBOOT_LINE}` },
        reason: 'cloud events of node node-a changed: instance-retirement, system-reboot; deadline 2026-01-02T06:30:00Z',
      },
    ]);
  });

  it('an event without NotBefore files a request without a deadline; an earlier one with NotBefore sets it', () => {
    const undated: ScheduledEvent = { id: 'instance-event-0bbbbbbbbbbbbbbb2', code: 'system-maintenance', description: 'Scheduled maintenance', state: 'active' };
    const alone = planCloudEvents(snapshot({ ...(ROWS[0] as Row), events: { 'node-a': [undated] } }), config());
    expect(alone.actions[0]).toMatchObject({ kind: 'createMaintenance', annotations: { 'kmaint.io/cloud-events': 'system-maintenance instance-event-0bbbbbbbbbbbbbbb2 (no NotBefore)', 'maintenance.nvidia.com/garbage-collector.ignore': 'true' } });
    expect(alone.actions[0]).not.toHaveProperty(['annotations', 'kmaint.io/deadline']);
    const both = planCloudEvents(snapshot({ ...(ROWS[0] as Row), events: { 'node-a': [undated, reboot] } }), config());
    expect(both.actions[0]).toMatchObject({ annotations: { 'kmaint.io/deadline': '2026-01-03T00:00:00Z', 'kmaint.io/cloud-events': `${REBOOT_LINE}\nsystem-maintenance instance-event-0bbbbbbbbbbbbbbb2 (no NotBefore)` } });
  });
});

describe('cloudEventRequestName', () => {
  it.each([
    ['node-a', 'cloud-event-node-a'],
    ['ip-10-0-1-23.eu-west-1.compute.internal', 'cloud-event-ip-10-0-1-23.eu-west-1.compute.internal'],
  ])('%s -> %s', (node, name) => {
    expect(cloudEventRequestName(node)).toBe(name);
  });

  it('a name over 253 characters keeps a prefix and adds a hash of the whole node name', () => {
    const name = cloudEventRequestName(`${'n'.repeat(250)}.example`);
    expect(name).toHaveLength(253);
    expect(name).toMatch(/^cloud-event-n+-[0-9a-f]{8}$/);
  });
});

describe('loadCloudEventsConfig', () => {
  const meta = { name: 'default', namespace: 'kmaint' };
  it.each<[string, unknown, unknown]>([
    ['no config object', undefined, { kind: 'disabled' }],
    ['no spec.cloudEvents', { metadata: meta, spec: {} }, { kind: 'disabled' }],
    ['enabled false', { metadata: meta, spec: { cloudEvents: { enabled: false } } }, { kind: 'disabled' }],
    ['enabled: all five codes, force and deleteEmptyDir', { metadata: meta, spec: { cloudEvents: { enabled: true } } }, { kind: 'enabled', config: { codes: new Set(['instance-reboot', 'system-reboot', 'system-maintenance', 'instance-retirement', 'instance-stop']), drainSpec: { force: true, deleteEmptyDir: true } } }],
    ['enabled with codes', { metadata: meta, spec: { cloudEvents: { enabled: true, codes: ['instance-stop'] } } }, { kind: 'enabled', config: { codes: new Set(['instance-stop']), drainSpec: { force: true, deleteEmptyDir: true } } }],
    ['an unknown code fails closed with the field named', { metadata: meta, spec: { cloudEvents: { enabled: true, codes: ['instance-reboot', 'reboot'] } } }, { kind: 'invalid', problems: ['spec.cloudEvents: the config does not pass its schema; cloud scheduled events are not read until this is fixed'] }],
    ['an unknown key fails closed', { metadata: meta, spec: { cloudEvents: { enabled: true, region: 'eu-west-1' } } }, { kind: 'invalid', problems: ['spec.cloudEvents: the config does not pass its schema; cloud scheduled events are not read until this is fixed'] }],
    ['another field invalid while cloud events are off: disabled (loadLimits reports it)', { metadata: meta, spec: { maxParallelOperations: true } }, { kind: 'disabled' }],
  ])('%s', (_name, obj, expected) => {
    expect(loadCloudEventsConfig(obj)).toEqual(expected);
  });
});

describe('planCloudEvents with moveIntoWindows', () => {
  const NOW = new Date('2026-01-01T00:00:00Z');
  const nightly = compileWindows([{ schedule: '0 2 * * *', duration: '4h' }], 'spec.windows');
  const movable: ScheduledEvent = { ...reboot, notBeforeDeadline: new Date('2026-01-10T00:00:00.000Z') };
  const moving = (row: Row): CloudEventsSnapshot => ({ ...snapshot(row), moves: { now: NOW, windowsOf: new Map([['node-a', [nightly]]]) } });
  const MOVED_RECORD = 'instance-event-0d59937288b749b32 2026-01-03T00:00:00Z -> 2026-01-01T03:00:00Z';

  it('files the request due by the new start, records the move on it, then asks EC2 once (same unit, after the create)', () => {
    const plan = planCloudEvents(moving({ ...(ROWS[0] as Row), events: { 'node-a': [movable] } }), config({ moveIntoWindows: { leadSeconds: 3600 } }));
    expect(plan.actions.map(describeAction)).toEqual([
      'create kmaint/cloud-event-node-a for node node-a: node node-a has scheduled events: system-reboot; deadline 2026-01-01T03:00:00Z',
      `move event instance-event-0d59937288b749b32 of instance ${instanceIdOf('node-a')} (node node-a) to 2026-01-01T03:00:00Z: system-reboot 2026-01-03T00:00:00Z -> 2026-01-01T03:00:00Z, into a maintenance window of node node-a`,
      `event Normal CloudEventMoved on node node-a: asked EC2 to move system-reboot instance-event-0d59937288b749b32 of instance ${instanceIdOf('node-a')} from 2026-01-03T00:00:00Z to 2026-01-01T03:00:00Z (a maintenance window; deadline 2026-01-10T00:00:00Z); kmaint/cloud-event-node-a is due by then`,
      'event Normal CloudEventFiled on node node-a: filed kmaint/cloud-event-node-a for scheduled system-reboot; deadline 2026-01-01T03:00:00Z',
    ]);
    const create = plan.actions[0];
    expect(create?.kind === 'createMaintenance' ? create.annotations : undefined).toEqual({
      'kmaint.io/deadline': '2026-01-01T03:00:00Z',
      'kmaint.io/cloud-events': 'system-reboot instance-event-0d59937288b749b32 2026-01-01T03:00:00Z',
      'kmaint.io/cloud-event-moves': MOVED_RECORD,
      'maintenance.nvidia.com/garbage-collector.ignore': 'true',
    });
    expect(plan.moved).toBe(1);
  });

  it('a move on the record is never asked again, whatever EC2 now lists (moved, or refused and still at the old start)', () => {
    const movedThere: ScheduledEvent = { ...movable, notBefore: new Date('2026-01-01T03:00:00Z') };
    const own = ours('node-a', { 'kmaint.io/deadline': '2026-01-01T03:00:00Z', 'kmaint.io/cloud-events': 'system-reboot instance-event-0d59937288b749b32 2026-01-01T03:00:00Z', 'kmaint.io/cloud-event-moves': MOVED_RECORD });
    const cfg = config({ moveIntoWindows: {} });
    expect(planCloudEvents(moving({ ...(ROWS[0] as Row), maintenances: [own], events: { 'node-a': [movedThere] } }), cfg)).toMatchObject({ actions: [], moved: 0 });
    expect(planCloudEvents(moving({ ...(ROWS[0] as Row), maintenances: [own], events: { 'node-a': [movable] } }), cfg).actions.map(describeAction)).toEqual([
      'patch kmaint/cloud-event-node-a annotations kmaint.io/deadline,kmaint.io/cloud-events: cloud events of node node-a changed: system-reboot; deadline 2026-01-03T00:00:00Z',
    ]);
  });

  it('an event EC2 will not move is filed as without moveIntoWindows, the Node event saying why', () => {
    const plan = planCloudEvents(moving({ ...(ROWS[0] as Row), events: { 'node-a': [reboot] } }), config({ moveIntoWindows: {} }));
    expect(plan.actions.map(describeAction)).toEqual([
      'create kmaint/cloud-event-node-a for node node-a: node node-a has scheduled events: system-reboot; deadline 2026-01-03T00:00:00Z',
      'event Normal CloudEventFiled on node node-a: filed kmaint/cloud-event-node-a for scheduled system-reboot; deadline 2026-01-03T00:00:00Z; not moved into a window: instance-event-0d59937288b749b32: EC2 does not let this event move (it has no NotBeforeDeadline)',
    ]);
    expect(plan.moved).toBe(0);
  });
});
