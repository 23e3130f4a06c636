import { describe, expect, it } from 'vitest';
import type { MaintenanceOperatorConfig, NodeMaintenance } from '../shared/api/index.ts';
import { aPod } from '../shared/drain/test-builders.ts';
import { aPdb, aReadyPod } from '../shared/lifecycle/test-builders.ts';
import { aMaintenance, aNode, withAdmissionRecords } from '../shared/scheduling/test-builders.ts';
import { loadConfig, type KmaintConfig } from '../shared/pass/index.ts';
import { explainDocument } from './explain-document.ts';
import type { ExplainSnapshot } from './explain.ts';

const NOW = new Date('2025-12-01T00:05:00Z');
const ZONE = 'topology.kubernetes.io/zone';
const config = (spec: Record<string, unknown>): KmaintConfig => loadConfig({ rawConfig: { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'MaintenanceOperatorConfig', metadata: { name: 'default', namespace: 'kmaint' }, spec } as MaintenanceOperatorConfig }, 3, 'kmaint');

function snapshot(maintenance: NodeMaintenance, more: Partial<ExplainSnapshot> = {}): ExplainSnapshot {
  const s: ExplainSnapshot = { maintenance, nodes: [], maintenances: [maintenance], config: loadConfig({ rawConfig: undefined }, 0, 'kmaint'), namespace: 'kmaint', pods: [], pdbs: [], budgetPods: new Map(), claims: [], ...more };
  return { ...s, nodes: withAdmissionRecords(s.nodes, s.maintenances) };
}

describe('explainDocument (kmaint explain -o json|yaml)', () => {
  it('a request waiting for admission: its gates as checks, each WAIT with its gate, the stage that holds it and what comes next', () => {
    const nodes = ['n1', 'n2', 'n3'].map((name) => aNode({ name, labels: { [ZONE]: name === 'n3' ? 'b' : 'a' } }));
    const busy = aMaintenance({ name: 'busy', nodeName: 'n1', phase: 'Draining' });
    const waiting = aMaintenance({ name: 'waiting', nodeName: 'n2', message: 'waiting: maxParallelOperations 1 reached (1 in progress)' });
    const s = snapshot(waiting, { nodes, maintenances: [busy, waiting], config: config({ maxParallelOperations: 1, maxUnavailable: 2, maxUnavailablePerZone: 1 }) });
    expect(explainDocument(s, NOW)).toEqual({
      apiVersion: 'kmaint.io/v1',
      kind: 'Explanation',
      request: 'default/waiting',
      node: 'n2',
      requestor: 'requestor-a',
      phase: 'Pending',
      deleting: false,
      ready: 'waiting: maxParallelOperations 1 reached (1 in progress)',
      stage: 'admission',
      sections: [
        {
          title: 'admission (as the next scheduler pass decides, after the admissions it would make)',
          checks: [
            { kind: 'verdict', text: 'waits: maxParallelOperations 1 reached (1 in progress)' },
            { kind: 'ok', text: 'node n2 exists and no other request holds it' },
            { kind: 'ok', text: 'cluster window: none configured' },
            { kind: 'WAIT', text: 'maxParallelOperations 1 reached (1 in progress)' },
            { kind: 'ok', text: 'maxUnavailable 2: 1 under maintenance + 0 cordoned or not ready' },
            { kind: 'WAIT', text: 'zone a: maxUnavailablePerZone 1 reached (1 under maintenance + 0 cordoned or not ready)' },
          ],
        },
      ],
      waits: [
        { gate: 'admission', kind: 'WAIT', text: 'maxParallelOperations 1 reached (1 in progress)', refusal: { gate: 'parallel', kind: 'limit' } },
        { gate: 'admission', kind: 'WAIT', text: 'zone a: maxUnavailablePerZone 1 reached (1 under maintenance + 0 cordoned or not ready)', refusal: { gate: 'zone', kind: 'limit' } },
      ],
      holders: [],
      next: ['a request in progress must finish (its requestor deletes it, cleanup releases the node): default/busy (n1, Draining)'],
    });
  });

  it('draining: the pod a budget holds is a holder with why; the others are checks; the budget says what comes next', () => {
    const nm = aMaintenance({ name: 'drain', nodeName: 'n1', phase: 'Draining', message: 'draining: 2 of 3 pods left' });
    nm.spec.drainSpec = { force: true, podSelector: '' };
    const pods = [
      aReadyPod({ name: 'db-0', namespace: 'data', labels: { app: 'db' }, nodeName: 'n1' }),
      aReadyPod({ name: 'web-0', namespace: 'web', labels: { app: 'web' }, nodeName: 'n1' }),
      aPod({ name: 'agent', namespace: 'kube-system', owner: 'DaemonSet', nodeName: 'n1' }),
    ];
    const pdb = aPdb({ name: 'db', namespace: 'data', disruptionsAllowed: 0, desiredHealthy: 2, currentHealthy: 2, expectedPods: 3 });
    const doc = explainDocument(snapshot(nm, { nodes: [aNode({ name: 'n1', unschedulable: true })], pods, pdbs: [pdb] }), NOW);
    const numbers = 'allows 0 disruptions: needs 2 healthy, has 2 of 3 expected';
    const why = 'held by unhealthy pods: 1 of the 3 expected pods is not healthy';
    expect([doc.phase, doc.stage, doc.waits, doc.holders, doc.next, doc.sections.map((x) => [x.title, x.checks.map((c) => c.kind)])]).toEqual([
      'Draining',
      'pods',
      [],
      [{ pod: 'data/db-0', text: `waits for PodDisruptionBudget data/db (${numbers}): ${why}` }],
      [`PodDisruptionBudget data/db must allow a disruption (${numbers}; ${why}); then the drainer evicts data/db-0`],
      [['pods on node n1 (3)', ['HELD', 'stays', 'evict']]],
    ]);
  });

  it('Ready: no section holds it; the phase says what comes next', () => {
    const nm = aMaintenance({ name: 'done', nodeName: 'n1', phase: 'Ready' });
    const doc = explainDocument(snapshot(nm, { nodes: [aNode({ name: 'n1', unschedulable: true })] }), NOW);
    expect([doc.phase, doc.stage, doc.sections, doc.waits, doc.next]).toEqual(['Ready', 'phase', [], [], ['the requestor (requestor-a) does its work and deletes the request; cleanup then uncordons node n1 (only if kmaint cordoned it)']]);
  });
});
