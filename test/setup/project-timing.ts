// For the cluster projects' global setups: a log the test files append their start and end times to
// (test/setup/file-timing.ts), summed up at teardown as the project's wall time from first start to last end.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/** Provides `fileTimingLog` (a file in `dir`) and returns the line to print at teardown. */
export function projectTiming(project: TestProject, dir: string): () => string {
  const log = join(dir, 'file-timing.txt');
  project.provide('fileTimingLog', log);
  return () => {
    const rows = existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(' ').map(Number) as [number, number])
      : [];
    if (rows.length === 0) return `project ${project.name}: no test file ran`;
    const first = Math.min(...rows.map((r) => r[0]));
    const last = Math.max(...rows.map((r) => r[1]));
    const busy = rows.reduce((n, r) => n + (r[1] - r[0]), 0);
    return `project ${project.name}: ${rows.length} test file${rows.length === 1 ? '' : 's'} in ${((last - first) / 1000).toFixed(1)} s wall (${(busy / 1000).toFixed(1)} s summed over files)`;
  };
}

/**
 * For the projects whose files count tests not applicable on their cluster (sim, e2e): provides `notApplicableLog` and
 * `fileTimingLog` in `dir` and returns the teardown, which prints `[tag] <timing>; N tests not applicable <where>` with
 * the files' lines under it, then removes `dir`.
 */
export function notApplicableReport(project: TestProject, dir: string, tag: string, where: string): () => void {
  const log = join(dir, 'not-applicable.txt');
  project.provide('notApplicableLog', log);
  const timing = projectTiming(project, dir);
  return () => {
    const lines = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [];
    const total = lines.reduce((n, l) => n + Number(/^(\d+) /.exec(l)?.[1] ?? 0), 0);
    process.stderr.write(`[${tag}] ${timing()}; ${total} test${total === 1 ? '' : 's'} not applicable ${where}${lines.length ? `:\n  ${lines.join('\n  ')}` : ''}\n`);
    rmSync(dir, { recursive: true, force: true });
  };
}
