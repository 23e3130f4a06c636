// The Grafana dashboard of the chart (charts/kmaint/files/dashboard.json) asks only for what kmaint exports: every
// query's metric names are series of the exposition shared/metrics renders for a run, every label it matches on or
// groups by is one of those series' labels (or job, which the Pushgateway group adds), every job is a pass function's.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jobName, renderExposition, runFamilies, type RunMetrics } from '../shared/metrics/index.ts';

const DASHBOARD = 'charts/kmaint/files/dashboard.json';
/** Labels Prometheus has on each series besides the exposition's: the Pushgateway group's job (scraped with honor_labels). */
const ADDED_LABELS = ['job'];
const JOBS = ['scheduler', 'drainer', 'cleanup', 'reaper'].map((fn) => jobName(fn));

interface Panel {
  title: string;
  targets?: Array<{ expr: string }>;
  panels?: Panel[];
}

/** A run with every kind of sample: phases, gates and API verbs filled, a drain measured, success. */
const RUN: RunMetrics = {
  fn: 'drainer', at: 1_700_000_000_000, passes: 3, failedPasses: 0, writeErrors: 0, conflicts: 1, admitted: 1, becameReady: 1, evictions: 2, evictionsRefused: 1, drainSeconds: [40],
  durationMs: 1200, requests: { Pending: 1 }, oldestSeconds: { Pending: 75 }, waiting: { budget: 1 }, waitingOldestSeconds: { budget: 30 }, pastDeadline: 0,
  apiRequests: { 'list nodes': 3 }, apiErrors: { 'list nodes': 0 },
};

/** Series name -> its label names, read back from the Prometheus text format kmaint pushes. */
function exposedSeries(): Map<string, Set<string>> {
  const series = new Map<string, Set<string>>();
  for (const line of renderExposition(runFamilies(RUN, { success: true })).split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? /.exec(line);
    if (!m || line.startsWith('#')) continue;
    const labels = series.get(m[1] ?? '') ?? new Set<string>();
    for (const [, name] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)) labels.add(name ?? '');
    series.set(m[1] ?? '', labels);
  }
  return series;
}

/** PromQL words that are not metric names: aggregations, functions, modifiers, operators. */
const KEYWORDS = new Set(['sum', 'max', 'min', 'avg', 'count', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'time', 'rate', 'increase', 'and', 'or', 'unless', 'offset', 'bool']);

interface Query {
  metrics: Array<{ name: string; matchers: string[] }>;
  grouping: string[];
  jobs: string[];
}

/** The metric selectors (name and matcher label names), grouping labels and exact job values of one expression. */
function readQuery(expr: string): Query {
  const metrics: Query['metrics'] = [];
  for (const [, name, body] of expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?:\{([^}]*)\})?/g)) {
    if (!name || KEYWORDS.has(name) || /^[0-9]/.test(name)) continue;
    // A word directly followed by "(" is a function; a word inside a matcher or a grouping was consumed with its metric.
    const after = expr.slice(expr.indexOf(name) + name.length).trimStart();
    if (body === undefined && after.startsWith('(')) continue;
    metrics.push({ name, matchers: [...(body ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map((m) => m[1] ?? '') });
  }
  const grouping = [...expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap((m) => (m[1] ?? '').split(',').map((l) => l.trim()));
  const jobs = [...expr.matchAll(/job="([^"]+)"/g)].map((m) => m[1] ?? '');
  // Grouping labels were matched as words above: drop them from the metric list.
  return { metrics: metrics.filter((m) => !grouping.includes(m.name)), grouping, jobs };
}

const panels = (JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] }).panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const queries = panels.flatMap((p) => (p.targets ?? []).map((t) => [p.title, t.expr] as const));

describe('the Grafana dashboard charts/kmaint/files/dashboard.json', () => {
  const exposed = exposedSeries();

  it('reads the query parser on a known expression exactly', () => {
    expect(readQuery('time() - max by (job) (kmaint_last_success_timestamp_seconds{job=~"kmaint-.+", gate!="x"})')).toEqual({
      metrics: [{ name: 'kmaint_last_success_timestamp_seconds', matchers: ['job', 'gate'] }],
      grouping: ['job'],
      jobs: [],
    });
  });

  it('has a query on every panel', () => {
    expect(panels.filter((p) => (p.targets ?? []).length === 0).map((p) => p.title)).toEqual([]);
  });

  it.each(queries)('%s: %s names only exported series, their labels and kmaint\'s jobs', (_title, expr) => {
    const q = readQuery(expr);
    expect(q.metrics.length).toBeGreaterThan(0);
    for (const m of q.metrics) {
      expect({ [m.name]: exposed.has(m.name) }).toEqual({ [m.name]: true });
      const labels = [...(exposed.get(m.name) ?? []), ...ADDED_LABELS];
      for (const l of m.matchers) expect({ [`${m.name}{${l}}`]: labels.includes(l) }).toEqual({ [`${m.name}{${l}}`]: true });
    }
    const available = new Set([...q.metrics.flatMap((m) => [...(exposed.get(m.name) ?? [])]), ...ADDED_LABELS]);
    for (const l of q.grouping) expect({ [`by ${l}`]: available.has(l) }).toEqual({ [`by ${l}`]: true });
    for (const j of q.jobs) expect(JOBS).toContain(j);
  });
});
