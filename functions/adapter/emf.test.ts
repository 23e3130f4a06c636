// A run summary as CloudWatch Embedded Metric Format: the exact documents CloudWatch parses.
import { describe, expect, it } from 'vitest';
import { aPassSummary } from '../../shared/runtime/test-builders.ts';
import type { PassMetrics } from '../../shared/metrics/index.ts';
import type { BudgetRunSummary } from '#runtime';
import { emfLines } from './emf.ts';

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

const RUN_METRICS = [
  { Name: 'Passes', Unit: 'Count' },
  { Name: 'Admitted', Unit: 'Count' },
  { Name: 'BecameReady', Unit: 'Count' },
  { Name: 'Released', Unit: 'Count' },
  { Name: 'Collected', Unit: 'Count' },
  { Name: 'Conflicts', Unit: 'Count' },
  { Name: 'ApiErrors', Unit: 'Count' },
  { Name: 'PassErrors', Unit: 'Count' },
  { Name: 'FailedPasses', Unit: 'Count' },
  { Name: 'Waiting', Unit: 'Count' },
  { Name: 'WorkRemains', Unit: 'Count' },
  { Name: 'Chained', Unit: 'Count' },
  { Name: 'Evictions', Unit: 'Count' },
  { Name: 'EvictionsRefused', Unit: 'Count' },
  { Name: 'PastDeadline', Unit: 'Count' },
];

const aws = (dims: string[], metrics: Array<{ Name: string; Unit: string }>) => ({
  Timestamp: 1767323045000,
  CloudWatchMetrics: [{ Namespace: 'kmaint', Dimensions: [dims], Metrics: metrics }],
});

describe('emfLines', () => {
  it('a run whose passes read nothing: one document with the run totals and the Function dimension', () => {
    const lines = emfLines(RUN, { namespace: 'kmaint', requestId: 'req-1', timestamp: 1767323045000 });
    expect(lines.some((l) => l.includes('\n'))).toBe(false);
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      {
        _aws: aws(['Function'], [...RUN_METRICS, { Name: 'RunDuration', Unit: 'Milliseconds' }]),
        Function: 'scheduler',
        Passes: 2,
        Admitted: 2,
        BecameReady: 0,
        Released: 0,
        Collected: 0,
        Conflicts: 1,
        ApiErrors: 0,
        PassErrors: 0,
        FailedPasses: 0,
        Waiting: 3,
        WorkRemains: 0,
        Chained: 1,
        Evictions: 0,
        EvictionsRefused: 0,
        PastDeadline: 0,
        RunDuration: 812,
        stopped: 'idle',
        requestId: 'req-1',
      },
    ]);
  });

  it('measured passes add drain durations, a document per phase and per gate (zeros too) and per API verb', () => {
    const measured = (m: Partial<PassMetrics>): PassMetrics => ({
      at: 1767323040000, requests: {}, oldestSeconds: {}, waiting: {}, waitingOldestSeconds: {}, pastDeadline: 0, evictions: 0, evictionsRefused: 0, drainSeconds: [], apiErrors: {}, ...m,
    });
    const run: BudgetRunSummary = {
      ...RUN,
      fn: 'drainer',
      passes: [
        aPassSummary({ fn: 'drainer', requests: { 'list nodes': 1, 'create pods/eviction': 2 }, errors: ['evict pod a/b: boom'], metrics: measured({ evictions: 1, evictionsRefused: 1, drainSeconds: [12], apiErrors: { 'create pods/eviction': 1 } }) }),
        aPassSummary({ fn: 'drainer', requests: { 'list nodes': 1 }, metrics: measured({ requests: { Ready: 2, Draining: 1 }, oldestSeconds: { Ready: 300, Draining: 42 }, waiting: { budget: 1 }, waitingOldestSeconds: { budget: 30 }, drainSeconds: [3] }) }),
      ],
      chain: { kind: 'none', reason: 'nothing for the next function to do after drainer' },
    };
    const docs = emfLines(run, { namespace: 'kmaint', timestamp: 1767323045000 }).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(docs[0]).toEqual({
      _aws: aws(['Function'], [...RUN_METRICS, { Name: 'DrainDuration', Unit: 'Seconds' }, { Name: 'RunDuration', Unit: 'Milliseconds' }]),
      Function: 'drainer',
      Passes: 2,
      Admitted: 2,
      BecameReady: 0,
      Released: 0,
      Collected: 0,
      Conflicts: 1,
      ApiErrors: 0,
      PassErrors: 0,
      FailedPasses: 1,
      Waiting: 0,
      WorkRemains: 0,
      Chained: 0,
      Evictions: 1,
      EvictionsRefused: 1,
      PastDeadline: 0,
      DrainDuration: [12, 3],
      RunDuration: 812,
      stopped: 'idle',
    });
    const phase = (Phase: string, Requests: number, OldestRequestAge: number) => ({
      _aws: aws(['Function', 'Phase'], [{ Name: 'Requests', Unit: 'Count' }, { Name: 'OldestRequestAge', Unit: 'Seconds' }]), Function: 'drainer', Phase, Requests, OldestRequestAge,
    });
    const gate = (Gate: string, Waiting: number, OldestWait: number) => ({
      _aws: aws(['Function', 'Gate'], [{ Name: 'Waiting', Unit: 'Count' }, { Name: 'OldestWait', Unit: 'Seconds' }]), Function: 'drainer', Gate, Waiting, OldestWait,
    });
    const verb = (Verb: string, Resource: string, ApiRequests: number, ApiErrors: number) => ({
      _aws: aws(['Function', 'Verb', 'Resource'], [{ Name: 'ApiRequests', Unit: 'Count' }, { Name: 'ApiErrors', Unit: 'Count' }]), Function: 'drainer', Verb, Resource, ApiRequests, ApiErrors,
    });
    expect(docs.slice(1)).toEqual([
      phase('New', 0, 0),
      phase('Pending', 0, 0),
      phase('Scheduled', 0, 0),
      phase('Cordon', 0, 0),
      phase('WaitForPodCompletion', 0, 0),
      phase('Draining', 1, 42),
      phase('Rebooting', 0, 0),
      phase('Ready', 2, 300),
      phase('RequestorFailed', 0, 0),
      ...['parallel', 'unavailable', 'pool', 'zone', 'window', 'not-before', 'gang', 'slurm'].map((g) => gate(g, 0, 0)),
      gate('budget', 1, 30),
      ...['lease', 'node', 'config', 'other'].map((g) => gate(g, 0, 0)),
      verb('create', 'pods/eviction', 2, 1),
      verb('list', 'nodes', 2, 0),
    ]);
  });
});
