// `kmaint --version` and `kmaint version`: the package version, stamped into the bundle at build time
// (esbuild-options.ts defines __KMAINT_VERSION__), read from package.json when the TypeScript runs through tsx in a
// checkout, and the API versions this build reads and writes.
import { readFileSync } from 'node:fs';
import { API_VERSION, CONFIG_KIND, NODE_MAINTENANCE_KIND } from '../shared/api/index.ts';
import { SNAPSHOT_API_VERSION, SNAPSHOT_KIND } from '../sim/whatif/snapshot-schema.ts';

// Replaced by a string literal in every esbuild bundle; not defined at all under tsx.
declare const __KMAINT_VERSION__: string | undefined;

/** The package.json next to cli/ (a checkout); only reached when no bundle stamped the version. */
function versionFromPackageJson(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  if (typeof pkg.version !== 'string') throw new Error('package.json has no version');
  return pkg.version;
}

export function kmaintVersion(): string {
  return typeof __KMAINT_VERSION__ === 'string' ? __KMAINT_VERSION__ : versionFromPackageJson();
}

export interface ServedApi {
  groupVersion: string;
  kinds: string[];
}

export interface VersionInfo {
  version: string;
  apis: ServedApi[];
}

/**
 * What this build serves: the NodeMaintenance API it shares with the upstream operator (requests and the config), and
 * kmaint's own group, which names the what-if snapshot file `kmaint snapshot` writes and `kmaint simulate` reads.
 */
export function versionInfo(version: string): VersionInfo {
  return {
    version,
    apis: [
      { groupVersion: API_VERSION, kinds: [NODE_MAINTENANCE_KIND, CONFIG_KIND] },
      { groupVersion: SNAPSHOT_API_VERSION, kinds: [SNAPSHOT_KIND] },
    ],
  };
}

/** `kmaint 0.1.0`, the line `--version` prints and `version` starts with. */
export const versionLine = (version: string): string => `kmaint ${version}`;

/** `kmaint version` as text: the version line, then one line per API group/version with its kinds. */
export function renderVersionText(info: VersionInfo): string {
  return `${[versionLine(info.version), ...info.apis.map((a) => `  serves ${a.groupVersion}: ${a.kinds.join(', ')}`)].join('\n')}\n`;
}
