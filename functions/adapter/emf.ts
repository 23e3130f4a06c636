// A run summary as CloudWatch Embedded Metric Format lines: metrics without an API call
// (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html).
// One document holds one value per dimension, so the run's totals, each phase, each gate and each API verb get a line.
import type { BudgetRunSummary } from '#runtime';
import { PHASES, WAIT_GATES, runMetrics, type RunMetrics } from '../../shared/metrics/index.ts';

export interface EmfOptions {
  /** CloudWatch namespace. @default "kmaint" */
  namespace?: string;
  requestId?: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
}

type Unit = 'Count' | 'Milliseconds' | 'Seconds';
type Metric = [name: string, unit: Unit, value: number | number[]];

/** The run's totals, in output order. */
function runValues(r: BudgetRunSummary, m: RunMetrics): Metric[] {
  return [
    ['Passes', 'Count', r.passes.length],
    ['Admitted', 'Count', r.admitted],
    ['BecameReady', 'Count', r.becameReady],
    ['Released', 'Count', r.released],
    ['Collected', 'Count', r.collected],
    ['Conflicts', 'Count', r.conflicts],
    ['ApiErrors', 'Count', r.apiErrors],
    ['PassErrors', 'Count', r.errors],
    ['FailedPasses', 'Count', m.failedPasses],
    ['Waiting', 'Count', r.passes.at(-1)?.waiting ?? 0],
    ['WorkRemains', 'Count', r.workRemains ? 1 : 0],
    ['Chained', 'Count', r.chain.kind === 'invoke' ? 1 : 0],
    ['Evictions', 'Count', m.evictions],
    ['EvictionsRefused', 'Count', m.evictionsRefused],
    // A state, as the last pass left it: requests past their kmaint.io/deadline and still not Ready.
    ['PastDeadline', 'Count', m.pastDeadline],
    // Each finished drain is one value: CloudWatch keeps the distribution (max, average, percentiles). None, no metric.
    ...(m.drainSeconds.length > 0 ? [['DrainDuration', 'Seconds', m.drainSeconds] as Metric] : []),
    ['RunDuration', 'Milliseconds', r.durationMs],
  ];
}

function document(opts: EmfOptions, dimensions: Record<string, string>, metrics: readonly Metric[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    _aws: {
      Timestamp: opts.timestamp,
      CloudWatchMetrics: [{ Namespace: opts.namespace ?? 'kmaint', Dimensions: [Object.keys(dimensions)], Metrics: metrics.map(([Name, Unit]) => ({ Name, Unit })) }],
    },
    ...dimensions,
    ...Object.fromEntries(metrics.map(([name, , value]) => [name, value])),
    ...extra,
    ...(opts.requestId ? { requestId: opts.requestId } : {}),
  });
}

/**
 * JSON lines (no newlines inside) that CloudWatch Logs turns into metrics: the run's totals with the dimension
 * Function; then, when a pass read the cluster, each phase (Requests, OldestRequestAge) with Function and Phase, each
 * gate (Waiting, OldestWait) with Function and Gate — every phase and gate, zeros too, so alarms see data — and each
 * API verb used (ApiRequests, ApiErrors) with Function, Verb and Resource.
 */
export function emfLines(run: BudgetRunSummary, opts: EmfOptions): string[] {
  const m = runMetrics(run.fn, run.passes, { durationMs: run.durationMs, endedAt: opts.timestamp });
  const fn = { Function: run.fn };
  const lines = [document(opts, fn, runValues(run, m), { stopped: run.stopped })];
  if (!run.passes.some((p) => p.metrics !== undefined)) return lines;
  for (const phase of PHASES) {
    lines.push(document(opts, { ...fn, Phase: phase }, [['Requests', 'Count', m.requests[phase] ?? 0], ['OldestRequestAge', 'Seconds', m.oldestSeconds[phase] ?? 0]]));
  }
  for (const gate of WAIT_GATES) {
    lines.push(document(opts, { ...fn, Gate: gate }, [['Waiting', 'Count', m.waiting[gate] ?? 0], ['OldestWait', 'Seconds', m.waitingOldestSeconds[gate] ?? 0]]));
  }
  for (const key of Object.keys(m.apiRequests).sort()) {
    const at = key.indexOf(' ');
    const dims = { ...fn, Verb: at === -1 ? key : key.slice(0, at), Resource: at === -1 ? key : key.slice(at + 1) };
    lines.push(document(opts, dims, [['ApiRequests', 'Count', m.apiRequests[key] ?? 0], ['ApiErrors', 'Count', m.apiErrors[key] ?? 0]]));
  }
  return lines;
}
