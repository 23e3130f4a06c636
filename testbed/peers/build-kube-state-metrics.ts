// `npx tsx testbed/peers/build-kube-state-metrics.ts`: builds the kube-state-metrics pinned in
// testbed/peers/kube-state-metrics/go.mod into ~/.cache/kmaint-testbed/peers/kube-state-metrics/<version>/ (skipped
// while the pin is unchanged), for test/kube-state-metrics.test.ts. Nothing of its source enters this repository: it
// comes from the Go module proxy (which serves v2.20.0 here, though it refuses the module's version list and some other
// versions with a 403), or, when the proxy refuses the pinned version, from a git copy of the upstream repository
// named by KMAINT_KSM_GIT; its dependencies come from the proxy. Measured: 13 min cold (module downloads), 16 s warm.
import { errorMessage } from '../../shared/errors/index.ts';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PeerBuildError, pinnedVersion, pinStamp, runStep, unpackGitTag } from './go-build.ts';

export const KSM_MODULE = 'k8s.io/kube-state-metrics/v2';
const PIN_DIR = join(dirname(fileURLToPath(import.meta.url)), 'kube-state-metrics');
/** Names a git copy (bare or not) of github.com/kubernetes/kube-state-metrics holding the pinned tag. */
export const KSM_GIT_VARIABLE = 'KMAINT_KSM_GIT';

export class KsmBuildError extends PeerBuildError {
  override readonly name: string = 'KsmBuildError';
}

export function pinnedKsmVersion(): string {
  return pinnedVersion(PIN_DIR, KSM_MODULE);
}

/** `~/.cache/kmaint-testbed/peers/kube-state-metrics/<version>/kube-state-metrics` */
export function ksmBinary(version: string = pinnedKsmVersion()): string {
  return join(homedir(), '.cache', 'kmaint-testbed', 'peers', 'kube-state-metrics', version, 'kube-state-metrics');
}

/** What to do when the binary is missing: one sentence, for errors and NOT RUN notices. */
export function ksmBuildHint(version: string = pinnedKsmVersion()): string {
  return `run \`npx tsx testbed/peers/build-kube-state-metrics.ts\`; where the Go module proxy refuses ${KSM_MODULE}@${version}, set ${KSM_GIT_VARIABLE} to the git directory of a clone of https://github.com/kubernetes/kube-state-metrics that has the tag ${version} (for example \`git clone --bare https://github.com/kubernetes/kube-state-metrics /tmp/ksm.git\` and ${KSM_GIT_VARIABLE}=/tmp/ksm.git) first`;
}

function stamp(version: string): string {
  return pinStamp(PIN_DIR, KSM_MODULE, version, 'pin');
}

/** The binary of exactly the pinned version, if the cache holds it (no build, no network). */
export function ksmIsBuilt(): string | undefined {
  const version = pinnedKsmVersion();
  const binary = ksmBinary(version);
  const stampFile = join(dirname(binary), '.stamp');
  return existsSync(binary) && existsSync(stampFile) && readFileSync(stampFile, 'utf8').startsWith(stamp(version)) ? binary : undefined;
}

/** The module's source directory: from the module proxy, else the pinned tag of the git copy unpacked into `dir`/src. */
async function source(version: string, dir: string, log: (line: string) => void): Promise<{ srcDir: string; from: string }> {
  try {
    const out = await runStep('go mod download', 'go', ['mod', 'download', '-json', `${KSM_MODULE}@${version}`], PIN_DIR, log);
    const srcDir = (JSON.parse(out) as { Dir: string }).Dir;
    return { srcDir, from: `module proxy (${srcDir})` };
  } catch (err) {
    const refused = errorMessage(err);
    const git = process.env[KSM_GIT_VARIABLE] ?? '';
    if (git === '' || !existsSync(git)) throw new KsmBuildError(`${KSM_MODULE}@${version}: the module proxy refused it (${refused}) and ${KSM_GIT_VARIABLE} ${git === '' ? 'is not set' : `(${git}) does not exist`}: ${ksmBuildHint(version)}`);
    log(`  the module proxy refused ${KSM_MODULE}@${version}; using the git copy in ${git}`);
    const srcDir = join(dir, 'src');
    rmSync(srcDir, { recursive: true, force: true });
    mkdirSync(srcDir, { recursive: true });
    await unpackGitTag(git, version, srcDir, log);
    return { srcDir, from: `git tag ${version} of ${git}` };
  }
}

/** Builds kube-state-metrics unless the cache holds this exact pin; returns the binary. */
export async function ensureKsm(opts: { force?: boolean; log?: (line: string) => void } = {}): Promise<string> {
  const log = opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const version = pinnedKsmVersion();
  const binary = ksmBinary(version);
  const built = opts.force ? undefined : ksmIsBuilt();
  if (built) {
    log(`kube-state-metrics ${version} is current in ${dirname(built)}`);
    return built;
  }
  if (spawnSync('go', ['version']).status !== 0) throw new KsmBuildError('the Go toolchain (go >= 1.26) is not on PATH');
  const dir = dirname(binary);
  mkdirSync(dir, { recursive: true });
  log(`building kube-state-metrics ${version} into ${dir}`);
  const { srcDir, from } = await source(version, dir, log);
  // Built from its own go.mod and go.sum, as upstream's Makefile does; the version as its release builds stamp it.
  const ldflags = `-s -w -X github.com/prometheus/common/version.Version=${version.replace(/^v/, '')}`;
  await runStep('go build', 'go', ['build', '-trimpath', '-ldflags', ldflags, '-o', `${binary}.partial`, '.'], srcDir, log);
  renameSync(`${binary}.partial`, binary);
  rmSync(join(dir, 'src'), { recursive: true, force: true });
  writeFileSync(join(dir, '.stamp'), `${stamp(version)}${from}\n`);
  log(`kube-state-metrics ${version} built: ${binary}`);
  return binary;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  ensureKsm({ force: process.argv.includes('--force') }).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`build-kube-state-metrics: ${errorMessage(err)}\n`);
      process.exit(1);
    },
  );
}
