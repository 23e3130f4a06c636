// Public surface of sim/report: the phase timeline of a run and the self-contained HTML page that draws it.
export { TimelineRecorder } from './timeline.ts';
export type { CountPoint, NodeLane, PhaseSpan, Timeline, TimelinePhase } from './timeline.ts';
export { PHASE_COLOURS, renderReportHtml } from './html.ts';
export type { ReportPage } from './html.ts';
