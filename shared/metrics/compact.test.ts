// The pass summary line's figures: fixed segments, known phases and gates in their order, "none" for empty sets.
import { describe, expect, it } from 'vitest';
import { compactFigures } from './compact.ts';
import type { PassMetrics } from './pass-metrics.ts';

const EMPTY: PassMetrics = { at: 0, requests: {}, oldestSeconds: {}, waiting: {}, waitingOldestSeconds: {}, pastDeadline: 0, evictions: 0, evictionsRefused: 0, drainSeconds: [], apiErrors: {} };

describe('compactFigures', () => {
  it.each<[string, PassMetrics, string]>([
    ['an empty cluster', EMPTY, 'requests none; waiting none; evictions 0; drains 0; API errors none'],
    [
      'requests in phase order, waits with the longest, refused evictions, drains with the longest, errors by verb',
      {
        ...EMPTY,
        requests: { Ready: 1, Pending: 1, Draining: 1 },
        waiting: { budget: 1, parallel: 1 },
        waitingOldestSeconds: { budget: 30, parallel: 75 },
        evictions: 2,
        evictionsRefused: 1,
        drainSeconds: [12, 40],
        apiErrors: { 'get leases': 1 },
      },
      'requests Pending=1 Draining=1 Ready=1; waiting parallel=1 budget=1 (longest 75 s); evictions 2 (1 refused); drains 2 (longest 40 s); API errors get leases=1',
    ],
  ])('%s', (_name, metrics, line) => {
    expect(compactFigures(metrics)).toBe(line);
  });
});
