import { describe, expect, it } from 'vitest';
import type { DrainStatus } from '#api';
import { computeDrainStatus } from './drain-status.ts';
import { selectPodsForDrain } from './select-pods.ts';
import { aPod } from './test-builders.ts';
import type { V1Pod } from '@kubernetes/client-node';

/** n pods the drain evicts: web-0, web-1, ... */
const evictable = (n: number, from = 0): V1Pod[] => Array.from({ length: n }, (_, i) => aPod({ name: `web-${from + i}` }));
const daemons = (n: number): V1Pod[] => Array.from({ length: n }, (_, i) => aPod({ name: `ds-${i}`, owner: 'DaemonSet' }));

describe('computeDrainStatus', () => {
  it.each<{ rule: string; pods: V1Pod[]; previous?: DrainStatus; expected: DrainStatus }>([
    {
      rule: 'first pass: the base is what is left now, progress 0',
      pods: [...evictable(4), ...daemons(2)],
      expected: { totalPods: 6, evictionPods: 4, drainProgress: 0, waitForEviction: ['default/web-0', 'default/web-1', 'default/web-2', 'default/web-3'] },
    },
    {
      rule: 'first pass with nothing to remove: progress 100, no waitForEviction',
      pods: daemons(3),
      expected: { totalPods: 3, evictionPods: 0, drainProgress: 100 },
    },
    {
      rule: 'first pass on an empty node',
      pods: [],
      expected: { totalPods: 0, evictionPods: 0, drainProgress: 100 },
    },
    {
      rule: 'later pass keeps the base and the total, progress truncated (1 of 3 gone = 33)',
      pods: [...evictable(2), ...daemons(2)],
      previous: { totalPods: 5, evictionPods: 3, drainProgress: 0, waitForEviction: ['default/web-0', 'default/web-1', 'default/web-2'] },
      expected: { totalPods: 5, evictionPods: 3, drainProgress: 33, waitForEviction: ['default/web-0', 'default/web-1'] },
    },
    {
      rule: 'truncation, not rounding: 2 of 3 gone = 66',
      pods: evictable(1),
      previous: { totalPods: 3, evictionPods: 3, drainProgress: 33 },
      expected: { totalPods: 3, evictionPods: 3, drainProgress: 66, waitForEviction: ['default/web-0'] },
    },
    {
      rule: 'all gone: 100, no waitForEviction',
      pods: daemons(2),
      previous: { totalPods: 6, evictionPods: 4, drainProgress: 75, waitForEviction: ['default/web-3'] },
      expected: { totalPods: 6, evictionPods: 4, drainProgress: 100 },
    },
    {
      rule: 'more pods left than the previous base: the base grows, progress never goes negative',
      pods: evictable(5),
      previous: { totalPods: 3, evictionPods: 3, drainProgress: 33 },
      expected: {
        totalPods: 5,
        evictionPods: 5,
        drainProgress: 0,
        waitForEviction: ['default/web-0', 'default/web-1', 'default/web-2', 'default/web-3', 'default/web-4'],
      },
    },
    {
      rule: 'a previous base of 0 takes the current count',
      pods: evictable(2),
      previous: { totalPods: 0, evictionPods: 0, drainProgress: 100 },
      expected: { totalPods: 2, evictionPods: 2, drainProgress: 0, waitForEviction: ['default/web-0', 'default/web-1'] },
    },
    {
      rule: 'refused, terminating and finished pods all count as still to remove, sorted by namespace/name',
      pods: [
        aPod({ name: 'z-bare', namespace: 'a', owner: 'none' }),
        aPod({ name: 'going', namespace: 'b', terminating: true }),
        aPod({ name: 'done', namespace: 'c', owner: 'Job', phase: 'Succeeded' }),
        aPod({ name: 'web', namespace: 'a' }),
        aPod({ name: 'static', namespace: 'kube-system', owner: 'Node', mirror: true }),
      ],
      previous: { totalPods: 5, evictionPods: 8, drainProgress: 0 },
      expected: { totalPods: 5, evictionPods: 8, drainProgress: 50, waitForEviction: ['a/web', 'a/z-bare', 'b/going', 'c/done'] },
    },
  ])('$rule', ({ pods, previous, expected }) => {
    expect(computeDrainStatus(selectPodsForDrain(pods, {}), previous)).toEqual(expected);
  });

  it('is a fixed point on an unchanged node (a second pass writes nothing new)', () => {
    const pods = [...evictable(3), aPod({ name: 'bare', owner: 'none' })];
    const first = computeDrainStatus(selectPodsForDrain(pods, {}), undefined);
    expect(computeDrainStatus(selectPodsForDrain(pods, {}), first)).toEqual(first);
  });
});
