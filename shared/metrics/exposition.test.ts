// A run's figures as Prometheus text: every family with HELP and TYPE, every phase and gate (zeros too), API
// requests by verb and resource, the success stamp only for a run without a failed pass, and label escaping.
import { describe, expect, it } from 'vitest';
import { renderExposition } from './exposition.ts';
import { failedRunFamilies, runFamilies } from './families.ts';
import type { RunMetrics } from './run-metrics.ts';

const RUN: RunMetrics = {
  fn: 'drainer',
  at: 1767225600000,
  passes: 2,
  failedPasses: 0,
  writeErrors: 0,
  conflicts: 1,
  admitted: 0,
  becameReady: 1,
  evictions: 3,
  evictionsRefused: 1,
  drainSeconds: [30, 12],
  durationMs: 1500,
  requests: { Draining: 1, Ready: 1 },
  oldestSeconds: { Draining: 90, Ready: 95 },
  waiting: { budget: 1 },
  waitingOldestSeconds: { budget: 30 },
  pastDeadline: 1,
  apiRequests: { 'list nodes': 2, 'create pods/eviction': 4 },
  apiErrors: { 'create pods/eviction': 1 },
};

const values = (text: string): string[] => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

describe('runFamilies + renderExposition', () => {
  it('renders every sample of a successful run, in a fixed order', () => {
    expect(values(renderExposition(runFamilies(RUN, { success: true })))).toEqual([
      'kmaint_requests{phase="New"} 0',
      'kmaint_requests{phase="Pending"} 0',
      'kmaint_requests{phase="Scheduled"} 0',
      'kmaint_requests{phase="Cordon"} 0',
      'kmaint_requests{phase="WaitForPodCompletion"} 0',
      'kmaint_requests{phase="Draining"} 1',
      'kmaint_requests{phase="Rebooting"} 0',
      'kmaint_requests{phase="Ready"} 1',
      'kmaint_requests{phase="RequestorFailed"} 0',
      'kmaint_oldest_request_age_seconds{phase="New"} 0',
      'kmaint_oldest_request_age_seconds{phase="Pending"} 0',
      'kmaint_oldest_request_age_seconds{phase="Scheduled"} 0',
      'kmaint_oldest_request_age_seconds{phase="Cordon"} 0',
      'kmaint_oldest_request_age_seconds{phase="WaitForPodCompletion"} 0',
      'kmaint_oldest_request_age_seconds{phase="Draining"} 90',
      'kmaint_oldest_request_age_seconds{phase="Rebooting"} 0',
      'kmaint_oldest_request_age_seconds{phase="Ready"} 95',
      'kmaint_oldest_request_age_seconds{phase="RequestorFailed"} 0',
      ...['parallel', 'unavailable', 'pool', 'zone', 'window', 'not-before', 'gang', 'slurm'].map((g) => `kmaint_waiting_requests{gate="${g}"} 0`),
      'kmaint_waiting_requests{gate="budget"} 1',
      ...['lease', 'node', 'config', 'other'].map((g) => `kmaint_waiting_requests{gate="${g}"} 0`),
      ...['parallel', 'unavailable', 'pool', 'zone', 'window', 'not-before', 'gang', 'slurm'].map((g) => `kmaint_waiting_oldest_seconds{gate="${g}"} 0`),
      'kmaint_waiting_oldest_seconds{gate="budget"} 30',
      ...['lease', 'node', 'config', 'other'].map((g) => `kmaint_waiting_oldest_seconds{gate="${g}"} 0`),
      'kmaint_requests_past_deadline 1',
      'kmaint_last_run_passes 2',
      'kmaint_last_run_failed_passes 0',
      'kmaint_last_run_write_errors 0',
      'kmaint_last_run_conflicts 1',
      'kmaint_last_run_admitted 0',
      'kmaint_last_run_became_ready 1',
      'kmaint_last_run_evictions 3',
      'kmaint_last_run_evictions_refused 1',
      'kmaint_last_run_drain_duration_seconds_sum 42',
      'kmaint_last_run_drain_duration_seconds_count 2',
      'kmaint_last_run_duration_seconds 1.5',
      'kmaint_last_run_api_requests{verb="create",resource="pods/eviction"} 4',
      'kmaint_last_run_api_requests{verb="list",resource="nodes"} 2',
      'kmaint_last_run_api_errors{verb="create",resource="pods/eviction"} 1',
      'kmaint_last_run_api_errors{verb="list",resource="nodes"} 0',
      'kmaint_last_run_timestamp_seconds 1767225600',
      'kmaint_last_success_timestamp_seconds 1767225600',
    ]);
  });

  it('a reaper run with the repair ladder adds the repeat offenders after the past-deadline count; a run without measured none has no such family', () => {
    const lines = values(renderExposition(runFamilies({ ...RUN, fn: 'reaper', repeatOffenders: 2 }, { success: true })));
    expect(lines.slice(lines.indexOf('kmaint_requests_past_deadline 1'), lines.indexOf('kmaint_requests_past_deadline 1') + 2)).toEqual(['kmaint_requests_past_deadline 1', 'kmaint_repair_repeat_offender_nodes 2']);
    expect(renderExposition(runFamilies(RUN, { success: true }))).not.toContain('kmaint_repair_repeat_offender_nodes');
  });

  it('each family has one HELP and one TYPE line before its samples', () => {
    const text = renderExposition(runFamilies(RUN, { success: true }));
    expect(text.split('\n').slice(0, 3)).toEqual([
      '# HELP kmaint_requests NodeMaintenance requests in each phase, as the last pass left them.',
      '# TYPE kmaint_requests gauge',
      'kmaint_requests{phase="New"} 0',
    ]);
    expect(text).toContain('# TYPE kmaint_last_run_drain_duration_seconds summary\n');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('a run with a failed pass has no success stamp; a run that threw reports only its failure', () => {
    expect(renderExposition(runFamilies({ ...RUN, failedPasses: 1 }, { success: false }))).not.toContain('kmaint_last_success_timestamp_seconds');
    expect(values(renderExposition(failedRunFamilies(1767225600000)))).toEqual(['kmaint_last_run_failed_passes 1', 'kmaint_last_run_timestamp_seconds 1767225600']);
  });

  it('escapes backslashes, quotes and newlines in label values and help', () => {
    const text = renderExposition([{ name: 'x', help: 'a\\b\nc', type: 'gauge', samples: [{ labels: { v: 'q"\\\n' }, value: 1 }] }]);
    expect(text).toBe('# HELP x a\\\\b\\nc\n# TYPE x gauge\nx{v="q\\"\\\\\\n"} 1\n');
  });
});
