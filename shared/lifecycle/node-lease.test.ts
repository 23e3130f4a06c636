import type { V1Lease, V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_CORDON_REASON, ANNOTATION_CORDONED_BY, ANNOTATION_INITIAL_UNSCHEDULABLE, ANNOTATION_MEDIK8S_LEASE, ANNOTATION_READY_TIME, ANNOTATION_WAIT_KIND } from '../api/index.ts';
import type { Action, MaintenanceRef } from '../api/index.ts';
import { NOW } from '../scheduling/test-builders.ts';
import { planDrainer } from './plan-drainer.ts';
import { leaseWrite, needsMedik8sLeases, viewLease, type Medik8sLeases } from './node-lease.ts';
import { aLifecycleMaintenance, aNodeWithUid, recorded } from './test-builders.ts';

const NOW_S = '2026-01-01T00:00:00Z';
const HOLDER = 'kmaint/default/nm-1';
const ref: MaintenanceRef = { namespace: 'default', name: 'nm-1', resourceVersion: '100', uid: 'uid-nm-1' };
const target = { kind: 'NodeMaintenance' as const, namespace: 'default', name: 'nm-1', uid: 'uid-nm-1' };

function aLease(holder: string, renewTime: string, opts: { duration?: number; transitions?: number; acquireTime?: string } = {}): V1Lease {
  return {
    metadata: { name: 'node-worker-01', namespace: 'medik8s-leases', resourceVersion: '55' },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: opts.duration ?? 3600,
      renewTime: new Date(renewTime),
      ...(opts.acquireTime ? { acquireTime: new Date(opts.acquireTime) } : {}),
      ...(opts.transitions !== undefined ? { leaseTransitions: opts.transitions } : {}),
    },
  };
}
const present = (...items: V1Lease[]): Medik8sLeases => ({ kind: 'present', leases: new Map(items.map((l) => [l.metadata?.name ?? '', l])) });

describe('viewLease', () => {
  it.each([
    { rule: 'no lease: free', lease: undefined, expected: 'free' },
    { rule: 'another holder renewed 10 min ago for an hour: held', lease: aLease('node-maintenance', '2025-12-31T23:50:00Z'), expected: 'held' },
    { rule: 'another holder whose hold ended a second ago: free', lease: aLease('node-maintenance', '2025-12-31T22:59:59Z'), expected: 'free' },
    { rule: 'an empty holderIdentity (given back): free', lease: aLease('', '2025-12-31T23:50:00Z'), expected: 'free' },
    { rule: 'ours, renewed 10 min ago: ours, no renewal due', lease: aLease(HOLDER, '2025-12-31T23:50:00Z'), expected: 'ours' },
  ])('$rule', ({ lease, expected }) => {
    expect(viewLease(lease, HOLDER, NOW).state).toBe(expected);
  });

  it('says whose and until when', () => {
    expect(viewLease(aLease('node-maintenance', '2025-12-31T23:50:00Z'), HOLDER, NOW)).toEqual({ state: 'held', holder: 'node-maintenance', until: new Date('2026-01-01T00:50:00Z') });
  });

  it.each([
    { rule: 'less than half of our hour left: renewal due', renewed: '2025-12-31T23:29:59Z', due: true },
    { rule: 'exactly half left: not yet', renewed: '2025-12-31T23:30:00Z', due: false },
  ])('$rule', ({ renewed, due }) => {
    expect(viewLease(aLease(HOLDER, renewed), HOLDER, NOW)).toMatchObject({ state: 'ours', renewDue: due });
  });
});

describe('leaseWrite', () => {
  const node = aNodeWithUid({ name: 'worker-01' });
  it.each([
    {
      rule: 'no lease: created, owned by the node, 0 transitions',
      lease: undefined,
      expected: { namespace: 'medik8s-leases', name: 'node-worker-01', holder: HOLDER, durationSeconds: 3600, acquireTime: '2026-01-01T00:00:00.000000Z', renewTime: '2026-01-01T00:00:00.000000Z', transitions: 0, owner: { name: 'worker-01', uid: 'uid-worker-01' } },
    },
    {
      rule: "another tool's expired lease: taken over with its resourceVersion, one more transition",
      lease: aLease('node-maintenance', '2025-12-31T20:00:00Z', { transitions: 2 }),
      expected: { namespace: 'medik8s-leases', name: 'node-worker-01', resourceVersion: '55', holder: HOLDER, durationSeconds: 3600, acquireTime: '2026-01-01T00:00:00.000000Z', renewTime: '2026-01-01T00:00:00.000000Z', transitions: 3, owner: { name: 'worker-01', uid: 'uid-worker-01' } },
    },
    {
      rule: 'our own lease: renewed, acquireTime and transitions kept',
      lease: aLease(HOLDER, '2025-12-31T23:00:00Z', { transitions: 3, acquireTime: '2025-12-31T22:00:00Z' }),
      expected: { namespace: 'medik8s-leases', name: 'node-worker-01', resourceVersion: '55', holder: HOLDER, durationSeconds: 3600, acquireTime: '2025-12-31T22:00:00.000000Z', renewTime: '2026-01-01T00:00:00.000000Z', transitions: 3, owner: { name: 'worker-01', uid: 'uid-worker-01' } },
    },
  ])('$rule', ({ lease, expected }) => {
    expect(leaseWrite(node, viewLease(lease, HOLDER, NOW), HOLDER, NOW)).toEqual(expected);
  });
});

const RECORD = { [ANNOTATION_CORDONED_BY]: HOLDER, [ANNOTATION_CORDON_REASON]: 'NodeMaintenance default/nm-1 (requestor requestor-a)' };
const schedulable = aNodeWithUid({ name: 'worker-01' });
function cordonedWith(annotations: Record<string, string> | undefined, unschedulable = true): V1Node {
  const node = aNodeWithUid({ name: 'worker-01', unschedulable });
  return annotations ? { ...node, metadata: { ...node.metadata, annotations } } : node;
}
const take = (over: Record<string, unknown> = {}, reason = 'before cordoning node worker-01'): Action => ({
  kind: 'takeNodeLease',
  lease: { namespace: 'medik8s-leases', name: 'node-worker-01', holder: HOLDER, durationSeconds: 3600, acquireTime: '2026-01-01T00:00:00.000000Z', renewTime: '2026-01-01T00:00:00.000000Z', transitions: 0, owner: { name: 'worker-01', uid: 'uid-worker-01' }, ...over },
  maintenance: ref,
  reason,
});
/** The cordon, with the record of who cordons the node in the same patch. */
const cordon: Action = { kind: 'cordonNode', node: { name: 'worker-01', resourceVersion: '7' }, maintenance: ref, reason: 'cordon for default/nm-1', annotations: RECORD };

describe('planDrainer and the medik8s node lease', () => {
  const scheduled = aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', phase: 'Scheduled' });
  const plan = (medik8s: Medik8sLeases, node: V1Node = schedulable, nm = scheduled): Action[] =>
    planDrainer(recorded({ nodes: new Map([['worker-01', node]]), maintenances: [nm], podsByNode: new Map(), pdbs: [], medik8s }), NOW).actions;

  it('namespace absent: no lease; the cordon record goes on the node in the cordon patch itself', () => {
    expect(plan({ kind: 'absent' }).filter((a) => a.kind !== 'writeStatus' && a.kind !== 'emitEvent')).toEqual([
      { kind: 'patchMaintenanceMeta', target: ref, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false', 'kmaint.io/cordon-recorded': 'true', [ANNOTATION_READY_TIME]: NOW_S }, reason: 'record progress' },
      cordon,
    ]);
  });

  it('namespace present, no lease: record it on the request, take it, then cordon with the record', () => {
    expect(plan(present()).filter((a) => a.kind !== 'writeStatus' && a.kind !== 'emitEvent')).toEqual([
      {
        kind: 'patchMaintenanceMeta',
        target: ref,
        annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false', [ANNOTATION_MEDIK8S_LEASE]: 'medik8s-leases/node-worker-01', 'kmaint.io/cordon-recorded': 'true', [ANNOTATION_READY_TIME]: NOW_S },
        reason: 'record progress',
      },
      take(),
      cordon,
    ]);
  });

  it('another live holder: no cordon, the request waits in Cordon and says for whom and until when, with one Warning', () => {
    const message = 'waiting to cordon: the medik8s node lease medik8s-leases/node-worker-01 is held by node-maintenance until 2026-01-01T00:50:00Z';
    // No node-initial-state while waiting (it used to be recorded "false" here): the holder may cordon the node first.
    expect(plan(present(aLease('node-maintenance', '2025-12-31T23:50:00Z')))).toEqual([
      // The kind of wait, for kmaint explain and the metrics (kmaint.io/wait-kind).
      { kind: 'patchMaintenanceMeta', target: ref, annotations: { [ANNOTATION_WAIT_KIND]: 'node-lease' }, reason: 'record progress' },
      {
        kind: 'writeStatus',
        target: ref,
        status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Cordon', message, lastTransitionTime: '2025-12-31T00:00:00Z', observedGeneration: 1 }] },
        phaseFrom: 'Scheduled',
        phaseTo: 'Cordon',
        reason: 'Scheduled -> Cordon',
      },
      { kind: 'emitEvent', target, type: 'Normal', eventReason: 'ConditionChanged', message: 'Cordon', reason: 'phase Cordon' },
      { kind: 'emitEvent', target, type: 'Warning', eventReason: 'NodeLeaseHeld', message, reason: 'medik8s node lease not available' },
    ]);
  });

  it('the same wait a pass later: nothing written, no second Warning', () => {
    const message = 'waiting to cordon: the medik8s node lease medik8s-leases/node-worker-01 is held by node-maintenance until 2026-01-01T00:50:00Z';
    const waiting = aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', phase: 'Cordon', annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false', [ANNOTATION_WAIT_KIND]: 'node-lease' } });
    waiting.status = { conditions: [{ type: 'Ready', status: 'False', reason: 'Cordon', message, lastTransitionTime: '2025-12-31T23:00:00Z', observedGeneration: 1 }] };
    expect(plan(present(aLease('node-maintenance', '2025-12-31T23:50:00Z')), schedulable, waiting)).toEqual([]);
  });

  it('leases unreadable (RBAC): fail closed, no cordon, and say why', () => {
    const actions = plan({ kind: 'unreadable', message: 'listing leases in medik8s-leases: forbidden' });
    expect(actions.filter((a) => a.kind === 'cordonNode' || a.kind === 'takeNodeLease')).toEqual([]);
    expect(actions.find((a) => a.kind === 'writeStatus')).toMatchObject({
      status: { conditions: [{ reason: 'Cordon', message: 'waiting to cordon: cannot read the medik8s node lease medik8s-leases/node-worker-01: listing leases in medik8s-leases: forbidden' }] },
    });
  });

  it('a Ready request renews its lease when half of it is used, and only then', () => {
    const readyNm = aLifecycleMaintenance({
      name: 'nm-1',
      nodeName: 'worker-01',
      phase: 'Ready',
      annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false', [ANNOTATION_MEDIK8S_LEASE]: 'medik8s-leases/node-worker-01', [ANNOTATION_READY_TIME]: NOW_S },
    });
    const node = cordonedWith(RECORD);
    const old = aLease(HOLDER, '2025-12-31T23:29:00Z', { acquireTime: '2025-12-31T23:29:00Z' });
    expect(plan(present(old), node, readyNm)).toEqual([take({ resourceVersion: '55', acquireTime: '2025-12-31T23:29:00.000000Z' }, 'renew the medik8s node lease')]);
    expect(plan(present(aLease(HOLDER, '2025-12-31T23:31:00Z')), node, readyNm)).toEqual([]);
  });

  it('someone uncordoned the node during the maintenance: our cordon record is dropped, so a later cordon is not ours', () => {
    const draining = aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', phase: 'Ready', annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false', [ANNOTATION_READY_TIME]: NOW_S } });
    expect(plan({ kind: 'absent' }, cordonedWith(RECORD, false), draining)).toEqual([
      {
        kind: 'patchNodeAnnotations',
        node: { name: 'worker-01', resourceVersion: '7' },
        annotations: { [ANNOTATION_CORDONED_BY]: null, [ANNOTATION_CORDON_REASON]: null },
        maintenance: ref,
        reason: 'node uncordoned by someone else: the cordon is no longer ours',
      },
    ]);
  });
});

describe('needsMedik8sLeases', () => {
  const at = (phase: string, extra: { deleting?: boolean; lease?: boolean; cordon?: boolean } = {}) =>
    aLifecycleMaintenance({
      name: 'nm-1',
      nodeName: 'worker-01',
      phase,
      ...(extra.deleting ? { deleting: true } : {}),
      ...(extra.cordon === false ? { spec: { cordon: false } } : {}),
      ...(extra.lease ? { annotations: { [ANNOTATION_MEDIK8S_LEASE]: 'medik8s-leases/node-worker-01' } } : {}),
    });
  it.each([
    { rule: 'drainer: a request about to cordon', nms: [at('Scheduled')], fn: 'drainer' as const, expected: true },
    { rule: 'drainer: cordon: false needs no lease', nms: [at('Cordon', { cordon: false })], fn: 'drainer' as const, expected: false },
    { rule: 'drainer: a Ready request holding a lease (renewal)', nms: [at('Ready', { lease: true })], fn: 'drainer' as const, expected: true },
    { rule: 'drainer: a Ready request without one: no read', nms: [at('Ready')], fn: 'drainer' as const, expected: false },
    { rule: 'cleanup: a deleted request that took one', nms: [at('Ready', { deleting: true, lease: true })], fn: 'cleanup' as const, expected: true },
    { rule: 'cleanup: a deleted request that took none', nms: [at('Ready', { deleting: true })], fn: 'cleanup' as const, expected: false },
  ])('$rule', ({ nms, fn, expected }) => {
    expect(needsMedik8sLeases(nms, fn)).toBe(expected);
  });
});
