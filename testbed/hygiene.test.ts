import { describe, expect, it } from 'vitest';
import { leftovers, type HygieneView } from './hygiene.ts';

const view = (nodes: Record<string, [boolean, boolean]>, nms: Record<string, [string, string[]]> = {}, terminating: Record<string, number> = {}): HygieneView => ({
  nodes: new Map(Object.entries(nodes).map(([n, [cordoned, ready]]) => [n, { cordoned, ready }])),
  maintenances: new Map(Object.entries(nms).map(([k, [uid, finalizers]]) => [k, { uid, finalizers }])),
  terminating: new Map(Object.entries(terminating)),
});

describe('what a test file left behind on the shared testbed', () => {
  it('nothing when the cluster is as the file found it, even if it was not clean then', () => {
    const state = view({ 'node-000': [true, true], 'node-001': [false, false] }, { 'a/x': ['u1', ['maintenance.nvidia.com/finalizer']] }, { old: 2 });
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
});
