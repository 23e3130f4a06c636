// The timeline report: one self-contained HTML page (inline CSS, data and script; no network) with a Gantt chart of
// every node through the phases observed, a chart of unavailable nodes and requests in progress against the limits,
// and the run's summary table. The page's script draws the SVG from the embedded data when it loads.
import type { Timeline } from './timeline.ts';

export interface ReportPage {
  title: string;
  /** One line under the title (what ran, on what cluster). */
  subtitle: string;
  timeline: Timeline;
  /** The summary table, label and value, in order. */
  summary: ReadonlyArray<readonly [string, string]>;
}

/** Phase colours, in the order phases happen; phases not listed are drawn grey. */
export const PHASE_COLOURS: ReadonlyArray<readonly [string, string]> = [
  ['new', '#d0d0d0'],
  ['Pending', '#f2c14e'],
  ['Scheduled', '#9ecae1'],
  ['Cordon', '#6baed6'],
  ['WaitForPodCompletion', '#b39ddb'],
  ['Draining', '#f28e2b'],
  ['Rebooting', '#e377c2'],
  ['Ready', '#59a14f'],
  ['RequestorFailed', '#e15759'],
  ['deleting', '#8c8c8c'],
  // Issue 44: a released request's node validating before its uncordon, and one whose failed validation kept it cordoned.
  ['Validating', '#76b7b2'],
  ['ValidationFailed: stayed cordoned', '#9c2f2f'],
];

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** JSON safe inside a <script> element: no "</script>" or "<!--" can close or change it. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

const STYLE = `
body { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 15px; margin: 24px 0 6px; }
.sub { color: #555; margin-bottom: 12px; }
table.summary { border-collapse: collapse; } table.summary td { padding: 2px 12px 2px 0; vertical-align: top; }
table.summary td:first-child { color: #555; white-space: nowrap; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
.axis line, .axis path { stroke: #888; } .grid line { stroke: #eee; }
.legend { display: flex; flex-wrap: wrap; gap: 12px; margin: 4px 0; }
.legend span { display: inline-flex; align-items: center; gap: 4px; } .legend i { width: 12px; height: 12px; display: inline-block; }
line.limit { stroke-dasharray: 6 4; stroke-width: 1.5; }
`;

/** Draws #gantt and #counts from #kmaint-report-data; marks <body data-rendered> with what it drew. */
const SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById('kmaint-report-data').textContent);
  var t = data.timeline, colours = new Map(data.colours);
  var NS = 'http://www.w3.org/2000/svg';
  function el(parent, name, attrs, text) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined) e.textContent = text;
    parent.appendChild(e);
    return e;
  }
  function clock(ms) {
    var s = Math.round(ms / 1000), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60;
    return String(h).padStart(2, '0') + ':' + String(m).padStart(2, '0') + ':' + String(s % 60).padStart(2, '0');
  }
  function step(span) {
    var steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800, 86400].map(function (s) { return s * 1000; });
    for (var i = 0; i < steps.length; i++) if (span / steps[i] <= 10) return steps[i];
    return Math.ceil(span / 10 / 86400000) * 86400000;
  }
  var end = Math.max(t.endMs, 1), left = 120, width = 1000, right = 20;
  var x = function (ms) { return left + (ms / end) * width; };
  function timeAxis(svg, y, top) {
    var axis = el(svg, 'g', { class: 'axis', 'data-axis': 'time' });
    el(axis, 'line', { x1: left, x2: left + width, y1: y, y2: y });
    var grid = el(svg, 'g', { class: 'grid' });
    for (var ms = 0, s = step(end); ms <= end; ms += s) {
      el(grid, 'line', { x1: x(ms), x2: x(ms), y1: top, y2: y });
      el(axis, 'line', { x1: x(ms), x2: x(ms), y1: y, y2: y + 4 });
      el(axis, 'text', { x: x(ms), y: y + 16, 'text-anchor': 'middle', class: 'tick' }, clock(ms));
    }
  }

  // Gantt: a lane per node, a bar per phase span observed.
  var lanes = t.lanes, row = Math.max(3, Math.min(18, Math.floor(6000 / Math.max(1, lanes.length))));
  var gh = lanes.length * row + 30;
  var gantt = el(document.getElementById('gantt-box'), 'svg', { id: 'gantt', width: left + width + right, height: gh + 10, viewBox: '0 0 ' + (left + width + right) + ' ' + (gh + 10) });
  timeAxis(gantt, lanes.length * row + 4, 0);
  var bars = el(gantt, 'g', { class: 'bars' }), drawn = 0;
  lanes.forEach(function (lane, i) {
    var y = i * row;
    if (row >= 10) el(gantt, 'text', { x: left - 6, y: y + row - 5, 'text-anchor': 'end', class: 'lane' }, lane.node);
    lane.spans.forEach(function (s) {
      var r = el(bars, 'rect', { class: 'bar', 'data-node': lane.node, 'data-phase': s.phase, x: x(s.startMs), y: y + 1, width: Math.max(1, x(s.endMs) - x(s.startMs)), height: Math.max(1, row - 2), fill: colours.get(s.phase) || '#bbb' });
      el(r, 'title', {}, lane.node + ' ' + s.request + (s.note ? ' (' + s.note + ')' : '') + ': ' + s.phase + ' ' + clock(s.startMs) + ' to ' + clock(s.endMs));
      drawn++;
    });
  });
  var legend = document.getElementById('legend');
  data.colours.forEach(function (c) {
    if (!lanes.some(function (l) { return l.spans.some(function (s) { return s.phase === c[0]; }); })) return;
    var item = document.createElement('span'), box = document.createElement('i');
    box.style.background = c[1]; item.appendChild(box); item.appendChild(document.createTextNode(c[0])); legend.appendChild(item);
  });

  // Unavailable nodes and requests in progress over time (steps), with the limits as dashed lines.
  var limits = [['maxUnavailable', t.limits.maxUnavailable, '#e15759'], ['maxParallelOperations', t.limits.maxParallelOperations, '#4e79a7']]
    .filter(function (l) { return typeof l[1] === 'number'; });
  var top = Math.max(1, Math.max.apply(null, t.counts.map(function (p) { return Math.max(p.unavailable, p.inProgress); }).concat(limits.map(function (l) { return l[1]; }))) + 1);
  var ch = 220, cw = el(document.getElementById('counts-box'), 'svg', { id: 'counts', width: left + width + right, height: ch + 30, viewBox: '0 0 ' + (left + width + right) + ' ' + (ch + 30) });
  var yv = function (v) { return 10 + (1 - v / top) * (ch - 10); };
  timeAxis(cw, ch, 10);
  var yaxis = el(cw, 'g', { class: 'axis', 'data-axis': 'nodes' });
  el(yaxis, 'line', { x1: left, x2: left, y1: 10, y2: ch });
  for (var v = 0, vs = Math.max(1, Math.ceil(top / 8)); v <= top; v += vs) {
    el(yaxis, 'line', { x1: left - 4, x2: left, y1: yv(v), y2: yv(v) });
    el(yaxis, 'text', { x: left - 8, y: yv(v) + 4, 'text-anchor': 'end', class: 'tick' }, String(v));
  }
  function stepPath(key) {
    var d = '';
    t.counts.forEach(function (p, i) { d += (i === 0 ? 'M' + x(p.atMs) + ' ' + yv(p[key]) : ' H' + x(p.atMs) + ' V' + yv(p[key])); });
    return t.counts.length ? d + ' H' + x(end) : '';
  }
  el(cw, 'path', { class: 'series', 'data-series': 'unavailable', d: stepPath('unavailable'), fill: 'none', stroke: '#e15759', 'stroke-width': 2 });
  el(cw, 'path', { class: 'series', 'data-series': 'inProgress', d: stepPath('inProgress'), fill: 'none', stroke: '#4e79a7', 'stroke-width': 2 });
  limits.forEach(function (l) {
    el(cw, 'line', { class: 'limit', 'data-limit': l[0], x1: left, x2: left + width, y1: yv(l[1]), y2: yv(l[1]), stroke: l[2] });
    el(cw, 'text', { x: left + width - 4, y: yv(l[1]) - 4, 'text-anchor': 'end', class: 'limit-label' }, l[0] + ' ' + l[1]);
  });
  document.body.setAttribute('data-rendered', JSON.stringify({ lanes: lanes.length, bars: drawn, points: t.counts.length, limits: limits.length }));
})();
`;

/** The whole page. Deterministic for the same input. */
export function renderReportHtml(page: ReportPage): string {
  const rows = page.summary.map(([label, value]) => `<tr><td>${escapeHtml(label)}</td><td>${escapeHtml(value)}</td></tr>`).join('\n');
  const data = { timeline: page.timeline, colours: PHASE_COLOURS };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>${escapeHtml(page.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(page.title)}</h1>
<div class="sub">${escapeHtml(page.subtitle)}</div>
<table class="summary">
${rows}
</table>
<h2>Nodes through their phases (simulated time)</h2>
<div class="legend" id="legend"></div>
<div id="gantt-box"></div>
<h2>Unavailable nodes and requests in progress, against the limits</h2>
<div class="legend"><span><i style="background:#e15759"></i>unavailable nodes</span><span><i style="background:#4e79a7"></i>requests in progress</span><span>dashed: the limits</span></div>
<div id="counts-box"></div>
<script type="application/json" id="kmaint-report-data">${scriptJson(data)}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
