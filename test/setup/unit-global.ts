// Vitest global setup of the unit project: no cluster; the bundled kmaint command its CLI tests start and the bundled
// `npm run testbed` testbed/bad-input starts (test/setup/cli-bundle.ts), and the project's wall time from its first
// file's start to its last file's end, printed at teardown beside the cluster projects' (`.ci/run` repeats the three
// lines at its end).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { provideCliBundle, provideTestbedCliBundle } from './cli-bundle.ts';
import { projectTiming } from './project-timing.ts';

export default async function setup(project: TestProject): Promise<() => void> {
  await Promise.all([provideCliBundle(project), provideTestbedCliBundle(project)]);
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-unit-run-'));
  const timing = projectTiming(project, dir);
  return () => {
    process.stderr.write(`[unit] ${timing()}\n`);
    rmSync(dir, { recursive: true, force: true });
  };
}
