// The ideal makespan: list scheduling of each node's slowest pod under the limits, in admission order.
import { describe, expect, it } from 'vitest';
import { idealMakespan, type LimitScope } from './ideal.ts';

const cluster = (nodes: string[], parallel?: number, unavailable?: number): LimitScope => ({
  name: 'cluster',
  members: new Set(nodes),
  ...(parallel !== undefined ? { parallel } : {}),
  ...(unavailable !== undefined ? { unavailable } : {}),
});

describe('idealMakespan', () => {
  it.each<[string, { order: string[]; durations: Record<string, number>; scopes: LimitScope[]; down?: string[] }, number | undefined]>([
    ['one at a time adds the durations', { order: ['a', 'b', 'c'], durations: { a: 30, b: 60, c: 10 }, scopes: [cluster(['a', 'b', 'c'], 1)] }, 100],
    ['two slots: each node starts when the earliest slot frees', { order: ['a', 'b', 'c', 'd'], durations: { a: 30, b: 60, c: 60, d: 60 }, scopes: [cluster(['a', 'b', 'c', 'd'], 2)] }, 120],
    ['a node with nothing to evict frees its slot at once', { order: ['cp', 'a', 'b'], durations: { cp: 0, a: 30, b: 60 }, scopes: [cluster(['cp', 'a', 'b'], 2)] }, 60],
    [
      'maxUnavailable counts a node cordoned before the run, which never frees',
      { order: ['a', 'b', 'c'], durations: { a: 10, b: 10, c: 10 }, scopes: [cluster(['a', 'b', 'c', 'x'], 3, 2)], down: ['x'] },
      30,
    ],
    [
      'a node already unavailable takes no extra unavailability',
      { order: ['x', 'a'], durations: { x: 10, a: 10 }, scopes: [cluster(['a', 'x'], 2, 2)], down: ['x'] },
      10,
    ],
    [
      'a node cordoned before the run stays unavailable: with maxUnavailable 1 nothing else is ever admitted',
      { order: ['x', 'a'], durations: { x: 10, a: 10 }, scopes: [cluster(['a', 'x'], 2, 1)], down: ['x'] },
      undefined,
    ],
    [
      'a pool limit narrows the cluster limit for its nodes only; later nodes may go first',
      {
        order: ['g1', 'g2', 'w1'],
        durations: { g1: 50, g2: 50, w1: 20 },
        scopes: [cluster(['g1', 'g2', 'w1'], 2), { name: 'pool gpu', members: new Set(['g1', 'g2']), parallel: 1 }],
      },
      100,
    ],
    ['a limit of 0 admits nothing: no makespan', { order: ['a'], durations: { a: 10 }, scopes: [cluster(['a'], 0)] }, undefined],
    ['no nodes: 0', { order: [], durations: {}, scopes: [cluster([], 1)] }, 0],
  ])('%s', (_rule, input, expected) => {
    const durationMs = new Map(Object.entries(input.durations).map(([k, v]) => [k, v * 1000]));
    const result = idealMakespan({ order: input.order, durationMs, scopes: input.scopes, unavailableAtStart: new Set(input.down ?? []) });
    expect(result).toBe(expected === undefined ? undefined : expected * 1000);
  });
});
