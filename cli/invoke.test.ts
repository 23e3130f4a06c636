// `kmaint invoke`: the function name conventions, the event sent, and each answer of the Lambda API (mocked at the
// SDK) turned into a summary or a one-line failure with its exit code.
import { InvokeCommand, LambdaClient, ResourceNotFoundException, TooManyRequestsException, type InvokeCommandOutput } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import type { BudgetRunSummary } from '../shared/runtime/index.ts';
import { aPassSummary } from '../shared/runtime/test-builders.ts';
import { exitCodeOf } from './errors.ts';
import { invokeFunction, lambdaFunctionName, manualEvent, type InvokeFlags } from './invoke.ts';

const lambdaMock = mockClient(LambdaClient);
const lambda = new LambdaClient({ region: 'eu-west-1' });
beforeEach(() => lambdaMock.reset());

/** A JSON answer as the SDK hands it over (a Uint8Array with string helpers the code does not use). */
const encode = (v: unknown): InvokeCommandOutput['Payload'] => new TextEncoder().encode(JSON.stringify(v)) as InvokeCommandOutput['Payload'];

const RUN: BudgetRunSummary = {
  fn: 'drainer',
  stopped: 'idle',
  passes: [aPassSummary({ fn: 'drainer', passId: 'p1' })],
  durationMs: 10,
  remainingMs: 100_000,
  workRemains: false,
  admitted: 0,
  becameReady: 1,
  released: 0,
  collected: 0,
  conflicts: 0,
  apiErrors: 0,
  errors: 0,
  actions: {},
  chain: { kind: 'none', reason: 'chaining is off' },
};

async function failure(p: Promise<unknown>): Promise<{ name: string; message: string; exit: number }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof Error)) throw new Error('expected a failure');
  return { name: err.name, message: err.message, exit: exitCodeOf(err) };
}

describe('lambdaFunctionName', () => {
  it.each<[string, InvokeFlags, Record<string, string>, string]>([
    ['--function-name wins', { functionName: 'arn:aws:lambda:eu-west-1:111122223333:function:mine', stage: 'prod' }, { KMAINT_FN_DRAINER: 'env-name' }, 'arn:aws:lambda:eu-west-1:111122223333:function:mine'],
    ['then KMAINT_FN_<FN>, as serverless.yml sets it for the functions', { stage: 'prod' }, { KMAINT_FN_DRAINER: 'kmaint-dev-drainer' }, 'kmaint-dev-drainer'],
    ['then --stage in the serverless.yml convention', { stage: 'prod' }, { KMAINT_STAGE: 'dev' }, 'kmaint-prod-drainer'],
    ['then KMAINT_STAGE', {}, { KMAINT_STAGE: 'dev' }, 'kmaint-dev-drainer'],
  ])('%s', (_rule, flags, env, name) => {
    expect(lambdaFunctionName('drainer', flags, env)).toBe(name);
  });

  it('without any of them is a usage error naming every way', () => {
    expect(() => lambdaFunctionName('cleanup', {}, {})).toThrow(
      'no Lambda function name for cleanup: give --function-name or --stage (serverless.yml names it kmaint-<stage>-cleanup), or set KMAINT_FN_CLEANUP or KMAINT_STAGE',
    );
  });
});

describe('manualEvent', () => {
  it.each<[InvokeFlags, object]>([
    [{}, {}],
    [{ dryRun: true }, { dryRun: true }],
    [{ dryRun: true, maxPasses: '1' }, { dryRun: true, maxPasses: 1 }],
    [{ maxPasses: '1000' }, { maxPasses: 1000 }],
  ])('%j -> %j', (flags, event) => {
    expect(manualEvent(flags)).toEqual(event);
  });

  it.each(['0', '1001', '1.5', 'two'])('refuses --max-passes %s with exit 2', (n) => {
    let err: unknown;
    try {
      manualEvent({ maxPasses: n });
    } catch (e) {
      err = e;
    }
    expect([(err as Error).message, exitCodeOf(err)]).toEqual([`--max-passes must be a whole number from 1 to 1000, got "${n}"`, 2]);
  });
});

describe('invokeFunction', () => {
  it('sends one RequestResponse invocation with the manual event and returns the run summary', async () => {
    lambdaMock.on(InvokeCommand).resolves({ StatusCode: 200, ExecutedVersion: '$LATEST', Payload: encode(RUN) });
    expect(await invokeFunction({ lambda, functionName: 'kmaint-prod-drainer', event: { dryRun: true, maxPasses: 1 } })).toEqual(RUN);
    expect(lambdaMock).toHaveReceivedCommandTimes(InvokeCommand, 1);
    const input = lambdaMock.commandCalls(InvokeCommand)[0]?.args[0].input;
    expect([input?.FunctionName, input?.InvocationType, JSON.parse(new TextDecoder().decode(input?.Payload as Uint8Array))]).toEqual(['kmaint-prod-drainer', 'RequestResponse', { dryRun: true, maxPasses: 1 }]);
  });

  it.each<[string, () => void, { name: string; message: string; exit: number }]>([
    [
      'the function failed (FunctionError): its error type and first message line, exit 1',
      () => lambdaMock.on(InvokeCommand).resolves({ StatusCode: 200, FunctionError: 'Unhandled', Payload: encode({ errorType: 'KubeRequestError', errorMessage: 'listing nodes: HTTP 403: forbidden\nmore', trace: ['at x'] }) }),
      { name: 'CommandFailedError', message: 'kmaint-prod-drainer failed: KubeRequestError: listing nodes: HTTP 403: forbidden', exit: 1 },
    ],
    [
      'the function timed out',
      () => lambdaMock.on(InvokeCommand).resolves({ StatusCode: 200, FunctionError: 'Unhandled', Payload: encode({ errorType: 'Sandbox.Timedout', errorMessage: 'RequestId: 1 Error: Task timed out after 120.00 seconds' }) }),
      { name: 'CommandFailedError', message: 'kmaint-prod-drainer failed: Sandbox.Timedout: RequestId: 1 Error: Task timed out after 120.00 seconds', exit: 1 },
    ],
    [
      'the function refused the event',
      () => lambdaMock.on(InvokeCommand).resolves({ StatusCode: 200, Payload: encode({ error: { name: 'InvalidEventError', message: 'invalid manual event: maxPasses: Too big', issues: [] } }) }),
      { name: 'CommandFailedError', message: 'kmaint-prod-drainer refused the event: invalid manual event: maxPasses: Too big', exit: 1 },
    ],
    [
      'the function is not a kmaint function',
      () => lambdaMock.on(InvokeCommand).resolves({ StatusCode: 200, Payload: encode({ statusCode: 200, body: 'hello' }) }),
      { name: 'CommandFailedError', message: 'kmaint-prod-drainer answered with something other than a kmaint run summary (is it a kmaint function?)', exit: 1 },
    ],
    [
      'no such function: a setup error, exit 2',
      () => lambdaMock.on(InvokeCommand).rejects(new ResourceNotFoundException({ message: 'Function not found: arn:aws:lambda:eu-west-1:111122223333:function:kmaint-prod-drainer', $metadata: {} })),
      { name: 'ConfigurationError', message: 'invoking kmaint-prod-drainer: ResourceNotFoundException: Function not found: arn:aws:lambda:eu-west-1:111122223333:function:kmaint-prod-drainer', exit: 2 },
    ],
    [
      'throttled: a failure, exit 1',
      () => lambdaMock.on(InvokeCommand).rejects(new TooManyRequestsException({ message: 'Rate Exceeded.', $metadata: {} })),
      { name: 'CommandFailedError', message: 'invoking kmaint-prod-drainer: TooManyRequestsException: Rate Exceeded.', exit: 1 },
    ],
  ])('%s', async (_rule, arrange, expected) => {
    arrange();
    expect(await failure(invokeFunction({ lambda, functionName: 'kmaint-prod-drainer', event: {} }))).toEqual(expected);
  });
});
