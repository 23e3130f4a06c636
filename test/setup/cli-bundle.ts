// For the global setups of the projects whose tests start the kmaint command (unit, testbed): bundles cli/main.ts with
// esbuild into one plain-JavaScript file, as `npm run build:cli` does for the container image, and provides its path as
// `kmaintCli` (test/support/kmaint-cli.ts). Loading the command through tsx (bin/kmaint.mjs) costs ~4 s of CPU per
// start, the bundle ~0.8 s; tests start it some hundred times. bin/kmaint.mjs itself stays under test
// (cli/epipe.test.ts, cli/bin.test.ts).
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { NODE_ESM_BUNDLE } from '../../esbuild-options.ts';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/**
 * One level under the repository, as dist/ is: the bundle finds crds/ at `../crds/` from itself (sim/embedded.ts). Per
 * project and written under a temporary name first, so two projects or two runs never read a half-written file.
 */
const OUT_DIR = join(REPO, '.test-build');

export async function provideCliBundle(project: TestProject): Promise<string> {
  mkdirSync(OUT_DIR, { recursive: true });
  const out = join(OUT_DIR, `kmaint-${project.name}.mjs`);
  const partial = `${out}.${process.pid}.partial`;
  try {
    await build({
      entryPoints: [join(REPO, 'cli/main.ts')],
      outfile: partial,
      ...NODE_ESM_BUNDLE,
    });
    renameSync(partial, out);
  } finally {
    rmSync(partial, { force: true });
  }
  project.provide('kmaintCli', out);
  return out;
}
