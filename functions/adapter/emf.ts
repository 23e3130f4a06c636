// A run summary as one CloudWatch Embedded Metric Format line: metrics without an API call.
import type { BudgetRunSummary } from '#runtime';

export interface EmfOptions {
  /** CloudWatch namespace. @default "kmaint" */
  namespace?: string;
  requestId?: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
}

/** Name, unit and value of every metric, in output order. */
const METRICS: ReadonlyArray<[string, 'Count' | 'Milliseconds', (r: BudgetRunSummary) => number]> = [
  ['Passes', 'Count', (r) => r.passes.length],
  ['Admitted', 'Count', (r) => r.admitted],
  ['BecameReady', 'Count', (r) => r.becameReady],
  ['Released', 'Count', (r) => r.released],
  ['Collected', 'Count', (r) => r.collected],
  ['Conflicts', 'Count', (r) => r.conflicts],
  ['ApiErrors', 'Count', (r) => r.apiErrors],
  ['PassErrors', 'Count', (r) => r.errors],
  ['Waiting', 'Count', (r) => r.passes.at(-1)?.waiting ?? 0],
  ['WorkRemains', 'Count', (r) => (r.workRemains ? 1 : 0)],
  ['Chained', 'Count', (r) => (r.chain.kind === 'invoke' ? 1 : 0)],
  ['RunDuration', 'Milliseconds', (r) => r.durationMs],
];

/** One JSON line (no newline) that CloudWatch Logs turns into metrics with the dimension Function. */
export function emfLine(run: BudgetRunSummary, opts: EmfOptions): string {
  const values = Object.fromEntries(METRICS.map(([name, , value]) => [name, value(run)]));
  return JSON.stringify({
    _aws: {
      Timestamp: opts.timestamp,
      CloudWatchMetrics: [{ Namespace: opts.namespace ?? 'kmaint', Dimensions: [['Function']], Metrics: METRICS.map(([Name, Unit]) => ({ Name, Unit })) }],
    },
    Function: run.fn,
    ...values,
    stopped: run.stopped,
    ...(opts.requestId ? { requestId: opts.requestId } : {}),
  });
}
