// Vitest global setup of the sim project: the clusters themselves start per test file (test/setup/sim-file.ts);
// this collects what the files report as not applicable on the sim and prints it with the project's wall time.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { kubectlBinary } from '../../sim/apiserver/test-support.ts';
import { notApplicableReport } from './project-timing.ts';

export default function setup(project: TestProject): () => void {
  if (!kubectlBinary()) throw new Error('the sim project needs kubectl: `npm run testbed:build` builds it, or put one on PATH');
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-sim-run-'));
  return notApplicableReport(project, dir, 'sim', 'on the sim');
}
