import type { V1Node, V1Taint } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Action } from '../api/index.ts';
import { findNodeOrphans, planOrphanSweep, recordOwner, type NodeOrphan } from './orphan-sweep.ts';

function node(name: string, opts: { unschedulable?: boolean; annotations?: Record<string, string>; taints?: V1Taint[] } = {}): V1Node {
  return {
    metadata: { name, resourceVersion: '7', ...(opts.annotations ? { annotations: opts.annotations } : {}) },
    spec: { ...(opts.unschedulable ? { unschedulable: true } : {}), ...(opts.taints ? { taints: opts.taints } : {}) },
  };
}

/** A cordoned node with kmaint's record for team-a/gone (written by kmaint) whose spec.unschedulable the given field managers own. */
function owned(managers: string[]): V1Node {
  const n = node('n1', { unschedulable: true, annotations: { 'kmaint.io/cordoned-by': 'kmaint/team-a/gone', 'kmaint.io/cordon-reason': 'NodeMaintenance team-a/gone' } });
  // kmaint's own patch wrote the record (as it does, with its cordon).
  const record = { manager: 'kmaint', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:kmaint.io/cordoned-by': {} } } } };
  return { ...n, metadata: { ...n.metadata, managedFields: [record, ...managers.map((manager) => ({ manager, operation: 'Update', fieldsV1: { 'f:spec': { 'f:unschedulable': {} } } }))] } };
}

const OOS: V1Taint = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute', timeAdded: new Date('2026-01-01T00:00:00Z') };
const THEIRS: V1Taint = { key: 'gpu.example.com/broken', value: 'true', effect: 'NoSchedule' };

describe('recordOwner', () => {
  it.each([
    { record: 'kmaint/team-a/nm-1', owner: { namespace: 'team-a', name: 'nm-1', resourceVersion: '' } },
    { record: 'kmaint/team-a/', owner: undefined },
    { record: 'kmaint//nm-1', owner: undefined },
    { record: 'node-maintenance', owner: undefined },
    { record: undefined, owner: undefined },
  ])('$record names $owner', ({ record, owner }) => {
    expect(recordOwner(record)).toEqual(owner);
  });
});

describe('findNodeOrphans', () => {
  const nodes = [
    node('n3', { unschedulable: true, annotations: { 'kmaint.io/cordoned-by': 'kmaint/team-a/gone' } }),
    node('n1', { unschedulable: true, annotations: { 'kmaint.io/cordoned-by': 'kmaint/team-a/live' } }),
    node('n2', { annotations: { 'kmaint.io/out-of-service-by': 'kmaint/team-b/gone', 'kmaint.io/cordoned-by': 'someone-else' } }),
    node('n4'),
  ];
  it('a record naming a request that is not live is an orphan; a live owner, another value and no record are not', () => {
    expect(findNodeOrphans(nodes, new Set(['team-a/live']))).toEqual([
      { node: 'n2', record: 'kmaint.io/out-of-service-by', owner: { namespace: 'team-b', name: 'gone', resourceVersion: '' } },
      { node: 'n3', record: 'kmaint.io/cordoned-by', owner: { namespace: 'team-a', name: 'gone', resourceVersion: '' } },
    ]);
  });
  it('every owner live: nothing', () => {
    expect(findNodeOrphans(nodes, new Set(['team-a/live', 'team-a/gone', 'team-b/gone']))).toEqual([]);
  });
});

describe('planOrphanSweep', () => {
  const gone = { namespace: 'team-a', name: 'gone', resourceVersion: '' };
  const cordonOrphan = (n: string): NodeOrphan => ({ node: n, record: 'kmaint.io/cordoned-by', owner: gone });
  it.each<{ rule: string; node: V1Node; orphan: NodeOrphan; expected: Action[] }>([
    {
      rule: 'a cordon kmaint made for a request that is gone: lifted, with its record, in one patch',
      node: node('n1', { unschedulable: true, annotations: { 'kmaint.io/cordoned-by': 'kmaint/team-a/gone', 'kmaint.io/cordon-reason': 'NodeMaintenance team-a/gone' } }),
      orphan: cordonOrphan('n1'),
      expected: [
        {
          kind: 'uncordonNode',
          node: { name: 'n1', resourceVersion: '7' },
          maintenance: gone,
          annotations: { 'kmaint.io/cordoned-by': null, 'kmaint.io/cordon-reason': null },
          reason: 'orphaned cordon: kmaint cordoned the node for team-a/gone, which no longer exists',
        },
      ],
    },
    {
      rule: 'the Slinky cordon reason naming that request goes in the same patch',
      node: node('n1', { unschedulable: true, annotations: { 'kmaint.io/cordoned-by': 'kmaint/team-a/gone', 'nodeset.slinky.slurm.net/node-cordon-reason': 'kmaint: team-a/gone' } }),
      orphan: cordonOrphan('n1'),
      expected: [
        {
          kind: 'uncordonNode',
          node: { name: 'n1', resourceVersion: '7' },
          maintenance: gone,
          annotations: { 'kmaint.io/cordoned-by': null, 'kmaint.io/cordon-reason': null, 'nodeset.slinky.slurm.net/node-cordon-reason': null },
          reason: 'orphaned cordon: kmaint cordoned the node for team-a/gone, which no longer exists',
        },
      ],
    },
    {
      rule: 'a node someone uncordoned since: only the record goes',
      node: node('n1', { annotations: { 'kmaint.io/cordoned-by': 'kmaint/team-a/gone' } }),
      orphan: cordonOrphan('n1'),
      expected: [
        {
          kind: 'patchNodeAnnotations',
          node: { name: 'n1', resourceVersion: '7' },
          maintenance: gone,
          annotations: { 'kmaint.io/cordoned-by': null, 'kmaint.io/cordon-reason': null },
          reason: 'orphaned cordon record: team-a/gone no longer exists',
        },
      ],
    },
    {
      rule: 'an out-of-service taint kmaint added: removed with its record, another party\'s taint kept',
      node: node('n2', { annotations: { 'kmaint.io/out-of-service-by': 'kmaint/team-a/gone' }, taints: [THEIRS, OOS] }),
      orphan: { node: 'n2', record: 'kmaint.io/out-of-service-by', owner: gone },
      expected: [
        {
          kind: 'setNodeTaints',
          node: { name: 'n2', resourceVersion: '7' },
          taints: [{ key: 'gpu.example.com/broken', value: 'true', effect: 'NoSchedule' }],
          annotations: { 'kmaint.io/out-of-service-by': null },
          maintenance: gone,
          reason: 'orphaned out-of-service taint: kmaint added it for team-a/gone, which no longer exists',
        },
      ],
    },
    { rule: 'a node that is gone: nothing', node: node('other'), orphan: cordonOrphan('n1'), expected: [] },
    {
      rule: "managedFields: kmaint's write set the cordon -> lifted, with its record, in one patch",
      node: owned(['kmaint']),
      orphan: cordonOrphan('n1'),
      expected: [
        {
          kind: 'uncordonNode',
          node: { name: 'n1', resourceVersion: '7' },
          maintenance: gone,
          annotations: { 'kmaint.io/cordoned-by': null, 'kmaint.io/cordon-reason': null },
          reason: 'orphaned cordon: kmaint cordoned the node for team-a/gone, which no longer exists',
        },
      ],
    },
    {
      rule: 'managedFields: someone uncordoned and `kubectl cordon`ed since -> their cordon kept, only the stale record goes',
      node: owned(['kubectl']),
      orphan: cordonOrphan('n1'),
      expected: [
        {
          kind: 'patchNodeAnnotations',
          node: { name: 'n1', resourceVersion: '7' },
          annotations: { 'kmaint.io/cordoned-by': null, 'kmaint.io/cordon-reason': null },
          maintenance: gone,
          reason: 'orphaned cordon record: team-a/gone no longer exists; the cordon was set by kubectl, not kmaint: kept',
        },
      ],
    },
    {
      rule: 'managedFields: another manager asserts the cordon beside kmaint (server-side apply) -> kept, record goes',
      node: owned(['kmaint', 'applier']),
      orphan: cordonOrphan('n1'),
      expected: [
        {
          kind: 'patchNodeAnnotations',
          node: { name: 'n1', resourceVersion: '7' },
          annotations: { 'kmaint.io/cordoned-by': null, 'kmaint.io/cordon-reason': null },
          maintenance: gone,
          reason: 'orphaned cordon record: team-a/gone no longer exists; the cordon was set by applier, not kmaint: kept',
        },
      ],
    },
  ])('$rule', ({ node: n, orphan, expected }) => {
    expect(planOrphanSweep(new Map([[n.metadata?.name ?? '', n]]), [orphan])).toEqual(expected);
  });
  it('the field manager given is the one taken for kmaint', () => {
    expect(planOrphanSweep(new Map([['n1', owned(['kmaint-prod'])]]), [cordonOrphan('n1')], 'kmaint-prod').map((a) => a.kind)).toEqual(['uncordonNode']);
  });
});

// Issue 40: kmaint's Slinky node-cordon-reason is a record of its own, with an owner on every exit path: left alone on
// a node someone else uncordoned (kmaint's cordon record went with that), it is swept once its request is gone.
describe("the Slinky cordon reason kmaint wrote, without kmaint's cordon record", () => {
  const gone = { namespace: 'team-a', name: 'gone', resourceVersion: '' };
  const REASON = 'nodeset.slinky.slurm.net/node-cordon-reason';
  it.each<{ rule: string; annotations: Record<string, string>; expected: NodeOrphan[] }>([
    { rule: 'naming a request that is gone: an orphan', annotations: { [REASON]: 'kmaint: team-a/gone' }, expected: [{ node: 'n1', record: REASON, owner: gone }] },
    { rule: 'naming a live request: kept', annotations: { [REASON]: 'kmaint: team-a/live' }, expected: [] },
    { rule: "another party's reason: not kmaint's", annotations: { [REASON]: 'firmware update' }, expected: [] },
    { rule: 'with an orphaned cordon record naming the same request: swept with that record', annotations: { [REASON]: 'kmaint: team-a/gone', 'kmaint.io/cordoned-by': 'kmaint/team-a/gone' }, expected: [{ node: 'n1', record: 'kmaint.io/cordoned-by', owner: gone }] },
    {
      rule: 'with a live cordon record naming another request: an orphan of its own',
      annotations: { [REASON]: 'kmaint: team-a/gone', 'kmaint.io/cordoned-by': 'kmaint/team-a/live' },
      expected: [{ node: 'n1', record: REASON, owner: gone }],
    },
  ])('$rule', ({ annotations, expected }) => {
    expect(findNodeOrphans([node('n1', { annotations })], new Set(['team-a/live']))).toEqual(expected);
  });

  it('the sweep drops only that annotation, and only while it still names the request', () => {
    const orphan: NodeOrphan = { node: 'n1', record: REASON, owner: gone };
    expect(planOrphanSweep(new Map([['n1', node('n1', { annotations: { [REASON]: 'kmaint: team-a/gone' } })]]), [orphan])).toEqual([
      { kind: 'patchNodeAnnotations', node: { name: 'n1', resourceVersion: '7' }, annotations: { [REASON]: null }, maintenance: gone, reason: 'orphaned Slinky cordon reason: team-a/gone no longer exists' },
    ]);
    expect(planOrphanSweep(new Map([['n1', node('n1', { annotations: { [REASON]: 'kmaint: team-b/other' } })]]), [orphan])).toEqual([]);
  });
});
