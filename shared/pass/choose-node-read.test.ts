// When the drainer and cleanup read named Nodes rather than every Node, which Nodes they name, and what cleanup plans
// from a named read: a Node it did not ask for is not taken for gone.
import { describe, expect, it } from 'vitest';
import type { V1Node } from '@kubernetes/client-node';
import { ANNOTATION_FULL_NODE_READ_NODES, ANNOTATION_FULL_NODE_READ_TIME, LABEL_GANG, type Action, type NodeMaintenance } from '../api/index.ts';
import { loadConfig } from './config.ts';
import { aLifecycleMaintenance, aNodeWithUid } from '../lifecycle/test-builders.ts';
import { NOW, withAdmissionRecords } from '../scheduling/test-builders.ts';
import { chooseNodeRead, cleanupNodesNeeded, drainerNodesNeeded, fullReadAnnotations, fullReadRecordOf, keepsRecord, nodeReadSettings, type NodeReadChoice, type NodesNeeded } from './choose-node-read.ts';
import { PASSES } from './passes.ts';
import type { BaseSnapshot } from './snapshot.ts';

const SETTINGS = { namedReadsFromNodes: 5000, fullReadEverySeconds: 600 };
const NAMED: NodesNeeded = { kind: 'named', names: ['n1', 'n2'] };
const at = (secondsBeforeNow: number): Date => new Date(NOW.getTime() - secondsBeforeNow * 1000);
const NAMES_2000 = Array.from({ length: 2000 }, (_, i) => `n${i}`);

describe('chooseNodeRead: every Node unless the last full read saw a large cluster and is recent', () => {
  it.each([
    ['no full read recorded: every Node', undefined, NAMED, { kind: 'full', why: 'no full read recorded' }],
    ['a cluster under namedReadsFromNodes: every Node, every pass', { at: at(10), nodes: 4999 }, NAMED, { kind: 'full', why: '4999 nodes, under namedReadsFromNodes 5000' }],
    ['at namedReadsFromNodes, full read 599 s ago: named', { at: at(599), nodes: 5000 }, NAMED, { kind: 'named', names: ['n1', 'n2'] }],
    ['full read 600 s ago: due', { at: at(600), nodes: 40000 }, NAMED, { kind: 'full', why: 'last full read 600 s ago, fullReadEverySeconds 600' }],
    ['a record from the future (clock moved back): due', { at: at(-30), nodes: 40000 }, NAMED, { kind: 'full', why: 'last full read -30 s ago, fullReadEverySeconds 600' }],
    ['the plan needs every Node: full', { at: at(5), nodes: 40000 }, { kind: 'all', why: 'an invalid request is being deleted' }, { kind: 'full', why: 'an invalid request is being deleted' }],
    ['nothing to name: named, no Node read', { at: at(5), nodes: 40000 }, { kind: 'named', names: [] }, { kind: 'named', names: [] }],
    ['2000 Nodes named of 40000 (1/20): named', { at: at(5), nodes: 40000 }, { kind: 'named', names: NAMES_2000 }, { kind: 'named', names: NAMES_2000 }],
    ['2001 Nodes named of 40000: a full read costs the API server less', { at: at(5), nodes: 40000 }, { kind: 'named', names: [...NAMES_2000, 'z'] }, { kind: 'full', why: '2001 nodes named, more than 1/20 of 40000' }],
  ] as const)('%s', (_rule, record, needed, expected) => {
    expect(chooseNodeRead({ record, settings: SETTINGS, needed, now: NOW })).toEqual(expected);
  });

  it('namedReadsFromNodes 1, 200 nodes: up to 100 are read by name whatever their share; 101 is a full read', () => {
    const low = { namedReadsFromNodes: 1, fullReadEverySeconds: 600 };
    const choose = (n: number): NodeReadChoice => chooseNodeRead({ record: { at: at(5), nodes: 200 }, settings: low, needed: { kind: 'named', names: NAMES_2000.slice(0, n) }, now: NOW });
    expect([choose(100).kind, choose(101)]).toEqual(['named', { kind: 'full', why: '101 nodes named, more than 1/20 of 200' }]);
  });

  it('fullReadEverySeconds 0: every pass reads every Node', () => {
    expect(chooseNodeRead({ record: { at: NOW, nodes: 40000 }, settings: { namedReadsFromNodes: 1, fullReadEverySeconds: 0 }, needed: NAMED, now: NOW })).toEqual({ kind: 'full', why: 'last full read 0 s ago, fullReadEverySeconds 0' });
  });
});

describe('the record of the last full read on the pass Lease', () => {
  it('round-trips through the annotations', () => {
    const annotations = fullReadAnnotations({ at: at(60), nodes: 40000 });
    expect(annotations).toEqual({ [ANNOTATION_FULL_NODE_READ_TIME]: '2025-12-31T23:59:00.000Z', [ANNOTATION_FULL_NODE_READ_NODES]: '40000' });
    expect(fullReadRecordOf({ metadata: { annotations } })).toEqual({ at: at(60), nodes: 40000 });
  });

  it.each([
    ['no annotations', {}],
    ['no time', { [ANNOTATION_FULL_NODE_READ_NODES]: '40000' }],
    ['a count that is not a whole number', { [ANNOTATION_FULL_NODE_READ_TIME]: '2026-01-01T00:00:00Z', [ANNOTATION_FULL_NODE_READ_NODES]: '4e4.5' }],
    ['an empty count', { [ANNOTATION_FULL_NODE_READ_TIME]: '2026-01-01T00:00:00Z', [ANNOTATION_FULL_NODE_READ_NODES]: '' }],
    ['a time that is not one', { [ANNOTATION_FULL_NODE_READ_TIME]: 'yesterday', [ANNOTATION_FULL_NODE_READ_NODES]: '40000' }],
  ])('%s: no record (the next pass reads every Node)', (_rule, annotations) => {
    expect(fullReadRecordOf({ metadata: { annotations } })).toBeUndefined();
  });

  it.each([
    ['a small cluster never seen large: nothing written', 4999, undefined, false],
    ['a large cluster: recorded', 5000, undefined, true],
    ['a cluster that shrank under the threshold: its record replaced', 10, { at: at(700), nodes: 6000 }, true],
  ])('%s', (_rule, nodes, previous, kept) => {
    expect(keepsRecord(nodes, previous, SETTINGS)).toBe(kept);
  });

  it('settings: the config spec fields, else 5000 nodes and 600 s', () => {
    expect([nodeReadSettings(undefined), nodeReadSettings({ metadata: { name: 'default' }, spec: { namedReadsFromNodes: 1, fullReadEverySeconds: 0 } })]).toEqual([
      { namedReadsFromNodes: 5000, fullReadEverySeconds: 600 },
      { namedReadsFromNodes: 1, fullReadEverySeconds: 0 },
    ]);
  });
});

const nm = (name: string, nodeName: string, phase: string, extra: { deleting?: boolean; labels?: Record<string, string>; requestorID?: string; namespace?: string } = {}): NodeMaintenance =>
  aLifecycleMaintenance({ name, nodeName, phase, ...extra });

describe('drainerNodesNeeded: the Nodes of the requests the drainer moves', () => {
  it.each([
    ['admitted phases named, new, Pending and deleted ones not', [nm('a', 'n1', 'Scheduled'), nm('b', 'n2', 'Draining'), nm('c', 'n3', 'Ready'), nm('d', 'n4', 'RequestorFailed'), nm('e', 'n5', 'Pending'), nm('f', 'n6', ''), nm('g', 'n7', 'Cordon', { deleting: true })], undefined, ['n1', 'n2', 'n3', 'n4']],
    ['a Scheduled gang member by label: its waiting members in its namespace too', [nm('a', 'n1', 'Scheduled', { labels: { [LABEL_GANG]: 'g' } }), nm('b', 'n2', 'Pending', { labels: { [LABEL_GANG]: 'g' } }), nm('c', 'n3', 'Pending', { labels: { [LABEL_GANG]: 'other' } }), nm('d', 'n4', 'Pending', { labels: { [LABEL_GANG]: 'g' }, namespace: 'elsewhere' })], undefined, ['n1', 'n2']],
    ['a gang by node label: the same requestor\'s waiting requests without a gang label', [nm('a', 'n1', 'Scheduled'), nm('b', 'n2', 'Pending'), nm('c', 'n3', 'Pending', { requestorID: 'other' }), nm('d', 'n4', 'Pending', { labels: { [LABEL_GANG]: 'g' } })], 'nvidia.com/gpu.clique', ['n1', 'n2']],
    ['no gang node label: no waiting request named', [nm('a', 'n1', 'Scheduled'), nm('b', 'n2', 'Pending')], undefined, ['n1']],
    ['two requests on one Node: named once', [nm('a', 'n1', 'Draining'), nm('b', 'n1', 'Ready')], undefined, ['n1']],
  ] as const)('%s', (_rule, maintenances, gangNodeLabel, names) => {
    expect(drainerNodesNeeded(maintenances, gangNodeLabel, 'kmaint')).toEqual({ kind: 'named', names });
  });
});

describe('cleanupNodesNeeded: the Nodes of deleted and admitted requests', () => {
  it('deleted in any phase and admitted ones; not-yet-admitted ones wait for the full read', () => {
    const maintenances = [nm('a', 'n1', 'Pending', { deleting: true }), nm('b', 'n2', 'Ready'), nm('c', 'n3', 'Pending'), nm('d', 'n4', 'Draining')];
    expect(cleanupNodesNeeded(maintenances, [])).toEqual({ kind: 'named', names: ['n1', 'n2', 'n4'] });
  });

  it('an invalid request being deleted with the finalizer: every Node (its cordon record may be on any)', () => {
    expect(cleanupNodesNeeded([], [nm('bad', '', 'Cordon', { deleting: true })])).toEqual({ kind: 'all', why: 'an invalid request is being deleted: its cordon record may be on any node' });
  });
});

/** The drainer's plan on `base` as runPass gives it: no pods, budgets, medik8s or Slurm. */
function drainerPlan(base: BaseSnapshot): Array<[string, string, string]> {
  const config = loadConfig(base, base.nodeCount ?? base.nodeList.length, 'kmaint');
  const reads = { drainPods: { podsByNode: new Map(), pdbs: [], budgetPods: new Map(), claims: [] }, ownPods: { namespace: 'kmaint', serviceAccounts: ['kmaint'] }, medik8s: { kind: 'absent' as const }, slurm: { context: undefined } };
  const plan = PASSES.drainer.plan({ base, config, reads, maintenances: new Map(), namespace: 'kmaint', now: NOW });
  return plan.actions.map((a: Action) => [a.kind, 'target' in a ? a.target.name : 'node' in a ? a.node.name : '', a.reason]);
}

describe("the drainer's plan from a named read", () => {
  // n9 shows kmaint's condition from a request released since: only a read of every Node finds it.
  const leftover: V1Node = { ...aNodeWithUid({ name: 'n9' }), status: { conditions: [{ type: 'Drained', status: 'True', reason: 'DrainCompleted', message: 'kmaint: team/old' }] } };
  const ready = nm('ready', 'n1', 'Ready');
  // The Ready request is kmaint's: its Node carries the admission record (issue 40).
  const snapshot = (read: V1Node[], named: boolean): BaseSnapshot => {
    const nodes = withAdmissionRecords(read, [ready]);
    return {
    nodes: new Map(nodes.map((n) => [n.metadata?.name ?? '', n])),
    nodeList: nodes,
    maintenances: [ready],
    malformed: [],
    rawConfig: { metadata: { name: 'default' }, spec: { nodeConditions: false } },
    ...(named ? { nodeCount: 8000, nodeRead: { kind: 'named' as const, asked: new Set(['n1']) } } : {}),
    };
  };

  it('plans the named Nodes only: the leftover condition on a Node without a request waits for the full read', () => {
    // The Ready request's own step (its ready-time record) is planned either way.
    const own = ['patchMaintenanceMeta', 'ready', 'record progress'];
    expect([drainerPlan(snapshot([aNodeWithUid({ name: 'n1' })], true)), drainerPlan(snapshot([aNodeWithUid({ name: 'n1' }), leftover], false))]).toEqual([
      [own],
      [own, ['patchNodeConditions', 'n9', 'spec.nodeConditions is false: remove the conditions kmaint set']],
    ]);
  });
});

/** Cleanup's plan on `base` as runPass gives it: nothing from medik8s or Slurm, no orphan confirmed. */
function cleanupPlan(base: BaseSnapshot): Array<[string, string, string]> {
  const config = loadConfig(base, base.nodeCount ?? base.nodeList.length, 'kmaint');
  const plan = PASSES.cleanup.plan({ base, config, reads: { medik8s: { kind: 'absent' }, slurm: { context: undefined }, orphans: [] }, maintenances: new Map(), namespace: 'kmaint', now: NOW });
  return plan.actions.map((a: Action) => [a.kind, 'target' in a ? a.target.name : 'node' in a ? a.node.name : '', a.reason]);
}

describe("cleanup's plan from a named read", () => {
  const maintenances = [nm('deleted', 'n1', 'Ready', { deleting: true }), nm('ready-gone', 'n2', 'Ready'), aLifecycleMaintenance({ name: 'waiting-gone', nodeName: 'n-gone', phase: 'Pending', finalizer: true })];
  const nodes: V1Node[] = [aNodeWithUid({ name: 'n1' })];
  const snapshot = (named: boolean): BaseSnapshot => ({
    nodes: new Map(nodes.map((n) => [n.metadata?.name ?? '', n])),
    nodeList: nodes,
    maintenances,
    malformed: [],
    rawConfig: undefined,
    ...(named ? { nodeCount: 8000, nodeRead: { kind: 'named' as const, asked: new Set(['n1', 'n2']) } } : {}),
  });

  it('releases the deleted request and the one whose asked Node is gone; a Node it did not ask for is not gone', () => {
    expect(cleanupPlan(snapshot(true))).toEqual([
      ['patchMaintenanceMeta', 'deleted', 'default/deleted deleted in phase Ready'],
      ['patchMaintenanceMeta', 'ready-gone', 'node n2 no longer exists'],
    ]);
  });

  it('the full read of the same cluster releases the waiting request whose Node is gone too', () => {
    expect(cleanupPlan(snapshot(false))).toEqual([
      ['patchMaintenanceMeta', 'deleted', 'default/deleted deleted in phase Ready'],
      ['patchMaintenanceMeta', 'ready-gone', 'node n2 no longer exists'],
      ['patchMaintenanceMeta', 'waiting-gone', 'node n-gone no longer exists'],
    ]);
  });
});
