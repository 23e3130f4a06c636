// `kmaint run` in a cluster: when KMAINT_PUSHGATEWAY_URL is set, each function's figures go to that Pushgateway
// after the run (or its failure, when the run threw). A Pushgateway that cannot be reached is logged, never fatal:
// maintenance goes on without metrics.
import { errorMessage } from '../shared/errors/index.ts';
import type { PassSummary } from '../shared/pass/index.ts';
import { PUSHGATEWAY_URL_ENV, pushRunFailure, pushRunMetrics } from '../shared/metrics/index.ts';

interface WarnLogger {
  warn(obj: object, msg?: string): void;
}

export type RunOutcome = { passes: readonly PassSummary[]; durationMs: number; failed: boolean } | { error: unknown; functions: readonly string[] };

/** Pushes the run's metrics when `env` names a Pushgateway; failures to push are logged as warnings. */
export async function pushRunIfConfigured(env: Readonly<Record<string, string | undefined>>, outcome: RunOutcome, logger: WarnLogger, now: () => Date = () => new Date()): Promise<void> {
  const url = env[PUSHGATEWAY_URL_ENV];
  if (!url) return;
  try {
    if ('error' in outcome) await pushRunFailure(outcome.functions, { url, at: now().getTime() });
    else await pushRunMetrics(outcome.passes, { url, durationMs: outcome.durationMs, endedAt: now().getTime(), failed: outcome.failed });
  } catch (err) {
    logger.warn({ err }, errorMessage(err));
  }
}
