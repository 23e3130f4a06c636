// A run of passes pushed to the Pushgateway: one group per function (job kmaint-<fn>), what `kmaint run` does after
// its passes when KMAINT_PUSHGATEWAY_URL is set (the in-cluster CronJobs).
import { failedRunFamilies, runFamilies } from './families.ts';
import { jobName, pushToGateway, type PushOptions } from './pushgateway.ts';
import { runMetrics, type MeasuredPass } from './run-metrics.ts';

export interface RunPushOptions extends Omit<PushOptions, 'job' | 'method'> {
  durationMs: number;
  /** Milliseconds since the epoch; stamps a run whose passes measured nothing. */
  endedAt: number;
  /** The run as a whole failed (e.g. every write failed): no function records a success. @default false */
  failed?: boolean;
}

/** Pushes each function's passes as its own group, in the order the functions first ran. Throws MetricsPushError. */
export async function pushRunMetrics(passes: readonly MeasuredPass[], opts: RunPushOptions): Promise<void> {
  const byFn = new Map<string, MeasuredPass[]>();
  for (const p of passes) byFn.set(p.fn, [...(byFn.get(p.fn) ?? []), p]);
  for (const [fn, own] of byFn) {
    const m = runMetrics(fn, own, { durationMs: opts.durationMs, endedAt: opts.endedAt });
    await pushToGateway(runFamilies(m, { success: opts.failed !== true && m.failedPasses === 0 }), { ...opts, job: jobName(fn) });
  }
}

/** A run that threw before its passes could report: each function's group records the failure and keeps the rest. */
export async function pushRunFailure(functions: readonly string[], opts: Omit<PushOptions, 'job' | 'method'> & { at: number }): Promise<void> {
  for (const fn of functions) await pushToGateway(failedRunFamilies(opts.at), { ...opts, job: jobName(fn) });
}
