// npm run image:build: kmaint's OCI image, tagged with package.json's version, into the OCI layout image/out/layout/
// (and what it holds into image/out/image.json). Two layers: the cached Debian root filesystem with Node.js
// (image/rootfs.ts; rebuilt only when its recipe changes, or with --rebuild-rootfs) and the bundle layer, built every
// time: dist/kmaint.mjs (npm run build:cli) at /app/kmaint.mjs and the `kmaint` command at /usr/local/bin/kmaint.
// No container daemon, no pulled base image: mmdebstrap and the image tool (image/tools, go-containerregistry).
import { errorMessage } from '../shared/errors/index.ts';
import { spawnSync } from 'node:child_process';
import { chmodSync, createReadStream, createWriteStream, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { IMAGE_UID, ensureRootfs, type RootfsFacts } from './rootfs.ts';
import { ensureImageTool } from './tool.ts';

export const REPO = dirname(dirname(fileURLToPath(import.meta.url)));
export const OUT_DIR = join(REPO, 'image', 'out');
export const LAYOUT_DIR = join(OUT_DIR, 'layout');
export const IMAGE_JSON = join(OUT_DIR, 'image.json');

/** The image's `kmaint` command, as infra/Dockerfile wrote it: node running the bundle, arguments passed on. */
export const ENTRY_SCRIPT = '#!/bin/sh\nexec node /app/kmaint.mjs "$@"\n';

/** What image/out/image.json says of the built image (the tests read it). */
export interface ImageFacts {
  /** package.json's version: the tag in the layout's index. */
  tag: string;
  /** The manifest's digest. */
  digest: string;
  rootfs: RootfsFacts;
  /** The commit the bundle was built from, and whether tracked files differed from it then. */
  revision: string;
  dirty: boolean;
  /** Compressed size of each layer, bytes, base first. */
  layers: Array<{ name: string; bytes: number }>;
  builtAt: string;
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
}

function runOrThrow(cmd: string, args: string[], cwd = REPO): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}): ${(r.stderr || r.error?.message || '').trim().split('\n').slice(-5).join(' | ')}`);
  return r.stdout;
}

/** The commit's time: the image's `created` and its files' mtimes, so one commit over one rootfs gives one digest. */
function sourceTime(): Date {
  const fromEnv = process.env['SOURCE_DATE_EPOCH'];
  if (fromEnv !== undefined && fromEnv !== '') return new Date(Number(fromEnv) * 1000);
  const r = spawnSync('git', ['log', '-1', '--format=%ct'], { cwd: REPO, encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '' ? new Date(Number(r.stdout.trim()) * 1000) : new Date(0);
}

export function gitRevision(): string {
  const r = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: REPO, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : '';
}

/** Tracked files changed since the commit (what a bundle built now would hold that the commit does not). */
export function gitDirty(): boolean {
  const r = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO, encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '';
}

/** dist/kmaint.mjs, fresh, and checked to start (as the Dockerfile's build stage did). */
function buildBundle(log: (line: string) => void): string {
  log('bundling the kmaint command (npm run build:cli)');
  runOrThrow(process.execPath, ['--import', 'tsx', 'esbuild.config.ts', 'cli']);
  const bundle = join(REPO, 'dist', 'kmaint.mjs');
  runOrThrow(process.execPath, [bundle, '--help']);
  return bundle;
}

async function bundleLayer(bundle: string, created: Date, out: string): Promise<void> {
  const stage = join(OUT_DIR, 'app-layer');
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(join(stage, 'app'), { recursive: true });
  mkdirSync(join(stage, 'usr', 'local', 'bin'), { recursive: true });
  copyFileSync(bundle, join(stage, 'app', 'kmaint.mjs'));
  chmodSync(join(stage, 'app', 'kmaint.mjs'), 0o644);
  writeFileSync(join(stage, 'usr', 'local', 'bin', 'kmaint'), ENTRY_SCRIPT, { mode: 0o755 });
  for (const d of ['app', 'usr', 'usr/local', 'usr/local/bin']) chmodSync(join(stage, d), 0o755);
  const tar = `${out}.tar`;
  // Sorted, owned by root, the commit's mtime, no atime/ctime: the same bundle gives the same layer digest.
  const mtime = `@${Math.floor(created.getTime() / 1000)}`;
  runOrThrow('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', `--mtime=${mtime}`, '--format=posix', '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime', '-cf', tar, '-C', stage, 'app', 'usr']);
  await pipeline(createReadStream(tar), createGzip({ level: 9 }), createWriteStream(out));
  rmSync(tar);
  rmSync(stage, { recursive: true });
}

export async function buildImage(opts: { rebuildRootfs?: boolean; log: (line: string) => void }): Promise<ImageFacts> {
  const log = opts.log;
  const started = Date.now();
  const [tool, rootfs] = await Promise.all([ensureImageTool(log), ensureRootfs({ rebuild: opts.rebuildRootfs ?? false, log })]);
  mkdirSync(OUT_DIR, { recursive: true });
  const bundle = buildBundle(log);
  const created = sourceTime();
  const appLayer = join(OUT_DIR, 'kmaint-app.tar.gz');
  await bundleLayer(bundle, created, appLayer);
  const version = packageVersion();
  const labels = {
    'org.opencontainers.image.title': 'kmaint',
    'org.opencontainers.image.description': 'Coordinated Kubernetes node maintenance by stateless passes (maintenance.nvidia.com/v1alpha1 compatible)',
    'org.opencontainers.image.version': version,
    'org.opencontainers.image.revision': gitRevision(),
    'org.opencontainers.image.licenses': 'Apache-2.0',
    'org.opencontainers.image.created': created.toISOString(),
  };
  const spec = {
    config: {
      Entrypoint: ['kmaint'],
      Cmd: ['--help'],
      Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'NODE_ENV=production'],
      // Numeric, so the kubelet can verify runAsNonRoot.
      User: `${IMAGE_UID}:${IMAGE_UID}`,
      WorkingDir: '/app',
      Labels: labels,
    },
    created: created.toISOString(),
    annotations: labels,
  };
  const configFile = join(OUT_DIR, 'image-config.json');
  writeFileSync(configFile, `${JSON.stringify(spec, null, 2)}\n`);
  const digest = runOrThrow(tool, ['build', '--layout', LAYOUT_DIR, '--tag', version, '--config', configFile, rootfs.layer, appLayer]).trim();
  const facts: ImageFacts = {
    tag: version,
    digest,
    rootfs: rootfs.facts,
    revision: gitRevision(),
    dirty: gitDirty(),
    layers: [
      { name: 'debian-rootfs', bytes: statSync(rootfs.layer).size },
      { name: 'kmaint-app', bytes: statSync(appLayer).size },
    ],
    builtAt: new Date().toISOString(),
  };
  writeFileSync(IMAGE_JSON, `${JSON.stringify(facts, null, 2)}\n`);
  const total = facts.layers.reduce((s, l) => s + l.bytes, 0);
  log(
    `kmaint:${version} ${digest} in ${LAYOUT_DIR}: Node.js ${rootfs.facts.node} on Debian ${rootfs.facts.debian}, ` +
      `${(total / 1e6).toFixed(1)} MB compressed (${facts.layers.map((l) => `${l.name} ${(l.bytes / 1e6).toFixed(1)} MB`).join(', ')}), ` +
      `${(rootfs.facts.tarBytes / 1e6).toFixed(0)} MB unpacked; ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return facts;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildImage({ rebuildRootfs: process.argv.includes('--rebuild-rootfs'), log: (line) => process.stderr.write(`image: ${line}\n`) }).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`image:build: ${errorMessage(err)}\n`);
      process.exit(1);
    },
  );
}
