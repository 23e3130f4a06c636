import type { V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { aPod } from '../drain/test-builders.ts';
import { BudgetLedger, budgetKey, budgetNumbers, type BudgetDecision } from './budgets.ts';
import { aPdb, aReadyPod } from './test-builders.ts';

const db = { app: 'db' };
const dbPod = (name: string): V1Pod => aReadyPod({ name, labels: db });
const unreadyDbPod = (name: string): V1Pod => aPod({ name, labels: db });

const SPEND: BudgetDecision = { kind: 'spend', budget: 'default/db-pdb' };
const FREE: BudgetDecision = { kind: 'free' };
const FREE_UNDER_BUDGET: BudgetDecision = { kind: 'free', budget: 'default/db-pdb' };
const NOT_PROCESSED: BudgetDecision = { kind: 'blocked', budget: 'default/db-pdb', message: 'pod default/a waits for PodDisruptionBudget default/db-pdb (not yet processed by the disruption controller)' };
const AT_LIMIT = 'at its limit: other disruptions are in progress';
const blocked = (pod: string, why: string, diagnosis: string): BudgetDecision => ({
  kind: 'blocked',
  budget: 'default/db-pdb',
  message: `pod default/${pod} waits for PodDisruptionBudget default/db-pdb (${why}): ${diagnosis}`,
});

interface Row {
  rule: string;
  pdbs: V1PodDisruptionBudget[];
  /** Decided in this order against one ledger. */
  pods: V1Pod[];
  decisions: BudgetDecision[];
}

// The eviction subresource's rules (pkg/registry/core/pod/storage/eviction.go, Kubernetes 1.35), one per row.
const rows: Row[] = [
  { rule: 'a pod no budget covers is evicted freely', pdbs: [], pods: [dbPod('a')], decisions: [FREE] },
  {
    rule: 'a budget in another namespace does not cover the pod',
    pdbs: [aPdb({ name: 'db-pdb', namespace: 'other', disruptionsAllowed: 0 })],
    pods: [dbPod('a')],
    decisions: [FREE],
  },
  {
    rule: 'a budget whose selector does not match the pod does not cover it',
    pdbs: [aPdb({ name: 'db-pdb', selector: { matchLabels: { app: 'web' } }, disruptionsAllowed: 0 })],
    pods: [dbPod('a')],
    decisions: [FREE],
  },
  {
    rule: 'a budget without a selector (nil) covers no pod',
    pdbs: [aPdb({ name: 'db-pdb', selector: null, disruptionsAllowed: 0 })],
    pods: [dbPod('a')],
    decisions: [FREE],
  },
  {
    rule: 'a budget with an empty selector ({}) covers every pod in its namespace (policy/v1)',
    pdbs: [aPdb({ name: 'db-pdb', selector: {}, disruptionsAllowed: 0, desiredHealthy: 2, currentHealthy: 2 })],
    pods: [aReadyPod({ name: 'unlabelled' })],
    decisions: [blocked('unlabelled', 'allows 0 disruptions: needs 2 healthy, has 2 of 2 expected', AT_LIMIT)],
  },
  {
    rule: 'a budget with an invalid selector covers no pod',
    pdbs: [aPdb({ name: 'db-pdb', selector: { matchExpressions: [{ key: 'app', operator: 'Gt', values: ['1'] }] }, disruptionsAllowed: 0 })],
    pods: [dbPod('a')],
    decisions: [FREE],
  },
  {
    rule: 'matchExpressions select like matchLabels',
    pdbs: [aPdb({ name: 'db-pdb', selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['db', 'cache'] }] } })],
    pods: [dbPod('a')],
    decisions: [SPEND],
  },
  {
    rule: 'a pod covered by two budgets is refused (the server answers 500)',
    pdbs: [aPdb({ name: 'p2' }), aPdb({ name: 'p1', selector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] } })],
    pods: [dbPod('a')],
    decisions: [
      {
        kind: 'refused',
        budget: 'default/p1, default/p2',
        message: 'pod default/a is covered by more than one PodDisruptionBudget (default/p1, default/p2); the eviction API refuses it',
      },
    ],
  },
  {
    rule: 'a budget allowing 1 disruption grants one eviction per pass, then blocks with its numbers',
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: 1 })],
    pods: [dbPod('a'), dbPod('b')],
    decisions: [SPEND, blocked('b', 'allows 1 disruptions: needs 1 healthy, has 2 of 2 expected', AT_LIMIT)],
  },
  {
    rule: 'a budget allowing 2 disruptions grants two evictions, then blocks',
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: 2, desiredHealthy: 1, currentHealthy: 3, expectedPods: 3 })],
    pods: [dbPod('a'), dbPod('b'), dbPod('c')],
    decisions: [SPEND, SPEND, blocked('c', 'allows 2 disruptions: needs 1 healthy, has 3 of 3 expected', AT_LIMIT)],
  },
  {
    rule: 'a budget allowing 0 disruptions blocks a healthy pod (429)',
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: 0, desiredHealthy: 2, currentHealthy: 2 })],
    pods: [dbPod('a')],
    decisions: [blocked('a', 'allows 0 disruptions: needs 2 healthy, has 2 of 2 expected', AT_LIMIT)],
  },
  {
    rule: 'a negative disruptionsAllowed blocks (the server answers 403)',
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: -1, desiredHealthy: 2, currentHealthy: 1 })],
    pods: [dbPod('a')],
    decisions: [blocked('a', 'allows -1 disruptions: needs 2 healthy, has 1 of 2 expected', 'held by unhealthy pods: 1 of the 2 expected pods is not healthy')],
  },
  {
    rule: 'a budget the disruption controller has not observed yet blocks even with allowance (429)',
    pdbs: [aPdb({ name: 'db-pdb', generation: 2, observedGeneration: 1, disruptionsAllowed: 5 })],
    pods: [dbPod('a')],
    decisions: [NOT_PROCESSED],
  },
  {
    rule: 'a budget without observedGeneration counts as not observed',
    pdbs: [{ ...aPdb({ name: 'db-pdb', disruptionsAllowed: 5 }), status: { disruptionsAllowed: 5, desiredHealthy: 1, currentHealthy: 2, expectedPods: 2 } }],
    pods: [dbPod('a')],
    decisions: [NOT_PROCESSED],
  },
  {
    rule: 'an unready pod goes free (IfHealthyBudget) while the application is healthy: currentHealthy >= desiredHealthy > 0',
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: 0, desiredHealthy: 2, currentHealthy: 2 })],
    pods: [unreadyDbPod('sick'), dbPod('a')],
    decisions: [FREE_UNDER_BUDGET, blocked('a', 'allows 0 disruptions: needs 2 healthy, has 2 of 2 expected', AT_LIMIT)],
  },
  {
    rule: 'an unready pod goes free under IfHealthyBudget even before the budget is observed',
    pdbs: [aPdb({ name: 'db-pdb', generation: 3, observedGeneration: 2, disruptionsAllowed: 0, desiredHealthy: 1, currentHealthy: 1, unhealthyPodEvictionPolicy: 'IfHealthyBudget' })],
    pods: [unreadyDbPod('sick')],
    decisions: [FREE_UNDER_BUDGET],
  },
  {
    rule: 'an unready pod of a disrupted application (currentHealthy < desiredHealthy) needs the budget',
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: 0, desiredHealthy: 2, currentHealthy: 1 })],
    pods: [unreadyDbPod('sick')],
    decisions: [blocked('sick', 'allows 0 disruptions: needs 2 healthy, has 1 of 2 expected', 'held by unhealthy pods: 1 of the 2 expected pods is not healthy')],
  },
  {
    rule: 'an unready pod spends the budget when desiredHealthy is 0',
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: 1, desiredHealthy: 0, currentHealthy: 0 })],
    pods: [unreadyDbPod('sick'), unreadyDbPod('sick-2')],
    decisions: [SPEND, blocked('sick-2', 'allows 1 disruptions: needs 0 healthy, has 0 of 2 expected', 'held by unhealthy pods: 2 of the 2 expected pods are not healthy')],
  },
  {
    rule: 'an unready pod goes free under AlwaysAllow, whatever the budget says',
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: 0, desiredHealthy: 2, currentHealthy: 0, unhealthyPodEvictionPolicy: 'AlwaysAllow' })],
    pods: [unreadyDbPod('sick'), unreadyDbPod('sick-2')],
    decisions: [FREE_UNDER_BUDGET, FREE_UNDER_BUDGET],
  },
  {
    rule: 'AlwaysAllow lets an unready pod go even before the budget is observed',
    pdbs: [aPdb({ name: 'db-pdb', generation: 2, observedGeneration: 1, disruptionsAllowed: 0, unhealthyPodEvictionPolicy: 'AlwaysAllow' })],
    pods: [unreadyDbPod('sick')],
    decisions: [FREE_UNDER_BUDGET],
  },
  {
    rule: 'AlwaysAllow does not free a healthy pod',
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: 0, desiredHealthy: 2, currentHealthy: 2, unhealthyPodEvictionPolicy: 'AlwaysAllow' })],
    pods: [dbPod('a')],
    decisions: [blocked('a', 'allows 0 disruptions: needs 2 healthy, has 2 of 2 expected', AT_LIMIT)],
  },
  {
    rule: 'a pod whose Ready condition is False counts as unready',
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: 0, unhealthyPodEvictionPolicy: 'AlwaysAllow' })],
    pods: [{ ...unreadyDbPod('sick'), status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] } }],
    decisions: [FREE_UNDER_BUDGET],
  },
  {
    rule: 'free evictions do not use up the allowance',
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: 1, desiredHealthy: 1, currentHealthy: 2 })],
    pods: [unreadyDbPod('sick'), dbPod('a'), dbPod('b')],
    decisions: [FREE_UNDER_BUDGET, SPEND, blocked('b', 'allows 1 disruptions: needs 1 healthy, has 2 of 2 expected', AT_LIMIT)],
  },
  {
    rule: 'each budget keeps its own allowance',
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: 1 }), aPdb({ name: 'web-pdb', selector: { matchLabels: { app: 'web' } }, disruptionsAllowed: 1 })],
    pods: [dbPod('a'), aReadyPod({ name: 'w', labels: { app: 'web' } }), dbPod('b')],
    decisions: [SPEND, { kind: 'spend', budget: 'default/web-pdb' }, blocked('b', 'allows 1 disruptions: needs 1 healthy, has 2 of 2 expected', AT_LIMIT)],
  },
  {
    rule: 'a Pending pod is deleted without a budget check (canIgnorePDB)',
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: 0 })],
    pods: [aPod({ name: 'starting', labels: db, phase: 'Pending' }), dbPod('a')],
    decisions: [FREE, blocked('a', 'allows 0 disruptions: needs 1 healthy, has 2 of 2 expected', AT_LIMIT)],
  },
  {
    rule: 'Succeeded and Failed pods are deleted without a budget check',
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: 0 })],
    pods: [aPod({ name: 'done', labels: db, phase: 'Succeeded' }), aPod({ name: 'crashed', labels: db, phase: 'Failed' })],
    decisions: [FREE, FREE],
  },
  {
    rule: 'a terminating pod is deleted without a budget check, even under two budgets',
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: 0 }), aPdb({ name: 'all', selector: {} })],
    pods: [{ ...dbPod('leaving'), metadata: { ...dbPod('leaving').metadata, deletionTimestamp: new Date('2026-01-01T00:00:00Z') } }],
    decisions: [FREE],
  },
];

describe('BudgetLedger', () => {
  it.each(rows)('$rule', ({ pdbs, pods, decisions }) => {
    const ledger = new BudgetLedger(pdbs);

    expect(pods.map((pod) => ledger.decide(pod))).toEqual(decisions);
  });

  it('does not change the budgets it was given', () => {
    const pdbs = [aPdb({ name: 'db-pdb', disruptionsAllowed: 1 })];
    const before = structuredClone(pdbs);

    new BudgetLedger(pdbs).decide(dbPod('a'));

    expect(pdbs).toEqual(before);
  });

  it('decides the same in every pass that reads the same budget objects (the parsed selector is reused)', () => {
    const pdbs = [aPdb({ name: 'db-pdb', disruptionsAllowed: 1 }), aPdb({ name: 'bad', selector: { matchLabels: { 'bad key!': 'x' } }, disruptionsAllowed: 0 })];
    const passes = [1, 2].map(() => {
      const ledger = new BudgetLedger(pdbs);
      return [dbPod('a'), dbPod('b')].map((pod) => ledger.decide(pod));
    });

    expect(passes).toEqual([
      [SPEND, blocked('b', 'allows 1 disruptions: needs 1 healthy, has 2 of 2 expected', AT_LIMIT)],
      [SPEND, blocked('b', 'allows 1 disruptions: needs 1 healthy, has 2 of 2 expected', AT_LIMIT)],
    ]);
  });
});

describe('budgetKey and budgetNumbers', () => {
  it.each([
    { rule: 'a full status', pdb: aPdb({ name: 'db-pdb', namespace: 'prod', disruptionsAllowed: 1, desiredHealthy: 2, currentHealthy: 3, expectedPods: 3 }), key: 'prod/db-pdb', numbers: 'allows 1 disruptions: needs 2 healthy, has 3 of 3 expected' },
    { rule: 'no status yet reads as zeros', pdb: { metadata: { name: 'new', namespace: 'prod' }, spec: {} }, key: 'prod/new', numbers: 'allows 0 disruptions: needs 0 healthy, has 0 of 0 expected' },
  ])('$rule', ({ pdb, key, numbers }) => {
    expect(budgetKey(pdb)).toBe(key);
    expect(budgetNumbers(pdb)).toBe(numbers);
  });
});
