// The kmaint command as tests start it: `node <bundle>` (test/setup/cli-bundle.ts builds it once per run), the same
// program bin/kmaint.mjs loads through tsx, without tsx's per-start cost.
import { execFile } from 'node:child_process';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The esbuild bundle of cli/main.ts for this run (test/setup/cli-bundle.ts). */
    kmaintCli: string;
    /** The esbuild bundle of testbed/cli.ts (`npm run testbed`), in the unit project only (test/setup/cli-bundle.ts). */
    testbedCli: string;
  }
}

/** The arguments to `process.execPath` that run `kmaint ...args`. */
export function kmaintArgs(...args: string[]): string[] {
  const bundle = inject('kmaintCli');
  if (!bundle) throw new Error('kmaintCli is not provided: this project\'s global setup must call provideCliBundle (test/setup/cli-bundle.ts)');
  return [bundle, ...args];
}

/** What one `kmaint` process did: its exit code (1 when it died of a signal or timed out), stdout and stderr. */
export interface KmaintRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `kmaint ...args` (the bundle) to its end, killed after `timeoutMs`. */
export function runKmaint(args: string[], timeoutMs: number): Promise<KmaintRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, kmaintArgs(...args), { timeout: timeoutMs }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}
