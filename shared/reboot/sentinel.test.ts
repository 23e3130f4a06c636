// kured's sentinel (issue 43 point 2): which Nodes get a reboot request of reboot-sentinel.kmaint.io, that no Node gets
// a second one nor loses a user's, and when kmaint deletes its own (Ready with the condition cleared, or the Node gone).
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { describeAction, orderWrites, type Action, type NodeMaintenance } from '../api/index.ts';
import { loadRebootSentinel, planRebootSentinel, type LoadedRebootSentinel } from './sentinel.ts';

const NS = 'kmaint';
const ON: LoadedRebootSentinel = { kind: 'on', settings: { conditionType: 'RebootRequired' } };

/** A Node with the given conditions (type → status) beside Ready=True. */
function node(name: string, conditions: Record<string, string> = {}): V1Node {
  return {
    metadata: { name, uid: `uid-${name}` },
    status: { conditions: [{ type: 'Ready', status: 'True' }, ...Object.entries(conditions).map(([type, status]) => ({ type, status }))] },
  } as V1Node;
}

function request(name: string, nodeName: string, phase: string, more: { namespace?: string; requestorID?: string; labels?: Record<string, string>; deleting?: boolean } = {}): NodeMaintenance {
  return {
    metadata: { name, namespace: more.namespace ?? NS, uid: `uid-${name}`, resourceVersion: '7', labels: more.labels ?? {}, ...(more.deleting ? { deletionTimestamp: new Date('2026-01-01T00:00:00Z') } : {}) },
    spec: { requestorID: more.requestorID ?? 'kured.example.com', nodeName },
    ...(phase !== '' ? { status: { conditions: [{ type: 'Ready', status: phase === 'Ready' ? 'True' : 'False', reason: phase, message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] } } : {}),
  } as NodeMaintenance;
}

/** kmaint's own, as the sentinel files it. */
const ours = (nodeName: string, phase: string, deleting = false): NodeMaintenance =>
  request(`reboot-${nodeName}`, nodeName, phase, { requestorID: 'reboot-sentinel.kmaint.io', labels: { 'kmaint.io/reboot-sentinel': 'true' }, deleting });

interface Row {
  name: string;
  nodes: V1Node[];
  maintenances?: NodeMaintenance[];
  loaded?: LoadedRebootSentinel;
  expected: string[];
  counts: { filed: number; deleted: number };
}

const ROWS: Row[] = [
  {
    name: 'a Node with RebootRequired=True gets one request, and the Node says so; the others none',
    nodes: [node('node-b', { RebootRequired: 'True' }), node('node-a', { RebootRequired: 'False' }), node('node-c')],
    expected: ['create kmaint/reboot-node-b for node node-b: node node-b has condition RebootRequired=True', 'event Normal RebootRequested on node node-b: filed kmaint/reboot-node-b: condition RebootRequired is True'],
    counts: { filed: 1, deleted: 0 },
  },
  {
    name: 'two Nodes asking: one request each, by name',
    nodes: [node('node-b', { RebootRequired: 'True' }), node('node-a', { RebootRequired: 'True' })],
    expected: [
      'create kmaint/reboot-node-a for node node-a: node node-a has condition RebootRequired=True',
      'event Normal RebootRequested on node node-a: filed kmaint/reboot-node-a: condition RebootRequired is True',
      'create kmaint/reboot-node-b for node node-b: node node-b has condition RebootRequired=True',
      'event Normal RebootRequested on node node-b: filed kmaint/reboot-node-b: condition RebootRequired is True',
    ],
    counts: { filed: 2, deleted: 0 },
  },
  {
    name: 'our request already there (waiting): never a second one',
    nodes: [node('node-a', { RebootRequired: 'True' })],
    maintenances: [ours('node-a', 'Pending')],
    expected: [],
    counts: { filed: 0, deleted: 0 },
  },
  {
    name: "a user's request for the Node: none filed, and the user's is never touched, even Ready",
    nodes: [node('node-a', { RebootRequired: 'True' }), node('node-b')],
    maintenances: [request('fw-node-a', 'node-a', 'Pending', { namespace: 'team' }), request('reboot-node-b', 'node-b', 'Ready', { namespace: 'team', requestorID: 'reboot-sentinel.kmaint.io', labels: { 'kmaint.io/reboot-sentinel': 'true' } })],
    expected: [],
    counts: { filed: 0, deleted: 0 },
  },
  {
    name: 'our request Ready while the condition is still True: held (the node stays cordoned, no second reboot)',
    nodes: [node('node-a', { RebootRequired: 'True' })],
    maintenances: [ours('node-a', 'Ready')],
    expected: [],
    counts: { filed: 0, deleted: 0 },
  },
  {
    name: 'our request Rebooting with the condition cleared: kept until Ready',
    nodes: [node('node-a', { RebootRequired: 'False' })],
    maintenances: [ours('node-a', 'Rebooting')],
    expected: [],
    counts: { filed: 0, deleted: 0 },
  },
  {
    name: 'our request Ready and the condition False: deleted, said on the Node',
    nodes: [node('node-a', { RebootRequired: 'False' })],
    maintenances: [ours('node-a', 'Ready')],
    expected: ['delete kmaint/reboot-node-a: reboot request for node node-a: rebooted and its RebootRequired condition is no longer True', 'event Normal RebootDone on node node-a: deleted kmaint/reboot-node-a: rebooted and its RebootRequired condition is no longer True'],
    counts: { filed: 0, deleted: 1 },
  },
  {
    name: 'our request Ready and the condition gone altogether: deleted',
    nodes: [node('node-a')],
    maintenances: [ours('node-a', 'Ready')],
    expected: ['delete kmaint/reboot-node-a: reboot request for node node-a: rebooted and its RebootRequired condition is no longer True', 'event Normal RebootDone on node node-a: deleted kmaint/reboot-node-a: rebooted and its RebootRequired condition is no longer True'],
    counts: { filed: 0, deleted: 1 },
  },
  {
    name: 'our request being deleted: left to its finalizer, and no new one while it is there',
    nodes: [node('node-a', { RebootRequired: 'True' })],
    maintenances: [ours('node-a', 'Ready', true)],
    expected: [],
    counts: { filed: 0, deleted: 0 },
  },
  {
    name: 'our request whose Node is gone: deleted',
    nodes: [],
    maintenances: [ours('node-x', 'Pending')],
    expected: ['delete kmaint/reboot-node-x: reboot request for node node-x: the node is gone'],
    counts: { filed: 0, deleted: 1 },
  },
  {
    name: 'another condition type configured: only it counts',
    nodes: [node('node-a', { RebootRequired: 'True' }), node('node-b', { 'example.com/KernelUpdated': 'True' })],
    loaded: { kind: 'on', settings: { conditionType: 'example.com/KernelUpdated' } },
    expected: ['create kmaint/reboot-node-b for node node-b: node node-b has condition example.com/KernelUpdated=True', 'event Normal RebootRequested on node node-b: filed kmaint/reboot-node-b: condition example.com/KernelUpdated is True'],
    counts: { filed: 1, deleted: 0 },
  },
  {
    name: 'off: nothing filed; our Ready request deleted, our waiting one kept',
    nodes: [node('node-a', { RebootRequired: 'True' }), node('node-b', { RebootRequired: 'True' }), node('node-c', { RebootRequired: 'True' })],
    maintenances: [ours('node-a', 'Ready'), ours('node-b', 'Pending')],
    loaded: { kind: 'off' },
    expected: ['delete kmaint/reboot-node-a: reboot request for node node-a: rebooted (spec.rebootSentinel is off)', 'event Normal RebootDone on node node-a: deleted kmaint/reboot-node-a: rebooted (spec.rebootSentinel is off)'],
    counts: { filed: 0, deleted: 1 },
  },
  {
    name: 'invalid: nothing filed',
    nodes: [node('node-a', { RebootRequired: 'True' })],
    loaded: { kind: 'invalid', problem: 'spec.rebootSentinel: bad' },
    expected: [],
    counts: { filed: 0, deleted: 0 },
  },
];

describe('planRebootSentinel', () => {
  it.each(ROWS)('$name', ({ nodes, maintenances = [], loaded = ON, expected, counts }) => {
    const before = JSON.stringify({ nodes, maintenances });
    const plan = planRebootSentinel({ nodes, maintenances, namespace: NS }, loaded);
    expect(plan.actions.map(describeAction)).toEqual(expected);
    expect({ filed: plan.filed, deleted: plan.deleted }).toEqual(counts);
    expect(JSON.stringify({ nodes, maintenances })).toBe(before);
  });

  it('each Node event follows the write it announces, in that request\'s unit: a create or delete refused is not announced', () => {
    const plan = planRebootSentinel({ nodes: [node('node-a'), node('node-b', { RebootRequired: 'True' })], maintenances: [ours('node-a', 'Ready')], namespace: NS }, ON);
    expect(orderWrites(plan.actions).units.map((u) => [u.key, u.writes.map((w) => `${w.action.kind} stops the unit: ${w.stopsUnit}`)])).toEqual([
      ['nm/kmaint/reboot-node-a', ['deleteMaintenance stops the unit: true', 'emitEvent stops the unit: false']],
      ['nm/kmaint/reboot-node-b', ['createMaintenance stops the unit: true', 'emitEvent stops the unit: false']],
    ]);
  });

  it("the request as filed: kmaint's identity, a reboot asked, held from garbage collection, cordon and a forced drain", () => {
    const plan = planRebootSentinel({ nodes: [node('node-a', { RebootRequired: 'True' })], maintenances: [], namespace: NS }, ON);
    const create = plan.actions.find((a): a is Extract<Action, { kind: 'createMaintenance' }> => a.kind === 'createMaintenance');
    expect(create).toEqual({
      kind: 'createMaintenance',
      target: { namespace: 'kmaint', name: 'reboot-node-a' },
      labels: { 'kmaint.io/reboot-sentinel': 'true' },
      annotations: { 'kmaint.io/reboot': 'true', 'maintenance.nvidia.com/garbage-collector.ignore': 'true' },
      spec: { requestorID: 'reboot-sentinel.kmaint.io', nodeName: 'node-a', cordon: true, drainSpec: { force: true, deleteEmptyDir: true } },
      reason: 'node node-a has condition RebootRequired=True',
    });
  });
});

describe('loadRebootSentinel', () => {
  it.each<[string, unknown, LoadedRebootSentinel]>([
    ['no config', undefined, { kind: 'off' }],
    ['no section', { spec: {} }, { kind: 'off' }],
    ['an empty section: the default condition', { spec: { rebootSentinel: {} } }, { kind: 'on', settings: { conditionType: 'RebootRequired' } }],
    ['a condition type', { spec: { rebootSentinel: { conditionType: 'KernelUpdated' } } }, { kind: 'on', settings: { conditionType: 'KernelUpdated' } }],
    ['an unknown key', { spec: { rebootSentinel: { sentinel: '/var/run/reboot-required' } } }, { kind: 'invalid', problem: 'spec.rebootSentinel: Unrecognized key: "sentinel"; no reboot request is filed until this is fixed' }],
    ['an empty type', { spec: { rebootSentinel: { conditionType: '' } } }, { kind: 'invalid', problem: 'spec.rebootSentinel.conditionType: Too small: expected string to have >=1 characters; no reboot request is filed until this is fixed' }],
  ])('%s', (_name, config, expected) => {
    expect(loadRebootSentinel(config)).toEqual(expected);
  });
});
