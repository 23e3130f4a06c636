// Vitest setup file of the cluster projects: records when each test file started (before its cluster, if it starts
// one) and ended, so the project's global teardown can print the project's own wall time within `npm test`.
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, expect, inject } from 'vitest';

const started = Date.now();
afterAll(() => {
  const log = inject('fileTimingLog');
  if (log) appendFileSync(log, `${started} ${Date.now()} ${relative(process.cwd(), expect.getState().testPath ?? '')}\n`);
});
