import { describe, expect, it } from 'vitest';
import { isKmaintRecordKey, leftovers, type HygieneView } from './hygiene.ts';

const view = (
  nodes: Record<string, [boolean, boolean]>,
  nms: Record<string, [string, string[]]> = {},
  terminating: Record<string, number> = {},
  records: Record<string, Record<string, string>> = {},
  cronJobs: Record<string, boolean> = {},
): HygieneView => ({
  nodes: new Map(Object.entries(nodes).map(([n, [cordoned, ready]]) => [n, { cordoned, ready }])),
  maintenances: new Map(Object.entries(nms).map(([k, [uid, finalizers]]) => [k, { uid, finalizers }])),
  terminating: new Map(Object.entries(terminating)),
  records: new Map(Object.entries(records)),
  cronJobs: new Map(Object.entries(cronJobs)),
});

describe('what a test file left behind on the shared testbed', () => {
  it('nothing when the cluster is as the file found it, even if it was not clean then', () => {
    const state = view({ 'node-000': [true, true], 'node-001': [false, false] }, { 'a/x': ['u1', ['maintenance.nvidia.com/finalizer']] }, { old: 2 }, { 'node-000': { 'kmaint.io/admitted': 'a/x/u1' } }, { 'kmaint/kmaint-scheduler': false });
    expect(leftovers(state, state)).toEqual([]);
  });

  it('names new cordons, NotReady nodes, maintenances and pods of terminating namespaces, with repairs where possible', () => {
    const before = view({ 'node-000': [false, true], 'node-001': [false, true], 'node-002': [true, true] }, { 'a/x': ['u1', []] });
    const after = view(
      { 'node-002': [false, true], 'node-001': [true, false], 'node-000': [false, true], 'node-new': [true, true] },
      { 'a/x': ['u2', []], 'b/y': ['u3', ['maintenance.nvidia.com/finalizer']] },
      { t1: 3, t2: 1, t3: 0 },
    );
    expect(leftovers(before, after)).toEqual([
      { what: 'node node-001 left cordoned', repair: { kind: 'uncordon', node: 'node-001' } },
      { what: 'node node-001 left NotReady' },
      { what: 'NodeMaintenance a/x left behind' },
      { what: 'NodeMaintenance b/y left behind (finalizers maintenance.nvidia.com/finalizer)', repair: { kind: 'dropFinalizers', namespace: 'b', name: 'y' } },
      { what: 'namespace t1 still terminating with 3 pods' },
      { what: 'namespace t2 still terminating with 1 pod' },
    ]);
  });

  it('names kmaint records a file added to a Node (not those it found or changed) and CronJobs it resumed, with their repairs', () => {
    const before = view({ 'node-000': [false, true], 'node-001': [false, true] }, {}, {}, { 'node-000': { 'kmaint.io/reaper-decision': 'x' } }, { 'kmaint/kmaint-cleanup': false, 'kmaint/kmaint-scheduler': true, 'x/y': true });
    const after = view(
      { 'node-000': [false, true], 'node-001': [false, true], 'node-new': [false, true] },
      {},
      {},
      {
        'node-000': { 'kmaint.io/reaper-decision': 'changed', 'validation.kmaint.io/attempt': '1', 'kmaint.io/admitted': 'a/b/c' },
        'node-001': { 'repair.kmaint.io/history': '[]' },
        'node-new': { 'kmaint.io/admitted': 'a/b/c' },
      },
      { 'kmaint/kmaint-cleanup': false, 'kmaint/kmaint-scheduler': false, 'x/y': true, 'z/new': false },
    );
    expect(leftovers(before, after)).toEqual([
      { what: 'node node-000 left kmaint.io/admitted, validation.kmaint.io/attempt', repair: { kind: 'dropAnnotations', node: 'node-000', keys: ['kmaint.io/admitted', 'validation.kmaint.io/attempt'] } },
      { what: 'node node-001 left repair.kmaint.io/history', repair: { kind: 'dropAnnotations', node: 'node-001', keys: ['repair.kmaint.io/history'] } },
      { what: 'CronJob kmaint/kmaint-scheduler left resumed', repair: { kind: 'suspendCronJob', namespace: 'kmaint', name: 'kmaint-scheduler' } },
      { what: 'CronJob z/new left resumed', repair: { kind: 'suspendCronJob', namespace: 'z', name: 'new' } },
    ]);
  });

  it.each<[string, boolean]>([
    ['kmaint.io/admitted', true],
    ['repair.kmaint.io/history', true],
    ['validation.kmaint.io/start-time', true],
    ['kmaint.io', false],
    ['notkmaint.io/x', false],
    ['maintenance.nvidia.com/x', false],
    ['example.com/kmaint.io', false],
  ])('%s is a kmaint record key: %s', (key, expected) => {
    expect(isKmaintRecordKey(key)).toBe(expected);
  });
});
