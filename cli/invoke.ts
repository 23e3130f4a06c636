// `kmaint invoke <fn>`: one synchronous (RequestResponse) invocation of a deployed kmaint Lambda function; its run
// summary is returned, a function error or a refused event becomes a CommandFailedError with the function's reason.
import { errorMessage } from '../shared/errors/index.ts';
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { PassFunction } from '../shared/pass/index.ts';
import type { BudgetRunSummary } from '../shared/runtime/index.ts';
import { CommandFailedError, ConfigurationError, UsageError } from './errors.ts';

/** serverless.yml names each function `<service>-<stage>-<fn>` with service `kmaint`. */
export const SERVERLESS_SERVICE = 'kmaint';

export interface InvokeFlags {
  functionName?: string;
  stage?: string;
  dryRun?: boolean;
  maxPasses?: string;
}

/** The manual event the functions accept (functions/adapter/event.ts). */
export interface ManualEvent {
  dryRun?: true;
  maxPasses?: number;
}

/**
 * `--function-name`, else `KMAINT_FN_<FN>` (the variables serverless.yml gives the functions), else
 * `kmaint-<stage>-<fn>` from `--stage` or `KMAINT_STAGE`.
 */
export function lambdaFunctionName(fn: PassFunction, flags: InvokeFlags, env: Readonly<Record<string, string | undefined>>): string {
  const variable = `KMAINT_FN_${fn.toUpperCase()}`;
  const named = flags.functionName ?? env[variable];
  if (named) return named;
  const stage = flags.stage ?? env['KMAINT_STAGE'];
  if (stage) return `${SERVERLESS_SERVICE}-${stage}-${fn}`;
  throw new UsageError(`no Lambda function name for ${fn}: give --function-name or --stage (serverless.yml names it ${SERVERLESS_SERVICE}-<stage>-${fn}), or set ${variable} or KMAINT_STAGE`);
}

export function manualEvent(flags: InvokeFlags): ManualEvent {
  const event: ManualEvent = flags.dryRun ? { dryRun: true } : {};
  if (flags.maxPasses === undefined) return event;
  const n = Number(flags.maxPasses);
  if (!/^\d+$/.test(flags.maxPasses) || n < 1 || n > 1000) throw new UsageError(`--max-passes must be a whole number from 1 to 1000, got "${flags.maxPasses}"`);
  return { ...event, maxPasses: n };
}

/** SDK failures that a person fixes in their AWS setup (name, region, credentials, permissions): exit 2. */
const SETUP_ERRORS = new Set([
  'ResourceNotFoundException',
  'CredentialsProviderError',
  'AccessDeniedException',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'ExpiredTokenException',
  'InvalidParameterValueException',
]);

function isRunSummary(v: unknown): v is BudgetRunSummary {
  const r = v as Partial<BudgetRunSummary> | null;
  return typeof r === 'object' && r !== null && typeof r.fn === 'string' && typeof r.stopped === 'string' && Array.isArray(r.passes);
}

const firstLine = (s: string): string => s.split('\n')[0] ?? '';

export interface InvokeLogger {
  debug(obj: object, msg?: string): void;
}

/** Invokes `functionName` once and returns its run summary. */
export async function invokeFunction(opts: { lambda: LambdaClient; functionName: string; event: ManualEvent; logger?: InvokeLogger }): Promise<BudgetRunSummary> {
  const { functionName } = opts;
  opts.logger?.debug({ functionName, event: opts.event }, 'invoking');
  let out;
  try {
    out = await opts.lambda.send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'RequestResponse', Payload: new TextEncoder().encode(JSON.stringify(opts.event)) }));
  } catch (err) {
    const name = err instanceof Error ? err.name : 'Error';
    const message = firstLine(errorMessage(err));
    const reason = `invoking ${functionName}: ${name === 'Error' ? '' : `${name}: `}${message}`;
    if (SETUP_ERRORS.has(name) || /region is missing/i.test(message)) throw new ConfigurationError(reason, { cause: err });
    throw new CommandFailedError(reason, { cause: err });
  }
  opts.logger?.debug({ functionName, statusCode: out.StatusCode, executedVersion: out.ExecutedVersion, functionError: out.FunctionError }, 'invoked');
  const text = out.Payload ? new TextDecoder().decode(out.Payload) : '';
  let answer: unknown;
  try {
    answer = text === '' ? undefined : JSON.parse(text);
  } catch (err) {
    throw new CommandFailedError(`${functionName} answered with something that is not JSON`, { cause: err });
  }
  if (out.FunctionError) {
    const e = (answer ?? {}) as { errorType?: unknown; errorMessage?: unknown };
    const type = typeof e.errorType === 'string' ? e.errorType : out.FunctionError;
    const message = typeof e.errorMessage === 'string' ? firstLine(e.errorMessage) : 'no error message';
    throw new CommandFailedError(`${functionName} failed: ${type}: ${message}`);
  }
  const refused = (answer as { error?: { name?: unknown; message?: unknown } } | undefined)?.error;
  if (refused?.name === 'InvalidEventError') throw new CommandFailedError(`${functionName} refused the event: ${String(refused.message)}`);
  if (!isRunSummary(answer)) throw new CommandFailedError(`${functionName} answered with something other than a kmaint run summary (is it a kmaint function?)`);
  return answer;
}
