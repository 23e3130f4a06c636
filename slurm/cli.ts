// `npm run slurm -- up --dir DIR [--nodes N] [--epilog S]` and `down --dir DIR`: a real Slurm 24.11 on 127.0.0.1;
// `npm run slurm -- rootfs`: only build the cached trixie root filesystem (CI runs it before the tests).
import { resolve } from 'node:path';
import { Command, CommanderError } from 'commander';
import { startSlurm, stopSlurmDir } from './cluster.ts';
import { ensureRootfs } from './rootfs.ts';

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

const program = new Command('slurm').exitOverride();

program
  .command('up')
  .description('start slurmctld, N slurmd and slurmrestd (JWT) from the cached trixie rootfs; state in DIR')
  .requiredOption('--dir <dir>', 'state directory (config, keys, logs, pid files); a cluster running there is stopped first')
  .option('--nodes <n>', 'Slurm nodes n1..nN', intOption('nodes'), 3)
  .option('--epilog <s>', 'seconds each job epilog sleeps (keeps nodes COMPLETING)', intOption('epilog'), 0)
  .action(async (opts: { dir: string; nodes: number; epilog: number }) => {
    const cluster = await startSlurm({ dir: opts.dir, nodes: opts.nodes, epilogSeconds: opts.epilog, log });
    process.stdout.write(`${JSON.stringify({ url: cluster.url, jwtKeyPath: cluster.jwtKeyPath, nodes: cluster.nodes, info: resolve(opts.dir, 'slurm.json') })}\n`);
  });

program
  .command('rootfs')
  .description('build the trixie root filesystem with Slurm 24.11 into its cache unless it is there (KMAINT_SLURM_ROOTFS)')
  .action(async () => {
    const started = Date.now();
    const rootfs = await ensureRootfs({ log });
    log(`rootfs ready in ${rootfs} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
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
  process.stderr.write(`slurm: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
}
