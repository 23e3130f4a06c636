// The release (npm run release) against a loopback OCI registry, checked from outside as a platform team would: the
// index's two platforms over the registry API, the signature with `cosign verify` and the test's own public key (and
// refused with another key), each architecture's /usr/bin/node and libnode by their ELF header's machine field, the
// SBOM read back through the referrers API, and the chart pulled back by its digest with helm rendering
// <repository>@<index digest>.
// Run by `npm run test:release` (test/release/vitest.config.ts), not by npm test: see docs/release.md.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageVersion } from '../../image/build.ts';
import { ensureCosign, runCosign } from '../../image/cosign.ts';
import { startRegistry, type LocalRegistry } from '../../image/registry.ts';
import { release, type ReleaseFacts } from '../../image/release.ts';
import { ensureImageTool } from '../../image/tool.ts';
import { ensureHelm, runHelm } from '../../testbed/helm.ts';

const REPO = join(import.meta.dirname, '..', '..');
/** ELF e_machine (offset 18, little-endian): EM_X86_64 and EM_AARCH64. */
const EM = { amd64: 62, arm64: 183 } as const;
const PASSWORD = 'throwaway-test-key';

interface Spdx {
  spdxVersion: string;
  packages: Array<{ name: string; versionInfo: string; externalRefs: Array<{ referenceLocator: string }> }>;
}

describe('npm run release against a loopback registry', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'kmaint-release-'));
  let registry: LocalRegistry | undefined;
  let tool = '';
  let cosign = '';
  const log = (line: string): void => {
    process.stderr.write(`release: ${line}\n`);
  };

  beforeAll(async () => {
    [tool, cosign] = await Promise.all([ensureImageTool(log), ensureCosign(log), ensureHelm({ log })]);
    registry = await startRegistry(tool, scratch);
    // A throwaway key pair for the release, and another one the signature must not verify with.
    for (const dir of ['key', 'other']) {
      const made = runCosign(cosign, ['generate-key-pair', `--output-key-prefix=${join(scratch, dir)}`], { password: PASSWORD, cwd: scratch });
      expect([made.code, made.stderr.includes('Private key written to')]).toEqual([0, true]);
    }
  });
  afterAll(async () => {
    await registry?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** /usr/bin/node and libnode of one platform's image, pulled from the registry, as their ELF machine fields. */
  function elfMachines(ref: string, platform: string): number[] {
    const dir = join(scratch, platform.replaceAll('/', '-'));
    const pulled = spawnSync('sh', ['-c', `mkdir -p "$2" && "$0" pull --platform "$1" --config-out "$2.json" "$3" | tar -x -C "$2" --wildcards '*usr/bin/node' '*usr/lib/*-linux-gnu/libnode.so.*'`, tool, platform, dir, ref], { encoding: 'utf8' });
    expect([pulled.status, pulled.stderr]).toEqual([0, '']);
    const triplet = platform.startsWith('linux/arm64') ? 'aarch64-linux-gnu' : 'x86_64-linux-gnu';
    const libnode = spawnSync('sh', ['-c', `ls "$0"/usr/lib/${triplet}/libnode.so.*[0-9]`, dir], { encoding: 'utf8' }).stdout.trim().split('\n')[0] ?? '';
    return [join(dir, 'usr', 'bin', 'node'), libnode].map((f) => readFileSync(f).readUInt16LE(18));
  }

  it('pushes one index of linux/amd64 and linux/arm64, signed, with an SBOM, and a chart that installs it by digest', async () => {
    const host = registry?.host ?? '';
    const image = `${host}/acme/kmaint`;
    const version = packageVersion();
    const facts: ReleaseFacts = await release({ image, key: join(scratch, 'key.key'), password: PASSWORD, log });

    // The index, as the registry serves it by the version's tag.
    const res = await fetch(`http://${host}/v2/acme/kmaint/manifests/${version}`, { headers: { accept: 'application/vnd.oci.image.index.v1+json' } });
    const index = (await res.json()) as { mediaType: string; manifests: Array<{ digest: string; platform: { os: string; architecture: string; variant?: string } }> };
    const digest = res.headers.get('docker-content-digest') ?? '';
    expect([digest, index.mediaType, index.manifests.map((m) => [m.platform.os, m.platform.architecture, m.platform.variant ?? ''])]).toEqual([
      facts.index.digest,
      'application/vnd.oci.image.index.v1+json',
      [['linux', 'amd64', ''], ['linux', 'arm64', 'v8']],
    ]);

    // The signature: cosign verify with the test's public key accepts it and names the index; another key is refused.
    const ok = runCosign(cosign, ['verify', '--key', join(scratch, 'key.pub'), '--insecure-ignore-tlog=true', '--allow-http-registry=true', '--allow-insecure-registry=true', `${image}@${digest}`]);
    const claims = ok.code === 0 ? (JSON.parse(ok.stdout) as Array<{ critical: { image: { 'docker-manifest-digest': string } } }>) : [];
    expect([ok.code, claims.map((c) => c.critical.image['docker-manifest-digest'])]).toEqual([0, [digest]]);
    const other = runCosign(cosign, ['verify', '--key', join(scratch, 'other.pub'), '--insecure-ignore-tlog=true', '--allow-http-registry=true', '--allow-insecure-registry=true', `${image}@${digest}`]);
    // cosign's exit code for "no matching signatures" (cmd/cosign/errors: NoMatchingSignature).
    expect([other.code, other.stderr.includes('no matching signatures')]).toEqual([12, true]);

    // Each platform's files are built for it.
    expect(elfMachines(`${image}@${digest}`, 'linux/amd64')).toEqual([EM.amd64, EM.amd64]);
    expect(elfMachines(`${image}@${digest}`, 'linux/arm64/v8')).toEqual([EM.arm64, EM.arm64]);

    // The SBOM, found through the referrers API and read from its blob.
    const referrers = (await (await fetch(`http://${host}/v2/acme/kmaint/referrers/${digest}`)).json()) as { manifests: Array<{ digest: string }> };
    const manifests = await Promise.all(
      referrers.manifests.map(async (m) => (await (await fetch(`http://${host}/v2/acme/kmaint/manifests/${m.digest}`, { headers: { accept: 'application/vnd.oci.image.manifest.v1+json' } })).json()) as { artifactType?: string; layers: Array<{ digest: string }> }),
    );
    const sbomManifest = manifests.find((m) => m.artifactType === 'application/spdx+json');
    const sbom = (await (await fetch(`http://${host}/v2/acme/kmaint/blobs/${sbomManifest?.layers[0]?.digest ?? ''}`)).json()) as Spdx;
    const purls = sbom.packages.flatMap((p) => p.externalRefs.map((r) => r.referenceLocator));
    const zod = (JSON.parse(readFileSync(join(REPO, 'node_modules', 'zod', 'package.json'), 'utf8')) as { version: string }).version;
    const nodejs = (arch: string): string | undefined => purls.find((p) => p.startsWith('pkg:deb/debian/nodejs@') && p.includes(`arch=${arch}&`));
    expect([sbom.spdxVersion, nodejs('amd64') !== undefined, nodejs('arm64')?.replace(/@[^?]+/, '@V'), purls.includes(`pkg:npm/zod@${zod}`), sbom.packages.length - 1]).toEqual([
      'SPDX-2.3',
      true,
      'pkg:deb/debian/nodejs@V?arch=arm64&distro=debian-forky',
      true,
      facts.sbom.packages,
    ]);

    // The chart, pulled back from the registry, renders the index by digest with no --set.
    const home = join(scratch, 'helm');
    // By the chart's digest, as README's install pins it; the CRD chart by its version.
    const pulled = await runHelm(['pull', `oci://${host}/acme/charts/kmaint@${facts.chart.digest}`, '--plain-http', '-d', scratch], { home });
    const crd = await runHelm(['pull', `oci://${host}/acme/charts/kmaint-crd`, '--version', version, '--plain-http', '-d', scratch], { home });
    expect([pulled.code, `${pulled.stdout}${pulled.stderr}`.includes(`Digest: ${facts.chart.digest}`), crd.code, facts.chart.digest]).toEqual([0, true, 0, expect.stringMatching(/^sha256:[0-9a-f]{64}$/)]);
    const rendered = await runHelm(['template', 'km', join(scratch, `kmaint@${facts.chart.digest.replace(':', '-')}.tgz`), '-n', 'kmaint'], { home });
    const images = [...rendered.stdout.matchAll(/^\s+image: (.*)$/gm)].map((m) => m[1]);
    expect([rendered.code, new Set(images), images.length > 0, facts.chart.ref]).toEqual([0, new Set([`${image}@${digest}`]), true, `oci://${host}/acme/charts/kmaint`]);
  });
});
