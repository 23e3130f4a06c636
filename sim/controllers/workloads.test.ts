import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { planDaemonSet } from './daemonset.ts';
import { planDeployment } from './deployment.ts';
import { planJob } from './job.ts';
import { templateHash } from './pod-template.ts';
import { deletionOrder, planReplicaSet } from './replicaset.ts';
import { planStatefulSet } from './statefulset.ts';
import { NOW, aDaemonSet, aDeployment, aJob, aNode, aPod, aReplicaSet, aStatefulSet, ago, checkActions, ownerRef, summarize } from './test-builders.ts';

describe('templateHash', () => {
  it('is ten characters of the safe alphabet, stable, and changes with the template', () => {
    const t = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image: 'pause' }] } };
    const h = templateHash(t);
    expect(h).toMatch(/^[4-9bcdf]{6,10}$/);
    expect(templateHash(structuredClone(t))).toBe(h);
    expect(templateHash({ ...t, metadata: { labels: { app: 'api' } } })).not.toBe(h);
    expect(templateHash(t, 1)).not.toBe(h);
  });
});

describe('planReplicaSet', () => {
  const owner = ownerRef('ReplicaSet', 'web-1');
  const pod = (name: string, o: Partial<Parameters<typeof aPod>[0]> = {}): V1Pod => aPod({ name, owner, node: 'n1', ...o });
  const counts = { replicas: 0, fullyLabeledReplicas: 0, readyReplicas: 0, availableReplicas: 0, terminatingReplicas: 0, observedGeneration: 1 };

  it.each([
    { rule: 'creates the missing replicas with generateName', replicas: 3, pods: [pod('a')], want: ['create web-1-*', 'create web-1-*', 'status replicasets web-1'] },
    { rule: 'a terminating pod is replaced at once (it is not active)', replicas: 2, pods: [pod('a'), pod('b', { deleting: true })], want: ['create web-1-*', 'status replicasets web-1'] },
    { rule: 'a finished pod is replaced', replicas: 1, pods: [pod('a', { phase: 'Failed' })], want: ['create web-1-*', 'status replicasets web-1'] },
    { rule: 'pods of other owners do not count', replicas: 1, pods: [aPod({ name: 'x', owner: ownerRef('ReplicaSet', 'other') })], want: ['create web-1-*', 'status replicasets web-1'] },
    {
      rule: 'extras go unscheduled first, then not ready, then newest',
      replicas: 1,
      pods: [pod('ready-old', { created: ago(900) }), pod('ready-new', { created: ago(10) }), pod('unready', { ready: false }), pod('pending', { node: undefined, phase: 'Pending' })],
      want: ['delete pending', 'delete unready', 'delete ready-new', 'status replicasets web-1'],
    },
  ])('$rule', ({ replicas, pods, want }) => {
    const actions = planReplicaSet(aReplicaSet({ name: 'web-1', replicas }), pods);
    checkActions(actions);
    expect(summarize(actions)).toEqual(want);
  });

  it('new pods carry the template labels and the ReplicaSet as controller', () => {
    const [create] = planReplicaSet(aReplicaSet({ name: 'web-1', replicas: 1, hash: 'abc' }), []);
    expect(create?.kind === 'createPod' && create.pod.metadata).toEqual({
      namespace: 'web',
      generateName: 'web-1-',
      labels: { app: 'web', 'pod-template-hash': 'abc' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'uid-web-1', controller: true, blockOwnerDeletion: true }],
    });
  });

  it('reports status only when a count changed', () => {
    const status = { ...counts, replicas: 1, fullyLabeledReplicas: 1, readyReplicas: 1, availableReplicas: 1 };
    expect(planReplicaSet(aReplicaSet({ name: 'web-1', replicas: 1, status }), [pod('a')])).toEqual([]);
    const actions = planReplicaSet(aReplicaSet({ name: 'web-1', replicas: 1, status }), [pod('a', { ready: false })]);
    expect(actions).toEqual([{ kind: 'patchStatus', resource: 'replicasets', target: { namespace: 'web', name: 'web-1', uid: 'uid-web-1' }, status: { ...status, readyReplicas: 0, availableReplicas: 0 }, reason: 'replica counts changed' }]);
  });

  it('deletionOrder is total: equal pods fall back to namespace/name', () => {
    const [a, b] = [pod('a', { created: NOW }), pod('b', { created: NOW })] as [V1Pod, V1Pod];
    expect(deletionOrder(a, b)).toBeLessThan(0);
    expect(deletionOrder(b, a)).toBeGreaterThan(0);
  });
});

describe('planDeployment', () => {
  const d = aDeployment({ name: 'web', replicas: 3 });
  const hash = templateHash(d.spec?.template);
  const mine = (name: string, replicas: number, h: string, image?: string) => aReplicaSet({ name, replicas, hash: h, owner: ownerRef('Deployment', 'web'), ...(image ? { image } : {}) });

  it.each([
    { rule: 'no ReplicaSet: create <name>-<hash>', rss: [], want: [`create rs web-${hash}`, 'status deployments web'] },
    { rule: 'the current ReplicaSet is scaled to the wanted replicas', rss: [mine(`web-${hash}`, 1, hash)], want: [`scale web-${hash} 3`, 'status deployments web'] },
    { rule: 'older templates are scaled to zero at once', rss: [mine('web-old', 3, 'old', 'pause:old'), mine(`web-${hash}`, 3, hash)], want: ['scale web-old 0', 'status deployments web'] },
    { rule: 'the current ReplicaSet is found by its template, whatever hash named it', rss: [mine('web-abc', 3, 'abc')], want: ['status deployments web'] },
    { rule: 'a ReplicaSet owned by another Deployment is not ours', rss: [aReplicaSet({ name: `web-${hash}`, replicas: 3, hash, owner: ownerRef('Deployment', 'other') })], want: [`create rs web-${hash}`, 'status deployments web'] },
  ])('$rule', ({ rss, want }) => {
    const actions = planDeployment(d, rss);
    checkActions(actions);
    expect(summarize(actions)).toEqual(want);
  });

  it('the new ReplicaSet selects and labels its pods by pod-template-hash, revision 1', () => {
    const [create] = planDeployment(d, []);
    const rs = create?.kind === 'createReplicaSet' ? create.replicaSet : undefined;
    expect(rs?.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('1');
    expect(rs?.spec?.selector.matchLabels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs?.spec?.template?.metadata?.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs?.spec?.replicas).toBe(3);
    expect(rs?.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name: 'web', controller: true });
  });

  it('replicas default to 1', () => {
    const [create] = planDeployment(aDeployment({ name: 'web' }), []);
    expect(create?.kind === 'createReplicaSet' && create.replicaSet.spec?.replicas).toBe(1);
  });
});

describe('planStatefulSet', () => {
  const owner = ownerRef('StatefulSet', 'db');
  const member = (i: number, o: Partial<Parameters<typeof aPod>[0]> = {}): V1Pod => aPod({ name: `db-${i}`, namespace: 'data', owner, node: 'n1', ...o });

  it.each([
    { rule: 'OrderedReady creates the lowest missing ordinal, one at a time', parallel: false, pods: [], want: ['create db-0', 'status statefulsets db'] },
    { rule: 'it waits until the previous pod is Running and Ready', parallel: false, pods: [member(0, { ready: false })], want: ['status statefulsets db'] },
    { rule: 'then creates the next', parallel: false, pods: [member(0)], want: ['create db-1', 'status statefulsets db'] },
    { rule: 'a terminating member is recreated under its name only once gone', parallel: false, pods: [member(0), member(1, { deleting: true }), member(2)], want: ['status statefulsets db'] },
    { rule: 'a missing middle ordinal is recreated', parallel: false, pods: [member(0), member(2)], want: ['create db-1', 'status statefulsets db'] },
    { rule: 'a failed member is deleted (recreated next round)', parallel: false, pods: [member(0, { phase: 'Failed' }), member(1), member(2)], want: ['delete db-0', 'status statefulsets db'] },
    { rule: 'Parallel creates every missing ordinal at once', parallel: true, pods: [], want: ['create db-0', 'create db-1', 'create db-2', 'status statefulsets db'] },
    { rule: 'scale down removes the highest ordinal first, one at a time', parallel: false, pods: [0, 1, 2, 3, 4].map((i) => member(i)), want: ['delete db-4', 'status statefulsets db'] },
  ])('$rule', ({ parallel, pods, want }) => {
    const actions = planStatefulSet(aStatefulSet({ name: 'db', replicas: 3, parallel }), pods);
    checkActions(actions);
    expect(summarize(actions)).toEqual(want);
  });

  it('members carry their identity labels, hostname and subdomain', () => {
    const [create] = planStatefulSet(aStatefulSet({ name: 'db', replicas: 3 }), []);
    const pod = create?.kind === 'createPod' ? create.pod : undefined;
    expect(pod?.metadata?.labels).toMatchObject({ app: 'db', 'statefulset.kubernetes.io/pod-name': 'db-0', 'apps.kubernetes.io/pod-index': '0' });
    expect(pod?.metadata?.labels?.['controller-revision-hash']).toMatch(/^db-[4-9bcdf]+$/);
    expect(pod?.spec).toMatchObject({ hostname: 'db-0', subdomain: 'db' });
  });
});

describe('planDaemonSet', () => {
  const gpuTaint = { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' };
  const nodes = [
    aNode({ name: 'cp', labels: { pool: 'control-plane' }, taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] }),
    aNode({ name: 'g1', labels: { pool: 'general' } }),
    aNode({ name: 'g2', labels: { pool: 'general' }, unschedulable: true }),
    aNode({ name: 'gpu', labels: { pool: 'gpu' }, taints: [gpuTaint] }),
  ];
  const owner = ownerRef('DaemonSet', 'agent');
  const dsPod = (name: string, node: string, o: Partial<Parameters<typeof aPod>[0]> = {}): V1Pod => aPod({ name, namespace: 'ops', owner, node, ...o });

  it.each([
    { rule: 'one pod per untainted node, cordoned ones included', ds: aDaemonSet({ name: 'agent' }), pods: [], want: ['create agent-* on g1', 'create agent-* on g2'] },
    { rule: 'tolerating everything reaches tainted nodes', ds: aDaemonSet({ name: 'agent', tolerations: [{ operator: 'Exists' }] }), pods: [], want: ['create agent-* on cp', 'create agent-* on g1', 'create agent-* on g2', 'create agent-* on gpu'] },
    { rule: 'the nodeSelector limits the nodes', ds: aDaemonSet({ name: 'agent', nodeSelector: { pool: 'gpu' }, tolerations: [{ operator: 'Exists' }] }), pods: [], want: ['create agent-* on gpu'] },
    { rule: 'a pod pinned but not yet bound counts for its node', ds: aDaemonSet({ name: 'agent' }), pods: [aPod({ name: 'agent-x', namespace: 'ops', owner, pinnedTo: 'g1' })], want: ['create agent-* on g2'] },
    { rule: 'a terminating pod is replaced only once gone', ds: aDaemonSet({ name: 'agent' }), pods: [dsPod('agent-a', 'g1', { deleting: true }), dsPod('agent-b', 'g2')], want: [] },
    { rule: 'of two pods on a node the oldest stays', ds: aDaemonSet({ name: 'agent' }), pods: [dsPod('agent-new', 'g1', { created: ago(5) }), dsPod('agent-old', 'g1', { created: ago(50) }), dsPod('agent-b', 'g2')], want: ['delete agent-new'] },
    { rule: 'a pod on a node that no longer matches the selector is deleted', ds: aDaemonSet({ name: 'agent', nodeSelector: { pool: 'general' } }), pods: [dsPod('agent-a', 'g1'), dsPod('agent-b', 'g2'), dsPod('agent-c', 'gpu')], want: ['delete agent-c'] },
    { rule: 'a running pod stays on a node that gained a NoSchedule taint', ds: aDaemonSet({ name: 'agent' }), pods: [dsPod('agent-a', 'g1'), dsPod('agent-b', 'g2'), dsPod('agent-c', 'cp')], want: [] },
    { rule: 'a pod pinned to a node that is gone is deleted', ds: aDaemonSet({ name: 'agent' }), pods: [dsPod('agent-a', 'g1'), dsPod('agent-b', 'g2'), aPod({ name: 'agent-z', namespace: 'ops', owner, pinnedTo: 'gone' })], want: ['delete agent-z'] },
  ])('$rule', ({ ds, pods, want }) => {
    const actions = planDaemonSet(ds, nodes, pods).filter((a) => a.kind !== 'patchStatus');
    checkActions(actions);
    expect(
      actions.map((a) => {
        if (a.kind !== 'createPod') return summarize([a])[0];
        const pinned = a.pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchFields?.[0]?.values?.[0];
        return `create ${a.pod.metadata?.generateName ?? ''}* on ${pinned ?? '?'}`;
      }),
    ).toEqual(want);
  });

  it('new pods tolerate what every DaemonSet pod tolerates, unschedulable included', () => {
    const [create] = planDaemonSet(aDaemonSet({ name: 'agent' }), [aNode({ name: 'g1' })], []);
    const tolerations = create?.kind === 'createPod' ? create.pod.spec?.tolerations : undefined;
    expect(tolerations?.map((t) => `${t.key ?? ''}:${t.effect ?? ''}`)).toEqual([
      'node.kubernetes.io/not-ready:NoExecute',
      'node.kubernetes.io/unreachable:NoExecute',
      'node.kubernetes.io/disk-pressure:NoSchedule',
      'node.kubernetes.io/memory-pressure:NoSchedule',
      'node.kubernetes.io/pid-pressure:NoSchedule',
      'node.kubernetes.io/unschedulable:NoSchedule',
    ]);
  });

  it('status counts desired, scheduled, misscheduled and ready nodes', () => {
    const actions = planDaemonSet(aDaemonSet({ name: 'agent' }), nodes, [dsPod('agent-a', 'g1'), dsPod('agent-c', 'cp', { ready: false })]);
    const status = actions.find((a) => a.kind === 'patchStatus');
    expect(status?.kind === 'patchStatus' && status.status).toEqual({
      desiredNumberScheduled: 2,
      currentNumberScheduled: 1,
      numberMisscheduled: 1,
      numberReady: 1,
      numberAvailable: 1,
      numberUnavailable: 1,
      updatedNumberScheduled: 1,
      observedGeneration: 1,
    });
  });
});

describe('planJob', () => {
  const owner = ownerRef('Job', 'etl');
  const jobPod = (name: string, phase: 'Running' | 'Succeeded' | 'Failed', o: Partial<Parameters<typeof aPod>[0]> = {}): V1Pod => aPod({ name, namespace: 'batch', owner, node: 'n1', phase, ...o });

  it.each([
    { rule: 'starts parallelism pods', job: aJob({ name: 'etl', completions: 4, parallelism: 2 }), pods: [], want: ['create etl-*', 'create etl-*', 'status jobs etl'] },
    { rule: 'never more than the completions left', job: aJob({ name: 'etl', completions: 3, parallelism: 5 }), pods: [jobPod('a', 'Succeeded'), jobPod('b', 'Succeeded')], want: ['create etl-*', 'status jobs etl'] },
    { rule: 'a deleted running pod is replaced at once', job: aJob({ name: 'etl' }), pods: [jobPod('a', 'Running', { deleting: true })], want: ['create etl-*', 'status jobs etl'] },
    { rule: 'completions reached: Complete, no new pods', job: aJob({ name: 'etl' }), pods: [jobPod('a', 'Succeeded')], want: ['status jobs etl'] },
    { rule: 'a finished job is left alone', job: aJob({ name: 'etl', status: { conditions: [{ type: 'Complete', status: 'True' }] } }), pods: [], want: [] },
    { rule: 'succeeded never goes down when a finished pod is removed', job: aJob({ name: 'etl', completions: 2, status: { succeeded: 1, active: 1, ready: 1, startTime: NOW } }), pods: [jobPod('b', 'Running')], want: [] },
  ])('$rule', ({ job, pods, want }) => {
    const actions = planJob(job, pods, NOW);
    checkActions(actions);
    expect(summarize(actions)).toEqual(want);
  });

  it('failures beyond backoffLimit fail the job and stop its pods', () => {
    const actions = planJob(aJob({ name: 'etl', completions: 2, parallelism: 2, backoffLimit: 0 }), [jobPod('a', 'Failed'), jobPod('b', 'Running')], NOW);
    expect(summarize(actions)).toEqual(['delete b', 'status jobs etl']);
    const status = actions[1]?.kind === 'patchStatus' ? actions[1].status : undefined;
    expect(status?.['conditions']).toEqual([{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', lastProbeTime: NOW, lastTransitionTime: NOW }]);
  });

  it('job pods carry the job labels', () => {
    const [create] = planJob(aJob({ name: 'etl' }), [], NOW);
    expect(create?.kind === 'createPod' && create.pod.metadata?.labels).toEqual({
      app: 'etl',
      'batch.kubernetes.io/controller-uid': 'uid-etl',
      'batch.kubernetes.io/job-name': 'etl',
      'controller-uid': 'uid-etl',
      'job-name': 'etl',
    });
  });
});
