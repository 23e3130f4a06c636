// `npx tsx testbed/peers/build-nvidia.ts`: builds the upstream NVIDIA maintenance operator pinned in
// testbed/peers/nvidia/go.mod into ~/.cache/kmaint-testbed/peers/ (skipped while the pin is unchanged), for
// bench/peers. Nothing of its source enters this repository: it comes from the Go module proxy, or, when the
// proxy refuses the module, from a git copy of the upstream repository named by KMAINT_NVIDIA_OPERATOR_GIT.
import { errorMessage } from '../../shared/errors/index.ts';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PeerBuildError, pinnedVersion, pinStamp, runStep, unpackGitTag } from './go-build.ts';

export const NVIDIA_MODULE = 'github.com/Mellanox/maintenance-operator';
const WRAPPER_DIR = join(dirname(fileURLToPath(import.meta.url)), 'nvidia');
/** Names a git copy (bare or not) of github.com/Mellanox/maintenance-operator holding the pinned tag. */
export const NVIDIA_GIT_VARIABLE = 'KMAINT_NVIDIA_OPERATOR_GIT';

export { PeerBuildError };

export interface NvidiaOperator {
  version: string;
  binary: string;
  /** config/crd/bases of the same version (NodeMaintenance, MaintenanceOperatorConfig). */
  crdDir: string;
  /** config/rbac/role.yaml: the ClusterRole the operator ships with. */
  roleFile: string;
  /** Where the source came from: the module proxy or a git copy. */
  source: string;
}

/** What to do when the source is not at hand: one sentence, for errors and NOT RUN notices. */
export function nvidiaGitHint(version: string = pinnedNvidiaVersion()): string {
  return `set ${NVIDIA_GIT_VARIABLE} to the git directory of a clone of https://${NVIDIA_MODULE} that has the tag ${version} (for example \`git clone --bare https://${NVIDIA_MODULE} /tmp/mo.git\` and ${NVIDIA_GIT_VARIABLE}=/tmp/mo.git), then run \`npx tsx testbed/peers/build-nvidia.ts\``;
}

export function pinnedNvidiaVersion(): string {
  return pinnedVersion(WRAPPER_DIR, NVIDIA_MODULE);
}

export function nvidiaCacheDir(version: string = pinnedNvidiaVersion()): string {
  return join(homedir(), '.cache', 'kmaint-testbed', 'peers', 'nvidia-maintenance-operator', version);
}

function stamp(version: string): string {
  return pinStamp(WRAPPER_DIR, NVIDIA_MODULE, version, 'wrapper');
}

/** Whether the cache holds the binary and CRDs of exactly the pinned version (no build, no network). */
export function nvidiaOperatorIsBuilt(): NvidiaOperator | undefined {
  const version = pinnedNvidiaVersion();
  const dir = nvidiaCacheDir(version);
  const stampFile = join(dir, '.stamp');
  if (!existsSync(stampFile) || !readFileSync(stampFile, 'utf8').startsWith(stamp(version))) return undefined;
  const op = layout(dir, version, readFileSync(stampFile, 'utf8').split('\n')[1] ?? '');
  return existsSync(op.binary) && existsSync(op.crdDir) && existsSync(op.roleFile) ? op : undefined;
}

function layout(dir: string, version: string, source: string): NvidiaOperator {
  return { version, binary: join(dir, 'maintenance-manager'), crdDir: join(dir, 'crds'), roleFile: join(dir, 'rbac', 'role.yaml'), source };
}

/** Source from the module proxy: the module's directory in the module cache, or why the proxy refused. */
async function fromModuleProxy(version: string, log: (line: string) => void): Promise<{ dir: string } | { refused: string }> {
  try {
    const out = await runStep('go mod download', 'go', ['mod', 'download', '-json', `${NVIDIA_MODULE}@${version}`], WRAPPER_DIR, log);
    return { dir: (JSON.parse(out) as { Dir: string }).Dir };
  } catch (err) {
    return { refused: errorMessage(err) };
  }
}

/** Builds the binary unless the cache holds this exact pin; returns where binary, CRDs and role are. */
export async function ensureNvidiaOperator(opts: { force?: boolean; log?: (line: string) => void } = {}): Promise<NvidiaOperator> {
  const log = opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const version = pinnedNvidiaVersion();
  const dir = nvidiaCacheDir(version);
  const stampFile = join(dir, '.stamp');
  const built = opts.force ? undefined : nvidiaOperatorIsBuilt();
  if (built) {
    log(`NVIDIA maintenance operator ${version} is current in ${dir}`);
    return built;
  }
  if (spawnSync('go', ['version']).status !== 0) throw new PeerBuildError('the Go toolchain (go >= 1.25) is not on PATH');
  log(`building the NVIDIA maintenance operator ${version} into ${dir}`);
  mkdirSync(dir, { recursive: true });
  const proxied = await fromModuleProxy(version, log);
  let srcDir: string;
  let source: string;
  if ('dir' in proxied) {
    srcDir = proxied.dir;
    source = `module proxy (${srcDir})`;
    // The wrapper module pins the api module itself (the root module's replace is ignored in a dependency).
    await runStep('go build', 'go', ['build', '-mod=mod', '-trimpath', '-ldflags', '-s -w', '-o', join(dir, 'maintenance-manager'), `${NVIDIA_MODULE}/cmd/maintenance-manager`], WRAPPER_DIR, log);
  } else {
    const git = process.env[NVIDIA_GIT_VARIABLE] ?? '';
    if (git === '') throw new PeerBuildError(`${NVIDIA_MODULE}@${version}: the module proxy refused it (${proxied.refused}) and ${NVIDIA_GIT_VARIABLE} is not set: ${nvidiaGitHint(version)}`);
    if (!existsSync(git)) throw new PeerBuildError(`${NVIDIA_MODULE}@${version}: the module proxy refused it and ${NVIDIA_GIT_VARIABLE} (${git}) does not exist: ${nvidiaGitHint(version)}`);
    log(`  the module proxy refused ${NVIDIA_MODULE}@${version} (${proxied.refused}); using the git copy in ${git}`);
    srcDir = join(dir, 'src');
    rmSync(srcDir, { recursive: true, force: true });
    mkdirSync(srcDir, { recursive: true });
    await unpackGitTag(git, version, srcDir, log);
    source = `git tag ${version} of ${git}`;
    // Built from its own go.mod and go.sum: dependencies still come from the module proxy.
    await runStep('go build', 'go', ['build', '-trimpath', '-ldflags', '-s -w', '-o', join(dir, 'maintenance-manager'), './cmd/maintenance-manager'], srcDir, log);
  }
  const op = layout(dir, version, source);
  rmSync(op.crdDir, { recursive: true, force: true });
  cpSync(join(srcDir, 'config', 'crd', 'bases'), op.crdDir, { recursive: true });
  mkdirSync(dirname(op.roleFile), { recursive: true });
  cpSync(join(srcDir, 'config', 'rbac', 'role.yaml'), op.roleFile);
  writeFileSync(stampFile, `${stamp(version)}${source}\n`);
  log(`NVIDIA maintenance operator ${version} built: ${op.binary}`);
  return op;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  ensureNvidiaOperator({ force: process.argv.includes('--force') }).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`build-nvidia: ${errorMessage(err)}\n`);
      process.exit(1);
    },
  );
}
