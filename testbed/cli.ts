// `npm run testbed -- up --dir DIR [--nodes N] [--seed S] [--profile small|demo|large]` and `down --dir DIR`.
import { errorMessage } from '../shared/errors/index.ts';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { createCluster, generateCluster, type ProfileName } from '../sim/generator/index.ts';
import { ensureBinaries } from './build.ts';
import { ComponentError, failureLine } from './processes.ts';
import { startControlPlane, stopTestbedDir } from './start.ts';
import { kubeConfigFrom, waitForCluster, waitForNodesRegistered } from './testbed.ts';

const log = (line: string): void => {
  process.stderr.write(`[testbed] ${line}\n`);
};

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));

function intOption(name: string, min = 0) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`--${name} must be a whole number${min > 0 ? ` of at least ${min}` : ''}, got "${v}"`);
    return n;
  };
}

const program = new Command('testbed').exitOverride();

program
  .command('up')
  .description('start a real control plane with simulated kubelets and a generated cluster in DIR')
  .requiredOption('--dir <dir>', 'state directory (keys, logs, kubeconfig); a stale one is stopped and replaced')
  .option('--nodes <n>', 'node count, at least 3 (default: the profile\'s)', intOption('nodes', 3))
  .option('--seed <s>', 'generator seed', intOption('seed'), 1)
  .addOption(new Option('--profile <p>', 'cluster profile').choices(['small', 'demo', 'large']).default('small'))
  .option('--heartbeat <ms>', 'simulated kubelet lease interval', intOption('heartbeat'), 10_000)
  .option('--kmaint-bundle <file>', "the bundled kmaint CLI the simulated kubelet runs kmaint's pods with (npm run build:cli); absent: their pods are simulated", 'dist/kmaint.mjs')
  .action(async (opts: { dir: string; nodes?: number; seed: number; profile: ProfileName; heartbeat: number; kmaintBundle: string }) => {
    const started = Date.now();
    const dir = resolve(opts.dir);
    await ensureBinaries({ log });
    const cp = await startControlPlane({ dir, log });
    try {
      const cluster = generateCluster({ profile: opts.profile, seed: opts.seed, ...(opts.nodes !== undefined ? { nodes: opts.nodes } : {}) });
      const spec = { profile: opts.profile, seed: opts.seed, ...(opts.nodes !== undefined ? { nodes: opts.nodes } : {}) };
      writeFileSync(join(dir, 'cluster.json'), JSON.stringify(spec));
      const bundle = resolve(REPO, opts.kmaintBundle);
      const hostArgs = existsSync(bundle) ? ['--kmaint-bundle', bundle, '--log-dir', dir] : [];
      log(hostArgs.length > 0 ? `kmaint's pods run as host processes of ${bundle} (logs in ${dir}/pods/)` : `kmaint's pods are SIMULATED, not run: no ${bundle} (npm run build:cli builds it)`);
      const fd = openSync(join(dir, 'kubelet.log'), 'a');
      const kubelet = spawn(
        process.execPath,
        ['--import', 'tsx', join(REPO, 'sim/kubelet/main.ts'), '--kubeconfig', cp.kubeconfigFor('kmaint-sim-kubelet'), '--cluster', join(dir, 'cluster.json'), '--heartbeat', String(opts.heartbeat), ...hostArgs],
        { cwd: REPO, detached: true, stdio: ['ignore', fd, fd] },
      );
      closeSync(fd);
      kubelet.unref();
      const pids = JSON.parse(readFileSync(join(dir, 'pids.json'), 'utf8')) as unknown[];
      writeFileSync(join(dir, 'pids.json'), JSON.stringify([...pids, { name: 'sim-kubelet', pid: kubelet.pid, binary: process.execPath }], null, 2));
      const admin = kubeConfigFrom(cp.kubeconfigPath);
      const kubeletLog = join(dir, 'kubelet.log');
      // A kubelet that dies ends `up` at once, not after the registration or readiness timeout.
      const kubeletDied = new Promise<never>((_, reject) => {
        kubelet.once('exit', (code, signal) => {
          reject(new ComponentError('sim-kubelet', kubeletLog, `exited during start (${signal ?? `code ${code}`}): ${failureLine(kubeletLog)}`));
        });
      });
      await Promise.race([
        kubeletDied,
        (async () => {
          await waitForNodesRegistered(admin, cluster.nodes.length, 300_000, kubeletLog);
          await createCluster(admin, cluster);
          await waitForCluster(admin, cluster, 600_000, log);
        })(),
      ]);
      log(`up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      process.stdout.write(`${cp.kubeconfigPath}\n`);
    } catch (err) {
      // Keep DIR: the error may name kubelet.log or a component log in it; `down` removes it.
      await stopTestbedDir(dir, { keepDir: true });
      throw err;
    }
  });

program
  .command('down')
  .description('stop exactly the processes a testbed in DIR started, and remove DIR')
  .requiredOption('--dir <dir>', 'state directory given to up')
  .action(async (opts: { dir: string }) => {
    const stopped = await stopTestbedDir(resolve(opts.dir));
    log(stopped.length > 0 ? `stopped ${stopped.join(', ')}` : 'nothing was running');
  });

try {
  await program.parseAsync(process.argv);
  // Keep-alive sockets of the API clients would hold the process open; the testbed runs on without us.
  process.exit(0);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
  process.stderr.write(`testbed: ${errorMessage(err).split('\n')[0]}\n`);
  process.exit(1);
}
