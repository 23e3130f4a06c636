// `npx tsx testbed/peers/build-kube-state-metrics.ts`: builds the kube-state-metrics pinned in
// testbed/peers/kube-state-metrics/go.mod into ~/.cache/kmaint-testbed/peers/kube-state-metrics/<version>/ (skipped
// while the pin is unchanged), for test/kube-state-metrics.test.ts. Nothing of its source enters this repository: it
// comes from the Go module proxy (which serves v2.20.0 here, though it refuses the module's version list and some other
// versions with a 403), or, when the proxy refuses the pinned version, from a git copy of the upstream repository
// named by KMAINT_KSM_GIT; its dependencies come from the proxy. Measured: 13 min cold (module downloads), 16 s warm.
import { errorMessage } from '../../shared/errors/index.ts';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const KSM_MODULE = 'k8s.io/kube-state-metrics/v2';
const PIN_DIR = join(dirname(fileURLToPath(import.meta.url)), 'kube-state-metrics');
/** Names a git copy (bare or not) of github.com/kubernetes/kube-state-metrics holding the pinned tag. */
export const KSM_GIT_VARIABLE = 'KMAINT_KSM_GIT';

export class KsmBuildError extends Error {
  override readonly name = 'KsmBuildError';
}

export function pinnedKsmVersion(): string {
  const text = readFileSync(join(PIN_DIR, 'go.mod'), 'utf8');
  const version = new RegExp(`^\\s*(?:require\\s+)?${KSM_MODULE.replace(/[.]/g, '\\.')}\\s+(v\\S+)`, 'm').exec(text)?.[1];
  if (!version) throw new KsmBuildError(`no "require ${KSM_MODULE}" line in ${join(PIN_DIR, 'go.mod')}`);
  return version;
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
  const hash = createHash('sha256').update(readFileSync(join(PIN_DIR, 'go.mod'))).digest('hex').slice(0, 16);
  return `${KSM_MODULE}@${version} pin=${hash}\n`;
}

/** The binary of exactly the pinned version, if the cache holds it (no build, no network). */
export function ksmIsBuilt(): string | undefined {
  const version = pinnedKsmVersion();
  const binary = ksmBinary(version);
  const stampFile = join(dirname(binary), '.stamp');
  return existsSync(binary) && existsSync(stampFile) && readFileSync(stampFile, 'utf8').startsWith(stamp(version)) ? binary : undefined;
}

function run(step: string, cmd: string, args: string[], cwd: string, log: (line: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(cmd, args, { cwd, env: { ...process.env, CGO_ENABLED: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const ticker = setInterval(() => log(`  ${step}: still running (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
    child.on('error', (err) => {
      clearInterval(ticker);
      reject(new KsmBuildError(`${step}: could not run ${cmd}: ${err.message}`, { cause: err }));
    });
    child.on('exit', (code) => {
      clearInterval(ticker);
      if (code === 0) {
        log(`  ${step}: done in ${Math.round((Date.now() - started) / 1000)} s`);
        resolve(stdout);
      } else {
        const why = (stderr.trim() || stdout.trim()).split('\n').slice(-4).map((l) => l.trim()).join(' ');
        reject(new KsmBuildError(`${step} failed (exit ${code}): ${why}`));
      }
    });
  });
}

/** The module's source directory: from the module proxy, else the pinned tag of the git copy unpacked into `dir`/src. */
async function source(version: string, dir: string, log: (line: string) => void): Promise<{ srcDir: string; from: string }> {
  try {
    const out = await run('go mod download', 'go', ['mod', 'download', '-json', `${KSM_MODULE}@${version}`], PIN_DIR, log);
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
    await run('git archive', 'sh', ['-c', `git --git-dir="${git}" archive "${version}" | tar -x -C "${srcDir}"`], dir, log);
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
  await run('go build', 'go', ['build', '-trimpath', '-ldflags', ldflags, '-o', `${binary}.partial`, '.'], srcDir, log);
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
