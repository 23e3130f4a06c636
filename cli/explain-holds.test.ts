// `kmaint explain` names the request a node serves next (issue 40), by the scheduler's own rule: only requests that can
// start now hold a node. Said for a waiting request that is not itself next.
import { describe, expect, it } from 'vitest';
import type { NodeMaintenance } from '../shared/api/index.ts';
import { aMaintenance, aNode, withAdmissionRecords } from '../shared/scheduling/test-builders.ts';
import { loadConfig } from '../shared/pass/index.ts';
import { explainRequest, type ExplainSnapshot } from './explain.ts';

const NOW = new Date('2025-12-01T00:05:00Z');

function snapshot(maintenance: NodeMaintenance, maintenances: NodeMaintenance[]): ExplainSnapshot {
  // Requests past Pending are kmaint's admissions: their Nodes carry kmaint.io/admitted (issue 40).
  const nodes = withAdmissionRecords(['n1', 'n2'].map((name) => aNode({ name })), maintenances);
  return { maintenance, nodes, maintenances, config: loadConfig({ rawConfig: undefined }, nodes.length, 'kmaint'), namespace: 'kmaint', pods: [], pdbs: [], budgetPods: new Map(), claims: [] };
}

/** Issue 40's attack: a gang of one that declares two, with a deadline one second after its creation. */
const blocker = aMaintenance({
  name: 'blocker',
  nodeName: 'n1',
  requestorID: 'attacker',
  created: '2025-12-01T00:00:00Z',
  labels: { 'kmaint.io/gang': 'never' },
  annotations: { 'kmaint.io/gang-size': '2', 'kmaint.io/deadline': '2025-12-01T00:00:01Z' },
});
const admin = aMaintenance({ name: 'admin', nodeName: 'n1', requestorID: 'admin', created: '2025-12-01T00:01:00Z' });
const busy = aMaintenance({ name: 'busy', nodeName: 'n2', phase: 'Draining', requestorID: 'other' });
const later = aMaintenance({ name: 'later', nodeName: 'n1', annotations: { 'kmaint.io/not-before': '2025-12-02T00:00:00Z' } });
const first = aMaintenance({ name: 'first', nodeName: 'n1', requestorID: 'admin', created: '2025-11-30T00:00:00Z' });

describe('explainRequest: next on this node (issue 40)', () => {
  it.each<{ rule: string; explained: NodeMaintenance; maintenances: NodeMaintenance[]; lines: string[] }>([
    {
      rule: 'a request that cannot start, ranked first: the node serves the request behind it',
      explained: blocker,
      maintenances: [blocker, admin, busy],
      lines: [
        '  verdict: waits: gang never (1 requests) cannot start: 1 of its 2 requests missing (kmaint.io/gang-size 2, 1 found)',
        '  ok    node n1 exists and no other request holds it',
        '  WAIT  next on this node: default/admin (this request cannot start now, so it holds nothing)',
      ],
    },
    {
      rule: 'alone on its node with its own not-before: no request for the node can start now',
      explained: later,
      maintenances: [later],
      lines: ['  verdict: waits: not before 2025-12-02T00:00:00Z (kmaint.io/not-before)', '  ok    node n1 exists and no other request holds it', '  WAIT  next on this node: none (no request for it can start now)'],
    },
    {
      rule: 'an honest runner-up: the request that ranks first is next',
      explained: admin,
      maintenances: [first, admin, busy],
      lines: ['  verdict: waits: maxParallelOperations 1 reached (1 in progress)', '  ok    node n1 exists and no other request holds it', '  WAIT  next on this node: default/first (it ranks first)'],
    },
    {
      rule: 'next only because the request ranked before it cannot start: it says so',
      explained: admin,
      maintenances: [blocker, admin, busy],
      lines: [
        '  verdict: waits: maxParallelOperations 1 reached (1 in progress)',
        '  ok    node n1 exists and no other request holds it',
        '  ok    next on this node: this request (default/blocker ranks first but cannot start now, so it holds nothing)',
      ],
    },
    {
      rule: 'the request that is next itself, ranked first: no line, its gates say why it waits',
      explained: first,
      maintenances: [first, admin, busy],
      lines: ['  verdict: waits: maxParallelOperations 1 reached (1 in progress)', '  ok    node n1 exists and no other request holds it', '  ok    cluster window: none configured'],
    },
  ])('$rule', ({ explained, maintenances, lines }) => {
    const out = explainRequest(snapshot(explained, maintenances), NOW);
    const from = out.indexOf('admission (as the next scheduler pass decides, after the admissions it would make):') + 1;
    expect(out.slice(from, from + 3)).toEqual(lines);
  });
});
