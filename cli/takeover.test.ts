import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { aMaintenance } from '../shared/scheduling/test-builders.ts';
import { planTakeover } from './takeover.ts';

const node = (name: string, cordoned: boolean, annotations: Record<string, string> = {}): V1Node => ({ metadata: { name, resourceVersion: `rv-${name}`, annotations }, spec: cordoned ? { unschedulable: true } : {} });
const INITIAL = 'maintenance.nvidia.com/node-initial-state.unschedulable';

describe('planTakeover', () => {
  it("--from nvidia: kmaint's record on each node upstream cordoned for a request past Scheduled; not an admin's cordon, not a request not yet cordoned, not a node kmaint already records", () => {
    const nodes = [node('n1', true), node('n2', true), node('n3', false), node('n4', true, { 'kmaint.io/cordoned-by': 'kmaint/team/d' }), node('n5', true)];
    const maintenances = [
      aMaintenance({ name: 'a', namespace: 'team', nodeName: 'n1', phase: 'Draining', annotations: { [INITIAL]: 'false' } }),
      // n2: cordoned before the request (initial state "true"): an administrator's cordon, kept.
      aMaintenance({ name: 'b', namespace: 'team', nodeName: 'n2', phase: 'Ready', annotations: { [INITIAL]: 'true' } }),
      aMaintenance({ name: 'c', namespace: 'team', nodeName: 'n3', phase: 'Scheduled' }),
      aMaintenance({ name: 'd', namespace: 'team', nodeName: 'n4', phase: 'Draining', annotations: { [INITIAL]: 'false' } }),
      aMaintenance({ name: 'e', namespace: 'team', nodeName: 'n5', phase: 'Scheduled', annotations: { [INITIAL]: 'false' } }),
    ];
    const plan = planTakeover('from-nvidia', { nodes, maintenances, kmaintNamespace: 'kmaint' });
    expect(plan).toEqual({
      actions: [{ kind: 'patchNodeAnnotations', node: { name: 'n1', resourceVersion: 'rv-n1' }, annotations: { 'kmaint.io/cordoned-by': 'kmaint/team/a' }, reason: 'hand upstream\'s cordon of n1 over to kmaint: team/a is Draining, its node-initial-state.unschedulable "false"' }],
      blockers: [],
    });
  });

  it("--to nvidia: node-initial-state \"false\" on each request kmaint cordoned for that lacks it; kmaint's own requests named to release first", () => {
    const nodes = [node('n1', true, { 'kmaint.io/cordoned-by': 'kmaint/team/a' }), node('n2', true, { 'kmaint.io/cordoned-by': 'kmaint/team/b' }), node('n3', true), node('n4', true, { 'kmaint.io/cordoned-by': 'kmaint/kmaint/reap-n4' })];
    const maintenances = [
      aMaintenance({ name: 'a', namespace: 'team', nodeName: 'n1', phase: 'Ready' }),
      aMaintenance({ name: 'b', namespace: 'team', nodeName: 'n2', phase: 'Ready', annotations: { [INITIAL]: 'false' } }),
      aMaintenance({ name: 'reap-n4', namespace: 'kmaint', nodeName: 'n4', phase: 'Ready', requestorID: 'reaper.kmaint.io', labels: { 'kmaint.io/reaper': 'true' }, annotations: { [INITIAL]: 'false' } }),
    ];
    const plan = planTakeover('to-nvidia', { nodes, maintenances, kmaintNamespace: 'kmaint' });
    expect([plan.actions.map((a) => [a.kind, a.kind === 'patchMaintenanceMeta' ? [a.target.name, a.annotations] : undefined]), plan.blockers]).toEqual([
      [['patchMaintenanceMeta', ['a', { [INITIAL]: 'false' }]]],
      ['kmaint\'s own request kmaint/reap-n4 (reaper.kmaint.io): release it while kmaint runs (docs/migrate.md "Going back", step 3)'],
    ]);
  });

  it('--to nvidia: kmaint.io/Waiting leaves each request that has it, every other condition kept; a request without it is not written', () => {
    const waiting = aMaintenance({ name: 'w', namespace: 'team', nodeName: 'n1', phase: 'Pending', waitingOn: 'Parallel' });
    const plain = aMaintenance({ name: 'p', namespace: 'team', nodeName: 'n2', phase: 'Pending' });
    const both = aMaintenance({ name: 'b', namespace: 'team', nodeName: 'n3', phase: 'Pending', waitingOn: 'Zone', annotations: { [INITIAL]: 'false' } });
    const plan = planTakeover('to-nvidia', { nodes: [node('n1', false), node('n2', false), node('n3', false)], maintenances: [waiting, plain, both], kmaintNamespace: 'kmaint' });
    const kept = (nm: typeof waiting) => (nm.status?.conditions ?? []).filter((c) => c.type !== 'kmaint.io/Waiting');
    expect(kept(waiting).map((c) => c.type)).toEqual(['Ready']);
    expect(plan).toEqual({
      actions: [
        { kind: 'writeStatus', target: { namespace: 'team', name: 'b', resourceVersion: both.metadata.resourceVersion, uid: both.metadata.uid }, status: { ...both.status, conditions: kept(both) }, reason: "drop kmaint's kmaint.io/Waiting condition (Zone) from team/b: upstream neither writes nor clears it" },
        { kind: 'writeStatus', target: { namespace: 'team', name: 'w', resourceVersion: waiting.metadata.resourceVersion, uid: waiting.metadata.uid }, status: { ...waiting.status, conditions: kept(waiting) }, reason: "drop kmaint's kmaint.io/Waiting condition (Parallel) from team/w: upstream neither writes nor clears it" },
      ],
      blockers: [],
    });
  });
});
