// bin/kmaint.mjs, the command in a checkout (and `npx kmaint` there), loads cli/main.ts through tsx; the other CLI tests start the esbuild bundle
// of the same program (test/support/kmaint-cli.ts), which is also what npm installs (test/npm-pack.test.ts). Both must
// be one program: the same help, the same refusal, the same version (read from package.json here, stamped there).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kmaintArgs } from '../test/support/kmaint-cli.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { timeout: 110_000, env }, (err, stdout, stderr) => {
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

  it('print the same version: package.json\'s, read at start under tsx and stamped into the bundle', async () => {
    const [bin, bundle] = await Promise.all([run(['bin/kmaint.mjs', '--version']), run(kmaintArgs('--version'))]);
    expect(bin).toEqual({ code: 0, stdout: `kmaint ${(JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version}\n`, stderr: '' });
    expect(bundle).toEqual(bin);
  });

  it('with no kubeconfig at all (no flag, no KUBECONFIG, no ~/.kube/config, not in a pod) exit 2 with one line, as docs/cli.md says', async () => {
    const home = mkdtempSync(join(tmpdir(), 'kmaint-nohome-'));
    const env = { PATH: process.env['PATH'] ?? '', HOME: home };
    const [bin, bundle] = await Promise.all([run(['bin/kmaint.mjs', 'status'], env), run(kmaintArgs('status'), env)]);
    rmSync(home, { recursive: true, force: true });
    expect(bin).toEqual({ code: 2, stdout: '', stderr: `kmaint: no kubeconfig: no --kubeconfig, KUBECONFIG is unset, ${join(home, '.kube', 'config')} does not exist, and this is not a pod (no service account token)\n` });
    expect(bundle).toEqual(bin);
  });

  it('take the log level from KMAINT_LOG_LEVEL (what the chart\'s CronJobs set from operatorConfig.logLevel), checked as --log-level is', async () => {
    const env = { ...process.env, KMAINT_LOG_LEVEL: 'verbose' };
    const [bin, bundle] = await Promise.all([run(['bin/kmaint.mjs', 'version'], env), run(kmaintArgs('version'), env)]);
    expect(bin).toEqual({ code: 2, stdout: '', stderr: "error: option '--log-level <level>' value 'verbose' from env 'KMAINT_LOG_LEVEL' is invalid. Allowed choices are debug, info, warn, error, silent.\n" });
    expect(bundle).toEqual(bin);
  });

  it('npx kmaint in a checkout runs bin/kmaint.mjs (package.json bin), which loads cli/main.ts through tsx: no build needed', async () => {
    // npm's own cache in a temporary directory, offline: npx links this checkout into it and runs the package's bin.
    const cache = mkdtempSync(join(tmpdir(), 'kmaint-npx-'));
    const npx = await new Promise<Run>((resolve) => {
      execFile('npm', ['exec', '--offline', '--yes', '--cache', cache, '--', 'kmaint', '--version'], { timeout: 110_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      });
    });
    rmSync(cache, { recursive: true, force: true });
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string; bin: Record<string, string> };
    expect([pkg.bin, npx]).toEqual([{ kmaint: 'bin/kmaint.mjs', 'kubectl-kmaint': 'bin/kmaint.mjs' }, { code: 0, stdout: `kmaint ${pkg.version}\n`, stderr: '' }]);
  });
});
