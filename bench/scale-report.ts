// The scale benchmark's verdict on issue 34's targets at 100,000 nodes, from what bench/scale.ts measured: at the size
// itself when it ran there, else a straight line fitted through the sizes that ran (least squares, stated with the
// points it came from). The upstream operator the same way.
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

function at(nodes: number, points: ReadonlyArray<readonly [number, number]>, unit: (v: number) => string): Figure {
  const exact = points.find(([x]) => x === nodes);
  if (exact) return { value: exact[1], how: `measured at ${nodes}` };
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
export function targetsReport(rows: readonly Row[], lists: readonly FullList[], upstream: readonly UpstreamFigures[], nodes = 100_000): string[] {
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

  const wall = at(nodes, points(maxOf((r) => r.wallMs / 1000)), s);
  verdict('every pass under 20 s wall', wall, wall.value < 20, `slowest pass ${s(wall.value)}`);
  const rss = at(nodes, points(maxOf((r) => r.peakRss)), mib);
  verdict('every pass under 1 GiB peak RSS', rss, rss.value < 2 ** 30, `largest ${mib(rss.value)}`);
  const decoded = at(nodes, points((here, size) => {
    const y = yard(size);
    const v = steady('scheduler', (r) => r.decoded)(here);
    return y && v !== undefined ? v / y.decoded : undefined;
  }), ratio);
  verdict('scheduler pass decodes at most 1/10 of a full LIST', decoded, decoded.value <= 0.1, ratio(decoded.value));
  const serving = at(nodes, points((here, size) => {
    const y = yard(size);
    const v = steady('scheduler', (r) => r.readSeconds)(here);
    return y && v !== undefined ? v / y.serverSeconds : undefined;
  }), ratio);
  verdict('scheduler pass costs the API server at most 1/10 of a full LIST\'s serving', serving, serving.value <= 0.1, ratio(serving.value));
  const kmaint = at(nodes, points((here) => cpuPerMinute(here)), s);
  const up = at(nodes, upstream.map((u) => [u.nodes, u.cpuPerMinWith - u.cpuPerMinWithout] as [number, number]), s);
  if (upstream.length === 0) lines.push(`- API server CPU of a minute of passes: ${s(kmaint.value)} (${kmaint.how}); the upstream operator was not measured`);
  else verdict('API server CPU of a minute of passes at most the upstream operator\'s watch', kmaint, kmaint.value <= up.value, `${s(kmaint.value)} against ${s(up.value)} a minute (${ratio(kmaint.value / up.value)}; upstream: ${up.how})`);
  const rest = at(nodes, upstream.map((u) => [u.nodes, u.rssAtRest] as [number, number]), mib);
  if (upstream.length > 0) lines.push(`- (for comparison) the upstream operator's RSS at rest: ${mib(rest.value)} (${rest.how})`);
  lines.push(`  a minute of passes: each function once, cleanup's full read once per 600 s (its named read the other minutes); kmaint rows used: ${STEADY.join(', ')}`);
  return lines;
}
