import { describe, expect, it } from 'vitest';
import { countReleases } from './held-leases.ts';
import { emptyPassSummary, type PassSummary } from './summary.ts';

describe('countReleases', () => {
  it("adds each function's release requests to its last pass only; a function without a pass is left out", () => {
    const passes: PassSummary[] = [
      { ...emptyPassSummary('scheduler', 'p1', 'applied'), requests: { 'create leases': 1, 'list nodes': 1 } },
      { ...emptyPassSummary('drainer', 'p2', 'applied'), requests: { 'list pods': 2 } },
      { ...emptyPassSummary('scheduler', 'p3', 'applied'), requests: { 'list nodes': 1 } },
    ];
    countReleases(passes, new Map([
      ['scheduler', { 'update leases': 1 }],
      ['drainer', { 'update leases': 2 }],
      ['cleanup', { 'update leases': 1 }],
    ]));
    expect(passes.map((p) => [p.fn, p.requests])).toEqual([
      ['scheduler', { 'create leases': 1, 'list nodes': 1 }],
      ['drainer', { 'list pods': 2, 'update leases': 2 }],
      ['scheduler', { 'list nodes': 1, 'update leases': 1 }],
    ]);
  });
});
