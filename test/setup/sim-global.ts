// Vitest global setup of the sim project: the clusters themselves start per test file (test/setup/sim-file.ts);
// this collects what the files report as not applicable on the sim and prints it with the project's wall time.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { kubectlBinary } from '../../sim/apiserver/test-support.ts';
import { projectTiming } from './project-timing.ts';

export default function setup(project: TestProject): () => void {
  if (!kubectlBinary()) throw new Error('the sim project needs kubectl: `npm run testbed:build` builds it, or put one on PATH');
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-sim-run-'));
  const log = join(dir, 'not-applicable.txt');
  project.provide('notApplicableLog', log);
  const timing = projectTiming(project, dir);
  return () => {
    const lines = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [];
    const total = lines.reduce((n, l) => n + Number(/^(\d+) /.exec(l)?.[1] ?? 0), 0);
    process.stderr.write(`[sim] ${timing()}; ${total} test${total === 1 ? '' : 's'} not applicable on the sim${lines.length ? `:\n  ${lines.join('\n  ')}` : ''}\n`);
    rmSync(dir, { recursive: true, force: true });
  };
}
