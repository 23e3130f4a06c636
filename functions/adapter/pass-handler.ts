// The one Lambda surface of a pass function: parse the event, run passes within the invocation's time budget,
// chain, log the summary and its EMF metrics, return it. The invocation holds its pass lease across its passes, as
// `kmaint run` does. Each functions/<name>/handler.ts is this for one name.
import { LambdaClient } from '@aws-sdk/client-lambda';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { DestinationStream } from 'pino';
import { KubeClient, listPageSizeFrom, type AwsCredentialsProvider } from '#kube';
import { HeldLeases, runPass, type PassFunction, type PassLogger, type PassRound, type PassSummary } from '#pass';
import { runWithinBudget, type BudgetRunSummary, type Sleep } from '#runtime';
import { lambdaChainStarter } from './chain-start.ts';
import { cachedKubeConfig } from './cluster.ts';
import { emfLines } from './emf.ts';
import { parseKmaintEvent } from './event.ts';
import { createLambdaLogger } from './log.ts';
import { logRequestId } from './middleware/log-request-id.ts';
import { reportErrors, type RejectedEvent } from './middleware/report-errors.ts';
import { loadLambdaSettings, logLevelOf, type LambdaSettings } from './settings.ts';

export type PassHandlerResult = BudgetRunSummary | RejectedEvent;

/** One pass of `fn` as the handler wants it run; `round` carries the invocation's leases (runPass's `round`). */
export type HandlerPassRunner = (fn: PassFunction, opts: { dryRun: boolean; logger: PassLogger; signal?: AbortSignal; round?: PassRound }) => Promise<PassSummary>;

export interface PassHandlerDeps {
  /** @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Instead of the cluster's passes; such a runner takes and gives back its own lease each pass.
   * @default runPass with one KubeClient per invocation for the configured cluster, holding the pass lease across
   * the invocation's passes
   */
  runPass?: HandlerPassRunner;
  /** Log lines. @default stdout */
  logDestination?: DestinationStream;
  /** Each EMF line. @default stdout */
  writeMetrics?: (line: string) => void;
  /** @default new LambdaClient({ region: AWS_REGION }) */
  lambda?: LambdaClient;
  /** AWS credentials for the EKS token. @default the SDK's node provider chain */
  credentials?: AwsCredentialsProvider;
  sleep?: Sleep;
  clock?: () => number;
}

/** Stop the handler this long before Lambda's own timeout if a pass hangs (passes are stopped far earlier). */
const TIMEOUT_EARLY_MS = 2000;

/** What one invocation's passes run with: their runner and, on the cluster, the pass leases they share. */
interface Invocation {
  runPass: HandlerPassRunner;
  leases?: HeldLeases;
}

interface Prepared {
  settings: LambdaSettings;
  /** `holder` names the invocation in the lease it holds. */
  invocation: (o: { dryRun: boolean; holder: string; signal?: AbortSignal }) => Promise<Invocation>;
  lambda: () => LambdaClient;
}

/** Settings, cluster access and the Lambda client, made once per container on the first invocation. */
function prepare(env: Readonly<Record<string, string | undefined>>, deps: PassHandlerDeps): Prepared {
  const settings = loadLambdaSettings(env);
  // Refused here, once per container, with its one-line reason: not on every invocation's first LIST.
  const pageSize = listPageSizeFrom(env);
  const kubeConfig = cachedKubeConfig(settings.cluster, deps.credentials);
  let lambda = deps.lambda;
  const injected = deps.runPass;
  // As `kmaint run` (until-idle.ts): one client and one set of leases for all the passes; a dry run takes none.
  const onCluster = async (o: { dryRun: boolean; holder: string; signal?: AbortSignal }): Promise<Invocation> => {
    const client = new KubeClient(await kubeConfig(), { pageSize, ...(o.signal ? { signal: o.signal } : {}) });
    const now = () => new Date();
    const leases = o.dryRun ? undefined : new HeldLeases({ client, namespace: settings.namespace, holder: o.holder, now });
    const runOnCluster: HandlerPassRunner = (fn, p) =>
      runPass(fn, { client, namespace: settings.namespace, now, logger: p.logger, dryRun: p.dryRun, ...(p.signal ? { signal: p.signal } : {}), ...(p.round ? { round: p.round } : {}) });
    return { runPass: runOnCluster, ...(leases ? { leases } : {}) };
  };
  const region = settings.cluster.kind === 'eks' ? settings.cluster.region : env['AWS_REGION'];
  return {
    settings,
    invocation: injected ? () => Promise.resolve({ runPass: injected }) : onCluster,
    lambda: () => (lambda ??= new LambdaClient(region ? { region } : {})),
  };
}

export function createPassHandler(fn: PassFunction, deps: PassHandlerDeps = {}) {
  const env = deps.env ?? process.env;
  const log = createLambdaLogger({ level: logLevelOf(env), ...(deps.logDestination ? { destination: deps.logDestination } : {}) });
  const logger = log.logger.child({ fn });
  const writeMetrics = deps.writeMetrics ?? ((line: string) => void process.stdout.write(`${line}\n`));
  let prepared: Prepared | undefined;

  return middy<unknown, PassHandlerResult, Error, Context>({ timeoutEarlyInMillis: TIMEOUT_EARLY_MS })
    .use(logRequestId({ log }))
    .use(reportErrors({ logger }))
    .handler(async (raw, context, { signal }): Promise<PassHandlerResult> => {
      const event = parseKmaintEvent(raw);
      prepared ??= prepare(env, deps);
      const { settings, lambda } = prepared;
      const invocation = await prepared.invocation({ dryRun: event.dryRun, holder: `${context.functionName}/${context.awsRequestId}`, signal });
      const run = await runWithinBudget({
        fn,
        runPass: (f, sig, round) => invocation.runPass(f, { dryRun: event.dryRun, logger, ...(sig ? { signal: sig } : {}), ...(round ? { round } : {}) }),
        ...(invocation.leases ? { leases: invocation.leases } : {}),
        remainingMs: () => context.getRemainingTimeInMillis(),
        safetyMarginMs: settings.safetyMarginMs,
        dryRun: event.dryRun,
        ...(event.maxPasses !== undefined ? { maxPasses: event.maxPasses } : {}),
        chain: { enabled: settings.chain.enabled, depth: event.chainDepth, maxDepth: settings.chain.maxDepth },
        startChain: lambdaChainStarter(lambda, settings.chain.functionNames, fn),
        signal,
        ...(deps.sleep ? { sleep: deps.sleep } : {}),
        ...(deps.clock ? { clock: deps.clock } : {}),
      });
      const { passes, ...totals } = run;
      logger.info({ run: { ...totals, passes: passes.length, event: event.kind, chainDepth: event.chainDepth } }, `${fn} run ${run.stopped} after ${passes.length} passes`);
      if (!event.dryRun) {
        for (const line of emfLines(run, { namespace: settings.metricsNamespace, requestId: context.awsRequestId, timestamp: (deps.clock ?? Date.now)() })) writeMetrics(line);
      }
      return run;
    });
}
