import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { DEFAULT_UPSTREAM_OPERATOR_NAMESPACE, type DrainSpec } from '#api';
import { podKey } from './pod-facts.ts';
import { selectPodsForDrain, type DrainSelection, type DrainSelectionOptions } from './select-pods.ts';
import { aPod } from './test-builders.ts';

/** The selection with pods reduced to "namespace/name", so rows compare exactly. */
function summary(selection: DrainSelection) {
  return {
    evict: selection.evict.map(podKey),
    deleteFinished: selection.deleteFinished.map(podKey),
    refused: selection.refused.map(({ pod, message }) => ({ pod: podKey(pod), message })),
    terminating: selection.terminating.map(podKey),
    skipped: selection.skipped,
    problems: selection.problems,
    totalPods: selection.totalPods,
    ...(selection.podSelectorProblem !== undefined ? { podSelectorProblem: selection.podSelectorProblem } : {}),
  };
}

type Outcome = 'evict' | 'deleteFinished' | 'terminating' | 'skip' | { refused: string };

/** What selectPodsForDrain returns for exactly one pod with that outcome. */
function expectedFor(pod: V1Pod, outcome: Outcome, problems: string[] = []) {
  const key = podKey(pod);
  return {
    evict: outcome === 'evict' ? [key] : [],
    deleteFinished: outcome === 'deleteFinished' ? [key] : [],
    refused: typeof outcome === 'object' ? [{ pod: key, message: outcome.refused }] : [],
    terminating: outcome === 'terminating' ? [key] : [],
    skipped: outcome === 'skip' ? 1 : 0,
    problems,
    totalPods: 1,
  };
}


/** The example drainSpec of the upstream README (seed). */
const README_SPEC: DrainSpec = {
  force: true,
  podSelector: '',
  timeoutSeconds: 0,
  deleteEmptyDir: true,
  podEvictionFilters: [{ byResourceNameRegex: 'nvidia.com/gpu-*' }, { byResourceNameRegex: 'nvidia.com/rdma*' }],
};

const NO_CONTROLLER = (key: string) => `cannot delete pod with no controller: ${key} (use force)`;
const EMPTY_DIR = (key: string) => `cannot delete pod with local storage (emptyDir): ${key} (use deleteEmptyDir)`;
/** As the passes see their own pods by default: namespace kmaint, ServiceAccount kmaint. */
const OWN: DrainSelectionOptions = { ownPods: { namespace: 'kmaint', serviceAccounts: ['kmaint'] } };
function withServiceAccount(pod: V1Pod, serviceAccountName: string): V1Pod {
  return { ...pod, spec: { ...pod.spec, containers: pod.spec?.containers ?? [], serviceAccountName } };
}
/** A pod of kmaint's CronJobs: namespace kmaint, ServiceAccount kmaint, the chart's label. */
function ownPod(options: Parameters<typeof aPod>[0]): V1Pod {
  return withServiceAccount(aPod({ namespace: 'kmaint', labels: { 'app.kubernetes.io/name': 'kmaint' }, ...options }), 'kmaint');
}
const OPERATOR_LABELS = { 'app.kubernetes.io/component': 'maintenance-operator-controller-manager' };
/** Where the upstream chart runs the operator, kmaint's default spec.upstreamOperatorNamespace. */
const UPSTREAM_NS = DEFAULT_UPSTREAM_OPERATOR_NAMESPACE;

interface Row {
  rule: string;
  pod: V1Pod;
  spec?: DrainSpec;
  options?: DrainSelectionOptions;
  outcome: Outcome;
  problems?: string[];
}

const rows: Row[] = [
  // 1. mirror pods
  { rule: 'a running mirror pod is skipped', pod: aPod({ name: 'etcd', owner: 'Node', mirror: true }), outcome: 'skip' },
  { rule: 'a finished mirror pod is skipped too (the kubelet would recreate it)', pod: aPod({ name: 'etcd', owner: 'Node', mirror: true, phase: 'Succeeded' }), outcome: 'skip' },
  { rule: 'a mirror pod is skipped before the no-controller refusal', pod: aPod({ name: 'static', owner: 'none', mirror: true }), outcome: 'skip' },
  // 2. own pods: by namespace and ServiceAccount, which only kmaint's installer sets; never by a label
  { rule: "kmaint's own pod (its namespace, its ServiceAccount) is skipped", pod: ownPod({ name: 'kmaint-drainer' }), options: OWN, outcome: 'skip' },
  { rule: "kmaint's finished own pod is skipped", pod: ownPod({ name: 'kmaint-run-1', owner: 'Job', phase: 'Succeeded' }), options: OWN, outcome: 'skip' },
  { rule: "kmaint's own bare pod is skipped, not refused", pod: ownPod({ name: 'kmaint-debug', owner: 'none' }), options: OWN, outcome: 'skip' },
  {
    // Was skipped (any pod labelled app.kubernetes.io/name=kmaint, in any namespace): a tenant could escape every drain.
    rule: "a tenant's pod labelled app.kubernetes.io/name=kmaint, in its own namespace, is evicted",
    pod: aPod({ name: 'looks-like-kmaint', namespace: 'team-a', labels: { 'app.kubernetes.io/name': 'kmaint' } }),
    options: OWN,
    outcome: 'evict',
  },
  {
    rule: "the same label and kmaint's ServiceAccount name, in another namespace, is evicted",
    pod: withServiceAccount(aPod({ name: 'looks-like-kmaint', namespace: 'team-a', labels: { 'app.kubernetes.io/name': 'kmaint' } }), 'kmaint'),
    options: OWN,
    outcome: 'evict',
  },
  { rule: "another pod in kmaint's namespace, under another ServiceAccount, is evicted", pod: withServiceAccount(aPod({ name: 'debug', namespace: 'kmaint' }), 'debugger'), options: OWN, outcome: 'evict' },
  { rule: "a pod in kmaint's namespace without a ServiceAccount runs as default: evicted", pod: aPod({ name: 'debug', namespace: 'kmaint' }), options: OWN, outcome: 'evict' },
  {
    rule: 'a ServiceAccount named by the install (KMAINT_SERVICE_ACCOUNT) is the one that counts',
    pod: ownPod({ name: 'kmaint-drainer' }),
    options: { ownPods: { namespace: 'kmaint', serviceAccounts: ['maint-kmaint'] } },
    outcome: 'evict',
  },
  { rule: 'without ownPods (kmaint outside the cluster) no pod is its own', pod: ownPod({ name: 'kmaint-drainer' }), outcome: 'evict' },
  {
    rule: "kmaint's reboot Job pod (its namespace, kmaint.io/reboot=true, ServiceAccount default) is skipped, running or finished",
    pod: aPod({ name: 'kmaint-reboot-u1-abcde', namespace: 'kmaint', owner: 'Job', labels: { 'kmaint.io/reboot': 'true' } }),
    options: OWN,
    outcome: 'skip',
  },
  {
    rule: "kmaint's finished reboot Job pod is skipped, not deleted",
    pod: aPod({ name: 'kmaint-reboot-u1-abcde', namespace: 'kmaint', owner: 'Job', phase: 'Succeeded', labels: { 'kmaint.io/reboot': 'true' } }),
    options: OWN,
    outcome: 'skip',
  },
  {
    rule: "a tenant's pod labelled kmaint.io/reboot=true in its own namespace is evicted",
    pod: aPod({ name: 'looks-like-a-reboot', namespace: 'team-a', owner: 'Job', labels: { 'kmaint.io/reboot': 'true' } }),
    options: OWN,
    outcome: 'evict',
  },
  {
    rule: "the upstream operator's pod in its namespace is skipped (its implicit selector)",
    pod: aPod({ name: 'maintenance-operator', namespace: UPSTREAM_NS, labels: OPERATOR_LABELS }),
    outcome: 'skip',
  },
  {
    rule: "the upstream operator's pod in its namespace is skipped whatever the podSelector says",
    pod: aPod({ name: 'maintenance-operator', namespace: UPSTREAM_NS, labels: { ...OPERATOR_LABELS, app: 'web' } }),
    spec: { podSelector: 'app=web' },
    outcome: 'skip',
  },
  // Issue 40: the label is any tenant's to set; only the upstream operator's namespace makes it an exemption.
  { rule: "a tenant's pod with the upstream operator's label is evicted", pod: aPod({ name: 'escaper', labels: OPERATOR_LABELS }), outcome: 'evict' },
  {
    rule: "a tenant's pod with the upstream operator's label is evicted whatever the podSelector says",
    pod: aPod({ name: 'escaper', labels: { ...OPERATOR_LABELS, app: 'web' } }),
    spec: { podSelector: 'app=web' },
    outcome: 'evict',
  },
  { rule: "a pod in the upstream operator's namespace without its label is evicted", pod: aPod({ name: 'helper', namespace: UPSTREAM_NS }), outcome: 'evict' },
  {
    rule: 'spec.upstreamOperatorNamespace moves the exemption: the labelled pod in the default namespace is evicted',
    pod: aPod({ name: 'maintenance-operator', namespace: UPSTREAM_NS, labels: OPERATOR_LABELS }),
    options: { ownPods: { namespace: 'kmaint', serviceAccounts: ['kmaint'], upstreamOperatorNamespace: 'network-operator' } },
    outcome: 'evict',
  },
  {
    rule: 'spec.upstreamOperatorNamespace moves the exemption: the labelled pod in the named namespace is skipped',
    pod: aPod({ name: 'maintenance-operator', namespace: 'network-operator', labels: OPERATOR_LABELS }),
    options: { ownPods: { namespace: 'kmaint', serviceAccounts: ['kmaint'], upstreamOperatorNamespace: 'network-operator' } },
    outcome: 'skip',
  },
  // 3. drainSpec.podSelector
  { rule: 'a pod outside the podSelector is skipped', pod: aPod({ name: 'db', labels: { app: 'db' } }), spec: { podSelector: 'app=web' }, outcome: 'skip' },
  { rule: 'a pod inside the podSelector is evicted', pod: aPod({ name: 'web', labels: { app: 'web' } }), spec: { podSelector: 'app=web' }, outcome: 'evict' },
  {
    rule: 'a finished pod outside the podSelector is left alone (kubectl never lists it)',
    pod: aPod({ name: 'job-1', owner: 'Job', labels: { app: 'batch' }, phase: 'Succeeded' }),
    spec: { podSelector: 'app=web' },
    outcome: 'skip',
  },
  // 4. podEvictionFilters
  { rule: 'README spec: a pod requesting nvidia.com/gpu matches nvidia.com/gpu-* (zero dashes)', pod: aPod({ name: 'train', requests: ['cpu', 'nvidia.com/gpu'] }), spec: README_SPEC, outcome: 'evict' },
  { rule: 'README spec: nvidia.com/rdma* matches a longer RDMA resource name', pod: aPod({ name: 'mpi', requests: ['rdma/x', 'nvidia.com/rdma_shared_device_a'] }), spec: README_SPEC, outcome: 'evict' },
  { rule: 'README spec: the regex is unanchored', pod: aPod({ name: 'odd', requests: ['vendor.example/nvidia.com/gpu.shared'] }), spec: README_SPEC, outcome: 'evict' },
  { rule: 'README spec: a CPU-only pod is skipped', pod: aPod({ name: 'web', requests: ['cpu', 'memory'] }), spec: README_SPEC, outcome: 'skip' },
  { rule: 'README spec: a pod without requests is skipped', pod: aPod({ name: 'idle' }), spec: README_SPEC, outcome: 'skip' },
  { rule: 'README spec: a finished CPU-only pod is skipped', pod: aPod({ name: 'job-1', owner: 'Job', requests: ['cpu'], phase: 'Failed' }), spec: README_SPEC, outcome: 'skip' },
  { rule: 'README spec: a finished GPU pod is deleted', pod: aPod({ name: 'job-2', owner: 'Job', requests: ['nvidia.com/gpu'], phase: 'Succeeded' }), spec: README_SPEC, outcome: 'deleteFinished' },
  { rule: 'README spec: force lets a bare GPU pod be evicted', pod: aPod({ name: 'bare', owner: 'none', requests: ['nvidia.com/gpu'] }), spec: README_SPEC, outcome: 'evict' },
  { rule: 'README spec: deleteEmptyDir lets a GPU pod with emptyDir be evicted', pod: aPod({ name: 'scratch', requests: ['nvidia.com/gpu'], emptyDir: true }), spec: README_SPEC, outcome: 'evict' },
  { rule: 'a bare CPU pod outside the filters is skipped, not refused', pod: aPod({ name: 'bare', owner: 'none', requests: ['cpu'] }), spec: { podEvictionFilters: [{ byResourceNameRegex: 'gpu' }] }, outcome: 'skip' },
  { rule: 'init container requests do not count', pod: aPod({ name: 'init-gpu', requests: ['cpu'], initRequests: ['nvidia.com/gpu'] }), spec: README_SPEC, outcome: 'skip' },
  { rule: 'limits do not count', pod: aPod({ name: 'limit-gpu', requests: ['cpu'], limits: ['nvidia.com/gpu'] }), spec: README_SPEC, outcome: 'skip' },
  {
    rule: 'an entry without a regex ({}) matches nothing and is reported',
    pod: aPod({ name: 'train', requests: ['nvidia.com/gpu'] }),
    spec: { podEvictionFilters: [{}] },
    outcome: 'skip',
    problems: ['drainSpec.podEvictionFilters[0] has no byResourceNameRegex; the entry matches no pod'],
  },
  {
    rule: 'an entry without a regex does not stop the others from matching',
    pod: aPod({ name: 'train', requests: ['nvidia.com/gpu'] }),
    spec: { podEvictionFilters: [{}, { byResourceNameRegex: 'gpu' }] },
    outcome: 'evict',
    problems: ['drainSpec.podEvictionFilters[0] has no byResourceNameRegex; the entry matches no pod'],
  },
  {
    rule: 'an invalid regex matches nothing and is reported',
    pod: aPod({ name: 'train', requests: ['nvidia.com/gpu('] }),
    spec: { podEvictionFilters: [{ byResourceNameRegex: 'nvidia.com/gpu(' }] },
    outcome: 'skip',
    problems: ['drainSpec.podEvictionFilters[0].byResourceNameRegex "nvidia.com/gpu(" is not a valid RE2 expression (error parsing regexp: missing closing ): `nvidia.com/gpu(`); the entry matches no pod'],
  },
  {
    rule: 'Perl-only syntax is invalid RE2 (no backreferences)',
    pod: aPod({ name: 'train', requests: ['aa'] }),
    spec: { podEvictionFilters: [{ byResourceNameRegex: '(a)\\1' }, { byResourceNameRegex: 'rdma' }] },
    outcome: 'skip',
    problems: ['drainSpec.podEvictionFilters[0].byResourceNameRegex "(a)\\\\1" is not a valid RE2 expression (error parsing regexp: invalid escape sequence: `\\1`); the entry matches no pod'],
  },
  {
    rule: 'a catastrophic-backtracking pattern over a long name finds no match',
    pod: aPod({ name: 'long', requests: [`example.com/${'a'.repeat(20_000)}b`] }),
    spec: { podEvictionFilters: [{ byResourceNameRegex: '(a+)+$' }] },
    outcome: 'skip',
  },
  {
    rule: 'a catastrophic-backtracking pattern over a long name finds the match',
    pod: aPod({ name: 'long', requests: [`example.com/b${'a'.repeat(20_000)}`] }),
    spec: { podEvictionFilters: [{ byResourceNameRegex: '(a+)+$' }] },
    outcome: 'evict',
  },
  { rule: 'the empty regex matches any pod that requests something', pod: aPod({ name: 'web', requests: ['cpu'] }), spec: { podEvictionFilters: [{ byResourceNameRegex: '' }] }, outcome: 'evict' },
  { rule: 'the empty regex does not match a pod without requests', pod: aPod({ name: 'idle' }), spec: { podEvictionFilters: [{ byResourceNameRegex: '' }] }, outcome: 'skip' },
  { rule: 'an empty filter list filters nothing', pod: aPod({ name: 'web' }), spec: { podEvictionFilters: [] }, outcome: 'evict' },
  // 5. DaemonSet pods
  { rule: 'a running DaemonSet pod is skipped', pod: aPod({ name: 'fluentd', owner: 'DaemonSet' }), outcome: 'skip' },
  { rule: 'a terminating running DaemonSet pod is skipped, not waited for', pod: aPod({ name: 'fluentd', owner: 'DaemonSet', terminating: true }), outcome: 'skip' },
  { rule: 'a finished DaemonSet pod is deleted, as kubectl does', pod: aPod({ name: 'fluentd', owner: 'DaemonSet', phase: 'Failed' }), outcome: 'deleteFinished' },
  // 6. terminating
  { rule: 'a terminating pod is waited for, not evicted again', pod: aPod({ name: 'web', terminating: true }), outcome: 'terminating' },
  { rule: 'a terminating bare pod is waited for, not refused', pod: aPod({ name: 'bare', owner: 'none', terminating: true }), outcome: 'terminating' },
  { rule: 'a finished pod held by a finalizer is waited for, not deleted every pass', pod: aPod({ name: 'job-1', owner: 'Job', phase: 'Succeeded', terminating: true }), outcome: 'terminating' },
  // 7. finished
  { rule: 'a Succeeded pod is deleted', pod: aPod({ name: 'job-1', owner: 'Job', phase: 'Succeeded' }), outcome: 'deleteFinished' },
  { rule: 'a Failed pod is deleted', pod: aPod({ name: 'job-1', owner: 'Job', phase: 'Failed' }), outcome: 'deleteFinished' },
  { rule: 'a finished bare pod is deleted without force', pod: aPod({ name: 'bare', owner: 'none', phase: 'Succeeded' }), outcome: 'deleteFinished' },
  { rule: 'a finished pod with emptyDir is deleted without deleteEmptyDir', pod: aPod({ name: 'scratch', phase: 'Failed', emptyDir: true }), outcome: 'deleteFinished' },
  { rule: 'a Pending pod is not finished', pod: aPod({ name: 'web', phase: 'Pending' }), outcome: 'evict' },
  // 8. no controller
  { rule: 'a bare pod is refused without force', pod: aPod({ name: 'bare', owner: 'none' }), outcome: { refused: NO_CONTROLLER('default/bare') } },
  { rule: 'an owner that is not a controller does not count', pod: aPod({ name: 'owned', owner: 'non-controller' }), outcome: { refused: NO_CONTROLLER('default/owned') } },
  { rule: 'force: false refuses like the default', pod: aPod({ name: 'bare', owner: 'none' }), spec: { force: false }, outcome: { refused: NO_CONTROLLER('default/bare') } },
  { rule: 'force evicts a bare pod', pod: aPod({ name: 'bare', owner: 'none' }), spec: { force: true }, outcome: 'evict' },
  {
    rule: 'a bare pod with emptyDir gets the no-controller message first',
    pod: aPod({ name: 'bare', namespace: 'team-a', owner: 'none', emptyDir: true }),
    outcome: { refused: NO_CONTROLLER('team-a/bare') },
  },
  // 9. emptyDir
  { rule: 'a pod with emptyDir is refused without deleteEmptyDir', pod: aPod({ name: 'scratch', emptyDir: true }), outcome: { refused: EMPTY_DIR('default/scratch') } },
  {
    rule: 'force alone does not allow emptyDir',
    pod: aPod({ name: 'bare', owner: 'none', emptyDir: true }),
    spec: { force: true },
    outcome: { refused: EMPTY_DIR('default/bare') },
  },
  { rule: 'deleteEmptyDir evicts a pod with emptyDir', pod: aPod({ name: 'scratch', emptyDir: true }), spec: { deleteEmptyDir: true }, outcome: 'evict' },
  // 10. the rest
  { rule: 'a ReplicaSet pod is evicted', pod: aPod({ name: 'web' }), outcome: 'evict' },
  { rule: 'a StatefulSet pod is evicted', pod: aPod({ name: 'db-0', owner: 'StatefulSet' }), outcome: 'evict' },
  { rule: 'a running Job pod is evicted', pod: aPod({ name: 'job-1', owner: 'Job' }), outcome: 'evict' },
];

describe('selectPodsForDrain: one rule per row', () => {
  it.each(rows)('$rule', ({ pod, spec, options, outcome, problems }) => {
    expect(summary(selectPodsForDrain([pod], spec ?? {}, options))).toEqual(expectedFor(pod, outcome, problems));
  });
});

describe('selectPodsForDrain with a drainSpec.podSelector it cannot read', () => {
  const UNREADABLE = `drainSpec.podSelector: invalid label selector "app in (a": found end of string at column 10, expected ',' or ')'`;
  const pods = [
    aPod({ name: 'fluentd-x', namespace: 'logging', owner: 'DaemonSet' }),
    aPod({ name: 'web-1', labels: { app: 'a' } }),
    aPod({ name: 'bare', owner: 'none' }),
    aPod({ name: 'job-1', owner: 'Job', phase: 'Succeeded' }),
  ];

  it.each([
    { rule: 'no pod is judged: nothing evicted, deleted or refused (DaemonSet pods included); the problem names the field once', spec: { podSelector: 'app in (a' }, problems: [UNREADABLE] },
    {
      rule: 'the selector problem comes first, before the eviction filter problems',
      spec: { podSelector: 'app in (a', podEvictionFilters: [{}] },
      problems: [UNREADABLE, 'drainSpec.podEvictionFilters[0] has no byResourceNameRegex; the entry matches no pod'],
    },
  ])('$rule', ({ spec, problems }) => {
    expect(summary(selectPodsForDrain(pods, spec))).toEqual({
      evict: [],
      deleteFinished: [],
      refused: [],
      terminating: [],
      skipped: 4,
      problems,
      totalPods: 4,
      podSelectorProblem: UNREADABLE,
    });
  });
});

describe('selectPodsForDrain on a whole node', () => {
  const node = [
    aPod({ name: 'web-2', namespace: 'shop', labels: { app: 'web' } }),
    aPod({ name: 'train', namespace: 'ml', requests: ['cpu', 'nvidia.com/gpu'], emptyDir: true }),
    aPod({ name: 'nccl-test', namespace: 'ml', owner: 'none', requests: ['nvidia.com/rdma_shared_device_a'] }),
    aPod({ name: 'eval-1', namespace: 'ml', owner: 'Job', requests: ['nvidia.com/gpu'], phase: 'Succeeded' }),
    aPod({ name: 'train-old', namespace: 'ml', requests: ['nvidia.com/gpu'], terminating: true }),
    aPod({ name: 'gpu-feature-discovery', namespace: 'gpu-operator', owner: 'DaemonSet', requests: ['cpu'] }),
    aPod({ name: 'kube-apiserver-worker-01', namespace: 'kube-system', owner: 'Node', mirror: true }),
    ownPod({ name: 'kmaint-drainer-1', owner: 'Job' }),
    aPod({ name: 'report-7', namespace: 'shop', owner: 'Job', phase: 'Failed' }),
  ];

  it('the README drainSpec removes only GPU and RDMA pods', () => {
    expect(summary(selectPodsForDrain(node, README_SPEC, OWN))).toEqual({
      evict: ['ml/nccl-test', 'ml/train'],
      deleteFinished: ['ml/eval-1'],
      refused: [],
      terminating: ['ml/train-old'],
      skipped: 5,
      problems: [],
      totalPods: 9,
    });
  });

  it('an empty drainSpec removes everything kubectl drain --ignore-daemonsets would, refusing the rest', () => {
    expect(summary(selectPodsForDrain(node, {}, OWN))).toEqual({
      evict: ['shop/web-2'],
      deleteFinished: ['ml/eval-1', 'shop/report-7'],
      refused: [
        { pod: 'ml/nccl-test', message: NO_CONTROLLER('ml/nccl-test') },
        { pod: 'ml/train', message: EMPTY_DIR('ml/train') },
      ],
      terminating: ['ml/train-old'],
      skipped: 3,
      problems: [],
      totalPods: 9,
    });
  });

  it('does not change its input', () => {
    const before = JSON.stringify(node);
    selectPodsForDrain(node, README_SPEC);
    expect(JSON.stringify(node)).toBe(before);
  });

  it('an empty node selects nothing', () => {
    expect(summary(selectPodsForDrain([], README_SPEC))).toEqual({
      evict: [],
      deleteFinished: [],
      refused: [],
      terminating: [],
      skipped: 0,
      problems: [],
      totalPods: 0,
    });
  });
});
