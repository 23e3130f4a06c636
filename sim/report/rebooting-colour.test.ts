// Issue 43 follow-up: the timeline report (demo --report, what-if report) draws a request in Rebooting in its own
// colour between Draining and Ready, not the grey of an unknown phase.
import { expect, it } from 'vitest';
import { PHASE_COLOURS, renderReportHtml } from './html.ts';
import { TimelineRecorder } from './timeline.ts';

it('lists Rebooting between Draining and Ready and embeds its colour in the page', () => {
  expect(PHASE_COLOURS.map(([phase]) => phase)).toEqual(['new', 'Pending', 'Scheduled', 'Cordon', 'WaitForPodCompletion', 'Draining', 'Rebooting', 'Ready', 'RequestorFailed', 'deleting', 'Validating', 'ValidationFailed: stayed cordoned']);
  const r = new TimelineRecorder();
  r.phase('ops/a', 'n1', 'Draining', 0);
  r.phase('ops/a', 'n1', 'Rebooting', 100);
  r.phase('ops/a', 'n1', 'Ready', 300);
  const timeline = r.timeline({ maxParallelOperations: 1, maxUnavailable: 'unlimited' }, 400);
  expect(timeline.lanes[0]?.spans).toEqual([
    { request: 'ops/a', phase: 'Draining', startMs: 0, endMs: 100 },
    { request: 'ops/a', phase: 'Rebooting', startMs: 100, endMs: 300 },
    { request: 'ops/a', phase: 'Ready', startMs: 300, endMs: 400 },
  ]);
  expect(renderReportHtml({ title: 't', subtitle: 's', timeline, summary: [] })).toContain('["Draining","#f28e2b"],["Rebooting","#e377c2"],["Ready","#59a14f"]');
});
