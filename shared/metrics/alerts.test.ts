// The example PrometheusRule (infra/alerts/prometheusrule.yaml) speaks of what kmaint pushes: every metric, job,
// phase and gate its expressions name exists, and each alert keeps its threshold.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PHASES } from './pass-metrics.ts';
import { runFamilies } from './families.ts';
import { jobName } from './pushgateway.ts';
import type { RunMetrics } from './run-metrics.ts';
import { WAIT_GATES } from './wait-gates.ts';

interface Rule {
  alert: string;
  expr: string;
  for: string;
}

const rules = (parse(readFileSync(new URL('../../infra/alerts/prometheusrule.yaml', import.meta.url), 'utf8')) as { spec: { groups: Array<{ rules: Rule[] }> } }).spec.groups.flatMap((g) => g.rules);
const RUN: RunMetrics = {
  fn: 'scheduler', at: 0, passes: 0, failedPasses: 0, writeErrors: 0, conflicts: 0, admitted: 0, becameReady: 0, evictions: 0, evictionsRefused: 0, drainSeconds: [],
  durationMs: 0, requests: {}, oldestSeconds: {}, waiting: {}, waitingOldestSeconds: {}, pastDeadline: 0, apiRequests: {}, apiErrors: {},
};
const families = new Set(runFamilies(RUN, { success: true }).map((f) => f.name));

describe('infra/alerts/prometheusrule.yaml', () => {
  it('has the four alerts with their expressions', () => {
    expect(rules.map((r) => [r.alert, r.expr, r.for])).toEqual([
      ['KmaintMaintenanceStuck', 'max by (phase) (kmaint_oldest_request_age_seconds{job="kmaint-scheduler", phase=~"New|Pending|Scheduled|Cordon|WaitForPodCompletion|Draining|Rebooting"}) > 86400', '15m'],
      ['KmaintBudgetBlocking', 'max(kmaint_waiting_oldest_seconds{job="kmaint-drainer", gate="budget"}) > 3600', '10m'],
      ['KmaintPassFailures', 'max by (job) (kmaint_last_run_failed_passes{job=~"kmaint-.+"}) > 0', '10m'],
      ['KmaintNoRecentSuccess', 'time() - max by (job) (kmaint_last_success_timestamp_seconds{job=~"kmaint-.+"}) > 1800', '5m'],
    ]);
  });

  it('KmaintMaintenanceStuck watches every phase a request passes before Ready, Rebooting included (issue 43)', () => {
    const stuck = rules.find((r) => r.alert === 'KmaintMaintenanceStuck')?.expr ?? '';
    expect(/phase=~"([^"]+)"/.exec(stuck)?.[1]?.split('|')).toEqual(PHASES.filter((p) => p !== 'Ready' && p !== 'RequestorFailed'));
  });

  it.each(rules.map((r) => [r.alert, r.expr]))('%s names only pushed metrics, jobs, phases and gates', (_alert, expr) => {
    for (const name of expr.match(/kmaint_\w+/g) ?? []) expect(families).toContain(name);
    for (const [, job] of expr.matchAll(/job="([^"]+)"/g)) expect([jobName('scheduler'), jobName('drainer'), jobName('cleanup'), jobName('reaper')]).toContain(job);
    for (const [, list] of expr.matchAll(/phase=~"([^"]+)"/g)) for (const p of (list ?? '').split('|')) expect(PHASES).toContain(p);
    for (const [, gate] of expr.matchAll(/gate="([^"]+)"/g)) expect(WAIT_GATES).toContain(gate);
  });
});
