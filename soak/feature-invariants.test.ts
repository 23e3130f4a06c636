// The all-features invariants must be able to fail: each rule fed what breaks it, with the exact message, and what
// does not break it, with none.
import type { V1Lease, V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { FINALIZER, GROUP, VERSION, type NodeMaintenance } from '../shared/api/index.ts';
import type { GangRecord } from './actors.ts';
import { checkCountLimits, checkGangs, checkLeftovers, checkSlurmLeftovers, partialGangs, type CountLimit, type SlurmLeftovers } from './feature-invariants.ts';
import type { ClusterSample } from './invariants.ts';

const nm = (name: string, nodeName: string, phase: string, extra: { namespace?: string; deleting?: boolean } = {}): NodeMaintenance =>
  ({
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'NodeMaintenance',
    metadata: { name, namespace: extra.namespace ?? 'ns', finalizers: [FINALIZER], ...(extra.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { requestorID: 'r', nodeName },
    ...(phase ? { status: { conditions: [{ type: 'Ready', status: 'False', reason: phase, message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] } } : {}),
  }) as NodeMaintenance;
const node = (name: string, extra: Partial<V1Node> = {}): V1Node => ({ metadata: { name, ...extra.metadata }, spec: { ...extra.spec }, status: { conditions: [{ type: 'Ready', status: 'True' }], ...extra.status } });
const sample = (s: Partial<ClusterSample>): ClusterSample => ({ nms: [], nodes: [], pods: [], ...s });
const gang = (kind: GangRecord['kind'], ...members: string[]): GangRecord => ({ kind, members: members.map((m) => `ns/${m}`), createdAt: 0 });

describe('partialGangs', () => {
  const gangs = new Map([
    ['g1', gang('label', 'a', 'b')],
    ['g2', gang('node-label', 'c', 'd')],
  ]);
  it.each<[string, NodeMaintenance[], (g: GangRecord) => boolean, Array<[string, string]>]>([
    ['one member cordoning, the other Pending: partly admitted', [nm('a', 'n1', 'Cordon'), nm('b', 'n2', 'Pending')], () => false, [['g1', 'ns/a Cordon in maintenance; ns/b Pending not admitted']]],
    ['one member Draining, the other new (no phase): partly admitted', [nm('c', 'n3', 'Draining'), nm('d', 'n4', '')], () => false, [['g2', 'ns/c Draining in maintenance; ns/d (new) not admitted']]],
    ['one member Scheduled and held, the other Pending: not in maintenance yet', [nm('a', 'n1', 'Scheduled'), nm('b', 'n2', 'Pending')], () => false, []],
    ['one Scheduled, one Draining: all admitted', [nm('a', 'n1', 'Scheduled'), nm('b', 'n2', 'Draining')], () => false, []],
    ['both Pending: not admitted at all', [nm('a', 'n1', 'Pending'), nm('b', 'n2', 'Pending')], () => false, []],
    ['both admitted, one Ready, one Draining: whole', [nm('a', 'n1', 'Ready'), nm('b', 'n2', 'Draining')], () => false, []],
    ['a member released (being deleted) beside a Ready one: the live ones are whole', [nm('a', 'n1', 'Ready'), nm('b', 'n2', 'Pending', { deleting: true })], () => false, []],
    ['a member gone, the other admitted: whole', [nm('a', 'n1', 'Ready')], () => false, []],
    ['a node-label gang while the switch was off at some point: left out', [nm('c', 'n3', 'Draining'), nm('d', 'n4', 'Pending')], (g) => g.kind === 'node-label', []],
  ])('%s', (_name, nms, skip, expected) => {
    expect([...partialGangs(sample({ nms }), gangs, skip)]).toEqual(expected);
  });
});

describe('checkGangs: no gang partly admitted after a quiet period', () => {
  const partial = new Map([['g1', 'ns/a Cordon in maintenance; ns/b Pending not admitted']]);
  it.each<[string, ReadonlyMap<string, string>, Map<string, number>, Set<string>, number, string[], Array<[string, number]>, string[]]>([
    ['first seen: no violation yet, the time kept', partial, new Map(), new Set(), 1000, [], [['g1', 1000]], []],
    ['partly admitted for 19.9 s: still within the settle time', partial, new Map([['g1', 1000]]), new Set(), 20_900, [], [['g1', 1000]], []],
    ['partly admitted for 20 s: a violation', partial, new Map([['g1', 1000]]), new Set(), 21_000, ['gang g1 partly admitted for 20 s: ns/a Cordon in maintenance; ns/b Pending not admitted'], [['g1', 1000]], ['g1']],
    ['already reported in this episode: not again', partial, new Map([['g1', 1000]]), new Set(['g1']), 30_000, [], [['g1', 1000]], ['g1']],
    ['whole again: the episode ends', new Map(), new Map([['g1', 1000]]), new Set(['g1']), 30_000, [], [], []],
  ])('%s', (_name, now, since, reported, at, violations, nextSince, nextReported) => {
    const r = checkGangs(now, since, reported, at, 20_000);
    expect([r.violations, [...r.since], [...r.reported]]).toEqual([violations, nextSince, nextReported]);
  });
});

describe('checkCountLimits: pool and SR-IOV pool limits', () => {
  const sriov: CountLimit = { scope: 'SR-IOV pool soak-sriov', limit: 1, counts: (x) => x.metadata.namespace === 'kmaint' && x.metadata.name.startsWith('sriov-') };
  const nodes = [node('n1'), node('n2'), node('n3')];
  it.each<[string, ClusterSample, ClusterSample, string[]]>([
    [
      'a second SR-IOV drain admitted while one is in progress',
      sample({ nodes, nms: [nm('sriov-n1', 'n1', 'Draining', { namespace: 'kmaint' }), nm('sriov-n2', 'n2', 'Pending', { namespace: 'kmaint' })] }),
      sample({ nodes, nms: [nm('sriov-n1', 'n1', 'Draining', { namespace: 'kmaint' }), nm('sriov-n2', 'n2', 'Scheduled', { namespace: 'kmaint' })] }),
      ['SR-IOV pool soak-sriov limit 1: 2 in progress (kmaint/sriov-n1, kmaint/sriov-n2), kmaint/sriov-n2 just admitted'],
    ],
    [
      'nothing wrong: the first released (being deleted counts) and gone before the second',
      sample({ nodes, nms: [nm('sriov-n1', 'n1', 'Ready', { namespace: 'kmaint', deleting: true }), nm('sriov-n2', 'n2', 'Pending', { namespace: 'kmaint' })] }),
      sample({ nodes, nms: [nm('sriov-n2', 'n2', 'Scheduled', { namespace: 'kmaint' })] }),
      [],
    ],
    [
      'nothing wrong: a request the limit does not count beside an SR-IOV drain',
      sample({ nodes, nms: [nm('sriov-n1', 'n1', 'Draining', { namespace: 'kmaint' }), nm('b', 'n2', 'Pending')] }),
      sample({ nodes, nms: [nm('sriov-n1', 'n1', 'Draining', { namespace: 'kmaint' }), nm('b', 'n2', 'Scheduled')] }),
      [],
    ],
    [
      'nothing wrong: over the limit with no entrant (the limit was lowered, not broken)',
      sample({ nodes, nms: [nm('sriov-n1', 'n1', 'Draining', { namespace: 'kmaint' }), nm('sriov-n2', 'n2', 'Draining', { namespace: 'kmaint' })] }),
      sample({ nodes, nms: [nm('sriov-n1', 'n1', 'Draining', { namespace: 'kmaint' }), nm('sriov-n2', 'n2', 'Draining', { namespace: 'kmaint' })] }),
      [],
    ],
  ])('%s', (_name, prev, now, expected) => {
    expect(checkCountLimits(prev, now, [sriov]).violations).toEqual(expected);
  });
});

describe('checkLeftovers: nothing of kmaint left once its passes are quiet', () => {
  const lease = (name: string, holder: string): V1Lease => ({ metadata: { name, namespace: 'medik8s-leases' }, spec: { holderIdentity: holder } });
  it.each<[string, V1Node[], V1Lease[], string[]]>([
    ['a clean node and another tool\'s lease: nothing', [node('n1')], [lease('node-n1', 'soak-other-tool')], []],
    ['the cordon record', [node('n1', { metadata: { name: 'n1', annotations: { 'kmaint.io/cordoned-by': 'kmaint/ns/a' } } })], [], ['node n1 keeps kmaint.io/cordoned-by=kmaint/ns/a']],
    [
      'the out-of-service taint and its record',
      [node('n1', { metadata: { name: 'n1', annotations: { 'kmaint.io/out-of-service-by': 'kmaint/ns/a' } }, spec: { taints: [{ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }] } })],
      [],
      ['node n1 keeps kmaint.io/out-of-service-by=kmaint/ns/a', 'node n1 keeps the node.kubernetes.io/out-of-service taint'],
    ],
    [
      'kmaint\'s node conditions, by message prefix or by reason; another writer\'s Drained is left',
      [
        node('n1', {
          status: {
            conditions: [
              { type: 'Ready', status: 'True' },
              { type: 'MaintenanceInProgress', status: 'True', reason: 'MaintenanceStarted', message: 'kmaint: NodeMaintenance ns/a' },
              { type: 'DrainInProgress', status: 'False', reason: 'DrainCompleted', message: 'someone' },
              { type: 'Drained', status: 'True', reason: 'TheirOwn', message: 'their tool' },
            ],
          },
        }),
      ],
      [],
      ['node n1 keeps condition MaintenanceInProgress=True/MaintenanceStarted (kmaint: NodeMaintenance ns/a)', 'node n1 keeps condition DrainInProgress=False/DrainCompleted (someone)'],
    ],
    ['a medik8s lease still held by kmaint', [node('n1')], [lease('node-n1', 'kmaint/ns/a')], ['lease medik8s-leases/node-n1 still held by kmaint/ns/a']],
  ])('%s', (_name, nodes, leases, expected) => {
    expect(checkLeftovers(nodes, leases, new Set()).violations).toEqual(expected);
  });

  it('an out-of-service taint the node had before the run is not kmaint\'s', () => {
    const tainted = node('n1', { spec: { taints: [{ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }] } });
    expect(checkLeftovers([tainted], [], new Set(['n1'])).violations).toEqual([]);
  });
});

describe('checkSlurmLeftovers: no kmaint_ reservation and no kmaint: drain left in Slurm', () => {
  const idle = { name: 'n1', state: ['IDLE'], reason: '' };
  it.each<[string, SlurmLeftovers, string[]]>([
    ['nothing reserved, nothing drained', { reservations: [], nodes: [idle] }, []],
    ['an administrator\'s reservation and drain are not kmaint\'s', { reservations: ['admin_window'], nodes: [{ name: 'n2', state: ['IDLE', 'DRAIN'], reason: 'admin: bad dimm' }] }, []],
    ['a kmaint_ reservation', { reservations: ['kmaint_soak-1_r-7', 'admin_window'], nodes: [idle] }, ['Slurm reservation kmaint_soak-1_r-7 left']],
    ['a kmaint: drain', { reservations: [], nodes: [{ name: 'n3', state: ['IDLE', 'DRAIN'], reason: 'kmaint: requestor-1 soak-1/r-7' }] }, ['Slurm node n3 left drained (IDLE+DRAIN): kmaint: requestor-1 soak-1/r-7']],
    ['kmaint\'s reason kept after the undrain (24.11 does): not a drain', { reservations: [], nodes: [{ name: 'n3', state: ['IDLE'], reason: 'kmaint: requestor-1 soak-1/r-7' }] }, []],
  ])('%s', (_name, slurm, expected) => {
    expect(checkSlurmLeftovers(slurm).violations).toEqual(expected);
  });
});
