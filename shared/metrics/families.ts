// A run's figures as metric families (name, help, type, samples): the one list the Prometheus text and the
// Pushgateway push are made from. Per-run counts are gauges named last_run_*: the Pushgateway keeps the last push,
// it does not add pushes up (https://github.com/prometheus/pushgateway#about-metric-inconsistencies).
import { PHASES } from './pass-metrics.ts';
import type { RunMetrics } from './run-metrics.ts';
import { WAIT_GATES } from './wait-gates.ts';

export interface Sample {
  /** Appended to the family name (`_sum`, `_count` of a summary). */
  suffix?: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: 'gauge' | 'summary';
  samples: Sample[];
}

/** Known keys in their order, then any others sorted: every known phase or gate appears, with 0 when absent. */
function keysOf(known: readonly string[], rec: Readonly<Record<string, number | undefined>>): string[] {
  return [...known, ...Object.keys(rec).filter((k) => !known.includes(k)).sort()];
}

/** "patch nodemaintenances/status" -> verb patch, resource nodemaintenances/status. */
function verbLabels(key: string): Record<string, string> {
  const at = key.indexOf(' ');
  return at === -1 ? { verb: key, resource: '' } : { verb: key.slice(0, at), resource: key.slice(at + 1) };
}

const one = (name: string, help: string, value: number): MetricFamily => ({ name, help, type: 'gauge', samples: [{ labels: {}, value }] });

export interface FamilyOptions {
  /** Adds kmaint_last_success_timestamp_seconds: no pass of the run failed. */
  success: boolean;
}

/** Every family of a run, in a fixed order. */
export function runFamilies(m: RunMetrics, opts: FamilyOptions): MetricFamily[] {
  const at = m.at / 1000;
  const api = [...new Set([...Object.keys(m.apiRequests), ...Object.keys(m.apiErrors)])].sort();
  const drainSum = m.drainSeconds.reduce((a, b) => a + b, 0);
  return [
    {
      name: 'kmaint_requests',
      help: 'NodeMaintenance requests in each phase, as the last pass left them.',
      type: 'gauge',
      samples: keysOf(PHASES, m.requests).map((phase) => ({ labels: { phase }, value: m.requests[phase] ?? 0 })),
    },
    {
      name: 'kmaint_oldest_request_age_seconds',
      help: 'Seconds since the oldest request in each phase was created (0 when the phase is empty).',
      type: 'gauge',
      samples: keysOf(PHASES, m.oldestSeconds).map((phase) => ({ labels: { phase }, value: m.oldestSeconds[phase] ?? 0 })),
    },
    {
      name: 'kmaint_waiting_requests',
      help: 'Requests waiting, by the gate that holds them (admission limits, windows, budgets, Slurm, node leases).',
      type: 'gauge',
      samples: keysOf(WAIT_GATES, m.waiting).map((gate) => ({ labels: { gate }, value: m.waiting[gate as keyof typeof m.waiting] ?? 0 })),
    },
    {
      name: 'kmaint_waiting_oldest_seconds',
      help: 'Seconds the longest-waiting request on each gate has waited: since its drain started for budget and slurm, since it was created for the others.',
      type: 'gauge',
      samples: keysOf(WAIT_GATES, m.waitingOldestSeconds).map((gate) => ({ labels: { gate }, value: m.waitingOldestSeconds[gate as keyof typeof m.waitingOldestSeconds] ?? 0 })),
    },
    one('kmaint_requests_past_deadline', 'Requests past their kmaint.io/deadline and still not Ready, as the last pass left them.', m.pastDeadline),
    ...(m.repeatOffenders !== undefined ? [one('kmaint_repair_repeat_offender_nodes', "Nodes repaired more than the repair ladder's repeatLimit times within its history window (they skip reboot rungs), as the last reaper pass read them.", m.repeatOffenders)] : []),
    one('kmaint_last_run_passes', 'Passes in the last run.', m.passes),
    one('kmaint_last_run_failed_passes', 'Passes of the last run that failed (write errors, or a read that threw).', m.failedPasses),
    one('kmaint_last_run_write_errors', 'Writes that failed in the last run.', m.writeErrors),
    one('kmaint_last_run_conflicts', 'Writes of the last run that lost to a concurrent change (decided again next pass).', m.conflicts),
    one('kmaint_last_run_admitted', 'Requests admitted in the last run.', m.admitted),
    one('kmaint_last_run_became_ready', 'Requests that reached Ready in the last run.', m.becameReady),
    one('kmaint_last_run_evictions', 'Pod evictions the API server accepted in the last run.', m.evictions),
    one('kmaint_last_run_evictions_refused', 'Pod evictions the API server refused for a disruption budget in the last run.', m.evictionsRefused),
    {
      name: 'kmaint_last_run_drain_duration_seconds',
      help: 'Seconds from drain start to Ready of the requests that became Ready in the last run.',
      type: 'summary',
      samples: [
        { suffix: '_sum', labels: {}, value: drainSum },
        { suffix: '_count', labels: {}, value: m.drainSeconds.length },
      ],
    },
    one('kmaint_last_run_duration_seconds', 'Wall time of the last run.', m.durationMs / 1000),
    {
      name: 'kmaint_last_run_api_requests',
      help: 'Kubernetes API requests of the last run, by verb and resource (retries included).',
      type: 'gauge',
      samples: api.map((k) => ({ labels: verbLabels(k), value: m.apiRequests[k] ?? 0 })),
    },
    {
      name: 'kmaint_last_run_api_errors',
      help: 'Kubernetes API requests of the last run that failed after retries, by verb and resource.',
      type: 'gauge',
      samples: api.map((k) => ({ labels: verbLabels(k), value: m.apiErrors[k] ?? 0 })),
    },
    one('kmaint_last_run_timestamp_seconds', 'When the last run measured the cluster (Unix seconds).', at),
    ...(opts.success ? [one('kmaint_last_success_timestamp_seconds', 'When the last run without a failed pass measured the cluster (Unix seconds).', at)] : []),
  ];
}

/** A run that threw before it could report (e.g. the API server unreachable): its failure, nothing else. */
export function failedRunFamilies(at: number): MetricFamily[] {
  return [
    one('kmaint_last_run_failed_passes', 'Passes of the last run that failed (write errors, or a read that threw).', 1),
    one('kmaint_last_run_timestamp_seconds', 'When the last run measured the cluster (Unix seconds).', at / 1000),
  ];
}
