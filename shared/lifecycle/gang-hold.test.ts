// The drainer's half of gang atomicity (issue 30): a Scheduled member is not cordoned while a request of its gang
// still waits for admission (its status write failed); once all are admitted they all move on in the same pass.
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { LABEL_GANG, LABEL_REAPER, REAPER_REQUESTOR, reapRequestName } from '../api/index.ts';
import type { Action, NodeMaintenance } from '../api/index.ts';
import { KMAINT_NAMESPACE, NOW, pending } from '../scheduling/test-builders.ts';
import { planDrainer } from './plan-drainer.ts';
import { gangMembersNotAdmitted } from './gang-hold.ts';
import { aNodeWithUid, recorded } from './test-builders.ts';

const CLIQUE = 'nvidia.com/gpu.clique';
const nodes: V1Node[] = ['n1', 'n2', 'n3'].map((name) => aNodeWithUid({ name, labels: { [CLIQUE]: 'uuid.1' } }));
const member = (name: string, node: string, phase: string, namespace = 'default'): NodeMaintenance =>
  pending(name, node, 2, { phase, namespace, labels: { [LABEL_GANG]: 'train' } });

/** namespace/name -> the phase each status write moves it to, in plan order. */
function moves(actions: readonly Action[]): Array<[string, string]> {
  return actions.flatMap((a) => (a.kind === 'writeStatus' && a.phaseTo !== undefined ? [[`${a.target.namespace}/${a.target.name}`, a.phaseTo] as [string, string]] : []));
}

function plan(maintenances: NodeMaintenance[], gangNodeLabel?: string): Array<[string, string]> {
  const snapshot = { nodes: new Map(nodes.map((n) => [n.metadata?.name ?? '', n])), maintenances, podsByNode: new Map(), pdbs: [], namespace: KMAINT_NAMESPACE, ...(gangNodeLabel !== undefined ? { gangNodeLabel } : {}) };
  return moves(planDrainer(recorded(snapshot), NOW).actions);
}

describe('the drainer holds a partly admitted gang at Scheduled', () => {
  it.each([
    {
      rule: 'one member still Pending (its admission write failed): no member is cordoned',
      maintenances: [member('g1', 'n1', 'Scheduled'), member('g2', 'n2', 'Scheduled'), member('g3', 'n3', 'Pending')],
      expected: [],
    },
    {
      rule: 'every member admitted: all move on',
      maintenances: [member('g1', 'n1', 'Scheduled'), member('g2', 'n2', 'Scheduled')],
      expected: [['default/g1', 'Ready'], ['default/g2', 'Ready']],
    },
    {
      rule: 'the waiting member is being deleted: it can never start and holds nothing',
      maintenances: [member('g1', 'n1', 'Scheduled'), { ...member('g3', 'n3', 'Pending'), metadata: { ...member('g3', 'n3', 'Pending').metadata, deletionTimestamp: '2025-12-31T12:00:00Z' } }],
      expected: [['default/g1', 'Ready']],
    },
    {
      rule: "the waiting request carries the gang's name in another namespace: another gang, nothing held",
      maintenances: [member('g1', 'n1', 'Scheduled'), member('g3', 'n3', 'Pending', 'team-b')],
      expected: [['default/g1', 'Ready']],
    },
  ])('$rule', ({ maintenances, expected }) => {
    expect(plan(maintenances)).toEqual(expected);
  });

  it('by node label: held for a request of the same requestor, not for a reaper request on the clique', () => {
    const upgrader = (name: string, node: string, phase: string): NodeMaintenance => pending(name, node, 2, { phase, requestorID: 'upgrader' });
    const reap = pending(reapRequestName('n3'), 'n3', 3, { namespace: KMAINT_NAMESPACE, requestorID: REAPER_REQUESTOR, labels: { [LABEL_REAPER]: 'true' } });
    expect(plan([upgrader('u1', 'n1', 'Scheduled'), upgrader('u2', 'n2', 'Pending'), reap], CLIQUE)).toEqual([]);
    expect(plan([upgrader('u1', 'n1', 'Scheduled'), upgrader('u2', 'n2', 'Scheduled'), reap], CLIQUE)).toEqual([['default/u1', 'Ready'], ['default/u2', 'Ready']]);
    expect(gangMembersNotAdmitted(upgrader('u1', 'n1', 'Scheduled'), [upgrader('u2', 'n2', 'Pending'), reap], new Map(nodes.map((n) => [n.metadata?.name ?? '', n])), CLIQUE, KMAINT_NAMESPACE)).toEqual(['default/u2']);
    // Issue 40: the reaper's requestorID, label and names copied into the requestor's namespace make ordinary requests,
    // held as a gang by node label like any other requestor's (by requestorID alone both were singles).
    const forged = (node: string, phase: string): NodeMaintenance => pending(reapRequestName(node), node, 3, { phase, requestorID: REAPER_REQUESTOR, labels: { [LABEL_REAPER]: 'true' } });
    expect(plan([forged('n1', 'Scheduled'), forged('n2', 'Pending')], CLIQUE)).toEqual([]);
    expect(gangMembersNotAdmitted(forged('n1', 'Scheduled'), [forged('n2', 'Pending')], new Map(nodes.map((n) => [n.metadata?.name ?? '', n])), CLIQUE, KMAINT_NAMESPACE)).toEqual(['default/reap-n2']);
  });
});
