// `npm run testbed:build`: builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kubectl
// from their official Go modules at the versions pinned in testbed/go.mod, into the cache (skipped when current),
// then the Prometheus Pushgateway pinned in testbed/pushgateway/go.mod and helm (testbed/helm.ts) for the chart tests, and
// kube-state-metrics (testbed/peers/kube-state-metrics/go.mod) for test/kube-state-metrics.test.ts.
import { errorMessage } from '../shared/errors/index.ts';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { COMPONENTS, TESTBED_DIR, binDir, pinnedVersions, type PinnedVersions } from './versions.ts';
import { ensurePushgateway } from './pushgateway/pushgateway.ts';
import { ensureHelm } from './helm.ts';
import { ensureKsm } from './peers/build-kube-state-metrics.ts';

export class TestbedBuildError extends Error {
  override readonly name = 'TestbedBuildError';
}

/** Identifies a build: the pinned versions and the exact module files (go.sum included). */
function buildStamp(versions: PinnedVersions): string {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', 'etcd/go.mod', 'etcd/go.sum']) hash.update(readFileSync(join(TESTBED_DIR, file)));
  return `kubernetes=${versions.kubernetes} etcd=${versions.etcd} modules=${hash.digest('hex').slice(0, 16)}\n`;
}

export function binariesAreCurrent(dir: string = binDir(), versions: PinnedVersions = pinnedVersions()): boolean {
  const stampFile = join(dir, '.stamp');
  if (!existsSync(stampFile)) return false;
  if (readFileSync(stampFile, 'utf8') !== buildStamp(versions)) return false;
  return COMPONENTS.every((c) => existsSync(join(dir, c)));
}

function goVersion(): string {
  const result = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    throw new TestbedBuildError('the Go toolchain (go >= 1.25) is not on PATH: install it (https://go.dev/dl or apt-get install golang-go) and retry');
  }
  return result.stdout.trim();
}

function versionLdflags(k8s: string): string {
  const [major, minor] = k8s.replace(/^v/, '').split('.');
  const vars: Record<string, string> = { gitVersion: k8s, gitMajor: major ?? '', gitMinor: minor ?? '', gitTreeState: 'clean' };
  const parts = ['-s', '-w'];
  for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
    for (const [k, v] of Object.entries(vars)) parts.push(`-X ${pkg}.${k}=${v}`);
  }
  return parts.join(' ');
}

function run(step: string, args: string[], cwd: string, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn('go', args, { cwd, env: { ...process.env, CGO_ENABLED: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.on('data', (d: Buffer) => log(d.toString().trimEnd()));
    const ticker = setInterval(() => log(`  ${step}: still building (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
    child.on('error', (err) => {
      clearInterval(ticker);
      reject(new TestbedBuildError(`building ${step}: could not run go: ${err.message}`, { cause: err }));
    });
    child.on('exit', (code) => {
      clearInterval(ticker);
      if (code === 0) {
        log(`  ${step}: done in ${Math.round((Date.now() - started) / 1000)} s`);
        resolve();
      } else {
        const tail = stderr.trim().split('\n').slice(-5).join(' | ');
        reject(new TestbedBuildError(`building ${step} failed (go exit ${code}): ${tail}`));
      }
    });
  });
}

export interface BuildOptions {
  dir?: string;
  force?: boolean;
  log?: (line: string) => void;
}

/** Builds the binaries unless the cache already holds this exact pin. Returns the binary directory. */
export async function ensureBinaries(opts: BuildOptions = {}): Promise<string> {
  const versions = pinnedVersions();
  const dir = opts.dir ?? binDir(versions);
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (!opts.force && binariesAreCurrent(dir, versions)) {
    log(`testbed binaries for Kubernetes ${versions.kubernetes} / etcd ${versions.etcd} are current in ${dir}`);
    return dir;
  }
  log(`building testbed: Kubernetes ${versions.kubernetes}, etcd ${versions.etcd} with ${goVersion()} into ${dir}`);
  const staging = `${dir}.partial`;
  mkdirSync(staging, { recursive: true });
  const started = Date.now();
  await run('etcd', ['build', '-trimpath', '-ldflags', '-s -w', '-o', join(staging, 'etcd'), 'go.etcd.io/etcd/server/v3'], join(TESTBED_DIR, 'etcd'), log);
  await run(
    'kube-apiserver, kube-controller-manager, kube-scheduler, kubectl',
    ['build', '-trimpath', '-ldflags', versionLdflags(versions.kubernetes), '-o', `${staging}/`,
      'k8s.io/kubernetes/cmd/kube-apiserver', 'k8s.io/kubernetes/cmd/kube-controller-manager',
      'k8s.io/kubernetes/cmd/kube-scheduler', 'k8s.io/kubernetes/cmd/kubectl'],
    TESTBED_DIR,
    log,
  );
  mkdirSync(dir, { recursive: true });
  for (const c of COMPONENTS) renameSync(join(staging, c), join(dir, c));
  writeFileSync(join(dir, '.stamp'), buildStamp(versions));
  log(`testbed built in ${Math.round((Date.now() - started) / 1000)} s: ${dir}`);
  return dir;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // The Pushgateway the metrics tests push to (test/metrics.test.ts) and helm (charts/, test/helm.test.ts), each cached
  // by its own pin.
  const force = process.argv.includes('--force');
  ensureBinaries({ force })
    .then(() => ensurePushgateway({ force }))
    .then(() => ensureHelm({ force }))
    // kube-state-metrics for test/kube-state-metrics.test.ts (testbed/peers/build-kube-state-metrics.ts): the module proxy
    // refuses some of its versions, so a failed build is a loud warning and that test says NOT RUN, not a failed build.
    .then(() => ensureKsm({ force }).then(
      () => undefined,
      (err: unknown) => void process.stderr.write(`testbed:build: WARNING: kube-state-metrics not built, test/kube-state-metrics.test.ts will be NOT RUN: ${errorMessage(err)}\n`),
    ))
    .then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`testbed:build: ${errorMessage(err)}\n`);
      process.exit(1);
    },
  );
}
