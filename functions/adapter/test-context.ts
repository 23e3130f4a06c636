// Fixtures for handler tests: a Lambda context whose remaining time is given, a scheduled event, captured log lines.
import { Writable } from 'node:stream';
import type { Context, ScheduledEvent } from 'aws-lambda';

export function aLambdaContext(opts: { remainingMs: () => number; requestId?: string; functionName?: string }): Context {
  const functionName = opts.functionName ?? 'kmaint-test-fn';
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: opts.requestId ?? 'c0ffee00-0000-4000-8000-000000000001',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: '2026/01/02/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: opts.remainingMs,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Counts down from `ms` in real time. */
export function realBudget(ms: number): () => number {
  const deadline = Date.now() + ms;
  return () => deadline - Date.now();
}

export function aScheduledEvent(time = '2026-01-02T03:04:00Z'): ScheduledEvent {
  return {
    version: '0',
    id: '89d1a02d-5ec7-412e-82f5-13505f849b41',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time,
    region: 'eu-west-1',
    resources: ['arn:aws:events:eu-west-1:123456789012:rule/kmaint-test-scheduler'],
    detail: {},
  };
}

/** A pino destination that keeps every line. */
export function captureLines(): { destination: Writable; lines: string[]; records: () => Array<Record<string, unknown>> } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      lines.push(...String(chunk).split('\n').filter((l) => l.length > 0));
      done();
    },
  });
  return { destination, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}
