// A real Helm for the chart tests (charts/chart.test.ts, test/helm.test.ts): `go install helm.sh/helm/v3/cmd/helm` at
// the version pinned here into ~/.cache/kmaint-testbed/helm-<version>/ (skipped when current), as the testbed's other
// binaries are cached. Debian packages no helm.
import { errorMessage } from '../shared/errors/index.ts';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export const HELM_VERSION = 'v3.22.0';
const HELM_MODULE = 'helm.sh/helm/v3';

export class HelmBuildError extends Error {
  override readonly name = 'HelmBuildError';
}

/** `~/.cache/kmaint-testbed/helm-<version>/helm` */
export function helmBinary(version: string = HELM_VERSION): string {
  return join(homedir(), '.cache', 'kmaint-testbed', `helm-${version}`, 'helm');
}

/**
 * Release builds stamp their version and default Kubernetes version by ldflags; `go install` alone leaves `v3.22` and
 * Kubernetes v1.20 (the tests still pass --kube-version).
 */
function ldflags(version: string): string {
  const vars = [
    `${HELM_MODULE}/internal/version.version=${version}`,
    `${HELM_MODULE}/pkg/chartutil.k8sVersionMajor=1`,
    `${HELM_MODULE}/pkg/chartutil.k8sVersionMinor=35`,
    `${HELM_MODULE}/pkg/lint/rules.k8sVersionMajor=1`,
    `${HELM_MODULE}/pkg/lint/rules.k8sVersionMinor=35`,
  ];
  return ['-s', '-w', ...vars.map((v) => `-X ${v}`)].join(' ');
}

function stamp(version: string): string {
  return `helm=${version} ldflags=${ldflags(version)}\n`;
}

export function helmIsCurrent(version: string = HELM_VERSION): boolean {
  const binary = helmBinary(version);
  const stampFile = join(dirname(binary), '.stamp');
  return existsSync(binary) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp(version);
}

/** Builds helm unless the cache holds this version; logs progress every 30 s. Returns the binary. */
export async function ensureHelm(opts: { force?: boolean; log?: (line: string) => void } = {}): Promise<string> {
  const version = HELM_VERSION;
  const binary = helmBinary(version);
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (!opts.force && helmIsCurrent(version)) {
    log(`helm ${version} is current in ${dirname(binary)}`);
    return binary;
  }
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error || go.status !== 0) throw new HelmBuildError('the Go toolchain (go >= 1.25) is not on PATH: install it and retry');
  log(`building helm ${version} with ${go.stdout.trim()} into ${dirname(binary)}`);
  // go install names the binary after the package: build into a staging directory, then move it in.
  const staging = `${dirname(binary)}.partial`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const args = ['install', '-trimpath', '-ldflags', ldflags(version), `${HELM_MODULE}/cmd/helm@${version}`];
    const child = spawn('go', args, { env: { ...process.env, CGO_ENABLED: '0', GOBIN: staging }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const ticker = setInterval(() => log(`  helm: still building (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
    child.on('error', (err) => {
      clearInterval(ticker);
      reject(new HelmBuildError(`building helm: could not run go: ${err.message}`, { cause: err }));
    });
    child.on('exit', (code) => {
      clearInterval(ticker);
      if (code === 0) resolve();
      else reject(new HelmBuildError(`building helm failed (go exit ${code}): ${stderr.trim().split('\n').slice(-5).join(' | ')}`));
    });
  });
  mkdirSync(dirname(binary), { recursive: true });
  renameSync(join(staging, 'helm'), binary);
  rmSync(staging, { recursive: true, force: true });
  writeFileSync(join(dirname(binary), '.stamp'), stamp(version));
  log(`  helm: done in ${Math.round((Date.now() - started) / 1000)} s: ${binary}`);
  return binary;
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the cached helm; never throws on a non-zero exit. `home` keeps helm's cache, config and data (repositories,
 * registry logins) out of the user's own directories.
 */
export function runHelm(args: string[], opts: { home?: string } = {}): Promise<HelmResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, HELM_NAMESPACE: '' };
  delete env['KUBECONFIG'];
  if (opts.home) Object.assign(env, { HELM_CACHE_HOME: join(opts.home, 'cache'), HELM_CONFIG_HOME: join(opts.home, 'config'), HELM_DATA_HOME: join(opts.home, 'data') });
  return new Promise((resolve) => {
    execFile(helmBinary(), args, { env, maxBuffer: 16 * 1024 * 1024, timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  ensureHelm({ force: process.argv.includes('--force') }).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`helm:build: ${errorMessage(err)}\n`);
      process.exit(1);
    },
  );
}
