// The release's linux/arm64 base: the same Debian suite, mirror and packages as image/rootfs.ts, made by mmdebstrap
// without running a single arm64 binary, so no binfmt/qemu emulation is needed. mmdebstrap's `extract` variant downloads
// the Essential:yes set, nodejs and ca-certificates with their dependencies for arm64 and unpacks them; no maintainer
// script runs. What those scripts would have written and the image needs is written by the hook below from the host:
// the dpkg database (scanners and the SBOM read it), /etc/passwd and /etc/group (base-passwd's master files and the
// kmaint user), and the CA bundle (ca-certificates' update-ca-certificates: the enabled certificates concatenated).
// The dynamic loader needs no ld.so.cache: Debian's glibc searches the multiarch library directories by default.
// Cached as one gzipped layer under ~/.cache/kmaint-image/rootfs-arm64-<hash>/, as the amd64 one is.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { ROOTFS_RECIPE, RootfsError, runLogged } from './rootfs.ts';
import { imageCacheDir } from './tool.ts';

export const ARM64_RECIPE = {
  ...ROOTFS_RECIPE,
  architecture: 'arm64',
  variant: 'extract',
  // apt's pattern for the Essential:yes set, which the amd64 rootfs's `essential` variant installs.
  packages: ['?essential', ...ROOTFS_RECIPE.packages],
} as const;

/** What the arm64 root filesystem holds, read from its files (nothing in it can run here). */
export interface ForeignRootfsFacts {
  architecture: 'arm64';
  /** The nodejs package's version, from the dpkg database the hook wrote. */
  nodejsPackage: string;
  /** /etc/debian_version. */
  debian: string;
  /** How many packages were unpacked. */
  packages: number;
  tarBytes: number;
  layerBytes: number;
  builtAt: string;
  buildSeconds: number;
}

/**
 * The extract hook, run on the host with the new root as $1 and the downloaded .debs still in its apt cache. The dpkg
 * status entry of each package is its control file with `Status: install ok installed` after `Package:`, as dpkg
 * writes it.
 */
export function arm64Hooks(probe: string): string[] {
  const r = ARM64_RECIPE;
  return [
    [
      'set -e',
      'for deb in "$1"/var/cache/apt/archives/*.deb; do',
      `  dpkg-deb -f "$deb" | awk '{ print } /^Package:/ { print "Status: install ok installed" }'`,
      '  echo',
      'done > "$1/var/lib/dpkg/status"',
    ].join('\n'),
    `cp "$1/usr/share/base-passwd/passwd.master" "$1/etc/passwd" && printf '%s\\n' '${r.passwd}' >> "$1/etc/passwd"`,
    `cp "$1/usr/share/base-passwd/group.master" "$1/etc/group" && printf '%s\\n' '${r.group}' >> "$1/etc/group"`,
    [
      'set -e',
      'cd "$1/usr/share/ca-certificates"',
      'find . -name "*.crt" | sed "s|^\\./||" | LC_ALL=C sort > "$1/etc/ca-certificates.conf"',
      'mkdir -p "$1/etc/ssl/certs"',
      'while read -r crt; do cat "$crt"; done < "$1/etc/ca-certificates.conf" > "$1/etc/ssl/certs/ca-certificates.crt"',
    ].join('\n'),
    `awk '/^Package: / { p = $2 } p == "nodejs" && /^Version: / { print $2 }' "$1/var/lib/dpkg/status" > '${probe}.pkg'`,
    `grep -c '^Package: ' "$1/var/lib/dpkg/status" > '${probe}.count'`,
    `cat "$1/etc/debian_version" > '${probe}.debian'`,
  ];
}

export function arm64RootfsDir(): string {
  return join(imageCacheDir(), `rootfs-arm64-${createHash('sha256').update(JSON.stringify(ARM64_RECIPE)).update(JSON.stringify(arm64Hooks('P'))).digest('hex').slice(0, 16)}`);
}

/** The cached arm64 root filesystem layer, built first when absent (or when `rebuild`). */
export async function ensureArm64Rootfs(opts: { rebuild?: boolean; log: (line: string) => void }): Promise<{ layer: string; facts: ForeignRootfsFacts }> {
  const dir = arm64RootfsDir();
  const layer = join(dir, 'rootfs.tar.gz');
  const factsFile = join(dir, 'facts.json');
  if (!opts.rebuild && existsSync(factsFile) && existsSync(layer)) {
    opts.log(`Debian ${ARM64_RECIPE.suite} arm64 rootfs is current: ${dir}`);
    return { layer, facts: JSON.parse(readFileSync(factsFile, 'utf8')) as ForeignRootfsFacts };
  }
  if (process.getuid?.() !== 0) throw new RootfsError('building the arm64 rootfs needs root (mmdebstrap in root mode: file owners)');
  const r = ARM64_RECIPE;
  const staging = `${dir}.partial`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const tar = join(staging, 'rootfs.tar');
  const probe = join(staging, 'probe');
  const started = Date.now();
  opts.log(`building the Debian ${r.suite} arm64 rootfs (${r.variant}: ${r.packages.join(', ')}) with mmdebstrap into ${dir} (~2 min)`);
  await runLogged(
    'mmdebstrap',
    [
      `--variant=${r.variant}`,
      `--architectures=${r.architecture}`,
      ...r.aptOptions.map((o) => `--aptopt=${o}`),
      ...r.dpkgOptions.map((o) => `--dpkgopt=${o}`),
      // One --include each: mmdebstrap takes an apt pattern (`?…`) whole, commas and all.
      ...r.packages.map((p) => `--include=${p}`),
      ...arm64Hooks(probe).map((h) => `--extract-hook=${h}`),
      r.suite,
      tar,
      r.mirror,
    ],
    opts.log,
  );
  const tarBytes = statSync(tar).size;
  await pipeline(createReadStream(tar), createGzip({ level: 6 }), createWriteStream(layer.replace(dir, staging)));
  rmSync(tar);
  const facts: ForeignRootfsFacts = {
    architecture: 'arm64',
    nodejsPackage: readFileSync(`${probe}.pkg`, 'utf8').trim(),
    debian: readFileSync(`${probe}.debian`, 'utf8').trim(),
    packages: Number(readFileSync(`${probe}.count`, 'utf8').trim()),
    tarBytes,
    layerBytes: statSync(join(staging, 'rootfs.tar.gz')).size,
    builtAt: new Date().toISOString(),
    buildSeconds: Math.round((Date.now() - started) / 100) / 10,
  };
  for (const f of ['pkg', 'debian', 'count']) rmSync(`${probe}.${f}`);
  if (facts.nodejsPackage === '' || facts.packages === 0) throw new RootfsError(`the arm64 rootfs in ${staging} has no dpkg database entry for nodejs`);
  writeFileSync(join(staging, 'facts.json'), `${JSON.stringify(facts, null, 2)}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  opts.log(`arm64 rootfs built in ${facts.buildSeconds} s: ${facts.packages} packages, nodejs ${facts.nodejsPackage}, ${(tarBytes / 1e6).toFixed(0)} MB, layer ${(facts.layerBytes / 1e6).toFixed(0)} MB gzipped`);
  return { layer, facts };
}
