// The scale benchmark's verdict on issue 34's targets at 100,000 nodes, from what bench/scale.ts measured: at the size
// itself when it ran there, else a straight line fitted through the sizes that ran (least squares, stated with the
// points it came from). The upstream operator the same way. Also a command: `npx tsx bench/scale-report.ts OUT.md`
// prints the verdict again from the tables a run printed (its stdout).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { UpstreamFigures } from './scale-upstream.ts';

export interface Row {
  nodes: number;
  requests: number;
  pass: string;
  wallMs: number;
  cpuMs: number;
  peakRss: number;
  requestsMade: number;
  decoded: number;
  wire: number;
  serverSeconds: number;
  /** Serving time of LIST and GET only: what the reads cost, apart from the writes a pass happens to make. */
  readSeconds: number;
  serverCpu: number;
  top: string;
  load: string;
  writes: number;
  /** Bytes the API server allocated over the pass (not in the printed table). */
  allocBytes?: number;
}

/** A full paged LIST of the nodes (limit 500, plain JSON): the yardstick of the targets. */
export interface FullList {
  nodes: number;
  wallMs: number;
  decoded: number;
  serverSeconds: number;
  serverCpu: number;
  load: string;
}

/** The API server's CPU a minute over `minutes` minutes of kmaint's steady passes, and over as many idle ones. */
export interface PassMinutes {
  nodes: number;
  requests: number;
  minutes: number;
  busyPerMin: number;
  idlePerMin: number;
  /** Minutes whose passes took longer than the minute. */
  late: number;
  load: string;
  /** Bytes the API server allocated a minute, busy and idle (absent from runs before it was measured). */
  busyAllocPerMin?: number;
  idleAllocPerMin?: number;
}

export function minutesLine(m: PassMinutes): string {
  const alloc = m.busyAllocPerMin !== undefined && m.idleAllocPerMin !== undefined ? `; allocated ${(m.busyAllocPerMin / 2 ** 30).toFixed(2)} GiB a minute busy, ${(m.idleAllocPerMin / 2 ** 30).toFixed(2)} GiB idle` : '';
  return `minutes of passes at ${m.nodes} nodes, ${m.requests} requests: API server CPU ${m.busyPerMin.toFixed(1)} s a minute with each function's pass once a minute, ${m.idlePerMin.toFixed(1)} s idle, over ${m.minutes} minutes each (${m.late} minutes overran; ${m.load})${alloc}`;
}

/** The line bench/scale.ts prints after the upstream table, one per size where allocation was measured. */
export function upstreamAllocLine(u: UpstreamFigures): string | undefined {
  if (u.allocPerMinWith === undefined || u.allocPerMinWithout === undefined) return undefined;
  return `upstream watch at ${u.nodes} nodes: API server allocated ${(u.allocPerMinWith / 2 ** 30).toFixed(2)} GiB a minute with it, ${(u.allocPerMinWithout / 2 ** 30).toFixed(2)} GiB without`;
}

export interface Line {
  /** y at x = 0. */
  intercept: number;
  slope: number;
  /** The x of the points it was fitted through. */
  through: number[];
}

/** Least-squares line through the points; one point gives the line through it and the origin. */
export function fitLine(points: ReadonlyArray<readonly [number, number]>): Line {
  const through = points.map(([x]) => x);
  if (points.length === 0) return { intercept: 0, slope: 0, through };
  if (points.length === 1) {
    const [[x, y]] = points as [readonly [number, number]];
    return { intercept: 0, slope: x === 0 ? 0 : y / x, through };
  }
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  const sxy = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { intercept: my - slope * mx, slope, through };
}

/** A figure at `nodes`: measured there, or read off the line through the sizes measured. */
interface Figure {
  value: number;
  how: string;
}

/**
 * `kind` `grows`: a figure that grows with the cluster (wall, RSS, CPU), read off the line. `ratio`: a figure relative to
 * the yardstick LIST of the same size, which does not; without a measurement at `nodes` it is the largest size's.
 */
function at(nodes: number, points: ReadonlyArray<readonly [number, number]>, unit: (v: number) => string, kind: 'grows' | 'ratio' = 'grows'): Figure {
  const exact = points.find(([x]) => x === nodes);
  if (exact) return { value: exact[1], how: `measured at ${nodes}` };
  if (kind === 'ratio') {
    const largest = points.reduce<readonly [number, number] | undefined>((a, p) => (a === undefined || p[0] > a[0] ? p : a), undefined);
    return largest ? { value: largest[1], how: `as measured at ${largest[0]}, the largest size run (a ratio to the same size's full LIST); at ${points.map(([x, y]) => `${x}: ${unit(y)}`).join(', ')}` } : { value: Number.NaN, how: 'not measured' };
  }
  const line = fitLine(points);
  const value = line.intercept + line.slope * nodes;
  return { value, how: `line through ${line.through.map((x, i) => `${x}: ${unit(points[i]?.[1] ?? 0)}`).join(', ')} (${unit(line.intercept)} + ${unit(line.slope * 1000)} per 1,000 nodes)` };
}

const STEADY = ['scheduler', 'drainer', 'cleanup (full read)', 'cleanup (named reads)', 'reaper'];

/** Per size, the rows of the request count nearest 10% of the nodes (the targets are for 10,000 requests on 100,000). */
function rowsBySize(rows: readonly Row[]): Map<number, Row[]> {
  const by = new Map<number, Row[]>();
  for (const size of [...new Set(rows.map((r) => r.nodes))]) {
    const here = rows.filter((r) => r.nodes === size);
    const off = (r: Row): number => Math.abs(r.requests / size - 0.1);
    const nearest = here.reduce((a, r) => (off(r) < off(a) ? r : a)).requests;
    by.set(size, here.filter((r) => r.requests === nearest));
  }
  return by;
}

/**
 * API server CPU of a minute of kmaint's passes at one size: each function once a minute, cleanup's full read once
 * per `fullReadEverySeconds` (600 s by default) and its named read the other minutes.
 */
export function cpuPerMinute(here: readonly Row[], fullReadEverySeconds = 600): number | undefined {
  const cpu = (pass: string): number | undefined => here.find((r) => r.pass === pass)?.serverCpu;
  const scheduler = cpu('scheduler');
  const drainer = cpu('drainer');
  const cleanupFull = cpu('cleanup (full read)');
  const cleanupNamed = cpu('cleanup (named reads)');
  const reaper = cpu('reaper');
  if (scheduler === undefined || drainer === undefined || cleanupFull === undefined || cleanupNamed === undefined || reaper === undefined) return undefined;
  const share = Math.min(1, 60 / fullReadEverySeconds);
  return scheduler + drainer + reaper + share * cleanupFull + (1 - share) * cleanupNamed;
}

/** The verdict lines, one per target of issue 34 point 3, at `nodes`. */
export function targetsReport(rows: readonly Row[], lists: readonly FullList[], upstream: readonly UpstreamFigures[], minutes: readonly PassMinutes[] = [], nodes = 100_000): string[] {
  const by = rowsBySize(rows);
  const sizes = [...by.keys()].sort((a, b) => a - b);
  if (sizes.length === 0) return ['targets: nothing measured'];
  const s = (v: number): string => `${v.toFixed(1)} s`;
  const mib = (v: number): string => `${(v / 2 ** 20).toFixed(0)} MiB`;
  const ratio = (v: number): string => `${v.toFixed(2)}x`;
  const points = (f: (here: Row[], size: number) => number | undefined): Array<[number, number]> =>
    sizes.flatMap((size) => {
      const v = f(by.get(size) ?? [], size);
      return v === undefined ? [] : [[size, v] as [number, number]];
    });
  const maxOf = (pick: (r: Row) => number) => (here: Row[]): number | undefined => (here.length ? Math.max(...here.map(pick)) : undefined);
  const steady = (pass: string, pick: (r: Row) => number) => (here: Row[]): number | undefined => {
    const r = here.find((x) => x.pass === pass);
    return r ? pick(r) : undefined;
  };
  const yard = (size: number): FullList | undefined => lists.find((l) => l.nodes === size);
  const lines: string[] = [`targets at ${nodes} nodes (issue 34 point 3; a figure not measured at ${nodes} is read off a least-squares line through the sizes measured, rows of the request count nearest 10% of the nodes at each):`];
  const verdict = (name: string, f: Figure, met: boolean, shown: string): void => void lines.push(`- ${name}: ${shown} — ${met ? 'MET' : 'MISSED'} (${f.how})`);

  const which = (pick: (r: Row) => number): string => {
    const here = by.get(nodes) ?? [];
    const top = here.reduce<Row | undefined>((a, r) => (a === undefined || pick(r) > pick(a) ? r : a), undefined);
    return top ? ` (${top.pass})` : '';
  };
  const wall = at(nodes, points(maxOf((r) => r.wallMs / 1000)), s);
  verdict('every pass under 20 s wall', wall, wall.value < 20, `slowest pass ${s(wall.value)}${which((r) => r.wallMs)}`);
  const rss = at(nodes, points(maxOf((r) => r.peakRss)), mib);
  verdict('every pass under 1 GiB peak RSS', rss, rss.value < 2 ** 30, `largest ${mib(rss.value)}${which((r) => r.peakRss)}`);
  const decoded = at(nodes, points((here, size) => {
    const y = yard(size);
    const v = steady('scheduler', (r) => r.decoded)(here);
    return y && v !== undefined ? v / y.decoded : undefined;
  }), ratio, 'ratio');
  verdict('scheduler pass decodes at most 1/10 of a full LIST', decoded, decoded.value <= 0.1, ratio(decoded.value));
  const serving = at(nodes, points((here, size) => {
    const y = yard(size);
    const v = steady('scheduler', (r) => r.readSeconds)(here);
    return y && v !== undefined ? v / y.serverSeconds : undefined;
  }), ratio, 'ratio');
  verdict('scheduler pass costs the API server at most 1/10 of a full LIST\'s serving', serving, serving.value <= 0.1, ratio(serving.value));
  // Measured over minutes where the run did so (their cleanup reads by name: its full read is added at its share),
  // else the sum of single passes.
  const overMinutes = (here: Row[], size: number): number | undefined => {
    const m = minutes.find((x) => x.nodes === size);
    const full = here.find((r) => r.pass === 'cleanup (full read)')?.serverCpu;
    const named = here.find((r) => r.pass === 'cleanup (named reads)')?.serverCpu;
    if (m === undefined || full === undefined || named === undefined) return cpuPerMinute(here);
    return m.busyPerMin - m.idlePerMin + 0.1 * (full - named);
  };
  const kmaint = at(nodes, points(overMinutes), s);
  if (minutes.length > 0) lines.push(`- kmaint's minute of passes measured over ${minutes.map((m) => `${m.minutes} minutes at ${m.nodes}: ${s(m.busyPerMin - m.idlePerMin)} over idle`).join(', ')}, plus cleanup's full read at 1/10`);
  // A window whose heartbeats fell short of a kubelet's pace (the machine out of CPU or memory) measured another load.
  const paced = upstream.filter((u) => u.churnPerSecond >= 0.9 * Math.round(u.nodes / 300));
  for (const u of upstream.filter((x) => !paced.includes(x))) lines.push(`- the upstream operator's watch at ${u.nodes} is left out: its windows reached ${u.churnPerSecond} node status writes a second of the ${Math.round(u.nodes / 300)} asked`);
  const up = at(nodes, paced.map((u) => [u.nodes, u.cpuPerMinWith - u.cpuPerMinWithout] as [number, number]), s);
  if (paced.length === 0) lines.push(`- API server CPU of a minute of passes: ${s(kmaint.value)} (${kmaint.how}); the upstream operator's watch was not measured`);
  else if (up.value <= 0) lines.push(`- API server CPU of a minute of passes: ${s(kmaint.value)} (${kmaint.how}); the upstream operator's watch came out at ${s(up.value)} a minute (${up.how}), inside the noise of its 60 s windows: NOT DECIDED`);
  else verdict('API server CPU of a minute of passes at most the upstream operator\'s watch', kmaint, kmaint.value <= up.value, `${s(kmaint.value)} against ${s(up.value)} a minute (${ratio(kmaint.value / up.value)}; upstream: ${up.how})`);
  // By allocation: what drives the API server's garbage collection, counted where it is made, so not lumpy.
  const gib = (v: number): string => `${(v / 2 ** 30).toFixed(2)} GiB`;
  for (const m of minutes) {
    const u = paced.find((x) => x.nodes === m.nodes);
    const fullRow = (by.get(m.nodes) ?? []).find((r) => r.pass === 'cleanup (full read)');
    if (m.busyAllocPerMin === undefined || m.idleAllocPerMin === undefined || u?.allocPerMinWith === undefined || u.allocPerMinWithout === undefined) continue;
    const mine = m.busyAllocPerMin - m.idleAllocPerMin + 0.1 * (fullRow?.allocBytes ?? 0);
    const theirs = u.allocPerMinWith - u.allocPerMinWithout;
    lines.push(`- API server allocation a minute at ${m.nodes} nodes (what its garbage collection follows): kmaint's passes ${gib(mine)} (${m.minutes} busy minutes over idle${fullRow?.allocBytes !== undefined ? ', cleanup\'s full read at 1/10' : ''}), the upstream operator's watch ${gib(theirs)}: ${theirs > 0 ? ratio(mine / theirs) : 'not positive, inside the noise'}`);
  }
  const rest = at(nodes, upstream.map((u) => [u.nodes, u.rssAtRest] as [number, number]), mib);
  if (upstream.length > 0) lines.push(`- (for comparison) the upstream operator's RSS at rest: ${mib(rest.value)} (${rest.how})`);
  lines.push(`  a minute of passes: each function once, cleanup's full read once per 600 s (its named read the other minutes); kmaint rows used: ${STEADY.join(', ')}`);
  return lines;
}

/** A printed figure ("2.13 s", "260 MiB", "0.8 MiB") in ms, bytes or seconds as `unit` says. */
function figure(cell: string, unit: 'ms' | 'bytes' | 's'): number {
  const m = /^(-?[\d.]+) (s|MiB)$/.exec(cell.trim());
  if (!m) return Number.NaN;
  const v = Number(m[1]);
  return unit === 'ms' ? v * 1000 : unit === 'bytes' ? v * 2 ** 20 : v;
}

/** The tables a run of bench/scale.ts printed, the last (fullest) copy of each. */
export function parsePrinted(text: string): { rows: Row[]; lists: FullList[]; upstream: UpstreamFigures[]; minutes: PassMinutes[] } {
  const rows = new Map<string, Row>();
  const lists = new Map<number, FullList>();
  const upstream = new Map<number, UpstreamFigures>();
  const minutes = new Map<number, PassMinutes>();
  const upstreamAlloc = new Map<number, { with: number; without: number }>();
  for (const line of text.split('\n')) {
    const m = /^minutes of passes at (\d+) nodes, (\d+) requests: API server CPU ([\d.]+) s a minute with each function's pass once a minute, ([\d.]+) s idle, over (\d+) minutes each \((\d+) minutes overran; ([^)]*)\)(?:; allocated ([\d.]+) GiB a minute busy, ([\d.]+) GiB idle)?$/.exec(line);
    if (m) {
      const alloc = m[8] !== undefined && m[9] !== undefined ? { busyAllocPerMin: Number(m[8]) * 2 ** 30, idleAllocPerMin: Number(m[9]) * 2 ** 30 } : {};
      minutes.set(Number(m[1]), { nodes: Number(m[1]), requests: Number(m[2]), busyPerMin: Number(m[3]), idlePerMin: Number(m[4]), minutes: Number(m[5]), late: Number(m[6]), load: m[7] ?? '', ...alloc });
    }
    const u = /^upstream watch at (\d+) nodes: API server allocated ([\d.]+) GiB a minute with it, ([\d.]+) GiB without$/.exec(line);
    if (u) upstreamAlloc.set(Number(u[1]), { with: Number(u[2]) * 2 ** 30, without: Number(u[3]) * 2 ** 30 });
    if (!/^\| \d/.test(line)) continue;
    const c = line.split('|').slice(1, -1).map((x) => x.trim());
    const nodes = Number(c[0]);
    if (c.length === 15 && c[2] === 'full node LIST (yardstick)') {
      lists.set(nodes, { nodes, wallMs: figure(c[3] ?? '', 'ms'), decoded: figure(c[8] ?? '', 'bytes'), serverSeconds: figure(c[10] ?? '', 's'), serverCpu: figure(c[12] ?? '', 's'), load: c[14] ?? '' });
    } else if (c.length === 15) {
      const row: Row = {
        nodes, requests: Number(c[1]), pass: c[2] ?? '', wallMs: figure(c[3] ?? '', 'ms'), cpuMs: figure(c[4] ?? '', 'ms'), peakRss: figure(c[5] ?? '', 'bytes'), requestsMade: Number(c[6]), writes: Number(c[7]),
        decoded: figure(c[8] ?? '', 'bytes'), wire: figure(c[9] ?? '', 'bytes'), readSeconds: figure(c[10] ?? '', 's'), serverSeconds: figure(c[11] ?? '', 's'), serverCpu: figure(c[12] ?? '', 's'), top: c[13] ?? '', load: c[14] ?? '',
      };
      rows.set(`${nodes}/${row.requests}/${row.pass}`, row);
    } else if (c.length === 10) {
      upstream.set(nodes, {
        nodes, startMs: figure(c[1] ?? '', 'ms'), startServerSeconds: figure(c[2] ?? '', 's'), startDecoded: figure(c[3] ?? '', 'bytes'), rssAtRest: figure(c[4] ?? '', 'bytes'), churnPerSecond: Number(c[5]),
        cpuPerMinWith: figure(c[6] ?? '', 's'), cpuPerMinWithout: figure(c[7] ?? '', 's'), watchBytesPerMin: figure(c[8] ?? '', 'bytes'), load: c[9] ?? '',
      });
    }
  }
  for (const [n, a] of upstreamAlloc) {
    const u = upstream.get(n);
    if (u) upstream.set(n, { ...u, allocPerMinWith: a.with, allocPerMinWithout: a.without });
  }
  return { rows: [...rows.values()], lists: [...lists.values()], upstream: [...upstream.values()], minutes: [...minutes.values()] };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: npx tsx bench/scale-report.ts OUT.md (the stdout of npm run bench:scale)\n');
    process.exit(2);
  }
  const { rows, lists, upstream, minutes } = parsePrinted(readFileSync(file, 'utf8'));
  for (const line of targetsReport(rows, lists, upstream, minutes)) process.stdout.write(`${line}\n`);
}
