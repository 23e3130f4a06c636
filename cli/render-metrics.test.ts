// The pass summary line carries the pass's figures (shared/metrics) when the pass measured any.
import { expect, it } from 'vitest';
import { aPassSummary } from '../shared/runtime/test-builders.ts';
import { renderSummary } from './render.ts';

it('renderSummary adds the compact figures under the summary line of a measured pass', () => {
  const s = aPassSummary({
    fn: 'drainer',
    passId: 'p1',
    durationMs: 12,
    planned: 3,
    actions: { evictPod: 1 },
    requests: { 'list nodes': 1 },
    metrics: { at: 0, requests: { Draining: 2 }, oldestSeconds: { Draining: 60 }, waiting: { budget: 1 }, waitingOldestSeconds: { budget: 20 }, pastDeadline: 0, evictions: 1, evictionsRefused: 0, drainSeconds: [], apiErrors: {} },
  });
  expect(renderSummary(s)).toBe(
    [
      'drainer pass p1 applied in 12 ms: 3 planned, actions evictPod=1, requests list nodes=1',
      '  requests Draining=2; waiting budget=1 (longest 20 s); evictions 1; drains 0; API errors none',
      '',
    ].join('\n'),
  );
});
