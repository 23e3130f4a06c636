// bin/kmaint.mjs, the command npm installs, loads cli/main.ts through tsx; the other CLI tests start the esbuild bundle
// of the same program (test/support/kmaint-cli.ts). Both must be one program: the same help, the same refusal.
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { kmaintArgs } from '../test/support/kmaint-cli.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { timeout: 110_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('bin/kmaint.mjs and the bundle the tests start', () => {
  it('print the same help', async () => {
    const [bin, bundle] = await Promise.all([run(['bin/kmaint.mjs', '--help']), run(kmaintArgs('--help'))]);
    expect(bin.code).toBe(0);
    expect(bin.stdout).toMatch(/^Usage: kmaint /);
    expect(bundle).toEqual(bin);
  });

  it('refuse an unknown pass function with the same one-line reason and exit code', async () => {
    const [bin, bundle] = await Promise.all([run(['bin/kmaint.mjs', 'pass', 'nosuch']), run(kmaintArgs('pass', 'nosuch'))]);
    expect(bin).toEqual({ code: 2, stdout: '', stderr: 'kmaint: unknown function "nosuch": expected one of scheduler, drainer, cleanup, reaper\n' });
    expect(bundle).toEqual(bin);
  });
});
