// The esbuild options every bundle of kmaint shares: the Lambda handlers and the CLI (esbuild.config.ts), the CLI the
// tests start (test/setup/cli-bundle.ts) and the one the peer benchmark runs (bench/peers/systems.ts).
import { readFileSync } from 'node:fs';
import type { BuildOptions } from 'esbuild';

/** package.json's version, stamped into every bundle as __KMAINT_VERSION__ (cli/version.ts). */
export const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** CommonJS dependencies inside an ESM bundle still call require() and read __filename / __dirname. */
export const CJS_IN_ESM_BANNER = [
  "import { createRequire as __kmaintCreateRequire } from 'node:module';",
  "import { fileURLToPath as __kmaintFileURLToPath } from 'node:url';",
  "import { dirname as __kmaintDirname } from 'node:path';",
  'const require = __kmaintCreateRequire(import.meta.url);',
  'const __filename = __kmaintFileURLToPath(import.meta.url);',
  'const __dirname = __kmaintDirname(__filename);',
].join('\n');

/** One ES module for Node 20 and later, dependencies included. */
export const NODE_ESM_BUNDLE = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  banner: { js: CJS_IN_ESM_BANNER },
  define: { __KMAINT_VERSION__: JSON.stringify(PACKAGE_VERSION) },
  logLevel: 'warning',
} as const satisfies BuildOptions;
