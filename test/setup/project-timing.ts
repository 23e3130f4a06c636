// For the cluster projects' global setups: a log the test files append their start and end times to
// (test/setup/file-timing.ts), summed up at teardown as the project's wall time from first start to last end.
import { existsSync, readFileSync } from 'node:fs';
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
