// `npm run slurm -- up --dir DIR [--nodes N] [--epilog S] [--release trixie|forky]` and `down --dir DIR`: a real
// Slurm (24.11 from trixie, 26.05 from forky) on 127.0.0.1; `npm run slurm -- rootfs [--release R]`: only build the
// cached root filesystems, both unless one is named (CI runs it before the tests).
import { errorMessage } from '../shared/errors/index.ts';
import { resolve } from 'node:path';
import { Command, CommanderError } from 'commander';
import { startSlurm, stopSlurmDir } from './cluster.ts';
import { ensureRootfs, RELEASES, SLURM_RELEASES, type SlurmRelease } from './rootfs.ts';

const log = (line: string): void => {
  process.stderr.write(`[slurm] ${line}\n`);
};

function intOption(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, got "${v}"`);
    return n;
  };
}

function releaseOption(v: string): SlurmRelease {
  const r = SLURM_RELEASES.find((x) => x === v);
  if (!r) throw new Error(`--release must be one of ${SLURM_RELEASES.join(', ')}, got "${v}"`);
  return r;
}

const program = new Command('slurm').exitOverride();

program
  .command('up')
  .description('start slurmctld, N slurmd and slurmrestd (JWT) from a cached Debian rootfs; state in DIR')
  .requiredOption('--dir <dir>', 'state directory (config, keys, logs, pid files); a cluster running there is stopped first')
  .option('--nodes <n>', 'Slurm nodes n1..nN', intOption('nodes'), 3)
  .option('--epilog <s>', 'seconds each job epilog sleeps (keeps nodes COMPLETING)', intOption('epilog'), 0)
  .option('--release <r>', 'trixie (Slurm 24.11) or forky (Slurm 26.05)', releaseOption, 'trixie' as SlurmRelease)
  .action(async (opts: { dir: string; nodes: number; epilog: number; release: SlurmRelease }) => {
    const cluster = await startSlurm({ dir: opts.dir, nodes: opts.nodes, epilogSeconds: opts.epilog, release: opts.release, log });
    process.stdout.write(`${JSON.stringify({ url: cluster.url, jwtKeyPath: cluster.jwtKeyPath, nodes: cluster.nodes, info: resolve(opts.dir, 'slurm.json') })}\n`);
  });

program
  .command('rootfs')
  .description('build the root filesystems (trixie: Slurm 24.11, forky: 26.05) into their caches unless there (KMAINT_SLURM_ROOTFS, KMAINT_SLURM_ROOTFS_FORKY)')
  .option('--release <r>', 'only this one: trixie or forky', releaseOption)
  .action(async (opts: { release?: SlurmRelease }) => {
    for (const release of opts.release ? [opts.release] : SLURM_RELEASES) {
      const started = Date.now();
      const rootfs = await ensureRootfs({ release, log });
      log(`${release} rootfs (Slurm ${RELEASES[release].slurm}) ready in ${rootfs} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
  });

program
  .command('down')
  .description('stop the cluster in DIR (pids read from DIR now) and wait until nothing of it runs')
  .requiredOption('--dir <dir>', 'state directory given to up')
  .action(async (opts: { dir: string }) => {
    if (!(await stopSlurmDir(opts.dir, log))) log(`nothing running in ${resolve(opts.dir)}`);
  });

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
  process.stderr.write(`slurm: ${errorMessage(err)}\n`);
  process.exit(2);
}
