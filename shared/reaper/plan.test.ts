// The reaper's plan: reap requests for Nodes past every gate, one Node event per decision not to reap (recorded on
// the Node so it is said once), dryRun as events only, and terminations of Ready reap requests.
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Action, NodeMaintenance } from '#api';
import { planReaper, reapRequestName, type ReaperPlan } from './plan.ts';
import { providerMap, type InstanceProvider } from './providers.ts';
import { aReaperNode, aReapRequest, aRequest, instanceIdOf, NOW, reaperConfig } from './test-builders.ts';

const aws: InstanceProvider = { prefix: 'aws', terminate: () => Promise.resolve('terminated') };
const BASE = { unhealthyForSeconds: 300, newNodeGracePeriodSeconds: 300, maxNodesUnhealthy: 2, maxNodesUnhealthyInSameZone: 1 };

function plan(nodes: V1Node[], maintenances: NodeMaintenance[] = [], reaper: Record<string, unknown> = {}): ReaperPlan {
  const input = { nodes, maintenances, namespace: 'kmaint', providers: providerMap([aws]) };
  const frozen = structuredClone(input.nodes);
  const result = planReaper(input, reaperConfig({ ...BASE, ...reaper }), NOW);
  expect(input.nodes).toEqual(frozen); // inputs are never mutated
  return result;
}

/** A healthy cluster of four Nodes in zones a and b, plus `more`. */
function cluster(...more: V1Node[]): V1Node[] {
  return [aReaperNode({ name: 'a-1', zone: 'a' }), aReaperNode({ name: 'a-2', zone: 'a' }), aReaperNode({ name: 'b-1', zone: 'b' }), aReaperNode({ name: 'b-2', zone: 'b' }), ...more];
}

const skipped = (node: string, why: string): Action[] => [
  { kind: 'patchNodeAnnotations', node: { name: node, resourceVersion: '7' }, annotations: { 'kmaint.io/reaper-decision': why }, reason: 'record the reaper decision, reported once' },
  { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: node, uid: `uid-${node}` }, type: 'Normal', eventReason: 'ReapSkipped', message: `not reaped: ${why}`, reason: 'reaper decision' },
];

describe('planReaper: requests', () => {
  it('a healthy cluster: nothing to do', () => {
    expect(plan(cluster())).toEqual({ actions: [], terminations: [], decisions: [], counts: expect.objectContaining({ total: 4, unhealthy: 0 }) as unknown });
  });

  it('a Node NotReady for longer than unhealthyForSeconds gets one reap request (requestor reaper.kmaint.io, the reap drainSpec) and an event', () => {
    const p = plan(cluster(aReaperNode({ name: 'c-1', zone: 'c', ready: 'False', readyForSeconds: 301 })));
    expect(p.decisions).toEqual([{ node: 'c-1' }]);
    expect(p.actions).toEqual([
      {
        kind: 'createMaintenance',
        target: { namespace: 'kmaint', name: 'reap-c-1' },
        labels: { 'kmaint.io/reaper': 'true' },
        annotations: { 'kmaint.io/reaper-provider-id': `aws:///c/${instanceIdOf('c-1')}`, 'kmaint.io/reaper-force-retry-on-error': 'true' },
        spec: { requestorID: 'reaper.kmaint.io', nodeName: 'c-1', cordon: true, drainSpec: { force: true, deleteEmptyDir: true, timeoutSeconds: 310 } },
        reason: 'reap node c-1: matches reapPredicate, unhealthy for at least 300 s, within the guards',
      },
      {
        kind: 'emitEvent',
        target: { kind: 'Node', namespace: '', name: 'c-1', uid: 'uid-c-1' },
        type: 'Normal',
        eventReason: 'ReapRequested',
        message: `reap requested: kmaint/reap-c-1 drains the node, then terminates aws:///c/${instanceIdOf('c-1')}`,
        reason: 'reap requested',
      },
    ]);
  });

  it('skipReaping: the request keeps the Node quarantined (no garbage collection), no force retry when off', () => {
    const p = plan(cluster(aReaperNode({ name: 'c-1', zone: 'c', ready: 'False' })), [], { skipReaping: true, forceRetryOnError: false });
    expect(p.actions[0]).toMatchObject({ kind: 'createMaintenance', annotations: { 'kmaint.io/reaper-provider-id': `aws:///c/${instanceIdOf('c-1')}`, 'maintenance.nvidia.com/garbage-collector.ignore': 'true' } });
    expect((p.actions[0] as Extract<Action, { kind: 'createMaintenance' }>).annotations).not.toHaveProperty('kmaint.io/reaper-force-retry-on-error');
    expect(p.actions[1]).toMatchObject({ message: 'reap requested: kmaint/reap-c-1 drains the node, then leaves it cordoned (skipReaping)' });
  });

  it('names a reap request reap-<node>, hashed when too long for an object name', () => {
    expect(reapRequestName('ip-10-0-0-1.eu-west-1.compute.internal')).toBe('reap-ip-10-0-0-1.eu-west-1.compute.internal');
    const long = reapRequestName(`n${'x'.repeat(260)}`);
    expect([long.length, long.startsWith('reap-nxxx'), /-[0-9a-f]{8}$/.test(long)]).toEqual([253, true, true]);
  });
});

describe('planReaper: every decision not to reap is a Node event with its reason', () => {
  const notReady = { ready: 'False' as const, readyForSeconds: 600 };
  it.each<[string, V1Node[], NodeMaintenance[], Record<string, unknown>, Array<[string, string]>]>([
    [
      'reaped already (instance terminated), the Node object lingering',
      cluster(aReaperNode({ name: 'c-1', zone: 'c', ...notReady, annotations: { 'kmaint.io/reaped': '2026-01-01T11:58:00Z' } })),
      [],
      {},
      [['c-1', 'reaped at 2026-01-01T11:58:00Z; waiting for the Node to be removed (remove kmaint.io/reaped to reap it again)']],
    ],
    [
      'already in maintenance by another requestor',
      cluster(aReaperNode({ name: 'c-1', zone: 'c', ...notReady })),
      [aRequest('upgrade-c-1', 'c-1', 'upgrade.example.com', 'Pending')],
      {},
      [['c-1', 'already in maintenance: kmaint/upgrade-c-1 by upgrade.example.com (spec.reaper.joinExistingRequests is off)']],
    ],
    [
      "under another controller's maintenance (KEP-5683 MaintenanceInProgress=True not set by kmaint), even with joinExistingRequests",
      cluster(aReaperNode({ name: 'c-1', zone: 'c', ...notReady, conditions: { MaintenanceInProgress: ['True', 600] } })),
      [],
      { joinExistingRequests: true },
      [['c-1', "under another controller's maintenance: MaintenanceInProgress=True"]],
    ],
    [
      'within the new-node grace period',
      cluster(aReaperNode({ name: 'c-1', zone: 'c', ...notReady, ageSeconds: 120 })),
      [],
      {},
      [['c-1', 'new node: created 2026-01-01T11:58:00Z, within the grace period of 300 s (until 2026-01-01T12:03:00Z)']],
    ],
    [
      'not unhealthy for long enough',
      cluster(aReaperNode({ name: 'c-1', zone: 'c', ready: 'False', readyForSeconds: 299 })),
      [],
      {},
      [['c-1', 'unhealthy since 2026-01-01T11:55:01Z, not yet for unhealthyForSeconds 300 (due 2026-01-01T12:00:01Z)']],
    ],
    [
      'a flapping condition restarts the clock (the latest unhealthy transition counts)',
      cluster(aReaperNode({ name: 'c-1', zone: 'c', ...notReady, conditions: { MemoryPressure: ['True', 60] } })),
      [],
      {},
      [['c-1', 'unhealthy since 2026-01-01T11:59:00Z, not yet for unhealthyForSeconds 300 (due 2026-01-01T12:04:00Z)']],
    ],
    [
      'no spec.providerID',
      cluster(aReaperNode({ name: 'c-1', zone: 'c', ...notReady, providerID: null })),
      [],
      {},
      [['c-1', 'the Node has no spec.providerID, so no instance can be terminated']],
    ],
    [
      'an unknown providerID prefix is reported, never guessed',
      cluster(aReaperNode({ name: 'c-1', zone: 'c', ...notReady, providerID: 'gce://proj/europe-west1-b/c-1' })),
      [],
      {},
      [['c-1', 'no provider for providerID prefix "gce" of "gce://proj/europe-west1-b/c-1" (known: aws)']],
    ],
    [
      'the cluster guard: 3 unhealthy, more than maxNodesUnhealthy 2',
      cluster(aReaperNode({ name: 'c-1', zone: 'c', ...notReady }), aReaperNode({ name: 'd-1', zone: 'd', ...notReady }), aReaperNode({ name: 'e-1', zone: 'e', cordoned: true })),
      [],
      {},
      [
        ['c-1', 'cluster guard: 3 of 7 nodes are unhealthy, more than maxNodesUnhealthy 2'],
        ['d-1', 'cluster guard: 3 of 7 nodes are unhealthy, more than maxNodesUnhealthy 2'],
      ],
    ],
    [
      'the cluster guard as a percentage: 25% of 7 rounds down to 1',
      cluster(aReaperNode({ name: 'c-1', zone: 'c', ...notReady }), aReaperNode({ name: 'd-1', zone: 'd', ...notReady }), aReaperNode({ name: 'e-1', zone: 'e' })),
      [],
      { maxNodesUnhealthy: '25%' },
      [
        ['c-1', 'cluster guard: 2 of 7 nodes are unhealthy, more than maxNodesUnhealthy 25% (= 1)'],
        ['d-1', 'cluster guard: 2 of 7 nodes are unhealthy, more than maxNodesUnhealthy 25% (= 1)'],
      ],
    ],
    [
      'the zone guard: two unhealthy in zone a with maxNodesUnhealthyInSameZone 1, both told why',
      [aReaperNode({ name: 'a-1', zone: 'a', ...notReady }), aReaperNode({ name: 'a-2', zone: 'a', ...notReady }), aReaperNode({ name: 'b-1', zone: 'b' })],
      [],
      { maxNodesUnhealthy: 5 },
      [
        ['a-1', 'zone guard: 2 of 2 nodes in zone a are unhealthy, more than maxNodesUnhealthyInSameZone 1'],
        ['a-2', 'zone guard: 2 of 2 nodes in zone a are unhealthy, more than maxNodesUnhealthyInSameZone 1'],
      ],
    ],
    [
      'a reapPredicate that fails on this Node (missing key) does not reap it',
      cluster(aReaperNode({ name: 'c-1', zone: 'c', ...notReady })),
      [],
      { reapPredicate: "conditions.Ready != 'True' && labels['team'] == 'x'" },
      [['c-1', 'reapPredicate could not be evaluated: No such key: team']],
    ],
  ])('%s', (_rule, nodes, maintenances, reaper, expected) => {
    const p = plan(nodes, maintenances, reaper);
    expect(p.actions).toEqual(expected.flatMap(([node, why]) => skipped(node, why)));
    expect(p.decisions).toEqual(expected.map(([node, why]) => ({ node, skipped: why })));
    expect(p.terminations).toEqual([]);
  });

  it('the zone guard as a percentage: 50% of zone a (4 nodes) allows 2, so both unhealthy ones are reaped', () => {
    const nodes = [...cluster(), aReaperNode({ name: 'a-3', zone: 'a', ...notReady }), aReaperNode({ name: 'a-4', zone: 'a', ...notReady })];
    const p = plan(nodes, [], { maxNodesUnhealthyInSameZone: '50%' });
    expect(p.decisions).toEqual([{ node: 'a-3' }, { node: 'a-4' }]);
    expect(p.actions.filter((a) => a.kind === 'createMaintenance').map((a) => a.kind === 'createMaintenance' && a.target.name)).toEqual(['reap-a-3', 'reap-a-4']);
  });

  it('a decision already recorded on the Node is not said again; a Node no longer a candidate has the record removed', () => {
    const held = aReaperNode({ name: 'c-1', zone: 'c', ...notReady, ageSeconds: 120, annotations: { 'kmaint.io/reaper-decision': 'new node: created 2026-01-01T11:58:00Z, within the grace period of 300 s (until 2026-01-01T12:03:00Z)' } });
    const recovered = aReaperNode({ name: 'd-1', zone: 'd', annotations: { 'kmaint.io/reaper-decision': 'cluster guard: 3 of 7 nodes are unhealthy, more than maxNodesUnhealthy 2' } });
    expect(plan(cluster(held, recovered)).actions).toEqual([
      { kind: 'patchNodeAnnotations', node: { name: 'd-1', resourceVersion: '7' }, annotations: { 'kmaint.io/reaper-decision': null }, reason: 'the reaper no longer holds this node back' },
    ]);
  });
});

describe('planReaper: dryRun decides and reports with events only', () => {
  it('writes no request and no annotation: one event per candidate, each saying dry run', () => {
    const nodes = [aReaperNode({ name: 'a-1', zone: 'a', ready: 'False' }), aReaperNode({ name: 'b-1', zone: 'b', ready: 'False', ageSeconds: 60 }), aReaperNode({ name: 'c-1', zone: 'c' })];
    const p = plan(nodes, [aReapRequest('z-1', 'Ready')], { dryRun: true, maxNodesUnhealthy: 3 });
    expect(p.actions).toEqual([
      { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: 'a-1', uid: 'uid-a-1' }, type: 'Normal', eventReason: 'ReapRequested', message: `dry run: would request kmaint/reap-a-1 to drain the node and terminate aws:///a/${instanceIdOf('a-1')}`, reason: 'reaper decision' },
      { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: 'b-1', uid: 'uid-b-1' }, type: 'Normal', eventReason: 'ReapSkipped', message: 'not reaped: new node: created 2026-01-01T11:59:00Z, within the grace period of 300 s (until 2026-01-01T12:04:00Z) (dry run)', reason: 'reaper decision' },
    ]);
    expect(p.terminations).toEqual([]);
  });
});

describe('planReaper: reap requests in progress and Ready', () => {
  const node = aReaperNode({ name: 'c-1', zone: 'c', ready: 'False', cordoned: true });
  const request = (phase: string, more = {}) => aReapRequest('c-1', phase, { annotations: { 'kmaint.io/reaper-provider-id': `aws:///c/${instanceIdOf('c-1')}` }, ...more });

  it.each(['', 'Pending', 'Scheduled', 'Draining'])('a reap request in phase "%s": nothing (its request reports progress)', (phase) => {
    expect(plan(cluster(node), [request(phase)], { reapPredicate: "conditions.Ready != 'True'" })).toMatchObject({ actions: [], terminations: [], decisions: [] });
  });

  it('a Ready reap request: terminate the Node\'s own instance (the one it recorded), then delete it', () => {
    expect(plan(cluster(node), [request('Ready')]).terminations).toEqual([
      { maintenance: { namespace: 'kmaint', name: 'reap-c-1', uid: 'uid-reap-c-1', resourceVersion: '11' }, node: 'c-1', nodeUid: 'uid-c-1', nodeResourceVersion: '7', providerID: `aws:///c/${instanceIdOf('c-1')}`, provider: 'providerID' },
    ]);
  });

  it.each<[string, Record<string, unknown>, NodeMaintenance[]]>([
    ['skipReaping keeps it', { skipReaping: true }, [request('Ready')]],
    ['dryRun terminates nothing', { dryRun: true }, [request('Ready')]],
    ['a request being deleted is cleanup\'s', {}, [request('Ready', { deletionTimestamp: '2026-01-01T11:59:00Z' })]],
  ])('a Ready reap request is not terminated: %s', (_rule, reaper, maintenances) => {
    expect(plan(cluster(node), maintenances, reaper).terminations).toEqual([]);
  });

  it('provider none: no provider gate, and the Ready request is deleted without terminating anything', () => {
    const p = plan(cluster(aReaperNode({ name: 'd-1', zone: 'd', ready: 'False', providerID: 'kwok://d-1' }), node), [request('Ready')], { provider: 'none' });
    expect(p.decisions).toEqual([{ node: 'd-1' }]);
    expect(p.terminations).toEqual([expect.objectContaining({ node: 'c-1', provider: 'none' }) as unknown]);
  });
});

describe('planReaper: joining another requestor\'s request (joinExistingRequests)', () => {
  const sick = aReaperNode({ name: 'c-1', zone: 'c', ready: 'False', readyForSeconds: 600, annotations: { 'kmaint.io/reaper-decision': 'old reason' } });
  const id = `aws:///c/${instanceIdOf('c-1')}`;
  const upgrade = (phase: string, more: Partial<NodeMaintenance['spec']> = {}, meta: Partial<NodeMaintenance['metadata']> = {}): NodeMaintenance => {
    const nm = aRequest('upgrade-c-1', 'c-1', 'upgrade.example.com', phase, meta);
    return { ...nm, spec: { ...nm.spec, ...more } };
  };
  const message = `reap joined kmaint/upgrade-c-1 of upgrade.example.com as an additional requestor: it drains the node; the reaper terminates ${id} once it is Ready, then leaves the list`;
  /** What the reaper wrote on the Node when it joined kmaint/upgrade-c-1. */
  const JOIN_RECORD = { 'kmaint.io/reaper-joined': 'kmaint/upgrade-c-1/uid-upgrade-c-1', 'kmaint.io/reaper-joined-provider-id': id };

  it('records the join on the Node (request, uid, providerID; the old decision cleared) first, then adds reaper.kmaint.io to the request\'s additionalRequestors (whole list, its resourceVersion), says so on the request and the Node', () => {
    const p = plan(cluster(sick), [upgrade('Pending', { additionalRequestors: ['audit.example.com'] })], { joinExistingRequests: true });
    expect(p.decisions).toEqual([{ node: 'c-1' }]);
    expect(p.actions).toEqual([
      {
        kind: 'patchNodeAnnotations',
        node: { name: 'c-1', resourceVersion: '7' },
        annotations: { 'kmaint.io/reaper-joined': 'kmaint/upgrade-c-1/uid-upgrade-c-1', 'kmaint.io/reaper-joined-provider-id': id, 'kmaint.io/reaper-decision': null },
        maintenance: { namespace: 'kmaint', name: 'upgrade-c-1', uid: 'uid-upgrade-c-1', resourceVersion: '11' },
        reason: "record the reaper's join of kmaint/upgrade-c-1 before joining it",
      },
      {
        kind: 'patchMaintenanceMeta',
        target: { namespace: 'kmaint', name: 'upgrade-c-1', uid: 'uid-upgrade-c-1', resourceVersion: '11' },
        additionalRequestors: ['audit.example.com', 'reaper.kmaint.io'],
        annotations: { 'kmaint.io/reaper-provider-id': id },
        reason: 'join to reap node c-1 (spec.reaper.joinExistingRequests)',
      },
      { kind: 'emitEvent', target: { kind: 'NodeMaintenance', namespace: 'kmaint', name: 'upgrade-c-1', uid: 'uid-upgrade-c-1' }, type: 'Normal', eventReason: 'ReapJoined', message, reason: 'reap joined' },
      { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: 'c-1', uid: 'uid-c-1' }, type: 'Normal', eventReason: 'ReapJoined', message, reason: 'reap joined' },
    ]);
  });

  it('dryRun: only a Node event saying what it would do', () => {
    const p = plan(cluster(sick), [upgrade('Pending')], { joinExistingRequests: true, dryRun: true });
    expect(p.actions).toEqual([
      {
        kind: 'emitEvent',
        target: { kind: 'Node', namespace: '', name: 'c-1', uid: 'uid-c-1' },
        type: 'Normal',
        eventReason: 'ReapJoined',
        message: `dry run: would join kmaint/upgrade-c-1 of upgrade.example.com as an additional requestor; the reaper terminates ${id} once it is Ready, then leaves the list`,
        reason: 'reaper decision',
      },
    ]);
  });

  it('the other gates still apply before joining (the same-zone guard)', () => {
    const p = plan(cluster(sick, aReaperNode({ name: 'c-2', zone: 'c', ready: 'False', readyForSeconds: 600 })), [upgrade('Pending')], { joinExistingRequests: true, maxNodesUnhealthy: 5 });
    expect(p.actions.filter((a) => a.kind === 'patchMaintenanceMeta')).toEqual([]);
    expect(p.decisions.map((d) => [d.node, d.skipped?.startsWith('zone guard: 2 of 2 nodes in zone c')])).toEqual([['c-1', true], ['c-2', true]]);
  });

  it('a joined request before Ready: nothing to do; Ready: terminate, then leave; the Node already reaped: only leave', () => {
    const joined = (phase: string, meta: Partial<NodeMaintenance['metadata']> = {}) => upgrade(phase, { additionalRequestors: ['audit.example.com', 'reaper.kmaint.io'] }, { annotations: { 'kmaint.io/reaper-provider-id': id }, ...meta });
    const sick = aReaperNode({ name: 'c-1', zone: 'c', ready: 'False', readyForSeconds: 600, annotations: { ...JOIN_RECORD } });
    expect(plan(cluster(sick), [joined('Draining')], { joinExistingRequests: true })).toMatchObject({ actions: [], terminations: [], decisions: [] });
    const termination = {
      maintenance: { namespace: 'kmaint', name: 'upgrade-c-1', uid: 'uid-upgrade-c-1', resourceVersion: '11' },
      node: 'c-1',
      nodeUid: 'uid-c-1',
      nodeResourceVersion: '7',
      providerID: id,
      provider: 'providerID',
      joined: { additionalRequestors: ['audit.example.com'], terminate: true },
    };
    expect(plan(cluster(sick), [joined('Ready')]).terminations).toEqual([termination]);
    // The owner deleted it while Ready: the deletion waits for the list, and the reaper still finishes.
    expect(plan(cluster(sick), [joined('Ready', { deletionTimestamp: '2026-01-01T11:59:00Z' })]).terminations).toEqual([termination]);
    const reaped = aReaperNode({ name: 'c-1', zone: 'c', ready: 'False', annotations: { 'kmaint.io/reaped': '2026-01-01T11:58:00Z', ...JOIN_RECORD } });
    expect(plan(cluster(reaped), [joined('Ready')]).terminations).toEqual([{ ...termination, joined: { additionalRequestors: ['audit.example.com'], terminate: false } }]);
  });
});


// Issue 31 point 1: a requestor can copy every string of a reap request (requestorID, label, name, the providerID
// annotation) into its own request, in any namespace it may write, and add reaper.kmaint.io to additionalRequestors.
describe('planReaper: terminates only for its own requests and the joins it recorded, and only the Node\'s own instance', () => {
  const healthy = aReaperNode({ name: 'c-1', zone: 'c' });
  const other = 'aws:///a/i-0ffffffffffffffff';
  const forged = (meta: Partial<NodeMaintenance['metadata']>): NodeMaintenance => aReapRequest('c-1', 'Ready', { annotations: { 'kmaint.io/reaper-provider-id': other }, ...meta });
  const listing = (meta: Partial<NodeMaintenance['metadata']> = {}): NodeMaintenance => {
    const nm = aRequest('upgrade-c-1', 'c-1', 'upgrade.example.com', 'Ready', { namespace: 'tenant', ...meta });
    return { ...nm, spec: { ...nm.spec, additionalRequestors: ['reaper.kmaint.io'] } };
  };
  const record = (request: string, providerID: string) => ({ 'kmaint.io/reaper-joined': request, 'kmaint.io/reaper-joined-provider-id': providerID });
  const sweep: Action = { kind: 'patchNodeAnnotations', node: { name: 'c-1', resourceVersion: '7' }, annotations: { 'kmaint.io/reaper-joined': null, 'kmaint.io/reaper-joined-provider-id': null }, reason: "the reaper's join record names no request that lists the reaper with this instance" };

  it.each<[string, V1Node, NodeMaintenance, Action[]]>([
    ['a copy of a reap request in a tenant namespace (name, label, requestorID, another instance named)', healthy, forged({ namespace: 'tenant' }), []],
    ['in kmaint\'s namespace without the reaper\'s label', healthy, forged({ labels: {} }), []],
    ['in kmaint\'s namespace under a name the reaper did not compute for its Node', healthy, { ...forged({ name: 'reap-c-2' }) }, []],
    ['reaper.kmaint.io added to additionalRequestors, no join recorded on the Node', healthy, listing(), []],
    [
      'a join recorded for another request (uid) on the Node: the record is swept',
      aReaperNode({ name: 'c-1', zone: 'c', annotations: record('tenant/upgrade-c-1/uid-earlier', `aws:///c/${instanceIdOf('c-1')}`) }),
      listing(),
      [sweep],
    ],
    [
      'a join recorded for another instance of the Node: the record is swept',
      aReaperNode({ name: 'c-1', zone: 'c', annotations: record('tenant/upgrade-c-1/uid-upgrade-c-1', other) }),
      listing(),
      [sweep],
    ],
  ])('not terminated: %s', (_rule, node, request, actions) => {
    const p = plan(cluster(node), [request]);
    expect([p.terminations, p.actions]).toEqual([[], actions]);
  });

  it('a join record whose request is gone is swept; one whose join is live stays', () => {
    const recorded = aReaperNode({ name: 'c-1', zone: 'c', annotations: record('tenant/upgrade-c-1/uid-upgrade-c-1', `aws:///c/${instanceIdOf('c-1')}`) });
    expect(plan(cluster(recorded), []).actions).toEqual([sweep]);
    expect(plan(cluster(recorded), [{ ...listing(), status: { conditions: [] } } as NodeMaintenance]).actions).toEqual([]);
  });

  it('joining a request that already lists the reaper (no record) records the join and keeps one entry', () => {
    const sick = aReaperNode({ name: 'c-1', zone: 'c', ready: 'False', readyForSeconds: 600 });
    const p = plan(cluster(sick), [listing({ namespace: 'kmaint' })], { joinExistingRequests: true });
    expect(p.actions.filter((a) => a.kind === 'patchNodeAnnotations' || a.kind === 'patchMaintenanceMeta').map((a) => (a.kind === 'patchMaintenanceMeta' ? a.additionalRequestors : a.annotations))).toEqual([
      { 'kmaint.io/reaper-joined': 'kmaint/upgrade-c-1/uid-upgrade-c-1', 'kmaint.io/reaper-joined-provider-id': `aws:///c/${instanceIdOf('c-1')}` },
      ['reaper.kmaint.io'],
    ]);
  });

  it('its own Ready reap request naming another instance than the Node\'s: refused, said once on the Node, never terminated', () => {
    const node = aReaperNode({ name: 'c-1', zone: 'c', ready: 'False', cordoned: true });
    const why = `termination refused: kmaint/reap-c-1 names instance "${other}" in kmaint.io/reaper-provider-id, but the Node's spec.providerID is "aws:///c/${instanceIdOf('c-1')}"; the reaper terminates only the Node's own instance, so nothing is terminated and the request stays until it is deleted`;
    const first = plan(cluster(node), [forged({})]);
    expect([first.terminations, first.actions]).toEqual([
      [],
      [
        { kind: 'patchNodeAnnotations', node: { name: 'c-1', resourceVersion: '7' }, annotations: { 'kmaint.io/reaper-decision': why }, reason: 'record the refused termination, reported once' },
        { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: 'c-1', uid: 'uid-c-1' }, type: 'Warning', eventReason: 'ReapRefused', message: why, reason: 'reaper termination refused' },
      ],
    ]);
    const said = aReaperNode({ name: 'c-1', zone: 'c', ready: 'False', cordoned: true, annotations: { 'kmaint.io/reaper-decision': why } });
    expect(plan(cluster(said), [forged({})])).toMatchObject({ terminations: [], actions: [] });
  });

  it('its own Ready reap request whose Node is gone terminates nothing (no Node, no providerID to trust)', () => {
    expect(plan(cluster(), [forged({ annotations: { 'kmaint.io/reaper-provider-id': `aws:///c/${instanceIdOf('c-1')}` } })]).terminations).toEqual([]);
  });
});
