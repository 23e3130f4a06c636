import type { V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { aPod } from '../drain/test-builders.ts';
import { diagnoseBudget, type BudgetDiagnosis } from './budget-diagnosis.ts';
import { BudgetLedger, budgetsToExplain } from './budgets.ts';
import { aPdb, aReadyPod } from './test-builders.ts';

/** A budget that allows nothing now, with its spec and counts. */
function held(spec: Record<string, unknown>, counts: { desired: number; healthy: number; expected: number }): V1PodDisruptionBudget {
  const pdb = aPdb({ name: 'web', disruptionsAllowed: 0, desiredHealthy: counts.desired, currentHealthy: counts.healthy, expectedPods: counts.expected });
  return { ...pdb, spec: { ...pdb.spec, ...spec } };
}

/** A Ready pod of controller `owner` (a ReplicaSet). */
function podOf(name: string, owner: string, ready = true): V1Pod {
  const pod = ready ? aReadyPod({ name, labels: { app: 'db' } }) : aPod({ name, labels: { app: 'db' } });
  return { ...pod, metadata: { ...pod.metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner, uid: `uid-${owner}`, controller: true }] } };
}

interface Row {
  rule: string;
  pdb: V1PodDisruptionBudget;
  selected?: V1Pod[];
  expected: BudgetDiagnosis;
}

const rows: Row[] = [
  {
    rule: "Slinky's workload-protection PDB (pod-protect selector, maxUnavailable 0): explained as Slinky's, not as misconfigured",
    pdb: held({ maxUnavailable: 0, selector: { matchLabels: { 'nodeset.slinky.slurm.net/pod-protect': 'true', 'slinky.slurm.net/cluster': 'slurm' } } }, { desired: 1, healthy: 1, expected: 1 }),
    expected: {
      kind: 'slinkyWorkloadProtection',
      message:
        "Slinky's workload protection of Slurm cluster slurm: it holds each slurmd pod labelled nodeset.slinky.slurm.net/pod-protect=true while its Slurm node runs jobs, and frees it when the Slurm node is Drained and Slinky removes the label",
    },
  },
  {
    rule: 'a pod-protect selector of another value is not Slinky\'s: maxUnavailable 0 is misconfigured',
    pdb: held({ maxUnavailable: 0, selector: { matchLabels: { 'nodeset.slinky.slurm.net/pod-protect': 'false' } } }, { desired: 1, healthy: 1, expected: 1 }),
    expected: { kind: 'maxUnavailableZero', message: 'misconfigured: maxUnavailable is 0, so it never allows an eviction' },
  },
  {
    rule: 'maxUnavailable: 0 never allows an eviction',
    pdb: held({ maxUnavailable: 0 }, { desired: 3, healthy: 3, expected: 3 }),
    expected: { kind: 'maxUnavailableZero', message: 'misconfigured: maxUnavailable is 0, so it never allows an eviction' },
  },
  {
    rule: 'maxUnavailable: "0%" never allows an eviction either',
    pdb: held({ maxUnavailable: '0%' }, { desired: 3, healthy: 3, expected: 3 }),
    expected: { kind: 'maxUnavailableZero', message: 'misconfigured: maxUnavailable is 0%, so it never allows an eviction' },
  },
  {
    rule: 'maxUnavailable: 0 wins over every other class (it alone would hold the pods)',
    pdb: held({ maxUnavailable: 0 }, { desired: 1, healthy: 1, expected: 1 }),
    selected: [podOf('a', 'rs-1'), podOf('b', 'rs-2')],
    expected: { kind: 'maxUnavailableZero', message: 'misconfigured: maxUnavailable is 0, so it never allows an eviction' },
  },
  {
    rule: 'pods of two controllers under one budget are named, sorted',
    pdb: held({ minAvailable: 2 }, { desired: 2, healthy: 2, expected: 2 }),
    selected: [podOf('b-1', 'rs-b'), podOf('a-1', 'rs-a')],
    expected: {
      kind: 'severalControllers',
      message: 'it covers the pods of 2 controllers (ReplicaSet default/rs-a, ReplicaSet default/rs-b); a budget should select one workload',
    },
  },
  {
    rule: 'pods of one controller (and bare pods) are not "several controllers"',
    pdb: held({ minAvailable: 3 }, { desired: 3, healthy: 3, expected: 3 }),
    selected: [podOf('a-1', 'rs-a'), podOf('a-2', 'rs-a'), aReadyPod({ name: 'bare', owner: 'none' })],
    expected: { kind: 'minAvailableTooHigh', message: 'misconfigured: minAvailable 3 is not below the 3 expected pods, so it never allows an eviction' },
  },
  {
    rule: 'a healthy single replica cannot leave, whatever the budget says',
    pdb: held({ minAvailable: 1 }, { desired: 1, healthy: 1, expected: 1 }),
    expected: { kind: 'singleReplica', message: 'a single replica: its only pod cannot leave without breaking the budget' },
  },
  {
    rule: 'a single replica by percentage (minAvailable 50% of 1 rounds up to 1)',
    pdb: held({ minAvailable: '50%' }, { desired: 1, healthy: 1, expected: 1 }),
    expected: { kind: 'singleReplica', message: 'a single replica: its only pod cannot leave without breaking the budget' },
  },
  {
    rule: 'minAvailable above the expected pods',
    pdb: held({ minAvailable: 3 }, { desired: 3, healthy: 2, expected: 2 }),
    expected: { kind: 'minAvailableTooHigh', message: 'misconfigured: minAvailable 3 is not below the 2 expected pods, so it never allows an eviction' },
  },
  {
    rule: 'minAvailable 100% equals the expected pods',
    pdb: held({ minAvailable: '100%' }, { desired: 4, healthy: 4, expected: 4 }),
    expected: { kind: 'minAvailableTooHigh', message: 'misconfigured: minAvailable 100% is not below the 4 expected pods, so it never allows an eviction' },
  },
  {
    rule: 'unhealthy pods hold it: the not-Ready ones are named, terminating ones left out',
    pdb: held({ minAvailable: 2 }, { desired: 2, healthy: 2, expected: 4 }),
    selected: [
      podOf('web-0', 'rs-a'),
      podOf('web-1', 'rs-a'),
      podOf('web-3', 'rs-a', false),
      podOf('web-2', 'rs-a', false),
      { ...podOf('web-9', 'rs-a', false), metadata: { ...podOf('web-9', 'rs-a', false).metadata, deletionTimestamp: new Date('2026-01-01T00:00:00Z') } },
    ],
    expected: { kind: 'unhealthyPods', message: 'held by unhealthy pods: 2 of the 4 expected pods are not healthy (not Ready: default/web-2, default/web-3)' },
  },
  {
    rule: 'unhealthy pods without the pods read: the count from the status',
    pdb: held({ minAvailable: 2 }, { desired: 2, healthy: 2, expected: 3 }),
    expected: { kind: 'unhealthyPods', message: 'held by unhealthy pods: 1 of the 3 expected pods is not healthy' },
  },
  {
    rule: 'pods missing because they are leaving (none unready): at its limit, not unhealthy',
    pdb: held({ maxUnavailable: 1 }, { desired: 2, healthy: 2, expected: 3 }),
    selected: [podOf('web-0', 'rs-a'), podOf('web-1', 'rs-a')],
    expected: { kind: 'atLimit', message: 'at its limit: other disruptions are in progress' },
  },
  {
    rule: 'every pod healthy, sane settings, nothing allowed: at its limit',
    pdb: held({ maxUnavailable: 1 }, { desired: 2, healthy: 3, expected: 3 }),
    expected: { kind: 'atLimit', message: 'at its limit: other disruptions are in progress' },
  },
];

describe('diagnoseBudget', () => {
  it.each(rows)('$rule', ({ pdb, selected, expected }) => {
    const before = structuredClone(pdb);

    expect(diagnoseBudget(pdb, selected)).toEqual(expected);
    expect(pdb).toEqual(before);
  });
});

describe('BudgetLedger with the pods of a blocking budget', () => {
  it('names the pod, the budget, its numbers and its class in one line', () => {
    const pdb = held({ minAvailable: 2 }, { desired: 2, healthy: 2, expected: 2 });
    const ledger = new BudgetLedger([pdb], new Map([['default/web', [podOf('b-1', 'rs-b'), podOf('a-1', 'rs-a')]]]));

    expect(ledger.decide(podOf('a-1', 'rs-a'))).toEqual({
      kind: 'blocked',
      budget: 'default/web',
      message:
        'pod default/a-1 waits for PodDisruptionBudget default/web (allows 0 disruptions: needs 2 healthy, has 2 of 2 expected): it covers the pods of 2 controllers (ReplicaSet default/rs-a, ReplicaSet default/rs-b); a budget should select one workload',
    });
  });
});

describe('budgetsToExplain', () => {
  const running = (name: string, labels: Record<string, string>, namespace = 'default'): V1Pod => aReadyPod({ name, labels, namespace });

  it.each([
    {
      rule: 'a budget at 0 covering a running pod on the node: read its pods by its selector',
      pdbs: [aPdb({ name: 'web', disruptionsAllowed: 0, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] } })],
      pods: [running('w', { app: 'web', tier: 'a' })],
      expected: [{ key: 'default/web', namespace: 'default', labelSelector: 'app=web,tier in (a,b)' }],
    },
    {
      rule: 'a budget that still allows evictions needs no explaining',
      pdbs: [aPdb({ name: 'web', disruptionsAllowed: 1, selector: { matchLabels: { app: 'web' } } })],
      pods: [running('w', { app: 'web' })],
      expected: [],
    },
    {
      rule: 'a budget covering no pod here, or only in another namespace, is not read',
      pdbs: [aPdb({ name: 'web', disruptionsAllowed: 0, selector: { matchLabels: { app: 'web' } } })],
      pods: [running('x', { app: 'other' }), running('w', { app: 'web' }, 'prod')],
      expected: [],
    },
    {
      rule: 'a budget not yet processed, or covering only finished pods, is not read',
      pdbs: [aPdb({ name: 'new', disruptionsAllowed: 0, generation: 2, observedGeneration: 1 }), aPdb({ name: 'done', disruptionsAllowed: 0 })],
      pods: [aPod({ name: 'finished', labels: { app: 'db' }, phase: 'Succeeded' })],
      expected: [],
    },
    {
      rule: 'an empty selector reads the whole namespace (labelSelector "")',
      pdbs: [aPdb({ name: 'all', disruptionsAllowed: 0, selector: {} })],
      pods: [running('w', {})],
      expected: [{ key: 'default/all', namespace: 'default', labelSelector: '' }],
    },
  ])('$rule', ({ pdbs, pods, expected }) => {
    expect(budgetsToExplain(pdbs, pods)).toEqual(expected);
  });
});
