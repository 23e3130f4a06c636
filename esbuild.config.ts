// Bundles each Lambda handler into .build/<function>/handler.mjs (one ESM file, no node_modules) for osls to zip,
// or the CLI into dist/kmaint.mjs.
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { CJS_IN_ESM_BANNER, NODE_ESM_BUNDLE } from './esbuild-options.ts';
import { PASS_FUNCTIONS } from './shared/pass/index.ts';

// `tsx esbuild.config.ts` bundles the Lambda handlers; `tsx esbuild.config.ts cli` bundles the kmaint command into
// dist/kmaint.mjs, which the container image runs with plain node: no tsx loader thread, ~140 MB less RSS.
const cli = process.argv[2] === 'cli';
const outdir = cli ? 'dist' : '.build';
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: cli ? [{ in: 'cli/main.ts', out: 'kmaint' }] : PASS_FUNCTIONS.map((fn) => ({ in: `functions/${fn}/handler.ts`, out: `${fn}/handler` })),
  outdir,
  outExtension: { '.js': '.mjs' },
  ...NODE_ESM_BUNDLE,
  // dist/kmaint.mjs is the `kmaint` and `kubectl-kmaint` of the npm package (package.json bin): started directly.
  ...(cli ? { banner: { js: `#!/usr/bin/env node\n${CJS_IN_ESM_BANNER}` } } : {}),
  minify: true,
  legalComments: 'none',
  metafile: true,
});
for (const [file, out] of Object.entries(result.metafile.outputs)) process.stdout.write(`${file} ${(out.bytes / 1024).toFixed(0)} KiB\n`);
// What went into the bundle, file by file: the release's SBOM names the npm packages from it (image/sbom.ts).
if (cli) writeFileSync('dist/kmaint.meta.json', `${JSON.stringify(result.metafile)}\n`);
// Executable, so that npm pack keeps the mode and krew's kubectl-kmaint link (plugins/krew/kmaint.yaml) can run it.
if (cli) chmodSync('dist/kmaint.mjs', 0o755);
