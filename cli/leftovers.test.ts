import type { V1Lease, V1ManagedFieldsEntry, V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { FINALIZER } from '../shared/api/index.ts';
import { aMaintenance } from '../shared/scheduling/test-builders.ts';
import { planLeftovers, upstreamCordons } from './leftovers.ts';
import { renderLeftovers } from './leftovers-command.ts';

const cordonBy = (manager: string): V1ManagedFieldsEntry => ({ manager, operation: 'Update', fieldsV1: { 'f:spec': { 'f:unschedulable': {} } } });
const recordBy = (manager: string): V1ManagedFieldsEntry => ({ manager, operation: 'Update', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:kmaint.io/cordoned-by': {} } } } });

function node(name: string, opts: { cordoned?: boolean; annotations?: Record<string, string>; managedFields?: V1ManagedFieldsEntry[]; conditions?: Array<{ type: string; status: string; message: string }>; taints?: Array<{ key: string; value?: string; effect: string }> } = {}): V1Node {
  return {
    metadata: { name, resourceVersion: `rv-${name}`, ...(opts.annotations ? { annotations: opts.annotations } : {}), ...(opts.managedFields ? { managedFields: opts.managedFields } : {}) },
    spec: { ...(opts.cordoned ? { unschedulable: true } : {}), ...(opts.taints ? { taints: opts.taints } : {}) },
    status: { conditions: opts.conditions ?? [] },
  };
}
const lease = (name: string, holder: string): V1Lease => ({ metadata: { name, namespace: 'medik8s-leases', resourceVersion: `rv-${name}` }, spec: { holderIdentity: holder } });
const withFinalizer = <T extends { metadata: { finalizers?: string[] } }>(nm: T): T => ({ ...nm, metadata: { ...nm.metadata, finalizers: [FINALIZER] } });

// What an uninstall leaves with a maintenance in flight, beside an administrator's cordon, another tool's lease and
// drain, and upstream's cordon: the cluster the testbed test (test/leftovers.test.ts) builds, as objects.
const nodes: V1Node[] = [
  node('n1', {
    cordoned: true,
    annotations: { 'kmaint.io/cordoned-by': 'kmaint/team/fw', 'kmaint.io/cordon-reason': 'NodeMaintenance team/fw', 'kmaint.io/admitted': 'team/fw/uid-fw', 'kmaint.io/desired-state': 'Drain_Required' },
    managedFields: [{ ...cordonBy('kmaint'), fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:kmaint.io/cordoned-by': {} } }, 'f:spec': { 'f:unschedulable': {} } } }],
    conditions: [
      { type: 'Ready', status: 'True', message: 'kubelet is posting ready status' },
      { type: 'Drained', status: 'True', message: 'kmaint: team/fw' },
      { type: 'MaintenanceInProgress', status: 'True', message: 'another writer' },
    ],
  }),
  node('n2', { cordoned: true, managedFields: [cordonBy('kubectl')] }),
  node('n3', { cordoned: true, annotations: { 'kmaint.io/cordoned-by': 'kmaint/team/old', 'kmaint.io/reaper-decision': 'not unhealthy' }, managedFields: [recordBy('kmaint'), cordonBy('kubectl')] }),
  node('n4', { cordoned: true }),
  node('n5', { annotations: { 'kmaint.io/out-of-service-by': 'kmaint/team/fw' }, taints: [{ key: 'gpu', value: 'x', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }] }),
];
const maintenances = [
  withFinalizer(aMaintenance({ name: 'fw', namespace: 'team', nodeName: 'n1', phase: 'Ready' })),
  aMaintenance({ name: 'up', namespace: 'team', nodeName: 'n4', phase: 'Draining', annotations: { 'maintenance.nvidia.com/node-initial-state.unschedulable': 'false' } }),
  withFinalizer(aMaintenance({ name: 'reap-n3', namespace: 'kmaint', nodeName: 'n3', phase: 'Ready', requestorID: 'reaper.kmaint.io', labels: { 'kmaint.io/reaper': 'true' } })),
  withFinalizer(aMaintenance({ name: 'reap-n5', namespace: 'team', nodeName: 'n5', phase: 'Ready', requestorID: 'reaper.kmaint.io', labels: { 'kmaint.io/reaper': 'true' } })),
];
const leases = [lease('node-n1', 'kmaint/team/fw'), lease('node-n2', 'node-maintenance-operator')];
const slurm = {
  reasonPrefix: 'kmaint:',
  nodes: [
    { name: 's1', state: ['IDLE', 'DRAIN'], reason: 'kmaint: team-ctl team/fw' },
    { name: 's2', state: ['IDLE', 'DRAIN'], reason: 'admin: bad dimm' },
    { name: 's3', state: ['IDLE'], reason: 'kmaint: team-ctl team/old' },
  ],
  reservations: [
    { name: 'kmaint_team_fw', startTime: 1, endTime: 2, nodeList: 's1', flags: ['MAINT'] },
    { name: 'admin_window', startTime: 1, endTime: 2, nodeList: 's2', flags: ['MAINT'] },
  ],
};

describe('planLeftovers', () => {
  const plan = planLeftovers({ nodes, maintenances, leases, kmaintNamespace: 'kmaint', slurm });

  it("lists kmaint's records by their marks, upstream's cordon as upstream's, and nothing of an administrator's, another tool's or an agent's", () => {
    expect(plan.found.map((l) => [l.object, l.record, l.owner, l.value])).toEqual([
      ['Lease/medik8s-leases/node-n1', 'holder', 'kmaint', 'kmaint/team/fw'],
      ['Node/n1', 'cordon', 'kmaint', 'kmaint/team/fw'],
      ['Node/n1', 'kmaint.io/cordoned-by', 'kmaint', 'kmaint/team/fw'],
      ['Node/n1', 'kmaint.io/admitted', 'kmaint', 'team/fw/uid-fw'],
      ['Node/n1', 'kmaint.io/cordon-reason', 'kmaint', 'NodeMaintenance team/fw'],
      ['Node/n1', 'condition Drained', 'kmaint', 'True'],
      // n2: an administrator's cordon, no record: nothing. n3: the record outlived kmaint's cordon (kubectl's since).
      ['Node/n3', 'kmaint.io/cordoned-by', 'kmaint', 'kmaint/team/old'],
      ['Node/n3', 'kmaint.io/reaper-decision', 'kmaint', 'not unhealthy'],
      ['Node/n4', 'cordon', 'upstream', 'upstream: team/up (maintenance.nvidia.com/node-initial-state.unschedulable=false)'],
      ['Node/n5', 'kmaint.io/out-of-service-by', 'kmaint', 'kmaint/team/fw'],
      ['Node/n5', 'taint node.kubernetes.io/out-of-service', 'kmaint', 'nodeshutdown:NoExecute'],
      ['NodeMaintenance/kmaint/reap-n3', 'request', 'kmaint', 'reaper.kmaint.io'],
      ['NodeMaintenance/kmaint/reap-n3', 'finalizer', 'kmaint', FINALIZER],
      ['NodeMaintenance/team/fw', 'finalizer', 'kmaint', FINALIZER],
      // A copy of kmaint's label and requestorID outside kmaint's namespace is a requestor's request: only the finalizer.
      ['NodeMaintenance/team/reap-n5', 'finalizer', 'kmaint', FINALIZER],
      ['SlurmNode/s1', 'drain', 'kmaint', 'kmaint: team-ctl team/fw'],
      ['SlurmReservation/kmaint_team_fw', 'reservation', 'kmaint', 's1'],
    ]);
  });

  it("removes kmaint's own and nothing else: the cordon only where kmaint's write set it, the record alone where kubectl's cordon followed, other taints and conditions kept", () => {
    expect(plan.actions.map((a) => [a.kind, 'node' in a ? a.node.name : 'target' in a ? `${a.target.namespace}/${a.target.name}` : 'lease' in a ? `${a.lease.namespace}/${a.lease.name}` : '', a.reason])).toEqual([
      ['uncordonNode', 'n1', 'orphaned cordon: kmaint cordoned the node for team/fw, which no longer exists'],
      ['patchNodeAnnotations', 'n3', 'orphaned cordon record: team/old no longer exists; the cordon was set by kubectl, not kmaint: kept'],
      ['setNodeTaints', 'n5', 'orphaned out-of-service taint: kmaint added it for team/fw, which no longer exists'],
      ['patchNodeConditions', 'n1', "kmaint's node conditions left: Drained"],
      ['patchNodeAnnotations', 'n3', "kmaint's records left on the node: kmaint.io/reaper-decision"],
      ['patchMaintenanceMeta', 'kmaint/reap-n3', "kmaint's finalizer, with no kmaint to release the request"],
      ['deleteMaintenance', 'kmaint/reap-n3', "kmaint's own request (reaper.kmaint.io), with no kmaint to finish it"],
      ['patchMaintenanceMeta', 'team/fw', "kmaint's finalizer, with no kmaint to release the request"],
      ['patchMaintenanceMeta', 'team/reap-n5', "kmaint's finalizer, with no kmaint to release the request"],
      ['releaseNodeLease', 'medik8s-leases/node-n1', 'medik8s node lease held by kmaint/team/fw'],
    ]);
    const uncordon = plan.actions[0];
    expect(uncordon?.kind === 'uncordonNode' ? uncordon.annotations : undefined).toEqual({ 'kmaint.io/cordoned-by': null, 'kmaint.io/cordon-reason': null, 'kmaint.io/admitted': null });
    const taints = plan.actions[2];
    expect(taints?.kind === 'setNodeTaints' ? [taints.taints, taints.annotations] : undefined).toEqual([[{ key: 'gpu', value: 'x', effect: 'NoSchedule' }], { 'kmaint.io/out-of-service-by': null }]);
    expect(plan.slurm).toEqual([{ kind: 'undrain', node: 's1' }, { kind: 'deleteReservation', name: 'kmaint_team_fw' }]);
  });

  it("a node a failed validation kept cordoned (issue 44): its validation.kmaint.io/ records listed and dropped, the cordon kept", () => {
    const failed = node('n6', { cordoned: true, managedFields: [cordonBy('kmaint')], annotations: { 'validation.kmaint.io/job': 'kmaint/kmaint-validate-u1', 'validation.kmaint.io/for': 'team/fw/u1', 'validation.kmaint.io/outcome': 'Failed', 'validation.kmaint.io/cordoned-by': 'kmaint/team/fw' } });
    const out = planLeftovers({ nodes: [failed], maintenances: [], leases: [], kmaintNamespace: 'kmaint' });
    expect(out.found.map((l) => [l.record, l.value])).toEqual([
      ['validation.kmaint.io/job', 'kmaint/kmaint-validate-u1'],
      ['validation.kmaint.io/for', 'team/fw/u1'],
      ['validation.kmaint.io/outcome', 'Failed'],
      ['validation.kmaint.io/cordoned-by', 'kmaint/team/fw'],
    ]);
    expect(out.actions).toEqual([
      {
        kind: 'patchNodeAnnotations',
        node: { name: 'n6', resourceVersion: 'rv-n6' },
        annotations: { 'validation.kmaint.io/job': null, 'validation.kmaint.io/for': null, 'validation.kmaint.io/outcome': null, 'validation.kmaint.io/cordoned-by': null },
        reason: "kmaint's records left on the node: validation.kmaint.io/job, validation.kmaint.io/for, validation.kmaint.io/outcome, validation.kmaint.io/cordoned-by",
      },
    ]);
  });

  it('a clean cluster: nothing found, nothing to write', () => {
    const clean = planLeftovers({ nodes: [node('n2', { cordoned: true, managedFields: [cordonBy('kubectl')] })], maintenances: [], leases: [lease('node-n2', 'node-maintenance-operator')], kmaintNamespace: 'kmaint', slurm: { ...slurm, nodes: [slurm.nodes[1] ?? slurm.nodes[0]!], reservations: [] } });
    expect(clean).toEqual({ found: [], actions: [], slurm: [] });
  });

  it('upstreamCordons: a cordoned node whose request recorded it schedulable, without kmaint\'s record', () => {
    expect(upstreamCordons(nodes, maintenances).map((c) => [c.node, c.request.metadata.name])).toEqual([['n4', 'up']]);
  });

  it('renders a table (OWNER before VALUE, --no-headers drops the header) or one List', () => {
    const two = plan.found.slice(0, 2);
    expect(renderLeftovers(two, 'text', true)).toBe(
      'OBJECT                        RECORD  OWNER   VALUE\nLease/medik8s-leases/node-n1  holder  kmaint  kmaint/team/fw\nNode/n1                       cordon  kmaint  kmaint/team/fw\n',
    );
    expect(renderLeftovers(two, 'text', false)).toBe('Lease/medik8s-leases/node-n1  holder  kmaint  kmaint/team/fw\nNode/n1                       cordon  kmaint  kmaint/team/fw\n');
    expect(renderLeftovers([], 'text', true)).toBe('');
    expect(JSON.parse(renderLeftovers(two.slice(0, 1), 'json', true))).toEqual({ apiVersion: 'v1', kind: 'List', items: [{ object: 'Lease/medik8s-leases/node-n1', record: 'holder', value: 'kmaint/team/fw', owner: 'kmaint' }], metadata: { resourceVersion: '' } });
  });
});
describe('planLeftovers: the repair ladder\'s records (issue 44)', () => {
  it('lists the three repair.kmaint.io/ records as kmaint\'s and removes them in one patch; nothing else on the Node', () => {
    const records = { 'repair.kmaint.io/unhealthy-since': '2026-01-01T11:00:00Z', 'repair.kmaint.io/rung': '{"rung":0,"remedy":"reboot","state":"rebooted","at":"2026-01-01T11:30:00Z"}', 'repair.kmaint.io/history': '[]', 'example.com/other': 'x' };
    const p = planLeftovers({ nodes: [node('r1', { annotations: records })], maintenances: [], leases: [], kmaintNamespace: 'kmaint' });
    expect(p.found.map((l) => [l.object, l.record, l.owner])).toEqual([
      ['Node/r1', 'repair.kmaint.io/unhealthy-since', 'kmaint'],
      ['Node/r1', 'repair.kmaint.io/rung', 'kmaint'],
      ['Node/r1', 'repair.kmaint.io/history', 'kmaint'],
    ]);
    expect(p.actions.map((a) => (a.kind === 'patchNodeAnnotations' ? a.annotations : a.kind))).toEqual([{ 'repair.kmaint.io/unhealthy-since': null, 'repair.kmaint.io/rung': null, 'repair.kmaint.io/history': null }]);
  });
});


describe("planLeftovers: kmaint's kmaint.io/Waiting condition on requests", () => {
  it('lists it on a requestor\'s request and writes it away, every other condition kept; not on one being deleted or on kmaint\'s own, which go', () => {
    const maintenancesWaiting = [
      aMaintenance({ name: 'queued', namespace: 'team', nodeName: 'n1', waitingOn: 'Parallel' }),
      aMaintenance({ name: 'plain', namespace: 'team', nodeName: 'n2' }),
      aMaintenance({ name: 'leaving', namespace: 'team', nodeName: 'n3', waitingOn: 'Window', deleting: true }),
      aMaintenance({ name: 'reap-n4', namespace: 'kmaint', nodeName: 'n4', requestorID: 'reaper.kmaint.io', labels: { 'kmaint.io/reaper': 'true' }, waitingOn: 'Parallel' }),
    ];
    const p = planLeftovers({ nodes: [], maintenances: maintenancesWaiting, leases: [], kmaintNamespace: 'kmaint' });
    expect(p.found).toEqual([
      { object: 'NodeMaintenance/kmaint/reap-n4', record: 'request', value: 'reaper.kmaint.io', owner: 'kmaint' },
      { object: 'NodeMaintenance/team/leaving', record: 'finalizer', value: FINALIZER, owner: 'kmaint' },
      { object: 'NodeMaintenance/team/queued', record: 'condition kmaint.io/Waiting', value: 'Parallel', owner: 'kmaint' },
    ]);
    expect(p.actions.map((a) => [a.kind, a.kind === 'writeStatus' || a.kind === 'patchMaintenanceMeta' || a.kind === 'deleteMaintenance' ? a.target.name : '', a.kind === 'writeStatus' ? a.status.conditions?.map((c) => `${c.type}=${c.reason ?? ''}`) : undefined, a.reason])).toEqual([
      ['deleteMaintenance', 'reap-n4', undefined, "kmaint's own request (reaper.kmaint.io), with no kmaint to finish it"],
      ['patchMaintenanceMeta', 'leaving', undefined, "kmaint's finalizer, with no kmaint to release the request"],
      ['writeStatus', 'queued', ['Ready=Pending'], "drop kmaint's kmaint.io/Waiting condition (Parallel) from team/queued: with no kmaint, nothing keeps or clears it"],
    ]);
  });
});
