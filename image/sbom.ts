// The release's SBOM: one SPDX 2.3 JSON document for the image index, naming every Debian package of each
// architecture's root filesystem (from its dpkg database) and every npm package bundled into dist/kmaint.mjs (from
// esbuild's metafile). Pure: the inputs are the texts and lists, the clock is passed in.
import { rfc3339Seconds } from '../shared/api/index.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DebianPackage {
  name: string;
  version: string;
  /** The package's Architecture field: arm64, amd64 or all. */
  architecture: string;
  /** The source package, when it differs from the binary's name. */
  source?: string;
}

export interface NpmPackage {
  name: string;
  version: string;
  /** package.json's `license`, when it is an SPDX expression. */
  license?: string;
}

/** The installed packages of a dpkg status file (`Status: install ok installed`), sorted by name. */
export function parseDpkgStatus(text: string): DebianPackage[] {
  const packages: DebianPackage[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    for (const line of paragraph.split('\n')) {
      const m = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(line);
      if (m?.[1] !== undefined && m[2] !== undefined) fields.set(m[1], m[2].trim());
    }
    const name = fields.get('Package');
    const version = fields.get('Version');
    const architecture = fields.get('Architecture');
    if (name === undefined || version === undefined || architecture === undefined) continue;
    if (fields.get('Status') !== 'install ok installed') continue;
    // `Source: name (version)` when the source's version differs: the name is the first word.
    const source = fields.get('Source')?.split(' ')[0];
    packages.push({ name, version, architecture, ...(source !== undefined && source !== name ? { source } : {}) });
  }
  return packages.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The npm packages that esbuild's metafile `inputs` came from: the directory after the last `node_modules/` of each
 * input (a scope takes two segments), its package.json read from `root`. Sorted by name, then version.
 */
export function bundledNpmPackages(inputs: readonly string[], root: string): NpmPackage[] {
  const dirs = new Set<string>();
  for (const input of inputs) {
    const at = input.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const rest = input.slice(at + 'node_modules/'.length).split('/');
    const segments = rest[0]?.startsWith('@') === true ? 2 : 1;
    if (rest.length <= segments) continue;
    dirs.add(input.slice(0, at + 'node_modules/'.length) + rest.slice(0, segments).join('/'));
  }
  const packages = new Map<string, NpmPackage>();
  for (const dir of dirs) {
    const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { name?: string; version?: string; license?: unknown };
    if (pkg.name === undefined || pkg.version === undefined) continue;
    const license = typeof pkg.license === 'string' && /^[A-Za-z0-9.+\-() ]+$/.test(pkg.license) ? pkg.license : undefined;
    packages.set(`${pkg.name}@${pkg.version}`, { name: pkg.name, version: pkg.version, ...(license !== undefined ? { license } : {}) });
  }
  return [...packages.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
}

export interface SbomInput {
  /** The image's repository, e.g. ghcr.io/acme/kmaint. */
  repository: string;
  version: string;
  /** The OCI index's digest: what the SBOM describes. */
  indexDigest: string;
  /** The Debian suite, for the purls' distro qualifier. */
  suite: string;
  debian: Record<string, DebianPackage[]>;
  npm: NpmPackage[];
  created: Date;
}

interface SpdxPackage {
  SPDXID: string;
  name: string;
  versionInfo: string;
  downloadLocation: 'NOASSERTION';
  licenseConcluded: 'NOASSERTION';
  licenseDeclared: string;
  supplier?: string;
  primaryPackagePurpose?: string;
  externalRefs: Array<{ referenceCategory: 'PACKAGE-MANAGER'; referenceType: 'purl'; referenceLocator: string }>;
}

export interface SpdxDocument {
  spdxVersion: 'SPDX-2.3';
  dataLicense: 'CC0-1.0';
  SPDXID: 'SPDXRef-DOCUMENT';
  name: string;
  documentNamespace: string;
  creationInfo: { created: string; creators: string[] };
  packages: SpdxPackage[];
  relationships: Array<{ spdxElementId: string; relationshipType: 'DESCRIBES' | 'CONTAINS'; relatedSpdxElement: string }>;
}

/** An SPDXID keeps letters, digits, `.` and `-` (SPDX 2.3, 7.2): everything else becomes `-`. */
function spdxId(...parts: string[]): string {
  return `SPDXRef-${parts.join('-').replace(/[^A-Za-z0-9.-]/g, '-')}`;
}

/** purl's percent-encoding of a version or qualifier (`+`, `:` and `~` are common in Debian versions). */
function purlPart(s: string): string {
  return encodeURIComponent(s);
}

export function buildSbom(input: SbomInput): SpdxDocument {
  const image = spdxId('image', 'kmaint', input.version);
  const lastSegment = input.repository.split('/').pop() ?? 'kmaint';
  const packages: SpdxPackage[] = [
    {
      SPDXID: image,
      name: input.repository,
      versionInfo: input.version,
      downloadLocation: 'NOASSERTION',
      licenseConcluded: 'NOASSERTION',
      licenseDeclared: 'Apache-2.0',
      primaryPackagePurpose: 'CONTAINER',
      externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: `pkg:oci/${lastSegment}@${purlPart(input.indexDigest)}?repository_url=${purlPart(input.repository)}&tag=${purlPart(input.version)}` }],
    },
  ];
  const relationships: SpdxDocument['relationships'] = [{ spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: image }];
  for (const arch of Object.keys(input.debian).sort()) {
    for (const p of input.debian[arch] ?? []) {
      const id = spdxId('deb', arch, p.name, p.architecture);
      const qualifiers = `arch=${purlPart(p.architecture)}&distro=debian-${purlPart(input.suite)}${p.source !== undefined ? `&upstream=${purlPart(p.source)}` : ''}`;
      packages.push({
        SPDXID: id,
        name: p.name,
        versionInfo: p.version,
        downloadLocation: 'NOASSERTION',
        licenseConcluded: 'NOASSERTION',
        licenseDeclared: 'NOASSERTION',
        supplier: 'Organization: Debian',
        externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: `pkg:deb/debian/${p.name}@${purlPart(p.version)}?${qualifiers}` }],
      });
      relationships.push({ spdxElementId: image, relationshipType: 'CONTAINS', relatedSpdxElement: id });
    }
  }
  for (const p of input.npm) {
    const id = spdxId('npm', p.name, p.version);
    // A scoped name's `@` is encoded in a purl's namespace (purl spec, npm type).
    const purlName = p.name.startsWith('@') ? `%40${p.name.slice(1)}` : p.name;
    packages.push({
      SPDXID: id,
      name: p.name,
      versionInfo: p.version,
      downloadLocation: 'NOASSERTION',
      licenseConcluded: 'NOASSERTION',
      licenseDeclared: p.license ?? 'NOASSERTION',
      externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: `pkg:npm/${purlName}@${purlPart(p.version)}` }],
    });
    relationships.push({ spdxElementId: image, relationshipType: 'CONTAINS', relatedSpdxElement: id });
  }
  return {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: `${input.repository}:${input.version}`,
    documentNamespace: `https://kmaint.io/spdx/${encodeURIComponent(input.repository)}/${input.version}/${input.indexDigest}`,
    creationInfo: { created: rfc3339Seconds(input.created), creators: ['Tool: kmaint-release'] },
    packages,
    relationships,
  };
}
