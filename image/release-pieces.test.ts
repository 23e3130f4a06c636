// The release's pieces, fast (npm test): the SBOM's content from a dpkg database and esbuild's inputs, the released
// chart's values and what helm renders from them, and the image tool's index of two platforms on a loopback registry.
// The whole release (both rootfs, cosign, helm push) runs in test/release/release.test.ts (npm run test:release).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helmIsCurrent, runHelm } from '../testbed/helm.ts';
import { releasedValues, splitImageRepository } from './chart-values.ts';
import { startRegistry, type LocalRegistry } from './registry.ts';
import { buildSbom, bundledNpmPackages, parseDpkgStatus } from './sbom.ts';
import { ensureImageTool } from './tool.ts';

const REPO = join(import.meta.dirname, '..');
const DIGEST = `sha256:${'ab'.repeat(32)}`;

const STATUS = `Package: nodejs
Status: install ok installed
Priority: optional
Architecture: arm64
Version: 24.21.0+dfsg+~cs24.13.4-1
Depends: libc6 (>= 2.34), libnode137 (= 24.21.0+dfsg+~cs24.13.4-1)

Package: libnode137
Status: install ok installed
Architecture: arm64
Source: nodejs (24.21.0+dfsg+~cs24.13.4-1)
Version: 24.21.0+dfsg+~cs24.13.4-1

Package: removed-one
Status: deinstall ok config-files
Architecture: arm64
Version: 1.0

Package: ca-certificates
Status: install ok installed
Architecture: all
Version: 20250419
`;

describe('the SBOM', () => {
  it('lists the installed packages of a dpkg database, by name, with the source when it differs', () => {
    expect(parseDpkgStatus(STATUS)).toEqual([
      { name: 'ca-certificates', version: '20250419', architecture: 'all' },
      { name: 'libnode137', version: '24.21.0+dfsg+~cs24.13.4-1', architecture: 'arm64', source: 'nodejs' },
      { name: 'nodejs', version: '24.21.0+dfsg+~cs24.13.4-1', architecture: 'arm64' },
    ]);
  });

  it('names the npm package of each bundled input once, scoped and nested ones too, with package.json\'s version', () => {
    const version = (dir: string): string => (JSON.parse(readFileSync(join(REPO, dir, 'package.json'), 'utf8')) as { version: string }).version;
    const inputs = ['cli/main.ts', 'node_modules/zod/v4/core/core.js', 'node_modules/zod/v4/classic/schemas.js', 'node_modules/@kubernetes/client-node/dist/config.js'];
    expect(bundledNpmPackages(inputs, REPO)).toEqual([
      { name: '@kubernetes/client-node', version: version('node_modules/@kubernetes/client-node'), license: 'Apache-2.0' },
      { name: 'zod', version: version('node_modules/zod'), license: 'MIT' },
    ]);
  });

  it('is one SPDX 2.3 document: the index, each architecture\'s Debian packages and the npm packages, with purls', () => {
    const doc = buildSbom({
      repository: 'ghcr.io/acme/kmaint',
      version: '0.1.0',
      indexDigest: DIGEST,
      suite: 'forky',
      debian: { arm64: parseDpkgStatus(STATUS).filter((p) => p.name === 'nodejs'), amd64: [{ name: 'nodejs', version: '24.21.0+dfsg+~cs24.13.4-1', architecture: 'amd64' }] },
      npm: [{ name: '@kubernetes/client-node', version: '2.0.1', license: 'Apache-2.0' }],
      created: new Date('2026-12-01T10:00:00.123Z'),
    });
    expect({ ...doc, packages: doc.packages.map((p) => [p.SPDXID, p.name, p.versionInfo, p.licenseDeclared, p.externalRefs[0]?.referenceLocator]) }).toEqual({
      spdxVersion: 'SPDX-2.3',
      dataLicense: 'CC0-1.0',
      SPDXID: 'SPDXRef-DOCUMENT',
      name: 'ghcr.io/acme/kmaint:0.1.0',
      documentNamespace: `https://kmaint.io/spdx/ghcr.io%2Facme%2Fkmaint/0.1.0/${DIGEST}`,
      creationInfo: { created: '2026-12-01T10:00:00Z', creators: ['Tool: kmaint-release'] },
      packages: [
        ['SPDXRef-image-kmaint-0.1.0', 'ghcr.io/acme/kmaint', '0.1.0', 'Apache-2.0', `pkg:oci/kmaint@sha256%3A${'ab'.repeat(32)}?repository_url=ghcr.io%2Facme%2Fkmaint&tag=0.1.0`],
        ['SPDXRef-deb-amd64-nodejs-amd64', 'nodejs', '24.21.0+dfsg+~cs24.13.4-1', 'NOASSERTION', 'pkg:deb/debian/nodejs@24.21.0%2Bdfsg%2B~cs24.13.4-1?arch=amd64&distro=debian-forky'],
        ['SPDXRef-deb-arm64-nodejs-arm64', 'nodejs', '24.21.0+dfsg+~cs24.13.4-1', 'NOASSERTION', 'pkg:deb/debian/nodejs@24.21.0%2Bdfsg%2B~cs24.13.4-1?arch=arm64&distro=debian-forky'],
        ['SPDXRef-npm--kubernetes-client-node-2.0.1', '@kubernetes/client-node', '2.0.1', 'Apache-2.0', 'pkg:npm/%40kubernetes/client-node@2.0.1'],
      ],
      relationships: [
        { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: 'SPDXRef-image-kmaint-0.1.0' },
        { spdxElementId: 'SPDXRef-image-kmaint-0.1.0', relationshipType: 'CONTAINS', relatedSpdxElement: 'SPDXRef-deb-amd64-nodejs-amd64' },
        { spdxElementId: 'SPDXRef-image-kmaint-0.1.0', relationshipType: 'CONTAINS', relatedSpdxElement: 'SPDXRef-deb-arm64-nodejs-arm64' },
        { spdxElementId: 'SPDXRef-image-kmaint-0.1.0', relationshipType: 'CONTAINS', relatedSpdxElement: 'SPDXRef-npm--kubernetes-client-node-2.0.1' },
      ],
    });
  });
});

describe('the released chart\'s values', () => {
  it.each([
    ['ghcr.io/acme/kmaint', { repository: 'ghcr.io/acme', name: 'kmaint' }],
    ['127.0.0.1:5000/kmaint', { repository: '127.0.0.1:5000', name: 'kmaint' }],
    ['registry.example.com/a/b/kmaint-dev', { repository: 'registry.example.com/a/b', name: 'kmaint-dev' }],
  ])('%s is repository + name', (ref, expected) => {
    expect(splitImageRepository(ref)).toEqual(expected);
  });

  it.each(['kmaint', 'ghcr.io/acme/kmaint:0.1.0', `ghcr.io/acme/kmaint@${DIGEST}`, 'ghcr.io/acme/'])('%s is refused', (ref) => {
    expect(() => splitImageRepository(ref)).toThrow(`${ref}: expected <registry>/<repository>, e.g. ghcr.io/acme/kmaint (no tag, no digest)`);
  });

  it('changes operator.image\'s repository, name and digest in charts/kmaint/values.yaml and nothing else', () => {
    const before = readFileSync(join(REPO, 'charts', 'kmaint', 'values.yaml'), 'utf8');
    const after = releasedValues(before, { repository: 'ghcr.io/acme', name: 'kmaint', digest: DIGEST });
    const a = before.split('\n');
    const b = after.split('\n');
    expect(b.length).toBe(a.length);
    expect(b.flatMap((line, i) => (line === a[i] ? [] : [[a[i], line]]))).toEqual([
      ['    repository: ""', '    repository: "ghcr.io/acme"'],
      ['    name: kmaint', '    name: "kmaint"'],
      ['    digest: ""', `    digest: "${DIGEST}"`],
    ]);
    expect(() => releasedValues(before, { repository: 'ghcr.io/acme', name: 'kmaint', digest: 'sha256:abc' })).toThrow('the image digest sha256:abc is not sha256:<64 hex digits>');
  });

  it.skipIf(!helmIsCurrent())('renders every CronJob\'s image as <repository>/<name>@<digest> with no --set', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmaint-release-values-'));
    try {
      cpSync(join(REPO, 'charts', 'kmaint'), join(dir, 'kmaint'), { recursive: true });
      const values = join(dir, 'kmaint', 'values.yaml');
      writeFileSync(values, releasedValues(readFileSync(values, 'utf8'), { repository: 'ghcr.io/acme', name: 'kmaint', digest: DIGEST }));
      const r = await runHelm(['template', 'km', join(dir, 'kmaint'), '-n', 'kmaint'], { home: dir });
      const images = [...r.stdout.matchAll(/^\s+image: (.*)$/gm)].map((m) => m[1]);
      expect([r.code, new Set(images), images.length > 0]).toEqual([0, new Set([`ghcr.io/acme/kmaint@${DIGEST}`]), true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the image tool\'s index', () => {
  let registry: LocalRegistry | undefined;
  let tool = '';
  const scratch = mkdtempSync(join(tmpdir(), 'kmaint-release-index-'));
  beforeAll(async () => {
    tool = await ensureImageTool(() => undefined);
    registry = await startRegistry(tool, scratch);
  });
  afterAll(async () => {
    await registry?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  const run = (args: string[]): string => {
    const r = spawnSync(tool, args, { encoding: 'utf8' });
    expect([r.status, r.stderr]).toEqual([0, '']);
    return r.stdout.trim();
  };

  it('pushes one OCI index with a linux/amd64 and a linux/arm64/v8 image, and an artifact that refers to it', async () => {
    const host = registry?.host ?? '';
    // Two one-file layers and the config image/build.ts writes (reduced): the index does not look inside them.
    mkdirSync(join(scratch, 'files'));
    writeFileSync(join(scratch, 'files', 'arch'), 'x\n');
    const layer = join(scratch, 'layer.tar.gz');
    expect(spawnSync('tar', ['-czf', layer, '-C', join(scratch, 'files'), 'arch']).status).toBe(0);
    const config = join(scratch, 'config.json');
    writeFileSync(config, JSON.stringify({ config: { Entrypoint: ['kmaint'] }, created: '2026-12-01T00:00:00Z', annotations: {} }));
    const amd64 = run(['build', '--layout', join(scratch, 'amd64'), '--tag', '0.1.0', '--config', config, layer]);
    const arm64 = run(['build', '--arch', 'arm64', '--layout', join(scratch, 'arm64'), '--tag', '0.1.0', '--config', config, layer]);
    run(['push-index', '--tag', '0.1.0', '--out', join(scratch, 'index.json'), `${host}/acme/kmaint:0.1.0`, join(scratch, 'amd64'), join(scratch, 'arm64')]);
    const pushed = JSON.parse(readFileSync(join(scratch, 'index.json'), 'utf8')) as { digest: string };
    expect(pushed).toEqual({ digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as unknown, mediaType: 'application/vnd.oci.image.index.v1+json', manifests: [{ platform: 'linux/amd64', digest: amd64 }, { platform: 'linux/arm64/v8', digest: arm64 }] });

    const res = await fetch(`http://${host}/v2/acme/kmaint/manifests/0.1.0`, { headers: { accept: 'application/vnd.oci.image.index.v1+json' } });
    const index = (await res.json()) as { mediaType: string; manifests: Array<{ digest: string; platform: unknown }> };
    expect([res.headers.get('docker-content-digest'), index.mediaType, index.manifests.map((m) => [m.digest, m.platform])]).toEqual([
      pushed.digest,
      'application/vnd.oci.image.index.v1+json',
      [[amd64, { architecture: 'amd64', os: 'linux' }], [arm64, { architecture: 'arm64', os: 'linux', variant: 'v8' }]],
    ]);

    writeFileSync(join(scratch, 'sbom.spdx.json'), '{"spdxVersion":"SPDX-2.3"}\n');
    const artifact = run(['attach', '--subject', pushed.digest, '--artifact-type', 'application/spdx+json', '--file', join(scratch, 'sbom.spdx.json'), `${host}/acme/kmaint`]);
    const referrers = (await (await fetch(`http://${host}/v2/acme/kmaint/referrers/${pushed.digest}`)).json()) as { manifests: Array<{ digest: string }> };
    const manifest = (await (await fetch(`http://${host}/v2/acme/kmaint/manifests/${artifact}`, { headers: { accept: 'application/vnd.oci.image.manifest.v1+json' } })).json()) as { artifactType: string; subject: { digest: string }; layers: Array<{ digest: string; mediaType: string }> };
    const blob = await (await fetch(`http://${host}/v2/acme/kmaint/blobs/${manifest.layers[0]?.digest ?? ''}`)).text();
    expect([referrers.manifests.map((m) => m.digest), manifest.artifactType, manifest.subject.digest, manifest.layers.map((l) => l.mediaType), blob]).toEqual([
      [artifact],
      'application/spdx+json',
      pushed.digest,
      ['application/spdx+json'],
      '{"spdxVersion":"SPDX-2.3"}\n',
    ]);
  });
});
