// Issue 43 follow-up: a request whose node reboots (Ready reason Rebooting) is counted by the phase gauge, in its place
// between Draining and Ready, not only as an unknown phase after the known ones.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PHASE_REBOOTING } from '../api/index.ts';
import { aMaintenance } from '../scheduling/test-builders.ts';
import { renderExposition } from './exposition.ts';
import { runFamilies } from './families.ts';
import { measurePass, PHASES } from './pass-metrics.ts';
import type { RunMetrics } from './run-metrics.ts';

describe('the Rebooting phase in pass metrics', () => {
  it('is a known phase, after Draining and before Ready', () => {
    expect(PHASES).toEqual(['New', 'Pending', 'Scheduled', 'Cordon', 'WaitForPodCompletion', 'Draining', 'Rebooting', 'Ready', 'RequestorFailed']);
  });

  it('counts rebooting requests with the age of the oldest, and renders them in the phase gauge', () => {
    const now = new Date('2026-01-01T00:10:00Z');
    const m = measurePass({
      maintenances: [
        aMaintenance({ name: 'a', nodeName: 'n1', phase: PHASE_REBOOTING, created: '2026-01-01T00:00:00Z' }),
        aMaintenance({ name: 'b', nodeName: 'n2', phase: PHASE_REBOOTING, created: '2026-01-01T00:04:00Z' }),
        aMaintenance({ name: 'c', nodeName: 'n3', phase: 'Draining', created: '2026-01-01T00:09:00Z' }),
      ],
      actions: [],
      evictions: 0,
      evictionsRefused: 0,
      apiErrors: {},
      now,
    });
    expect(m.requests).toEqual({ Rebooting: 2, Draining: 1 });
    expect(m.oldestSeconds).toEqual({ Rebooting: 600, Draining: 60 });
    const run: RunMetrics = {
      fn: 'drainer', at: now.getTime(), passes: 1, failedPasses: 0, writeErrors: 0, conflicts: 0, admitted: 0, becameReady: 0, evictions: 0, evictionsRefused: 0, drainSeconds: [],
      durationMs: 0, requests: m.requests, oldestSeconds: m.oldestSeconds, waiting: {}, waitingOldestSeconds: {}, pastDeadline: 0, apiRequests: {}, apiErrors: {},
    };
    const lines = renderExposition(runFamilies(run, { success: true })).split('\n').filter((l) => l.startsWith('kmaint_requests{'));
    expect(lines).toEqual([
      'kmaint_requests{phase="New"} 0',
      'kmaint_requests{phase="Pending"} 0',
      'kmaint_requests{phase="Scheduled"} 0',
      'kmaint_requests{phase="Cordon"} 0',
      'kmaint_requests{phase="WaitForPodCompletion"} 0',
      'kmaint_requests{phase="Draining"} 1',
      'kmaint_requests{phase="Rebooting"} 2',
      'kmaint_requests{phase="Ready"} 0',
      'kmaint_requests{phase="RequestorFailed"} 0',
    ]);
  });
});

describe('the dashboard\'s "Requests not Ready" panel', () => {
  it('counts every phase but Ready and RequestorFailed, Rebooting included', () => {
    const dashboard = JSON.parse(readFileSync(new URL('../../charts/kmaint/files/dashboard.json', import.meta.url), 'utf8')) as { panels: Array<{ title?: string; targets?: Array<{ expr: string }> }> };
    const expr = dashboard.panels.find((p) => p.title === 'Requests not Ready')?.targets?.[0]?.expr ?? '';
    expect(/phase=~"([^"]+)"/.exec(expr)?.[1]?.split('|')).toEqual(PHASES.filter((p) => p !== 'Ready' && p !== 'RequestorFailed'));
  });
});
