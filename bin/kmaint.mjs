#!/usr/bin/env node
// The kmaint command: loads the TypeScript CLI through tsx's ESM loader.
import { register } from 'tsx/esm/api';
register();
await import('../cli/main.ts');
