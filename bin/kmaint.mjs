#!/usr/bin/env node
// The kmaint command in a checkout: loads the TypeScript CLI through tsx's ESM loader. The npm package's `kmaint` is the
// esbuild bundle dist/kmaint.mjs instead (package.json bin, built by prepack).
import { register } from 'tsx/esm/api';
register();
await import('../cli/main.ts');
