// The Lambda surface with an injected pass runner (no cluster): chaining through a mocked Lambda API, the chain
// bound, KMAINT_CHAIN=off, the time budget on a fake context, refused events, logs and EMF.
import { InvokeCommand, LambdaClient, type InvokeCommandInput } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterEach, describe, expect, it } from 'vitest';
import type { PassFunction, PassSummary } from '#pass';
import type { BudgetRunSummary } from '#runtime';
import { fakeTime, scriptedPasses, type FakeTime } from '../../shared/runtime/test-builders.ts';
import { createPassHandler, type HandlerPassRunner, type PassHandlerDeps } from './pass-handler.ts';
import type { RejectedEvent } from './middleware/report-errors.ts';
import { aLambdaContext, aScheduledEvent, captureLines } from './test-context.ts';

const ENV = {
  KMAINT_KUBECONFIG: '/nonexistent/kubeconfig',
  KMAINT_FN_SCHEDULER: 'kmaint-test-scheduler',
  KMAINT_FN_DRAINER: 'kmaint-test-drainer',
  KMAINT_FN_CLEANUP: 'kmaint-test-cleanup',
  AWS_REGION: 'eu-west-1',
};

const lambda = mockClient(LambdaClient);
afterEach(() => lambda.reset());

interface Harness {
  call: (event: unknown) => Promise<BudgetRunSummary | RejectedEvent>;
  runs: Array<{ fn: PassFunction; dryRun: boolean }>;
  logs: ReturnType<typeof captureLines>;
  metrics: string[];
  time: FakeTime;
}

/** A handler for `fn` whose passes follow `script`, each taking `passMs` on a fake clock that the context reads. */
function harness(fn: PassFunction, script: Array<Partial<PassSummary>>, opts: { env?: Record<string, string>; budgetMs?: number; passMs?: number; runPass?: HandlerPassRunner } = {}): Harness {
  const time = fakeTime(opts.budgetMs ?? 120_000);
  const scripted = scriptedPasses(time, opts.passMs ?? 100, script);
  const runs: Harness['runs'] = [];
  const logs = captureLines();
  const metrics: string[] = [];
  const deps: PassHandlerDeps = {
    env: { ...ENV, ...opts.env },
    runPass:
      opts.runPass ??
      ((f, o) => {
        runs.push({ fn: f, dryRun: o.dryRun });
        return scripted(f);
      }),
    logDestination: logs.destination,
    writeMetrics: (line) => metrics.push(line),
    sleep: time.sleep,
    clock: time.now,
  };
  const handler = createPassHandler(fn, deps);
  const context = aLambdaContext({ remainingMs: time.remaining, requestId: 'req-42', functionName: `kmaint-test-${fn}` });
  return { call: (event) => handler(event, context), runs, logs, metrics, time };
}

/** Every InvokeCommand sent, with its payload decoded. */
function invocations(): Array<Omit<InvokeCommandInput, 'Payload'> & { Payload: unknown }> {
  return lambda.commandCalls(InvokeCommand).map((c) => ({ ...c.args[0].input, Payload: JSON.parse(new TextDecoder().decode(c.args[0].input.Payload as Uint8Array)) as unknown }));
}

describe('chaining through each function', () => {
  it.each<[string, PassFunction, Partial<PassSummary>, Array<Record<string, unknown>>]>([
    ['the scheduler admitting a request starts the drainer', 'scheduler', { admitted: 1 }, [{ FunctionName: 'kmaint-test-drainer', InvocationType: 'Event', Payload: { source: 'kmaint', chainDepth: 1, from: 'scheduler' } }]],
    ['the drainer making a request Ready starts cleanup', 'drainer', { becameReady: 1 }, [{ FunctionName: 'kmaint-test-cleanup', InvocationType: 'Event', Payload: { source: 'kmaint', chainDepth: 1, from: 'drainer' } }]],
    ['the drainer seeing a deleted request starts cleanup', 'drainer', { awaitingCleanup: 1 }, [{ FunctionName: 'kmaint-test-cleanup', InvocationType: 'Event', Payload: { source: 'kmaint', chainDepth: 1, from: 'drainer' } }]],
    ['cleanup starts nothing', 'cleanup', { released: 1, admitted: 1, becameReady: 1 }, []],
    ['a scheduler that admitted nothing starts nothing', 'scheduler', { waiting: 2 }, []],
  ])('%s', async (_rule, fn, pass, expected) => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
    const h = harness(fn, [pass]);
    await h.call(aScheduledEvent());
    expect(invocations()).toEqual(expected);
  });

  it('sends exactly FunctionName, InvocationType Event and the chain event as bytes', async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
    await harness('scheduler', [{ admitted: 2 }]).call(aScheduledEvent());
    expect(lambda).toHaveReceivedCommandExactlyOnceWith(InvokeCommand, {
      FunctionName: 'kmaint-test-drainer',
      InvocationType: 'Event',
      Payload: new TextEncoder().encode('{"source":"kmaint","chainDepth":1,"from":"scheduler"}'),
    });
  });

  it('a chained drainer at depth 2 starts cleanup at depth 3, the bound', async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
    const r = (await harness('drainer', [{ becameReady: 1 }]).call({ source: 'kmaint', chainDepth: 2, from: 'scheduler' })) as BudgetRunSummary;
    expect(r.chain).toEqual({ kind: 'invoke', target: 'cleanup', depth: 3, reason: 'drainer made 1 Ready' });
    expect(invocations()).toEqual([{ FunctionName: 'kmaint-test-cleanup', InvocationType: 'Event', Payload: { source: 'kmaint', chainDepth: 3, from: 'drainer' } }]);
  });

  it.each<[string, PassFunction, unknown, Record<string, string>, string]>([
    ['a chain at depth 3 (default bound) starts nothing', 'scheduler', { source: 'kmaint', chainDepth: 3 }, {}, 'chain depth bound 3 reached (would start drainer: scheduler admitted 1)'],
    ['KMAINT_CHAIN_MAX_DEPTH=1 stops a depth-1 drainer', 'drainer', { source: 'kmaint', chainDepth: 1 }, { KMAINT_CHAIN_MAX_DEPTH: '1' }, 'chain depth bound 1 reached (would start cleanup: drainer made 1 Ready)'],
    ['KMAINT_CHAIN=off starts nothing', 'scheduler', aScheduledEvent(), { KMAINT_CHAIN: 'off' }, 'chaining is off'],
    ['a manual dry run starts nothing', 'scheduler', { dryRun: true }, {}, 'a dry run starts nothing'],
  ])('%s', async (_rule, fn, event, env, reason) => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
    const r = (await harness(fn, [{ admitted: 1, becameReady: 1 }], { env }).call(event)) as BudgetRunSummary;
    expect(r.chain).toEqual({ kind: 'none', reason });
    expect(lambda).toHaveReceivedCommandTimes(InvokeCommand, 0);
  });

  it('a refused invoke is reported in the summary, the run still succeeds', async () => {
    lambda.on(InvokeCommand).rejects(Object.assign(new Error('User is not authorized to perform: lambda:InvokeFunction'), { name: 'AccessDeniedException' }));
    const r = (await harness('scheduler', [{ admitted: 1 }]).call(aScheduledEvent())) as BudgetRunSummary;
    expect([r.stopped, r.chain]).toEqual(['idle', { kind: 'failed', target: 'drainer', depth: 1, reason: 'scheduler admitted 1', error: 'User is not authorized to perform: lambda:InvokeFunction' }]);
  });
});

describe('the time budget', () => {
  it('stops passing with the safety margin left on a context whose remaining time shrinks', async () => {
    // 40 s invocation, 5 s passes, 10 s margin (default): passes start at 0, 5.5, 11.5 and 18.5 s; then 16.5 s
    // remain and the next wait (4 s) would leave 12.5 s, less than margin + longest pass (15 s).
    const h = harness('drainer', [{ workRemains: true }], { budgetMs: 40_000, passMs: 5000 });
    const r = (await h.call(aScheduledEvent())) as BudgetRunSummary;
    expect([r.stopped, r.passes.length, h.time.slept, r.remainingMs]).toEqual(['time-budget', 4, [500, 1000, 2000], 16_500]);
  });

  it('KMAINT_SAFETY_MARGIN_MS widens the margin', async () => {
    const h = harness('drainer', [{ workRemains: true }], { budgetMs: 40_000, passMs: 5000, env: { KMAINT_SAFETY_MARGIN_MS: '30000' } });
    const r = (await h.call(aScheduledEvent())) as BudgetRunSummary;
    expect([r.stopped, r.passes.length, r.remainingMs]).toEqual(['time-budget', 1, 35_000]);
  });

  it('a manual maxPasses and dryRun reach the runner', async () => {
    const h = harness('drainer', [{ workRemains: true }]);
    const r = (await h.call({ dryRun: true, maxPasses: 2 })) as BudgetRunSummary;
    expect([r.stopped, h.runs]).toEqual(['max-passes', [{ fn: 'drainer', dryRun: true }, { fn: 'drainer', dryRun: true }]]);
    expect(h.metrics).toEqual([]);
  });
});

describe('refused events', () => {
  it.each<[string, unknown, RejectedEvent]>([
    ['a string', 'go', { error: { name: 'InvalidEventError', message: 'invalid event: expected a JSON object (an EventBridge scheduled event, {"source":"kmaint","chainDepth":n}, or {"dryRun"?: boolean, "maxPasses"?: 1..1000}), got string', issues: [{ path: '', message: 'expected an object' }] } }],
    ['a negative chain depth', { source: 'kmaint', chainDepth: -1 }, { error: { name: 'InvalidEventError', message: 'invalid chain event: chainDepth: Too small: expected number to be >=0', issues: [{ path: 'chainDepth', message: 'Too small: expected number to be >=0' }] } }],
    ['maxPasses as a string', { maxPasses: '3' }, { error: { name: 'InvalidEventError', message: 'invalid manual event: maxPasses: Invalid input: expected number, received string', issues: [{ path: 'maxPasses', message: 'Invalid input: expected number, received string' }] } }],
  ])('%s is answered with the documented error object and runs nothing', async (_what, event, expected) => {
    const h = harness('scheduler', [{ admitted: 1 }]);
    expect(await h.call(event)).toEqual(expected);
    expect(h.runs).toEqual([]);
    expect(h.logs.records()).toEqual([{ level: 40, time: expect.any(String) as string, requestId: 'req-42', fn: 'scheduler', ...expected, msg: 'event refused' }]);
    expect(h.logs.lines.join('\n')).not.toMatch(/\n\s+at /);
  });

  it('an environment it cannot run with fails the invocation with a message naming the variable', async () => {
    const h = harness('scheduler', [{ admitted: 1 }], { env: { KMAINT_KUBECONFIG: '', KMAINT_CLUSTER_NAME: '' } });
    await expect(h.call(aScheduledEvent())).rejects.toThrow('function environment: KMAINT_CLUSTER_NAME: set it (EKS), KMAINT_KUBECONFIG or KMAINT_KUBECONFIG_SECRET_ARN');
    expect(h.logs.records().map((r) => [r['msg'], r['requestId']])).toEqual([['run failed', 'req-42']]);
  });

  it('a KMAINT_LIST_PAGE_SIZE out of range fails the invocation with its one-line reason, before any pass', async () => {
    const h = harness('scheduler', [{ admitted: 1 }], { env: { KMAINT_LIST_PAGE_SIZE: '10001' } });
    await expect(h.call(aScheduledEvent())).rejects.toThrow('KMAINT_LIST_PAGE_SIZE must be an integer from 1 to 10000, got "10001"');
    expect(h.runs).toEqual([]);
  });

  it('a failure whose message carries a token fails with the token masked', async () => {
    const h = harness('scheduler', [], { runPass: () => Promise.reject(new Error('listing nodes: HTTP 401: Bearer k8s-aws-v1.c2VjcmV0 rejected')) });
    const err = (await h.call(aScheduledEvent()).catch((e: unknown) => e)) as Error;
    expect([err.name, err.message]).toEqual(['RunFailedError', 'listing nodes: HTTP 401: Bearer [redacted] rejected']);
    expect(h.logs.lines.join('\n')).not.toContain('c2VjcmV0');
  });
});

describe('logs and metrics of a run', () => {
  it('every line carries the request id; the run ends with one summary line and one EMF line', async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
    const h = harness('scheduler', [{ workRemains: true, admitted: 1, actions: { writeStatus: 1 } }, { waiting: 2 }]);
    const r = (await h.call(aScheduledEvent())) as BudgetRunSummary;
    const records = h.logs.records();
    expect(records.every((rec) => rec['requestId'] === 'req-42' && rec['fn'] === 'scheduler')).toBe(true);
    expect(records.map((rec) => rec['msg'])).toEqual(['scheduler run idle after 2 passes']);
    expect(records[0]?.['run']).toMatchObject({ stopped: 'idle', passes: 2, admitted: 1, event: 'scheduled', chainDepth: 0, chain: { kind: 'invoke', target: 'drainer', depth: 1 } });
    expect(h.metrics).toHaveLength(1);
    expect(JSON.parse(h.metrics[0] as string)).toMatchObject({ Function: 'scheduler', Passes: 2, Admitted: 1, Waiting: 2, Chained: 1, requestId: 'req-42' });
    expect(r.passes.map((p) => p.passId)).toEqual(['p1', 'p2']);
  });
});
