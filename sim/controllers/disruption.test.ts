import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { buildScaleIndex, nextPdbStatus, planPdb, scaledValue } from './disruption.ts';
import { NOW, aDeployment, aPdb, aPod, aReplicaSet, aStatefulSet, ago, checkActions, ownerRef } from './test-builders.ts';

// web/api: a Deployment of 4 through ReplicaSet api-1; data/db: a StatefulSet of 3.
const deployment = aDeployment({ name: 'api', replicas: 4 });
const rs = aReplicaSet({ name: 'api-1', replicas: 4, owner: ownerRef('Deployment', 'api') });
const index = buildScaleIndex({ deployments: [deployment], replicaSets: [rs], statefulSets: [aStatefulSet({ name: 'db', replicas: 3 })] });
const rsOwner = ownerRef('ReplicaSet', 'api-1');
const webPod = (name: string, o: Partial<Parameters<typeof aPod>[0]> = {}): V1Pod => aPod({ name, node: 'n1', owner: rsOwner, ...o });
const fourReady = ['a', 'b', 'c', 'd'].map((n) => webPod(n));

describe('scaledValue (intstr.GetScaledValueFromIntOrPercent, roundUp)', () => {
  it.each([
    ['an integer is itself', 2, 10, 2],
    ['50% of 3 rounds up to 2', '50%', 3, 2],
    ['75% of 4 is 3', '75%', 4, 3],
    ['75% of 5 rounds up to 4', '75%', 5, 4],
    ['1% of 1 rounds up to 1', '1%', 1, 1],
    ['0% is 0', '0%', 7, 0],
    ['100% of 0 is 0', '100%', 0, 0],
  ] as const)('%s', (_rule, value, total, expected) => {
    expect(scaledValue(value, total)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['a number in a string is not a percentage', '2', 'invalid value for IntOrString: invalid type: string is not a percentage'],
    ['a percentage must be an integer', 'abc%', 'invalid value for IntOrString: invalid value "abc%": strconv.Atoi: parsing "abc": invalid syntax'],
  ])('%s', (_rule, value, error) => {
    expect(scaledValue(value, 4)).toEqual({ ok: false, error });
  });
});

describe('nextPdbStatus', () => {
  it.each([
    {
      rule: 'integer minAvailable: expected = selected pods, allowed = healthy - minAvailable',
      pdb: aPdb({ minAvailable: 3 }),
      pods: fourReady,
      want: { currentHealthy: 4, desiredHealthy: 3, expectedPods: 4, disruptionsAllowed: 1 },
    },
    {
      rule: 'percent minAvailable rounds up against the controller scale (75% of 4 = 3)',
      pdb: aPdb({ minAvailable: '75%' }),
      pods: fourReady,
      want: { currentHealthy: 4, desiredHealthy: 3, expectedPods: 4, disruptionsAllowed: 1 },
    },
    {
      rule: 'percent minAvailable uses the Deployment scale, not the pods found (50% of 4 = 2, two pods missing)',
      pdb: aPdb({ minAvailable: '50%' }),
      pods: fourReady.slice(0, 2),
      want: { currentHealthy: 2, desiredHealthy: 2, expectedPods: 4, disruptionsAllowed: 0 },
    },
    {
      rule: 'integer maxUnavailable: desired = scale - maxUnavailable',
      pdb: aPdb({ maxUnavailable: 1 }),
      pods: fourReady,
      want: { currentHealthy: 4, desiredHealthy: 3, expectedPods: 4, disruptionsAllowed: 1 },
    },
    {
      rule: 'percent maxUnavailable rounds up (50% of 3 = 2, desired 1)',
      pdb: aPdb({ namespace: 'data', selector: { app: 'db' }, maxUnavailable: '50%' }),
      pods: [0, 1, 2].map((i) => aPod({ name: `db-${i}`, namespace: 'data', node: 'n1', labels: { app: 'db' }, owner: ownerRef('StatefulSet', 'db') })),
      want: { currentHealthy: 3, desiredHealthy: 1, expectedPods: 3, disruptionsAllowed: 2 },
    },
    {
      rule: 'maxUnavailable larger than the scale never makes desired negative',
      pdb: aPdb({ maxUnavailable: 9 }),
      pods: fourReady,
      want: { currentHealthy: 4, desiredHealthy: 0, expectedPods: 4, disruptionsAllowed: 4 },
    },
    {
      rule: 'terminating pods are not healthy but count as selected for integer minAvailable',
      pdb: aPdb({ minAvailable: 3 }),
      pods: [...fourReady.slice(0, 3), webPod('d', { deleting: true })],
      want: { currentHealthy: 3, desiredHealthy: 3, expectedPods: 4, disruptionsAllowed: 0 },
    },
    {
      rule: 'running but not Ready is not healthy',
      pdb: aPdb({ maxUnavailable: 1 }),
      pods: [...fourReady.slice(0, 3), webPod('d', { ready: false })],
      want: { currentHealthy: 3, desiredHealthy: 3, expectedPods: 4, disruptionsAllowed: 0 },
    },
    {
      rule: 'pods without a controller are ignored by the scale (unmanaged), still healthy',
      pdb: aPdb({ maxUnavailable: 1 }),
      pods: [...fourReady, aPod({ name: 'bare', node: 'n1' })],
      want: { currentHealthy: 5, desiredHealthy: 3, expectedPods: 4, disruptionsAllowed: 2 },
    },
    {
      rule: 'no pods selected: expectedPods 0 allows nothing',
      pdb: aPdb({ minAvailable: 0, selector: { app: 'nothing' } }),
      pods: fourReady,
      want: { currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, disruptionsAllowed: 0 },
    },
    {
      rule: 'a budget without a selector selects nothing',
      pdb: aPdb({ minAvailable: 1, selector: null }),
      pods: fourReady,
      want: { currentHealthy: 0, desiredHealthy: 1, expectedPods: 0, disruptionsAllowed: 0 },
    },
    {
      rule: 'pods of other namespaces are not selected',
      pdb: aPdb({ minAvailable: 1, namespace: 'shop' }),
      pods: fourReady,
      want: { currentHealthy: 0, desiredHealthy: 1, expectedPods: 0, disruptionsAllowed: 0 },
    },
  ])('$rule', ({ pdb, pods, want }) => {
    const status = nextPdbStatus(pdb, pods, index, NOW);
    expect(status).toMatchObject({ ...want, observedGeneration: 1 });
    expect(status?.conditions).toEqual([
      want.disruptionsAllowed > 0
        ? { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', observedGeneration: 1, lastTransitionTime: NOW }
        : { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '', observedGeneration: 1, lastTransitionTime: NOW },
    ]);
  });

  it('keeps a disrupted pod out of the healthy count for two minutes, then counts it again', () => {
    const listed = { disruptionsAllowed: 0, currentHealthy: 3, desiredHealthy: 3, expectedPods: 4, observedGeneration: 1, disruptedPods: { a: ago(30) } };
    const fresh = nextPdbStatus(aPdb({ minAvailable: 3, status: listed }), fourReady, index, NOW);
    expect(fresh).toBeUndefined(); // same counts, same disruptedPods: nothing to write
    const stale = nextPdbStatus(aPdb({ minAvailable: 3, status: { ...listed, disruptedPods: { a: ago(121) } } }), fourReady, index, NOW);
    expect(stale).toMatchObject({ currentHealthy: 4, disruptionsAllowed: 1 });
    expect(stale?.disruptedPods).toBeUndefined();
  });

  it('drops disruptedPods entries of pods that are being deleted or gone', () => {
    const status = { disruptionsAllowed: 0, currentHealthy: 3, desiredHealthy: 3, expectedPods: 4, observedGeneration: 1, disruptedPods: { a: ago(10), gone: ago(10) } };
    const pods = [webPod('a', { deleting: true }), ...fourReady.slice(1)];
    expect(nextPdbStatus(aPdb({ minAvailable: 3, status }), pods, index, NOW)).toMatchObject({ currentHealthy: 3, disruptionsAllowed: 0 });
    expect(nextPdbStatus(aPdb({ minAvailable: 3, status }), pods, index, NOW)?.disruptedPods).toBeUndefined();
  });

  it('writes nothing when counts, generation and disruptedPods are unchanged', () => {
    const status = { disruptionsAllowed: 1, currentHealthy: 4, desiredHealthy: 3, expectedPods: 4, observedGeneration: 1 };
    expect(nextPdbStatus(aPdb({ minAvailable: 3, status }), fourReady, index, NOW)).toBeUndefined();
    expect(nextPdbStatus(aPdb({ minAvailable: 3, status, generation: 2 }), fourReady, index, NOW)).toMatchObject({ observedGeneration: 2 });
  });

  it('keeps lastTransitionTime while the condition status holds', () => {
    const earlier = ago(3600);
    const status = {
      disruptionsAllowed: 1,
      currentHealthy: 4,
      desiredHealthy: 3,
      expectedPods: 4,
      observedGeneration: 1,
      conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', lastTransitionTime: earlier }],
    };
    const next = nextPdbStatus(aPdb({ maxUnavailable: 2, status }), fourReady, index, NOW);
    expect(next).toMatchObject({ disruptionsAllowed: 2 });
    expect(next?.conditions?.[0]?.lastTransitionTime).toEqual(earlier);
  });

  it.each([
    ['a DaemonSet pod under a percentage budget', aPod({ name: 'ds-1', node: 'n1', owner: ownerRef('DaemonSet', 'agent') }), 'daemonsets.apps does not implement the scale subresource'],
    ['a Job pod under maxUnavailable', aPod({ name: 'job-1', node: 'n1', owner: ownerRef('Job', 'etl') }), 'jobs.batch does not implement the scale subresource'],
    ['a pod whose ReplicaSet is gone', aPod({ name: 'orphan', node: 'n1', owner: ownerRef('ReplicaSet', 'old') }), 'found no controllers for pod "orphan"'],
  ])('fails safe on %s: nothing allowed, SyncFailed', (_rule, pod, message) => {
    const status = nextPdbStatus(aPdb({ maxUnavailable: '25%', status: { disruptionsAllowed: 1, currentHealthy: 4, desiredHealthy: 3, expectedPods: 4, observedGeneration: 1 } }), [...fourReady, pod], index, NOW);
    expect(status).toEqual({
      currentHealthy: 4,
      desiredHealthy: 3,
      expectedPods: 4,
      disruptionsAllowed: 0,
      observedGeneration: 1,
      conditions: [{ type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message, observedGeneration: 1, lastTransitionTime: NOW }],
    });
  });

  it('planPdb: one PUT carrying the snapshot resourceVersion, or nothing', () => {
    const actions = planPdb(aPdb({ minAvailable: 3 }), fourReady, index, NOW);
    checkActions(actions);
    expect(actions).toHaveLength(1);
    expect(actions[0]?.kind === 'updatePdbStatus' && actions[0].pdb.metadata?.resourceVersion).toBe('7');
    expect(actions[0]?.reason).toBe('healthy 4/4, desired 3, allowed 1');
  });
});
