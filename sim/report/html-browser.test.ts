// Issue 12 point 4: the HTML timeline report opened in headless Chromium (Debian's `chromium`): the page's own script
// draws a Gantt bar per node and phase observed, the time axes, the unavailable/in-progress steps and the limit lines.
// Checked on a fixed timeline (exact DOM), and on the pages `kmaint simulate --report` and `kmaint demo --report` write.
// Needs no cluster. Without Chromium the file fails, naming the install command: it never skips.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReportHtml, type Timeline } from './index.ts';
import { kmaintArgs } from '../../test/support/kmaint-cli.ts';

const CHROMIUM = process.env['KMAINT_CHROMIUM'] ?? 'chromium';
const INSTALL = 'apt-get update && apt-get install -y chromium';
const dir = mkdtempSync(join(tmpdir(), 'kmaint-report-'));

function run(cmd: string, args: string[], timeout = 110_000): Promise<{ code: number; stdout: string; stderr: string; error?: NodeJS.ErrnoException }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { code?: unknown }) | null;
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stdout, stderr, ...(e ? { error: e } : {}) });
    });
  });
}

/** The DOM after the page's script ran. */
async function renderedDom(file: string): Promise<string> {
  const r = await run(CHROMIUM, ['--headless', '--no-sandbox', '--disable-gpu', '--dump-dom', pathToFileURL(file).href]);
  if (r.code !== 0) throw new Error(`${CHROMIUM} --dump-dom ${file} failed (${r.code}): ${r.stderr.slice(-500)}`);
  return r.stdout;
}

const bars = (dom: string): string[][] => [...dom.matchAll(/<rect class="bar" data-node="([^"]+)" data-phase="([^"]+)"/g)].map((m) => [m[1] ?? '', m[2] ?? '']);
const count = (dom: string, text: string): number => dom.split(text).length - 1;
const rendered = (dom: string): unknown => JSON.parse((/<body data-rendered="([^"]*)"/.exec(dom)?.[1] ?? 'null').replace(/&quot;/g, '"'));
const pageData = (html: string): { timeline: Timeline } => JSON.parse(/<script type="application\/json" id="kmaint-report-data">(.*?)<\/script>/s.exec(html)?.[1] ?? 'null') as { timeline: Timeline };
const ticks = (dom: string, svg: string): string[] => {
  const part = dom.slice(dom.indexOf(`<svg id="${svg}"`), dom.indexOf('</svg>', dom.indexOf(`<svg id="${svg}"`)));
  return [...part.matchAll(/<text [^>]*class="tick"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1] ?? '');
};

const FIXED: Timeline = {
  endMs: 600_000,
  lanes: [
    {
      node: 'node-a',
      spans: [
        { request: 'ops/a', phase: 'new', startMs: 0, endMs: 1000 },
        { request: 'ops/a', phase: 'Pending', startMs: 1000, endMs: 60_000 },
        { request: 'ops/a', phase: 'Scheduled', startMs: 60_000, endMs: 61_000 },
        { request: 'ops/a', phase: 'Draining', startMs: 61_000, endMs: 200_000 },
        { request: 'ops/a', phase: 'Ready', startMs: 200_000, endMs: 300_000 },
        { request: 'ops/a', phase: 'deleting', startMs: 300_000, endMs: 301_000 },
      ],
    },
    {
      node: 'node-b',
      spans: [
        { request: 'ops/b', phase: 'Scheduled', startMs: 0, endMs: 5000 },
        { request: 'ops/b', phase: 'Draining', startMs: 5000, endMs: 100_000 },
        { request: 'ops/b', phase: 'Ready', startMs: 100_000, endMs: 600_000 },
      ],
    },
    { node: 'node-c', spans: [{ request: 'ops/c', phase: 'Pending', startMs: 0, endMs: 600_000 }] },
  ],
  counts: [
    { atMs: 0, unavailable: 1, inProgress: 1 },
    { atMs: 60_000, unavailable: 2, inProgress: 2 },
    { atMs: 301_000, unavailable: 1, inProgress: 1 },
    { atMs: 600_000, unavailable: 1, inProgress: 1 },
  ],
  limits: { maxParallelOperations: 1, maxUnavailable: 2 },
};

describe('the HTML timeline report in headless Chromium', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeAll(async () => {
    const version = await run(CHROMIUM, ['--version']);
    if (version.code !== 0) {
      throw new Error(`sim/report/html-browser.test.ts needs Chromium (${CHROMIUM}: ${version.error?.code ?? version.stderr.trim()}). Install it: ${INSTALL} (or set KMAINT_CHROMIUM to its path)`);
    }
  });

  it('a fixed timeline: one bar per node and phase, both time axes, the node axis, both series and both limit lines', async () => {
    const file = join(dir, 'fixed.html');
    const html = renderReportHtml({ title: 'fixed <run>', subtitle: 'three nodes', timeline: FIXED, summary: [['makespan', '10m 00s'], ['note', '<script>alert(1)</script>']] });
    writeFileSync(file, html);
    // Self-contained: nothing is loaded from anywhere (and the page's policy forbids it).
    expect(html).not.toMatch(/\s(src|href)=/);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"`);
    const dom = await renderedDom(file);
    expect(rendered(dom)).toEqual({ lanes: 3, bars: 10, points: 4, limits: 2 });
    expect(bars(dom)).toEqual([
      ['node-a', 'new'],
      ['node-a', 'Pending'],
      ['node-a', 'Scheduled'],
      ['node-a', 'Draining'],
      ['node-a', 'Ready'],
      ['node-a', 'deleting'],
      ['node-b', 'Scheduled'],
      ['node-b', 'Draining'],
      ['node-b', 'Ready'],
      ['node-c', 'Pending'],
    ]);
    const minutes = Array.from({ length: 11 }, (_, i) => `00:${String(i).padStart(2, '0')}:00`);
    expect(ticks(dom, 'gantt')).toEqual(minutes);
    expect(ticks(dom, 'counts')).toEqual([...minutes, '0', '1', '2', '3']);
    expect([count(dom, 'data-axis="time"'), count(dom, 'data-axis="nodes"')]).toEqual([2, 1]);
    expect([count(dom, '<line class="limit" data-limit="maxUnavailable"'), count(dom, '<line class="limit" data-limit="maxParallelOperations"')]).toEqual([1, 1]);
    expect(count(dom, '<path class="series"')).toBe(2);
    expect(dom).toContain('<td>note</td><td>&lt;script&gt;alert(1)&lt;/script&gt;</td>');
    expect(dom).toContain('<title>fixed &lt;run&gt;</title>');
  });

  it('kmaint simulate --report: the observed phases of every node drawn, exactly as the run saw them', async () => {
    const file = join(dir, 'simulate.html');
    const r = await run(process.execPath, kmaintArgs('simulate', '--profile', 'small', '--nodes', 'kmaint.io/pool=general', '--report', file, '-o', 'json'), 120_000);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const report = JSON.parse(r.stdout) as Record<string, unknown>;
    expect([report['outcome'], report['nodes'], 'timeline' in report]).toEqual(['done', 4, false]);
    const data = pageData(readFileSync(file, 'utf8'));
    const dom = await renderedDom(file);
    // The manual clock makes the run deterministic: every request is seen new, the first is admitted at once, the
    // rest wait (maxParallelOperations 1); the drainer goes Scheduled -> Draining in one write (Cordon is never seen).
    const phases = (pending: boolean): string[] => ['new', ...(pending ? ['Pending'] : []), 'Scheduled', 'Draining', 'Ready', 'deleting'];
    expect(bars(dom)).toEqual([
      ...phases(false).map((p) => ['node-001', p]),
      ...['node-002', 'node-003', 'node-004'].flatMap((n) => phases(true).map((p) => [n, p])),
    ]);
    expect(rendered(dom)).toEqual({ lanes: 4, bars: 23, points: data.timeline.counts.length, limits: 1 });
    expect(data.timeline.limits).toEqual({ maxParallelOperations: 1, maxUnavailable: 'unlimited' });
    expect([count(dom, '<line class="limit" data-limit="maxParallelOperations"'), count(dom, 'data-limit="maxUnavailable"')]).toEqual([1, 0]);
    expect(count(dom, 'data-axis="time"')).toBe(2);
  }, 240_000);

  it('kmaint demo --report: a lane per maintained node, every bar the observer saw, both limits', async () => {
    const file = join(dir, 'demo.html');
    // The demo's own 2-minute cap lifted to just below the child's timeout, as in cli/demo.test.ts: a loaded machine.
    const r = await run(process.execPath, kmaintArgs('demo', '--speed', '300', '--timeout', '190s', '--report', file), 200_000);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe(`report written to ${file}`);
    const data = pageData(readFileSync(file, 'utf8'));
    const dom = await renderedDom(file);
    const spans = data.timeline.lanes.flatMap((l) => l.spans.map((s) => [l.node, s.phase]));
    expect(data.timeline.lanes).toHaveLength(9);
    expect(bars(dom)).toEqual(spans);
    expect(rendered(dom)).toEqual({ lanes: 9, bars: spans.length, points: data.timeline.counts.length, limits: 2 });
    // Every maintained node went through Ready; the demo's limits are drawn.
    expect(data.timeline.lanes.filter((l) => l.spans.some((s) => s.phase === 'Ready')).map((l) => l.node)).toEqual(data.timeline.lanes.map((l) => l.node));
    expect([count(dom, '<line class="limit" data-limit="maxUnavailable"'), count(dom, '<line class="limit" data-limit="maxParallelOperations"')]).toEqual([1, 1]);
    expect(dom).toContain('maxUnavailable 4</text>');
    expect(dom).toContain('maxParallelOperations 3</text>');
  }, 240_000);
});
