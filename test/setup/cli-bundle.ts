// For the global setups of the projects whose tests start the kmaint command (unit, testbed): bundles cli/main.ts with
// esbuild into one plain-JavaScript file, as `npm run build:cli` does for the container image, and provides its path as
// `kmaintCli` (test/support/kmaint-cli.ts). Loading the command through tsx (bin/kmaint.mjs) costs ~4 s of CPU per
// start, the bundle ~0.8 s; tests start it some hundred times. bin/kmaint.mjs itself stays under test
// (cli/epipe.test.ts, cli/bin.test.ts). The unit project also bundles `npm run testbed` (testbed/cli.ts) the same way.
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { NODE_ESM_BUNDLE } from '../../esbuild-options.ts';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/**
 * One level under the repository, as dist/ is: the bundle finds crds/ at `../crds/` from itself (sim/embedded.ts). Per
 * project and written under a temporary name first, so two projects or two runs never read a half-written file.
 */
const OUT_DIR = join(REPO, '.test-build');

/** Bundles `entry` into OUT_DIR/`name`, written under a temporary name first. */
async function bundle(entry: string, name: string, plugins: Plugin[] = []): Promise<string> {
  mkdirSync(OUT_DIR, { recursive: true });
  const out = join(OUT_DIR, name);
  const partial = `${out}.${process.pid}.partial`;
  try {
    await build({ entryPoints: [join(REPO, entry)], outfile: partial, ...NODE_ESM_BUNDLE, plugins });
    renameSync(partial, out);
  } finally {
    rmSync(partial, { force: true });
  }
  return out;
}

export async function provideCliBundle(project: TestProject): Promise<string> {
  const out = await bundle('cli/main.ts', `kmaint-${project.name}.mjs`);
  project.provide('kmaintCli', out);
  return out;
}

/**
 * Each of the repository's own modules keeps its source file as `import.meta.url`, as under tsx: testbed/ finds its
 * go.mod files beside versions.ts and the repository above cli.ts wherever the bundle is written. Dependencies keep
 * the bundle's.
 */
const SOURCE_URLS: Plugin = {
  name: 'source-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(`${REPO}/`) || args.path.includes('/node_modules/')) return undefined;
      const text = await readFile(args.path, 'utf8');
      return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
    });
  },
};

/**
 * `npm run testbed` (testbed/cli.ts) bundled, provided as `testbedCli`: testbed/bad-input starts it about eight times,
 * and through tsx each start cost about 3.5 s of CPU against 0.5 s. testbed/bad-input also starts the source through
 * tsx once and expects the same refusal from both.
 */
export async function provideTestbedCliBundle(project: TestProject): Promise<string> {
  const out = await bundle('testbed/cli.ts', `testbed-cli-${project.name}.mjs`, [SOURCE_URLS]);
  project.provide('testbedCli', out);
  return out;
}
