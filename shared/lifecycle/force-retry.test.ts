// forceRetryOnError through the real drainer: after a reap request's drain times out, pods a budget never lets go
// are deleted with grace period 0, and the request says so; any other request keeps evicting and retrying.
import { describe, expect, it } from 'vitest';
import type { Action } from '#api';
import { aReadyPod, aLifecycleMaintenance, aNodeWithUid, aPdb, recorded } from './test-builders.ts';
import { planDrainer, type DrainerSnapshot } from './plan-drainer.ts';

const NOW = new Date('2026-01-01T00:00:00Z');

function snapshot(requestorID: string, annotations: Record<string, string>, drainStart: string, where: { namespace?: string; labels?: Record<string, string> } = {}): DrainerSnapshot {
  const nm = aLifecycleMaintenance({
    name: 'reap-n1',
    namespace: where.namespace ?? 'kmaint',
    labels: where.labels ?? { 'kmaint.io/reaper': 'true' },
    nodeName: 'n1',
    requestorID,
    phase: 'Draining',
    annotations: { 'maintenance.nvidia.com/node-initial-state.unschedulable': 'false', 'kmaint.io/drain-start-time': drainStart, ...annotations },
    spec: { cordon: true, drainSpec: { force: true, deleteEmptyDir: true, timeoutSeconds: 60 } },
  });
  const pod = aReadyPod({ name: 'db-0', namespace: 'shop', nodeName: 'n1', labels: { app: 'db' } });
  return {
    nodes: new Map([['n1', { ...aNodeWithUid({ name: 'n1' }), spec: { unschedulable: true } }]]),
    maintenances: [nm],
    podsByNode: new Map([['n1', [pod]]]),
    // The budget never allows an eviction.
    pdbs: [aPdb({ name: 'db', namespace: 'shop', disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 })],
    // kmaint's namespace: only its own reap requests there are force-deleted.
    namespace: 'kmaint',
  };
}

const podActions = (actions: readonly Action[]) => actions.filter((a) => a.kind === 'evictPod' || a.kind === 'deletePod');
const FORCE = { 'kmaint.io/reaper-force-retry-on-error': 'true' };
const MESSAGE = 'forceRetryOnError: deleted 1 pod with grace period 0 after the drain timeout of 60 s: shop/db-0';

describe('forceRetryOnError in the drainer', () => {
  it('a reap request past its drain timeout deletes the held pod with grace period 0 and says so (condition and event)', () => {
    const plan = planDrainer(recorded(snapshot('reaper.kmaint.io', FORCE, '2025-12-31T23:58:00Z')), NOW);
    expect(podActions(plan.actions)).toEqual([
      { kind: 'deletePod', pod: { namespace: 'shop', name: 'db-0', uid: 'uid-db-0' }, maintenance: { namespace: 'kmaint', name: 'reap-n1', uid: 'uid-reap-n1', resourceVersion: '100' }, gracePeriodSeconds: 0, reason: 'forceRetryOnError: drain timed out after 60 s' },
    ]);
    const status = plan.actions.find((a) => a.kind === 'writeStatus');
    expect(status?.kind === 'writeStatus' && status.status.conditions?.find((c) => c.type === 'Ready')?.message).toBe(`draining: 1 of 1 pods left; ${MESSAGE}`);
    expect(plan.actions.filter((a) => a.kind === 'emitEvent' && a.eventReason === 'ForceDeleted')).toEqual([
      { kind: 'emitEvent', target: { kind: 'NodeMaintenance', namespace: 'kmaint', name: 'reap-n1', uid: 'uid-reap-n1' }, type: 'Warning', eventReason: 'ForceDeleted', message: MESSAGE, reason: 'forceRetryOnError' },
    ]);
  });

  it.each<[string, string, Record<string, string>, string]>([
    ['before the timeout the reap request still only evicts (blocked here)', 'reaper.kmaint.io', FORCE, '2025-12-31T23:59:30Z'],
    ['a reap request without the annotation (forceRetryOnError false) keeps evicting after the timeout', 'reaper.kmaint.io', {}, '2025-12-31T23:58:00Z'],
    ['another requestor carrying the annotation is never force-deleted', 'upgrade.example.com', FORCE, '2025-12-31T23:58:00Z'],
  ])('%s', (_rule, requestor, annotations, drainStart) => {
    const plan = planDrainer(recorded(snapshot(requestor, annotations, drainStart)), NOW);
    expect(podActions(plan.actions)).toEqual([]);
    expect(plan.actions.some((a) => a.kind === 'emitEvent' && a.eventReason === 'ForceDeleted')).toBe(false);
  });

  // Issue 31 point 1: a copy of a reap request (requestorID, name, label, annotation) made where a requestor can write.
  it.each<[string, { namespace?: string; labels?: Record<string, string> }]>([
    ['a copy of a reap request in a tenant namespace is never force-deleted', { namespace: 'tenant' }],
    ["one in kmaint's namespace without the reaper's label is never force-deleted", { labels: {} }],
  ])('%s', (_rule, where) => {
    const plan = planDrainer(recorded(snapshot('reaper.kmaint.io', FORCE, '2025-12-31T23:58:00Z', where)), NOW);
    expect(podActions(plan.actions)).toEqual([]);
    expect(plan.actions.some((a) => a.kind === 'emitEvent' && a.eventReason === 'ForceDeleted')).toBe(false);
  });
});
