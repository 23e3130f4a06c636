// Text rendering of `kmaint plan` and `kmaint invoke`: every decision with its reason, every wait with its message.
import { describe, expect, it } from 'vitest';
import type { BudgetRunSummary } from '../shared/runtime/index.ts';
import { aPassSummary } from '../shared/runtime/test-builders.ts';
import { renderPlan, renderRunSummary, renderSummary } from './render.ts';

describe('renderPlan', () => {
  it('lists each function\'s decisions, then every waiting request with its message, then config problems once', () => {
    const scheduler = aPassSummary({
      fn: 'scheduler',
      outcome: 'dry-run',
      plan: ['status ops/b Pending -> Pending: wait reason changed, waiting: maxParallelOperations 1 reached (1 in progress)'],
      waits: [
        { request: 'ops/b', node: 'node-2', reason: 'waiting: maxParallelOperations 1 reached (1 in progress)' },
        { request: 'ops/c', node: 'node-1', reason: 'waiting: another request for node node-1 is in progress (ops/a)' },
      ],
      configProblems: ['spec.windows[0].schedule: bad'],
    });
    const drainer = aPassSummary({ fn: 'drainer', outcome: 'dry-run', plan: ['cordon node node-1: cordon for ops/a'], waits: undefined, configProblems: ['spec.windows[0].schedule: bad'] });
    const cleanup = aPassSummary({ fn: 'cleanup', outcome: 'dry-run' });
    expect(renderPlan([scheduler, drainer, cleanup])).toBe(
      [
        'scheduler: 1 decision, 2 requests waiting',
        '  would status ops/b Pending -> Pending: wait reason changed, waiting: maxParallelOperations 1 reached (1 in progress)',
        '  ops/b (node-2) waiting: maxParallelOperations 1 reached (1 in progress)',
        '  ops/c (node-1) waiting: another request for node node-1 is in progress (ops/a)',
        'drainer: 1 decision',
        '  would cordon node node-1: cordon for ops/a',
        'cleanup: nothing to do',
        'config: spec.windows[0].schedule: bad',
        '',
      ].join('\n'),
    );
  });
});

describe('renderRunSummary', () => {
  const run: BudgetRunSummary = {
    fn: 'scheduler',
    stopped: 'idle',
    passes: [aPassSummary({ passId: 'p1', durationMs: 40, planned: 3, actions: { writeStatus: 1, emitEvent: 2 }, requests: { 'list nodes': 1 }, admitted: 1 })],
    durationMs: 52,
    remainingMs: 60_000,
    workRemains: false,
    admitted: 1,
    becameReady: 0,
    released: 0,
    collected: 0,
    conflicts: 0,
    apiErrors: 0,
    errors: 0,
    actions: { writeStatus: 1, emitEvent: 2 },
    chain: { kind: 'invoke', target: 'drainer', depth: 1, reason: 'scheduler admitted 1' },
  };

  it.each<[string, BudgetRunSummary['chain'], string]>([
    ['a started chain', run.chain, '  chain: started drainer (depth 1): scheduler admitted 1'],
    ['no chain', { kind: 'none', reason: 'chaining is off' }, '  chain: none: chaining is off'],
    ['a failed chain', { kind: 'failed', target: 'drainer', depth: 1, reason: 'scheduler admitted 1', error: 'AccessDeniedException: no' }, '  chain: starting drainer failed: AccessDeniedException: no'],
  ])('heads with the run, then %s, then each pass', (_rule, chain, chainLine) => {
    expect(renderRunSummary('kmaint-prod-scheduler', { ...run, chain }).split('\n')).toEqual([
      'kmaint-prod-scheduler (scheduler): idle after 1 pass in 52 ms; admitted 1, became ready 0, released 0, collected 0, conflicts 0, errors 0',
      chainLine,
      '  scheduler pass p1 applied in 40 ms: 3 planned, actions writeStatus=1 emitEvent=2, requests list nodes=1',
      '',
    ]);
  });
});

it('renderSummary of a scheduler dry run lists its decisions and then its waits', () => {
  const s = aPassSummary({
    passId: 'p9',
    outcome: 'dry-run',
    durationMs: 7,
    planned: 1,
    plan: ['status ops/b (new) -> Pending: new request, waiting: maxParallelOperations 1 reached (1 in progress)'],
    waits: [{ request: 'ops/b', node: 'node-2', reason: 'waiting: maxParallelOperations 1 reached (1 in progress)' }],
  });
  expect(renderSummary(s)).toBe(
    [
      'scheduler pass p9 dry-run in 7 ms: 1 planned, actions none, requests none',
      '  would status ops/b (new) -> Pending: new request, waiting: maxParallelOperations 1 reached (1 in progress)',
      '  ops/b (node-2) waiting: maxParallelOperations 1 reached (1 in progress)',
      '',
    ].join('\n'),
  );
});
