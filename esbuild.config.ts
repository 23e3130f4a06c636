// Bundles each Lambda handler into .build/<function>/handler.mjs (one ESM file, no node_modules) for osls to zip,
// or the CLI into dist/kmaint.mjs.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';
import { PASS_FUNCTIONS } from './shared/pass/index.ts';

// CommonJS dependencies inside an ESM bundle still call require() and read __dirname.
const banner = [
  "import { createRequire as __kmaintCreateRequire } from 'node:module';",
  "import { fileURLToPath as __kmaintFileURLToPath } from 'node:url';",
  "import { dirname as __kmaintDirname } from 'node:path';",
  'const require = __kmaintCreateRequire(import.meta.url);',
  'const __filename = __kmaintFileURLToPath(import.meta.url);',
  'const __dirname = __kmaintDirname(__filename);',
].join('\n');

// `tsx esbuild.config.ts` bundles the Lambda handlers; `tsx esbuild.config.ts cli` bundles the kmaint command into
// dist/kmaint.mjs, which the container image runs with plain node: no tsx loader thread, ~140 MB less RSS.
const cli = process.argv[2] === 'cli';
const outdir = cli ? 'dist' : '.build';
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: cli ? [{ in: 'cli/main.ts', out: 'kmaint' }] : PASS_FUNCTIONS.map((fn) => ({ in: `functions/${fn}/handler.ts`, out: `${fn}/handler` })),
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minify: true,
  legalComments: 'none',
  banner: { js: banner },
  metafile: true,
  logLevel: 'warning',
});
for (const [file, out] of Object.entries(result.metafile.outputs)) process.stdout.write(`${file} ${(out.bytes / 1024).toFixed(0)} KiB\n`);
