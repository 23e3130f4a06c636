// One function's passes in one run (a Lambda invocation, a CronJob's `kmaint run`) as the figures its metrics
// report: counts summed over the passes, the state (phases, waits) as the last measured pass left it.
import type { PassMetrics } from './pass-metrics.ts';
import type { WaitGate } from './wait-gates.ts';

/**
 * What the run's figures read of one pass: the fields of shared/pass's PassSummary that metrics needs, named here so
 * that metrics never imports pass (pass imports metrics to measure).
 */
export interface MeasuredPass {
  fn: string;
  /** API requests by "verb resource". */
  requests: Readonly<Record<string, number>>;
  /** Write errors, one line each. */
  errors: readonly string[];
  conflicts: number;
  admitted: number;
  becameReady: number;
  metrics?: PassMetrics;
}

export interface RunMetrics {
  fn: string;
  /** The last pass's `now` (milliseconds since the epoch); the run's end when no pass measured anything. */
  at: number;
  passes: number;
  /** Passes that reported write errors. */
  failedPasses: number;
  writeErrors: number;
  conflicts: number;
  admitted: number;
  becameReady: number;
  evictions: number;
  evictionsRefused: number;
  drainSeconds: number[];
  durationMs: number;
  /** The last measured pass's state; empty when no pass read the cluster (lease held, reaper disabled). */
  requests: Record<string, number>;
  oldestSeconds: Record<string, number>;
  waiting: Partial<Record<WaitGate, number>>;
  waitingOldestSeconds: Partial<Record<WaitGate, number>>;
  /** Requests past their deadline and not Ready, as the last measured pass left them. */
  pastDeadline: number;
  /** Nodes over the repair ladder's repeatLimit, as the last reaper pass with a ladder read them; absent: none measured. */
  repeatOffenders?: number;
  /** By "verb resource", summed over the passes. */
  apiRequests: Record<string, number>;
  apiErrors: Record<string, number>;
}

function addInto(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

/** The run's figures from its passes, all of function `fn`. `endedAt` stamps a run whose passes measured nothing. */
export function runMetrics(fn: string, passes: readonly MeasuredPass[], opts: { durationMs: number; endedAt: number }): RunMetrics {
  const last = passes.findLast((p) => p.metrics !== undefined)?.metrics;
  const offenders = passes.findLast((p) => p.metrics?.repeatOffenders !== undefined)?.metrics?.repeatOffenders;
  const apiRequests: Record<string, number> = {};
  const apiErrors: Record<string, number> = {};
  for (const p of passes) {
    addInto(apiRequests, p.requests);
    addInto(apiErrors, p.metrics?.apiErrors ?? {});
  }
  const sum = (pick: (p: MeasuredPass) => number): number => passes.reduce((a, p) => a + pick(p), 0);
  return {
    fn,
    at: last?.at ?? opts.endedAt,
    passes: passes.length,
    failedPasses: passes.filter((p) => p.errors.length > 0).length,
    writeErrors: sum((p) => p.errors.length),
    conflicts: sum((p) => p.conflicts),
    admitted: sum((p) => p.admitted),
    becameReady: sum((p) => p.becameReady),
    evictions: sum((p) => p.metrics?.evictions ?? 0),
    evictionsRefused: sum((p) => p.metrics?.evictionsRefused ?? 0),
    drainSeconds: passes.flatMap((p) => p.metrics?.drainSeconds ?? []),
    durationMs: opts.durationMs,
    requests: { ...(last?.requests ?? {}) },
    oldestSeconds: { ...(last?.oldestSeconds ?? {}) },
    waiting: { ...(last?.waiting ?? {}) },
    waitingOldestSeconds: { ...(last?.waitingOldestSeconds ?? {}) },
    pastDeadline: last?.pastDeadline ?? 0,
    ...(offenders !== undefined ? { repeatOffenders: offenders } : {}),
    apiRequests,
    apiErrors,
  };
}
