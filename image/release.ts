// npm run release -- <registry>/<repository> --key <cosign.key>: a kmaint release pushed to one registry (docs/release.md).
// 1. the linux/amd64 image (npm run image:build's, unchanged) and the linux/arm64 image (image/rootfs-arm64.ts under the
//    same bundle layer), pushed as ONE OCI image index tagged with package.json's version;
// 2. an SPDX 2.3 SBOM of both root filesystems' Debian packages and the bundle's npm packages, attached to the index as
//    an OCI 1.1 referrer (artifactType application/spdx+json);
// 3. a cosign signature of the index (key pair, no transparency log), verified with the public key before going on;
// 4. the chart, packaged with operator.image set to <registry>/<repository>@<index digest>, and the CRD chart, pushed as
//    OCI artifacts to oci://<registry>/<path>/charts (or --chart-repo).
// The signing key is a cosign key file (--key or KMAINT_SIGNING_KEY), its password in COSIGN_PASSWORD: neither is logged.
import { errorMessage } from '../shared/errors/index.ts';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { LAYOUT_DIR, OUT_DIR, REPO, buildImage, packageVersion } from './build.ts';
import { releasedValues, splitImageRepository } from './chart-values.ts';
import { ensureCosign, runCosign } from './cosign.ts';
import { ensureArm64Rootfs } from './rootfs-arm64.ts';
import { ROOTFS_RECIPE, ensureRootfs } from './rootfs.ts';
import { buildSbom, bundledNpmPackages, parseDpkgStatus } from './sbom.ts';
import { ensureImageTool } from './tool.ts';
import { ensureHelm, runHelm } from '../testbed/helm.ts';

export const RELEASE_DIR = join(OUT_DIR, 'release');
export const SBOM_ARTIFACT_TYPE = 'application/spdx+json';

/** What image/out/release/release.json says was pushed (the release test reads it). */
export interface ReleaseFacts {
  version: string;
  /** <registry>/<repository> as given. */
  image: string;
  index: { digest: string; manifests: Array<{ platform: string; digest: string }> };
  sbom: { digest: string; packages: number };
  signature: { verified: true };
  chart: { ref: string; version: string; digest: string };
  crdChart: { ref: string; version: string; digest: string };
}

export interface ReleaseOptions {
  /** <registry>/<repository>, e.g. ghcr.io/acme/kmaint. */
  image: string;
  /** The cosign private key file. */
  key: string;
  /** Its password (COSIGN_PASSWORD). */
  password: string;
  /** Where the chart goes; default oci://<registry>/<path>/charts beside the image. */
  chartRepo?: string;
  rebuildRootfs?: boolean;
  log: (line: string) => void;
}

/** Registries on loopback are spoken to over plain HTTP (the tests' registry), as the image tool does. */
function isLoopback(ref: string): boolean {
  return /^(127\.0\.0\.1|localhost|\[::1\]):/.test(ref);
}

function run(cmd: string, args: string[], what: string): string {
  const r = spawnSync(cmd, args, { cwd: REPO, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0) throw new Error(`${what}: exit ${r.status}: ${(r.stderr || r.error?.message || '').trim().split('\n').slice(-5).join(' | ')}`);
  return r.stdout;
}

/** The dpkg database of a gzipped rootfs layer. */
function dpkgStatusOf(layer: string): string {
  return run('tar', ['-xzOf', layer, './var/lib/dpkg/status'], `reading the dpkg database of ${layer}`);
}

export async function release(opts: ReleaseOptions): Promise<ReleaseFacts> {
  const { log } = opts;
  const { repository, name } = splitImageRepository(opts.image);
  const plainHttp = isLoopback(opts.image);
  const version = packageVersion();
  const chartRepo = opts.chartRepo ?? `oci://${repository}/charts`;
  const [tool, cosign, , arm64] = await Promise.all([ensureImageTool(log), ensureCosign(log), ensureHelm({ log }), ensureArm64Rootfs({ rebuild: opts.rebuildRootfs ?? false, log })]);
  rmSync(RELEASE_DIR, { recursive: true, force: true });
  mkdirSync(RELEASE_DIR, { recursive: true });

  // 1. The images: amd64 as image:build makes it, arm64 from the arm64 rootfs and the same bundle layer and config.
  await buildImage({ rebuildRootfs: opts.rebuildRootfs ?? false, log });
  const amd64 = await ensureRootfs({ log });
  const arm64Layout = join(RELEASE_DIR, 'layout-arm64');
  run(tool, ['build', '--arch', 'arm64', '--layout', arm64Layout, '--tag', version, '--config', join(OUT_DIR, 'image-config.json'), arm64.layer, join(OUT_DIR, 'kmaint-app.tar.gz')], 'building the arm64 image');
  const indexFile = join(RELEASE_DIR, 'index.json');
  run(tool, ['push-index', '--tag', version, '--out', indexFile, `${opts.image}:${version}`, LAYOUT_DIR, arm64Layout], `pushing the index to ${opts.image}:${version}`);
  const index = JSON.parse(readFileSync(indexFile, 'utf8')) as { digest: string; manifests: Array<{ platform: string; digest: string }> };
  log(`pushed ${opts.image}:${version}@${index.digest}: ${index.manifests.map((m) => `${m.platform} ${m.digest}`).join(', ')}`);

  // 2. The SBOM, attached to the index.
  const metafile = JSON.parse(readFileSync(join(REPO, 'dist', 'kmaint.meta.json'), 'utf8')) as { inputs: Record<string, unknown> };
  const sbom = buildSbom({
    repository: opts.image,
    version,
    indexDigest: index.digest,
    suite: ROOTFS_RECIPE.suite,
    debian: { amd64: parseDpkgStatus(dpkgStatusOf(amd64.layer)), arm64: parseDpkgStatus(dpkgStatusOf(arm64.layer)) },
    npm: bundledNpmPackages(Object.keys(metafile.inputs), REPO),
    created: new Date(),
  });
  const sbomFile = join(RELEASE_DIR, 'kmaint.spdx.json');
  writeFileSync(sbomFile, `${JSON.stringify(sbom, null, 2)}\n`);
  const sbomDigest = run(tool, ['attach', '--subject', index.digest, '--artifact-type', SBOM_ARTIFACT_TYPE, '--file', sbomFile, opts.image], 'attaching the SBOM').trim();
  log(`attached the SBOM (${sbom.packages.length - 1} packages) as ${opts.image}@${sbomDigest}`);

  // 3. The signature of the index, checked with the public key derived from the private one.
  const http = plainHttp ? ['--allow-http-registry=true', '--allow-insecure-registry=true'] : [];
  const signed = runCosign(cosign, ['sign', '--key', opts.key, '--tlog-upload=false', ...http, `${opts.image}@${index.digest}`], { password: opts.password });
  if (signed.code !== 0) throw new Error(`cosign sign: exit ${signed.code}: ${signed.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const publicKey = join(RELEASE_DIR, 'cosign.pub');
  const pub = runCosign(cosign, ['public-key', '--key', opts.key, '--outfile', publicKey], { password: opts.password });
  if (pub.code !== 0) throw new Error(`cosign public-key: exit ${pub.code}: ${pub.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const verified = runCosign(cosign, ['verify', '--key', publicKey, '--insecure-ignore-tlog=true', ...http, `${opts.image}@${index.digest}`]);
  if (verified.code !== 0) throw new Error(`cosign verify of what was just signed: exit ${verified.code}: ${verified.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  log(`signed ${opts.image}@${index.digest}; cosign verify with ${publicKey}: ok`);

  // 4. The chart, pointing at the index by digest.
  const chartDir = join(RELEASE_DIR, 'chart', 'kmaint');
  cpSync(join(REPO, 'charts', 'kmaint'), chartDir, { recursive: true });
  const valuesFile = join(chartDir, 'values.yaml');
  writeFileSync(valuesFile, releasedValues(readFileSync(valuesFile, 'utf8'), { repository, name, digest: index.digest }));
  // The CRD chart (charts/kmaint-crd) goes beside it, with the same version, as it is.
  const charts: Record<string, string> = {};
  for (const [chart, dir] of [['kmaint', chartDir], ['kmaint-crd', join(REPO, 'charts', 'kmaint-crd')]] as const) {
    const packaged = await runHelm(['package', dir, '--version', version, '--app-version', version, '-d', RELEASE_DIR]);
    if (packaged.code !== 0) throw new Error(`helm package ${chart}: ${packaged.stderr.trim()}`);
    const pushed = await runHelm(['push', join(RELEASE_DIR, `${chart}-${version}.tgz`), chartRepo, ...(plainHttp ? ['--plain-http'] : [])]);
    if (pushed.code !== 0) throw new Error(`helm push ${chart} to ${chartRepo}: ${pushed.stderr.trim()}`);
    charts[chart] = /Digest: (sha256:[0-9a-f]{64})/.exec(pushed.stderr + pushed.stdout)?.[1] ?? '';
    log(`pushed the chart ${chartRepo}/${chart}:${version}@${charts[chart]}`);
  }

  const facts: ReleaseFacts = {
    version,
    image: opts.image,
    index,
    sbom: { digest: sbomDigest, packages: sbom.packages.length - 1 },
    signature: { verified: true },
    chart: { ref: `${chartRepo}/kmaint`, version, digest: charts['kmaint'] ?? '' },
    crdChart: { ref: `${chartRepo}/kmaint-crd`, version, digest: charts['kmaint-crd'] ?? '' },
  };
  writeFileSync(join(RELEASE_DIR, 'release.json'), `${JSON.stringify(facts, null, 2)}\n`);
  return facts;
}

const USAGE = 'usage: npm run release -- <registry>/<repository> --key <cosign.key> [--chart-repo oci://…] [--rebuild-rootfs]\n' +
  '  (or KMAINT_SIGNING_KEY=<cosign.key>; the key\'s password in COSIGN_PASSWORD), e.g. npm run release -- ghcr.io/acme/kmaint --key cosign.key\n';

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const flag = (f: string): string | undefined => {
    const at = args.indexOf(f);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const image = args.find((a, i) => !a.startsWith('--') && (i === 0 || !['--key', '--chart-repo'].includes(args[i - 1] ?? '')));
  const key = flag('--key') ?? process.env['KMAINT_SIGNING_KEY'];
  if (image === undefined || key === undefined || key === '') {
    process.stderr.write(USAGE);
    process.exit(2);
  }
  const chartRepo = flag('--chart-repo');
  release({ image, key, password: process.env['COSIGN_PASSWORD'] ?? '', rebuildRootfs: args.includes('--rebuild-rootfs'), ...(chartRepo !== undefined ? { chartRepo } : {}), log: (line) => process.stderr.write(`release: ${line}\n`) }).then(
    (facts) => {
      process.stdout.write(`${JSON.stringify(facts, null, 2)}\n`);
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`release: ${errorMessage(err)}\n`);
      process.exit(1);
    },
  );
}
