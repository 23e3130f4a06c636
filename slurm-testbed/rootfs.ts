// Debian root filesystems with a real Slurm, built once per machine with mmdebstrap and cached outside the repo:
// trixie's Slurm 24.11 (the suite's default) and forky's Slurm 26.05, whose slurmrestd can create and delete
// reservations (POST /slurm/v0.0.43+/reservation; 24.11 serves reservations read-only).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** Packages in the rootfs: the three daemons, the clients (scontrol, sbatch) and JWT auth. */
export const ROOTFS_PACKAGES = ['slurmctld', 'slurmd', 'slurmrestd', 'slurm-client', 'slurm-wlm-jwt-plugin'] as const;
/** Written last: a rootfs without it is a half-built one and is built again. */
const COMPLETE_MARK = 'kmaint-rootfs-complete';

export class SlurmRunnerError extends Error {
  override name = 'SlurmRunnerError';
}

export type SlurmRelease = 'trixie' | 'forky';
export const SLURM_RELEASES: readonly SlurmRelease[] = ['trixie', 'forky'];

interface ReleaseInfo {
  slurm: string;
  /** Overrides the cache directory. */
  env: string;
  /**
   * Options for apt inside mmdebstrap. forky is Debian testing: its Release file is valid for a week only, and a
   * mirror that serves a frozen copy (as this project's machines have) fails apt's expiry check.
   */
  aptOptions: readonly string[];
}

export const RELEASES: { readonly [R in SlurmRelease]: ReleaseInfo } = {
  trixie: { slurm: '24.11', env: 'KMAINT_SLURM_ROOTFS', aptOptions: [] },
  forky: { slurm: '26.05', env: 'KMAINT_SLURM_ROOTFS_FORKY', aptOptions: ['Acquire::Check-Valid-Until "false"'] },
};

/** The release's env override (`KMAINT_SLURM_ROOTFS` for trixie), else `~/.cache/kmaint-slurm/<release>-rootfs`. */
export function defaultRootfs(release: SlurmRelease = 'trixie'): string {
  const fromEnv = process.env[RELEASES[release].env];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(homedir(), '.cache', 'kmaint-slurm', `${release}-rootfs`);
}

function onPath(tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
}

/** Host tools the runner needs, as one line naming what to install. */
export function checkHostTools(needBuild: boolean): void {
  const missing: string[] = [];
  if (!onPath('unshare')) missing.push('unshare (apt-get install util-linux)');
  if (!onPath('chroot')) missing.push('chroot (apt-get install coreutils)');
  if (needBuild && !onPath('mmdebstrap')) missing.push('mmdebstrap (apt-get update && apt-get install -y mmdebstrap)');
  if (missing.length > 0) throw new SlurmRunnerError(`slurm runner: missing ${missing.join(', ')}`);
  if (process.getuid?.() !== 0) throw new SlurmRunnerError('slurm runner: must run as root (it mounts /proc and /sys in a private mount namespace and chroots)');
}

/** Returns the rootfs path, building it first when it is absent or half-built. */
export async function ensureRootfs(opts: { rootfs?: string; release?: SlurmRelease; log: (line: string) => void }): Promise<string> {
  const release = opts.release ?? 'trixie';
  const info = RELEASES[release];
  const rootfs = opts.rootfs ?? defaultRootfs(release);
  if (existsSync(join(rootfs, COMPLETE_MARK))) return rootfs;
  checkHostTools(true);
  const tmp = `${rootfs}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(dirname(rootfs), { recursive: true });
  opts.log(`building the ${release} rootfs with Slurm ${info.slurm} in ${rootfs} (once per machine, ~20-60 s)`);
  const started = Date.now();
  const args = ['--variant=minbase', ...info.aptOptions.map((o) => `--aptopt=${o}`), `--include=${ROOTFS_PACKAGES.join(',')}`, release, tmp, 'http://deb.debian.org/debian'];
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn('mmdebstrap', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (b: Buffer): void => {
      output.push(b.toString());
      if (output.length > 200) output.shift();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('exit', resolve);
  });
  if (code !== 0) {
    const tail = output.join('').trim().split('\n').slice(-5).join(' | ');
    throw new SlurmRunnerError(`mmdebstrap failed (exit ${code}): ${tail}`);
  }
  mkdirSync(join(tmp, 'kmt'), { recursive: true });
  writeFileSync(join(tmp, COMPLETE_MARK), `${new Date().toISOString()}\n`);
  rmSync(rootfs, { recursive: true, force: true });
  renameSync(tmp, rootfs);
  opts.log(`rootfs built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return rootfs;
}
