import { describe, expect, it } from 'vitest';
import { podsBlockingCompletion, type PodCompletionResult } from './pod-completion.ts';
import { aPod } from './test-builders.ts';

const node = [
  aPod({ name: 'important-1', namespace: 'b', labels: { app: 'important' } }),
  aPod({ name: 'important-0', namespace: 'a', labels: { app: 'important' }, phase: 'Succeeded' }),
  aPod({ name: 'important-2', namespace: 'a', labels: { app: 'important' }, phase: 'Failed', terminating: true }),
  aPod({ name: 'web', namespace: 'a', labels: { app: 'web' } }),
  aPod({ name: 'fluentd', namespace: 'logging', owner: 'DaemonSet', labels: { app: 'fluentd' } }),
  aPod({ name: 'kmaint-drainer', namespace: 'kmaint', labels: { 'app.kubernetes.io/name': 'kmaint' } }),
  aPod({ name: 'etcd', namespace: 'kube-system', owner: 'Node', mirror: true }),
];

describe('podsBlockingCompletion', () => {
  it.each<[string, string | undefined, PodCompletionResult]>([
    [
      'README example app=important: every phase blocks, sorted by namespace/name',
      'app=important',
      { ok: true, waitingFor: ['a/important-0', 'a/important-2', 'b/important-1'] },
    ],
    [
      'empty selector: every pod on the node, DaemonSet, mirror and kmaint pods included',
      '',
      { ok: true, waitingFor: ['a/important-0', 'a/important-2', 'a/web', 'b/important-1', 'kmaint/kmaint-drainer', 'kube-system/etcd', 'logging/fluentd'] },
    ],
    ['absent selector is the empty selector', undefined, { ok: true, waitingFor: ['a/important-0', 'a/important-2', 'a/web', 'b/important-1', 'kmaint/kmaint-drainer', 'kube-system/etcd', 'logging/fluentd'] }],
    ['no pod matches: nothing to wait for', 'app=missing', { ok: true, waitingFor: [] }],
    ['set-based selector', 'app in (web, fluentd)', { ok: true, waitingFor: ['a/web', 'logging/fluentd'] }],
    [
      'invalid selector is an error, not "done"',
      'app=important,',
      { ok: false, error: `waitForPodCompletion.podSelector: invalid label selector "app=important,": found end of string at column 15, expected a label key or '!' after ','` },
    ],
  ])('%s', (_rule, selector, expected) => {
    expect(podsBlockingCompletion(node, selector)).toEqual(expected);
  });
});
