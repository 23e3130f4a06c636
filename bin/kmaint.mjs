#!/usr/bin/env node
// The kmaint command (package.json bin, so also `npx kmaint` in a checkout). In a checkout, where cli/main.ts sits
// beside it, it loads the TypeScript through tsx's ESM loader: always the code you are reading, never a stale build. In
// the npm package, which holds no cli/, it loads the esbuild bundle dist/kmaint.mjs (built by prepack) and nothing else.
import { existsSync } from 'node:fs';

const source = new URL('../cli/main.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import(new URL('../dist/kmaint.mjs', import.meta.url).href);
}
