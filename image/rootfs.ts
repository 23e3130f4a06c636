// The image's base: a minimal Debian root filesystem with Debian's Node.js, made by mmdebstrap from the Debian mirror
// (no container daemon, no pulled base image) and cached as one gzipped layer under
// ~/.cache/kmaint-image/rootfs-<hash>/, where the hash covers everything that decides its content (suite, packages,
// options, hooks). A change to any of them builds a new one; a mirror that moved on does not (--rebuild-rootfs).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { imageCacheDir } from './tool.ts';

/** The image runs as this uid/gid (the chart's podSecurityContext and infra/base say 1000). */
export const IMAGE_UID = 1000;

/**
 * forky (Debian testing): trixie ships Node.js 20, past its end of life (April 2026); forky carries Node.js 24 LTS,
 * as slurm-testbed/ takes forky for Slurm 26.05. forky's Release file is valid for a week: a mirror serving a frozen copy fails
 * apt's expiry check without Check-Valid-Until false.
 */
export const ROOTFS_RECIPE = {
  suite: 'forky',
  mirror: 'http://deb.debian.org/debian',
  // essential: dpkg, coreutils, dash, util-linux and the libraries; no apt (nothing installs packages at run time).
  variant: 'essential',
  // ca-certificates: the AWS SDK's HTTPS (Lambda deploys, EC2/ASG reaper providers) verifies against the system roots.
  packages: ['nodejs', 'ca-certificates'],
  aptOptions: ['Acquire::Check-Valid-Until "false"'],
  // Documentation, manuals and translations are not run: left out (copyright files kept, as Debian's licences ask).
  dpkgOptions: ['path-exclude=/usr/share/doc/*', 'path-include=/usr/share/doc/*/copyright', 'path-exclude=/usr/share/man/*', 'path-exclude=/usr/share/locale/*', 'path-exclude=/usr/share/info/*'],
  // A name for the image's user, so tools that look it up (id, ps) find one; no home, no login shell.
  passwd: `kmaint:x:${IMAGE_UID}:${IMAGE_UID}:kmaint:/nonexistent:/usr/sbin/nologin`,
  group: `kmaint:x:${IMAGE_UID}:`,
} as const;

/** What the built root filesystem holds, read from it while it was built. */
export interface RootfsFacts {
  /** `process.version` of the rootfs's /usr/bin/node, e.g. v24.21.0. */
  node: string;
  /** `process.execPath` there. */
  nodePath: string;
  /** /etc/debian_version. */
  debian: string;
  /** The nodejs package's version. */
  nodejsPackage: string;
  /** Size of the uncompressed tar, bytes. */
  tarBytes: number;
  /** Size of the gzipped layer, bytes. */
  layerBytes: number;
  builtAt: string;
  buildSeconds: number;
}

export class RootfsError extends Error {
  override readonly name = 'RootfsError';
}

function recipeHash(): string {
  return createHash('sha256').update(JSON.stringify(ROOTFS_RECIPE)).digest('hex').slice(0, 16);
}

export function rootfsDir(): string {
  return join(imageCacheDir(), `rootfs-${recipeHash()}`);
}

export interface Rootfs {
  /** The gzipped tar of the root filesystem, taken as the image's first layer as it is. */
  layer: string;
  facts: RootfsFacts;
}

/** Runs a long command, logging that it still runs every 30 s; its last output lines are the error's message. */
export function runLogged(cmd: string, args: string[], log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const output: string[] = [];
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (b: Buffer): void => {
      output.push(b.toString());
      if (output.length > 200) output.shift();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const started = Date.now();
    const ticker = setInterval(() => log(`  ${cmd}: still running (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
    child.on('error', (err) => {
      clearInterval(ticker);
      reject(new RootfsError(`${cmd}: ${err.message}`, { cause: err }));
    });
    child.on('exit', (code) => {
      clearInterval(ticker);
      if (code === 0) resolve();
      else reject(new RootfsError(`${cmd} failed (exit ${code}): ${output.join('').trim().split('\n').slice(-5).join(' | ')}`));
    });
  });
}

/** The cached root filesystem layer, built first when absent (or when `rebuild`). */
export async function ensureRootfs(opts: { rebuild?: boolean; log: (line: string) => void }): Promise<Rootfs> {
  const dir = rootfsDir();
  const layer = join(dir, 'rootfs.tar.gz');
  const factsFile = join(dir, 'facts.json');
  if (!opts.rebuild && existsSync(factsFile) && existsSync(layer)) {
    opts.log(`Debian ${ROOTFS_RECIPE.suite} rootfs is current: ${dir}`);
    return { layer, facts: JSON.parse(readFileSync(factsFile, 'utf8')) as RootfsFacts };
  }
  if (process.getuid?.() !== 0) throw new RootfsError('building the rootfs needs root (mmdebstrap in root mode: device nodes and file owners)');
  const r = ROOTFS_RECIPE;
  const staging = `${dir}.partial`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const tar = join(staging, 'rootfs.tar');
  const probe = join(staging, 'probe');
  const started = Date.now();
  opts.log(`building the Debian ${r.suite} rootfs (${r.variant} + ${r.packages.join(', ')}) with mmdebstrap into ${dir} (~1 min)`);
  // Hooks run on the host with the new root as $1.
  const hooks = [
    `printf '%s\\n' '${r.passwd}' >> "$1/etc/passwd"`,
    `printf '%s\\n' '${r.group}' >> "$1/etc/group"`,
    `chroot "$1" /usr/bin/node -p 'JSON.stringify({node: process.version, nodePath: process.execPath})' > '${probe}.node'`,
    `chroot "$1" dpkg-query -W -f '\${Version}' nodejs > '${probe}.pkg'`,
    `cat "$1/etc/debian_version" > '${probe}.debian'`,
  ];
  await runLogged(
    'mmdebstrap',
    [`--variant=${r.variant}`, ...r.aptOptions.map((o) => `--aptopt=${o}`), ...r.dpkgOptions.map((o) => `--dpkgopt=${o}`), `--include=${r.packages.join(',')}`, ...hooks.map((h) => `--customize-hook=${h}`), r.suite, tar, r.mirror],
    opts.log,
  );
  const tarBytes = statSync(tar).size;
  // gzip without a name or time in its header (as gzip -n): the same tar gives the same layer digest.
  await pipeline(createReadStream(tar), createGzip({ level: 6 }), createWriteStream(join(staging, 'rootfs.tar.gz')));
  rmSync(tar);
  const node = JSON.parse(readFileSync(`${probe}.node`, 'utf8')) as { node: string; nodePath: string };
  const facts: RootfsFacts = {
    ...node,
    debian: readFileSync(`${probe}.debian`, 'utf8').trim(),
    nodejsPackage: readFileSync(`${probe}.pkg`, 'utf8').trim(),
    tarBytes,
    layerBytes: statSync(join(staging, 'rootfs.tar.gz')).size,
    builtAt: new Date().toISOString(),
    buildSeconds: Math.round((Date.now() - started) / 100) / 10,
  };
  for (const f of ['node', 'pkg', 'debian']) rmSync(`${probe}.${f}`);
  writeFileSync(join(staging, 'facts.json'), `${JSON.stringify(facts, null, 2)}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  opts.log(`rootfs built in ${facts.buildSeconds} s: Node.js ${facts.node} (Debian ${facts.nodejsPackage}), ${(tarBytes / 1e6).toFixed(0)} MB, layer ${(facts.layerBytes / 1e6).toFixed(0)} MB gzipped`);
  return { layer: join(dir, 'rootfs.tar.gz'), facts };
}
