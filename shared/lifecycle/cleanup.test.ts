import type { V1Lease, V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_CORDON_REASON, ANNOTATION_CORDON_RECORDED, ANNOTATION_CORDONED_BY, ANNOTATION_GC_IGNORE, ANNOTATION_INITIAL_UNSCHEDULABLE, ANNOTATION_MEDIK8S_LEASE, ANNOTATION_READY_TIME, Phase } from '../api/index.ts';
import type { Action, MaintenanceRef, NodeMaintenance } from '../api/index.ts';
import { NOW } from '../scheduling/test-builders.ts';
import { planCleanup, type CleanupPlan } from './cleanup.ts';
import type { Medik8sLeases } from './node-lease.ts';
import { aLifecycleMaintenance, aNodeWithUid, type LifecycleMaintenanceOptions } from './test-builders.ts';

const CONFIG = { maxNodeMaintenanceTimeSeconds: 3600 };
const ref = (name = 'nm-1'): MaintenanceRef => ({ namespace: 'default', name, resourceVersion: '100', uid: `uid-${name}` });

const cordoned = aNodeWithUid({ name: 'worker-01', unschedulable: true });
const schedulable = aNodeWithUid({ name: 'worker-01' });
/** A node with kmaint's cordon record for `request` (kmaint/default/<request>); cordoned unless `unschedulable: false`. */
function recorded(by: string, unschedulable = true, name = 'worker-01'): V1Node {
  const node = aNodeWithUid({ name, unschedulable });
  return { ...node, metadata: { ...node.metadata, annotations: { [ANNOTATION_CORDONED_BY]: by, [ANNOTATION_CORDON_REASON]: 'NodeMaintenance default/nm-1 (requestor requestor-a)' } } };
}
const cordonedByUs = recorded('kmaint/default/nm-1');
/** Our record on the node (written by kmaint), its spec.unschedulable owned (managedFields) by `managers`. */
function recordedOwnedBy(managers: string[]): V1Node {
  const record = { manager: 'kmaint', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:kmaint.io/cordoned-by': {} } } } };
  return { ...cordonedByUs, metadata: { ...cordonedByUs.metadata, managedFields: [record, ...managers.map((manager) => ({ manager, operation: 'Update', fieldsV1: { 'f:spec': { 'f:unschedulable': {} } } }))] } };
}

const dropRecord = (name = 'nm-1'): Action => ({
  kind: 'patchNodeAnnotations',
  node: { name: 'worker-01', resourceVersion: '7' },
  annotations: { [ANNOTATION_CORDONED_BY]: null, [ANNOTATION_CORDON_REASON]: null },
  maintenance: ref(name),
  reason: `default/${name} deleted; drop its cordon record`,
});

function nm(opts: Partial<LifecycleMaintenanceOptions> = {}): NodeMaintenance {
  return aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', ...opts });
}

const uncordon: Action = {
  kind: 'uncordonNode',
  node: { name: 'worker-01', resourceVersion: '7' },
  maintenance: ref(),
  reason: 'default/nm-1 deleted; node was schedulable before maintenance',
};

/** The uncordon that also drops our cordon record from the node: one patch. */
const uncordonDroppingRecord: Action = { ...uncordon, annotations: { [ANNOTATION_CORDONED_BY]: null, [ANNOTATION_CORDON_REASON]: null } };

function release(phase: string, removesRecord: boolean): Action {
  return {
    kind: 'patchMaintenanceMeta',
    target: ref(),
    ...(removesRecord ? { annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: null } } : {}),
    removeFinalizer: true,
    reason: `default/nm-1 deleted in phase ${phase}`,
  };
}

/** Drops node-initial-state and the cordon-recorded marker with the finalizer. */
function releaseRecorded(phase: string): Action {
  return {
    kind: 'patchMaintenanceMeta',
    target: ref(),
    annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: null, [ANNOTATION_CORDON_RECORDED]: null },
    removeFinalizer: true,
    reason: `default/nm-1 deleted in phase ${phase}`,
  };
}

function plan(actions: Action[], more: Partial<CleanupPlan> = {}): CleanupPlan {
  return { actions, slurm: [], held: [], released: 0, collected: 0, idle: actions.length === 0, ...more };
}

interface Row {
  rule: string;
  nodes: V1Node[];
  maintenances: NodeMaintenance[];
  expected: CleanupPlan;
}

const PHASES = [Phase.Scheduled, Phase.Cordon, Phase.WaitForPodCompletion, Phase.Draining, Phase.Ready, Phase.RequestorFailed];

// Deletion in every phase the drainer reaches: undo only what the record says we did, then drop the finalizer.
const deletionRows: Row[] = PHASES.flatMap((phase) => [
  {
    rule: `${phase}: node was schedulable before us and is cordoned by us -> uncordon and drop the node's record in one patch, then the request's record and finalizer`,
    nodes: [cordonedByUs],
    maintenances: [nm({ phase, deleting: true, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })],
    expected: plan([uncordonDroppingRecord, release(phase, true)], { released: 1 }),
  },
  {
    rule: `${phase}: we recorded our cordon, the node is cordoned but our record is gone (another tool's cordon) -> it stays cordoned`,
    nodes: [cordoned],
    maintenances: [nm({ phase, deleting: true, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false', [ANNOTATION_CORDON_RECORDED]: 'true' } })],
    expected: plan([releaseRecorded(phase)], { released: 1 }),
  },
  {
    rule: `${phase}: node cordoned and its record names another tool -> it stays cordoned, their record stays`,
    nodes: [recorded('node-maintenance')],
    maintenances: [nm({ phase, deleting: true, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })],
    expected: plan([release(phase, true)], { released: 1 }),
  },
  {
    // Was "node-initial-state rule, uncordon" (the legacy rule): a requestor could preset the annotation and the
    // finalizer, or the Cordon step record "false" while holding for another tool's lease, and lift an admin's cordon.
    rule: `${phase}: node-initial-state "false", no marker and no record on the node (a preset annotation, an upstream or admin cordon) -> it stays cordoned`,
    nodes: [cordoned],
    maintenances: [nm({ phase, deleting: true, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })],
    expected: plan([release(phase, true)], { released: 1 }),
  },
  {
    rule: `${phase}: our record names this request but the request says "true" (the requestor's to write) -> the node's record decides, uncordon`,
    nodes: [cordonedByUs],
    maintenances: [nm({ phase, deleting: true, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'true' } })],
    expected: plan([uncordonDroppingRecord, release(phase, true)], { released: 1 }),
  },
  {
    rule: `${phase}: our record names this request and the request carries no node-initial-state -> uncordon`,
    nodes: [cordonedByUs],
    maintenances: [nm({ phase, deleting: true })],
    expected: plan([uncordonDroppingRecord, release(phase, false)], { released: 1 }),
  },
  {
    rule: `${phase}: the record names another request of the same name in another namespace -> it stays cordoned`,
    nodes: [recorded('kmaint/other/nm-1')],
    maintenances: [nm({ phase, deleting: true, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })],
    expected: plan([release(phase, true)], { released: 1 }),
  },
  {
    rule: `${phase}: our record on a node someone uncordoned -> no uncordon, the record is dropped`,
    nodes: [recorded('kmaint/default/nm-1', false)],
    maintenances: [nm({ phase, deleting: true, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })],
    expected: plan([dropRecord(), release(phase, true)], { released: 1 }),
  },
  {
    rule: `${phase}: our record, and managedFields say kmaint's write set the cordon -> uncordon and drop the record in one patch`,
    nodes: [recordedOwnedBy(['kmaint'])],
    maintenances: [nm({ phase, deleting: true, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })],
    expected: plan([uncordonDroppingRecord, release(phase, true)], { released: 1 }),
  },
  {
    rule: `${phase}: our record, but an admin uncordoned and \`kubectl cordon\`ed since (managedFields: kubectl owns it) -> their cordon stays, our record goes`,
    nodes: [recordedOwnedBy(['kubectl'])],
    maintenances: [nm({ phase, deleting: true, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })],
    expected: plan([{ ...dropRecord(), reason: 'default/nm-1 deleted; drop its cordon record; the cordon was set by kubectl, not kmaint: kept' }, release(phase, true)], { released: 1 }),
  },
  {
    rule: `${phase}: node was schedulable before us but someone uncordoned it -> no uncordon`,
    nodes: [schedulable],
    maintenances: [nm({ phase, deleting: true, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })],
    expected: plan([release(phase, true)], { released: 1 }),
  },
  {
    rule: `${phase}: node was cordoned before us ("true") -> it stays cordoned`,
    nodes: [cordoned],
    maintenances: [nm({ phase, deleting: true, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'true' } })],
    expected: plan([release(phase, true)], { released: 1 }),
  },
  {
    rule: `${phase}: no record (cordon: false, or deleted before the cordon step) -> finalizer only`,
    nodes: [cordoned],
    maintenances: [nm({ phase, deleting: true })],
    expected: plan([release(phase, false)], { released: 1 }),
  },
]);

const OTHERS = ['agent-b.example.com', 'agent-c.example.com'];
const HELD = { key: 'default/nm-1', why: 'waiting for additional requestors: agent-b.example.com, agent-c.example.com' };

const additionalRequestorRows: Row[] = [
  {
    rule: 'Ready with additionalRequestors: deletion is held, nothing written',
    nodes: [cordoned],
    maintenances: [nm({ phase: 'Ready', deleting: true, spec: { additionalRequestors: OTHERS }, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })],
    expected: plan([], { held: [HELD] }),
  },
  {
    rule: 'RequestorFailed with additionalRequestors: deletion is held, nothing written',
    nodes: [cordoned],
    maintenances: [nm({ phase: 'RequestorFailed', requestorFailed: 'True', deleting: true, spec: { additionalRequestors: OTHERS }, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })],
    expected: plan([], { held: [HELD] }),
  },
  {
    rule: 'Ready with an emptied additionalRequestors list: released',
    nodes: [cordonedByUs],
    maintenances: [nm({ phase: 'Ready', deleting: true, spec: { additionalRequestors: [] }, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })],
    expected: plan([uncordonDroppingRecord, release('Ready', true)], { released: 1 }),
  },
  ...[Phase.Scheduled, Phase.Cordon, Phase.WaitForPodCompletion, Phase.Draining].map((phase) => ({
    rule: `${phase} with additionalRequestors: released anyway, as upstream`,
    nodes: [cordonedByUs],
    maintenances: [nm({ phase, deleting: true, spec: { additionalRequestors: OTHERS }, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })],
    expected: plan([uncordonDroppingRecord, release(phase, true)], { released: 1 }),
  })),
];

const nodeGone: Action = { kind: 'patchMaintenanceMeta', target: ref(), removeFinalizer: true, reason: 'node worker-01 no longer exists' };

const missingNodeRows: Row[] = [
  {
    rule: 'node missing, object deleted: finalizer removed, nothing else to undo',
    nodes: [],
    maintenances: [nm({ phase: 'Draining', deleting: true, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })],
    expected: plan([nodeGone], { released: 1 }),
  },
  {
    rule: 'node missing, object not deleted: finalizer removed so Kubernetes GC can delete it through its owner',
    nodes: [],
    maintenances: [nm({ phase: 'Cordon', annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })],
    expected: plan([nodeGone], { released: 1 }),
  },
  {
    rule: 'node missing, held by additionalRequestors: finalizer removed anyway',
    nodes: [],
    maintenances: [nm({ phase: 'Ready', deleting: true, spec: { additionalRequestors: OTHERS } })],
    expected: plan([nodeGone], { released: 1 }),
  },
  {
    rule: 'node missing, stale Ready: finalizer removed, no GC delete on top',
    nodes: [],
    maintenances: [nm({ phase: 'Ready', annotations: { [ANNOTATION_READY_TIME]: '2025-12-01T00:00:00Z' } })],
    expected: plan([nodeGone], { released: 1 }),
  },
  {
    rule: 'node missing, no finalizer of ours: nothing to release',
    nodes: [],
    maintenances: [nm({ phase: 'Pending' })],
    expected: plan([]),
  },
];

const gcDelete: Action = { kind: 'deleteMaintenance', target: ref(), reason: 'Ready for more than maxNodeMaintenanceTimeSeconds (3600 s)' };
const AN_HOUR_AND_A_SECOND_AGO = '2025-12-31T22:59:59Z';
const AN_HOUR_LESS_A_SECOND_AGO = '2025-12-31T23:00:01Z';

const gcRows: Row[] = [
  {
    rule: 'GC: Ready longer than maxNodeMaintenanceTimeSeconds -> deleted',
    nodes: [cordoned],
    maintenances: [nm({ phase: 'Ready', annotations: { [ANNOTATION_READY_TIME]: AN_HOUR_AND_A_SECOND_AGO } })],
    expected: plan([gcDelete], { collected: 1 }),
  },
  {
    rule: 'GC: Ready for less than maxNodeMaintenanceTimeSeconds -> kept',
    nodes: [cordoned],
    maintenances: [nm({ phase: 'Ready', annotations: { [ANNOTATION_READY_TIME]: AN_HOUR_LESS_A_SECOND_AGO } })],
    expected: plan([]),
  },
  {
    rule: 'GC: ignore annotation "true" -> kept however old',
    nodes: [cordoned],
    maintenances: [nm({ phase: 'Ready', annotations: { [ANNOTATION_READY_TIME]: '2025-01-01T00:00:00Z', [ANNOTATION_GC_IGNORE]: 'true' } })],
    expected: plan([]),
  },
  {
    rule: 'GC: ignore annotation other than exactly "true" -> deleted',
    nodes: [cordoned],
    maintenances: [nm({ phase: 'Ready', annotations: { [ANNOTATION_READY_TIME]: AN_HOUR_AND_A_SECOND_AGO, [ANNOTATION_GC_IGNORE]: 'True' } })],
    expected: plan([gcDelete], { collected: 1 }),
  },
  {
    rule: 'GC: RequestorFailed is never collected, it waits for a person',
    nodes: [cordoned],
    maintenances: [nm({ phase: 'RequestorFailed', requestorFailed: 'True', annotations: { [ANNOTATION_READY_TIME]: '2025-01-01T00:00:00Z' } })],
    expected: plan([]),
  },
  {
    rule: 'GC: Ready without a ready-time annotation -> kept (the drainer sets it first)',
    nodes: [cordoned],
    maintenances: [nm({ phase: 'Ready' })],
    expected: plan([]),
  },
  {
    rule: 'GC: unparsable ready-time -> kept',
    nodes: [cordoned],
    maintenances: [nm({ phase: 'Ready', annotations: { [ANNOTATION_READY_TIME]: 'yesterday' } })],
    expected: plan([]),
  },
  {
    rule: 'GC: an earlier phase carrying an old ready-time is not collected',
    nodes: [cordoned],
    maintenances: [nm({ phase: 'Draining', annotations: { [ANNOTATION_READY_TIME]: '2025-01-01T00:00:00Z' } })],
    expected: plan([]),
  },
  {
    rule: 'GC: a stale Ready object already being deleted is released, not deleted again',
    nodes: [cordonedByUs],
    maintenances: [nm({ phase: 'Ready', deleting: true, annotations: { [ANNOTATION_READY_TIME]: '2025-01-01T00:00:00Z', [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })],
    expected: plan([uncordonDroppingRecord, release('Ready', true)], { released: 1 }),
  },
];

const otherRows: Row[] = [
  {
    rule: 'deleted without our finalizer: nothing to do',
    nodes: [cordoned],
    maintenances: [nm({ phase: 'Draining', deleting: true, finalizer: false, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })],
    expected: plan([]),
  },
  {
    rule: 'deleted while Pending (no finalizer yet): nothing to do',
    nodes: [schedulable],
    maintenances: [nm({ phase: 'Pending', deleting: true, finalizer: false })],
    expected: plan([]),
  },
  {
    rule: 'requests in progress and not deleted: nothing to do',
    nodes: [cordoned],
    maintenances: PHASES.map((phase) => aLifecycleMaintenance({ name: `nm-${phase}`, nodeName: 'worker-01', phase, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } })),
    expected: plan([]),
  },
  {
    rule: 'several requests: planned in namespace/name order',
    nodes: [recorded('kmaint/default/nm-a'), aNodeWithUid({ name: 'worker-02' })],
    maintenances: [
      aLifecycleMaintenance({ name: 'nm-b', nodeName: 'worker-02', phase: 'Ready', deleting: true }),
      aLifecycleMaintenance({ name: 'nm-a', nodeName: 'worker-01', phase: 'Draining', deleting: true, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } }),
    ],
    expected: plan(
      [
        { ...uncordonDroppingRecord, maintenance: ref('nm-a'), reason: 'default/nm-a deleted; node was schedulable before maintenance' },
        { kind: 'patchMaintenanceMeta', target: ref('nm-a'), annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: null }, removeFinalizer: true, reason: 'default/nm-a deleted in phase Draining' },
        { kind: 'patchMaintenanceMeta', target: ref('nm-b'), removeFinalizer: true, reason: 'default/nm-b deleted in phase Ready' },
      ],
      { released: 2 },
    ),
  },
];

function aLease(holder: string, resourceVersion = '55'): V1Lease {
  return {
    metadata: { name: 'node-worker-01', namespace: 'medik8s-leases', resourceVersion },
    spec: { holderIdentity: holder, leaseDurationSeconds: 3600, renewTime: new Date('2025-12-31T23:30:00Z') },
  };
}
const leases = (...items: V1Lease[]): Medik8sLeases => ({ kind: 'present', leases: new Map(items.map((l) => [l.metadata?.name ?? '', l])) });
const withLease = (phase: string): NodeMaintenance =>
  nm({ phase, deleting: true, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false', [ANNOTATION_MEDIK8S_LEASE]: 'medik8s-leases/node-worker-01' } });
const releaseBoth: Action = {
  kind: 'patchMaintenanceMeta',
  target: ref(),
  annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: null, [ANNOTATION_MEDIK8S_LEASE]: null },
  removeFinalizer: true,
  reason: 'default/nm-1 deleted in phase Ready',
};
const releaseLease: Action = { kind: 'releaseNodeLease', lease: { namespace: 'medik8s-leases', name: 'node-worker-01', resourceVersion: '55' }, maintenance: ref(), reason: 'default/nm-1 deleted' };

const medik8sRows: Array<Row & { medik8s: Medik8sLeases }> = [
  {
    rule: 'the medik8s lease we hold is released after the uncordon, before the finalizer goes',
    nodes: [cordonedByUs],
    maintenances: [withLease('Ready')],
    medik8s: leases(aLease('kmaint/default/nm-1')),
    expected: plan([uncordonDroppingRecord, releaseLease, releaseBoth], { released: 1 }),
  },
  {
    rule: 'a medik8s lease another tool took after ours expired is theirs: not released',
    nodes: [cordonedByUs],
    maintenances: [withLease('Ready')],
    medik8s: leases(aLease('node-maintenance')),
    expected: plan([uncordonDroppingRecord, releaseBoth], { released: 1 }),
  },
  {
    rule: 'the medik8s lease is already gone (or its namespace): nothing to release',
    nodes: [cordonedByUs],
    maintenances: [withLease('Ready')],
    medik8s: { kind: 'absent' },
    expected: plan([uncordonDroppingRecord, releaseBoth], { released: 1 }),
  },
  {
    rule: 'medik8s leases unreadable: the finalizer stays until the lease can be released, and says why',
    nodes: [cordonedByUs],
    maintenances: [withLease('Ready')],
    medik8s: { kind: 'unreadable', message: 'leases.coordination.k8s.io is forbidden' },
    expected: plan([], { held: [{ key: 'default/nm-1', why: 'cannot read the medik8s node lease to release it: leases.coordination.k8s.io is forbidden' }] }),
  },
];

describe('planCleanup with medik8s node leases', () => {
  it.each(medik8sRows)('$rule', ({ nodes, maintenances, medik8s, expected }) => {
    const result = planCleanup({ nodes: new Map(nodes.map((n) => [n.metadata?.name ?? '', n])), maintenances, medik8s }, CONFIG, NOW);

    expect(result).toEqual(expected);
  });
});

describe('planCleanup', () => {
  describe.each([
    { group: 'deletion in each phase', rows: deletionRows },
    { group: 'additionalRequestors', rows: additionalRequestorRows },
    { group: 'missing nodes', rows: missingNodeRows },
    { group: 'garbage collection', rows: gcRows },
    { group: 'nothing to do', rows: otherRows },
  ])('$group', ({ rows }) => {
    it.each(rows)('$rule', ({ nodes, maintenances, expected }) => {
      const before = structuredClone(maintenances);

      const result = planCleanup({ nodes: new Map(nodes.map((n) => [n.metadata?.name ?? '', n])), maintenances }, CONFIG, NOW);

      expect(result).toEqual(expected);
      expect(maintenances).toEqual(before);
    });
  });
});
