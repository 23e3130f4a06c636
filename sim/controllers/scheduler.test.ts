import { describe, expect, it } from 'vitest';
import { unfitReasons, unschedulableMessage } from './node-fit.ts';
import { podRequests, nodeAllocatable } from './resources.ts';
import { planScheduling } from './scheduler.ts';
import { aNode, aPod, ago, checkActions, ownerRef, summarize } from './test-builders.ts';

const gpuTaint = { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' };
const cpTaint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };

describe('unfitReasons: the first refusing filter names why', () => {
  it.each([
    { rule: 'a plain node takes a plain pod', node: aNode({ name: 'n1' }), pod: aPod({ name: 'p' }), want: [] },
    { rule: 'a cordoned node refuses', node: aNode({ name: 'n1', unschedulable: true }), pod: aPod({ name: 'p' }), want: ['node(s) were unschedulable'] },
    {
      rule: 'a cordoned node takes a pod tolerating node.kubernetes.io/unschedulable',
      node: aNode({ name: 'n1', unschedulable: true }),
      pod: aPod({ name: 'p', tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] }),
      want: [],
    },
    { rule: 'an untolerated NoSchedule taint refuses', node: aNode({ name: 'n1', taints: [gpuTaint] }), pod: aPod({ name: 'p' }), want: ['node(s) had untolerated taint {nvidia.com/gpu: present}'] },
    {
      rule: 'Exists with the key tolerates any value',
      node: aNode({ name: 'n1', taints: [gpuTaint] }),
      pod: aPod({ name: 'p', tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }] }),
      want: [],
    },
    {
      rule: 'Equal needs the same value',
      node: aNode({ name: 'n1', taints: [gpuTaint] }),
      pod: aPod({ name: 'p', tolerations: [{ key: 'nvidia.com/gpu', operator: 'Equal', value: 'absent' }] }),
      want: ['node(s) had untolerated taint {nvidia.com/gpu: present}'],
    },
    { rule: 'Exists without a key tolerates everything', node: aNode({ name: 'n1', taints: [cpTaint] }), pod: aPod({ name: 'p', tolerations: [{ operator: 'Exists' }] }), want: [] },
    { rule: 'PreferNoSchedule does not filter', node: aNode({ name: 'n1', taints: [{ key: 'x', effect: 'PreferNoSchedule' }] }), pod: aPod({ name: 'p' }), want: [] },
    { rule: 'a NotReady node carries not-ready:NoSchedule', node: aNode({ name: 'n1', ready: false }), pod: aPod({ name: 'p' }), want: ['node(s) had untolerated taint {node.kubernetes.io/not-ready: }'] },
    { rule: 'nodeSelector must match every label', node: aNode({ name: 'n1', labels: { pool: 'general' } }), pod: aPod({ name: 'p', nodeSelector: { pool: 'gpu' } }), want: ["node(s) didn't match Pod's node affinity/selector"] },
    { rule: 'a pod pinned to another node by metadata.name', node: aNode({ name: 'n1' }), pod: aPod({ name: 'p', pinnedTo: 'n2' }), want: ["node(s) didn't match Pod's node affinity/selector"] },
    { rule: 'requests beyond allocatable name each resource', node: aNode({ name: 'n1', cpu: '1', memory: '1Gi' }), pod: aPod({ name: 'p', requests: { cpu: '2', memory: '2Gi' } }), want: ['Insufficient cpu', 'Insufficient memory'] },
    { rule: 'extended resources come from limits', node: aNode({ name: 'n1' }), pod: aPod({ name: 'p', requests: { cpu: '1' }, limits: { 'nvidia.com/gpu': '1' } }), want: ['Insufficient nvidia.com/gpu'] },
    { rule: 'taints are checked before resources', node: aNode({ name: 'n1', cpu: '1', taints: [gpuTaint] }), pod: aPod({ name: 'p', requests: { cpu: '2' } }), want: ['node(s) had untolerated taint {nvidia.com/gpu: present}'] },
  ])('$rule', ({ node, pod, want }) => {
    expect(unfitReasons({ pod, requests: podRequests(pod), node, used: {}, allocatable: nodeAllocatable(node) })).toEqual(want);
  });

  it('counts the pods already there against pods: 110', () => {
    const node = aNode({ name: 'n1', pods: '2' });
    const pod = aPod({ name: 'p' });
    expect(unfitReasons({ pod, requests: podRequests(pod), node, used: { pods: 2 }, allocatable: nodeAllocatable(node) })).toEqual(['Too many pods']);
  });

  it('formats the message as the scheduler does: counted reasons, sorted', () => {
    expect(unschedulableMessage(6, ['node(s) were unschedulable', 'Insufficient cpu', 'node(s) were unschedulable', 'node(s) had untolerated taint {a: }'])).toBe(
      '0/6 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {a: }, 2 node(s) were unschedulable.',
    );
  });
});

describe('planScheduling', () => {
  const rs = ownerRef('ReplicaSet', 'web-1');
  const nodes = [aNode({ name: 'n1', labels: { 'topology.kubernetes.io/zone': 'a' } }), aNode({ name: 'n2', labels: { 'topology.kubernetes.io/zone': 'b' } }), aNode({ name: 'n3', labels: { 'topology.kubernetes.io/zone': 'a' } })];

  it.each([
    {
      rule: 'replicas of one controller spread over nodes, then zones, oldest pod first',
      pods: [aPod({ name: 'p1', owner: rs, created: ago(30) }), aPod({ name: 'p2', owner: rs, created: ago(20) }), aPod({ name: 'p3', owner: rs, created: ago(10) })],
      want: ['bind p1 n1', 'bind p2 n2', 'bind p3 n3'],
    },
    {
      rule: 'a node already running the controller is avoided',
      pods: [aPod({ name: 'old', owner: rs, node: 'n1' }), aPod({ name: 'new', owner: rs })],
      want: ['bind new n2'],
    },
    {
      rule: 'cordoned nodes are skipped',
      nodes: [aNode({ name: 'n1', unschedulable: true }), aNode({ name: 'n2' })],
      pods: [aPod({ name: 'p' })],
      want: ['bind p n2'],
    },
    {
      rule: 'the node with the most room left wins among equals',
      nodes: [aNode({ name: 'n1', cpu: '2' }), aNode({ name: 'n2', cpu: '8' })],
      pods: [aPod({ name: 'p' })],
      want: ['bind p n2'],
    },
    {
      rule: 'pods placed earlier in the same plan use up capacity',
      nodes: [aNode({ name: 'n1', cpu: '1' })],
      pods: [aPod({ name: 'a', requests: { cpu: '600m' }, created: ago(2) }), aPod({ name: 'b', requests: { cpu: '600m' }, created: ago(1) })],
      want: ['bind a n1', 'unschedulable b: 0/1 nodes are available: 1 Insufficient cpu.'],
    },
    {
      rule: 'higher priority is placed first',
      nodes: [aNode({ name: 'n1', cpu: '1' })],
      pods: [aPod({ name: 'low', requests: { cpu: '600m' }, created: ago(9) }), aPod({ name: 'high', requests: { cpu: '600m' }, created: ago(1), priority: 100 })],
      want: ['bind high n1', 'unschedulable low: 0/1 nodes are available: 1 Insufficient cpu.'],
    },
    {
      rule: 'a finished pod on the node holds no capacity',
      nodes: [aNode({ name: 'n1', cpu: '1' })],
      pods: [aPod({ name: 'done', node: 'n1', phase: 'Succeeded', requests: { cpu: '1' } }), aPod({ name: 'p', requests: { cpu: '1' } })],
      want: ['bind p n1'],
    },
    {
      rule: 'a pinned DaemonSet pod goes to its cordoned node',
      nodes: [aNode({ name: 'n1', unschedulable: true }), aNode({ name: 'n2' })],
      pods: [aPod({ name: 'ds', pinnedTo: 'n1', tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] })],
      want: ['bind ds n1'],
    },
    {
      rule: 'bound, terminating and finished pods are not scheduled',
      pods: [aPod({ name: 'bound', node: 'n1' }), aPod({ name: 'going', deleting: true }), aPod({ name: 'failed', phase: 'Failed' })],
      want: [],
    },
  ])('$rule', ({ nodes: ns, pods, want }) => {
    const actions = planScheduling(ns ?? nodes, pods);
    checkActions(actions);
    expect(summarize(actions)).toEqual(want);
  });

  it('does not mark a pod unschedulable again with the same message', () => {
    const pod = aPod({ name: 'p', requests: { cpu: '9' } });
    pod.status = { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/1 nodes are available: 1 Insufficient cpu.' }] };
    expect(planScheduling([aNode({ name: 'n1' })], [pod])).toEqual([]);
  });
});
