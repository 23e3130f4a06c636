// A run summary as CloudWatch Embedded Metric Format: the exact document CloudWatch parses.
import { describe, expect, it } from 'vitest';
import { aPassSummary } from '../../shared/runtime/test-builders.ts';
import type { BudgetRunSummary } from '#runtime';
import { emfLine } from './emf.ts';

const RUN: BudgetRunSummary = {
  fn: 'scheduler',
  stopped: 'idle',
  passes: [aPassSummary({ workRemains: true, admitted: 2 }), aPassSummary({ waiting: 3 })],
  durationMs: 812,
  remainingMs: 100_000,
  workRemains: false,
  admitted: 2,
  becameReady: 0,
  released: 0,
  collected: 0,
  conflicts: 1,
  apiErrors: 0,
  errors: 0,
  actions: { writeStatus: 5 },
  chain: { kind: 'invoke', target: 'drainer', depth: 1, reason: 'scheduler admitted 2' },
};

describe('emfLine', () => {
  it('is one JSON document with the metric declarations, their values and the Function dimension', () => {
    const line = emfLine(RUN, { namespace: 'kmaint', requestId: 'req-1', timestamp: 1767323045000 });
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      _aws: {
        Timestamp: 1767323045000,
        CloudWatchMetrics: [
          {
            Namespace: 'kmaint',
            Dimensions: [['Function']],
            Metrics: [
              { Name: 'Passes', Unit: 'Count' },
              { Name: 'Admitted', Unit: 'Count' },
              { Name: 'BecameReady', Unit: 'Count' },
              { Name: 'Released', Unit: 'Count' },
              { Name: 'Collected', Unit: 'Count' },
              { Name: 'Conflicts', Unit: 'Count' },
              { Name: 'ApiErrors', Unit: 'Count' },
              { Name: 'PassErrors', Unit: 'Count' },
              { Name: 'Waiting', Unit: 'Count' },
              { Name: 'WorkRemains', Unit: 'Count' },
              { Name: 'Chained', Unit: 'Count' },
              { Name: 'RunDuration', Unit: 'Milliseconds' },
            ],
          },
        ],
      },
      Function: 'scheduler',
      Passes: 2,
      Admitted: 2,
      BecameReady: 0,
      Released: 0,
      Collected: 0,
      Conflicts: 1,
      ApiErrors: 0,
      PassErrors: 0,
      Waiting: 3,
      WorkRemains: 0,
      Chained: 1,
      RunDuration: 812,
      stopped: 'idle',
      requestId: 'req-1',
    });
  });
});
