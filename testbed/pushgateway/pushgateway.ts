// A real Prometheus Pushgateway for the metrics tests: built from its Go module at the version pinned in
// testbed/pushgateway/go.mod into ~/.cache/kmaint-testbed/pushgateway/<version>/ (skipped when current), started on
// a free loopback port and stopped by pid.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startComponent, stopPid, waitUntilReady } from '../processes.ts';

const MODULE_DIR = dirname(fileURLToPath(import.meta.url));
const MODULE = 'github.com/prometheus/pushgateway';

export class PushgatewayBuildError extends Error {
  override readonly name = 'PushgatewayBuildError';
}

/** The pinned version, from the `require` line of testbed/pushgateway/go.mod. */
export function pushgatewayVersion(): string {
  const text = readFileSync(join(MODULE_DIR, 'go.mod'), 'utf8');
  const version = new RegExp(`^\\s*(?:require\\s+)?${MODULE.replace(/[.]/g, '\\.')}\\s+(v\\S+)`, 'm').exec(text)?.[1];
  if (!version) throw new PushgatewayBuildError(`no "require ${MODULE}" line in ${join(MODULE_DIR, 'go.mod')}`);
  return version;
}

/** `~/.cache/kmaint-testbed/pushgateway/<version>/pushgateway` */
export function pushgatewayBinary(version: string = pushgatewayVersion()): string {
  return join(homedir(), '.cache', 'kmaint-testbed', 'pushgateway', version, 'pushgateway');
}

/** Identifies a build: the version and the exact module files. */
function stamp(version: string): string {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum']) hash.update(readFileSync(join(MODULE_DIR, file)));
  return `pushgateway=${version} modules=${hash.digest('hex').slice(0, 16)}\n`;
}

export function pushgatewayIsCurrent(version: string = pushgatewayVersion()): boolean {
  const binary = pushgatewayBinary(version);
  const stampFile = join(dirname(binary), '.stamp');
  return existsSync(binary) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp(version);
}

/** Builds the Pushgateway unless the cache holds this exact pin; logs progress every 30 s. Returns the binary. */
export async function ensurePushgateway(opts: { force?: boolean; log?: (line: string) => void } = {}): Promise<string> {
  const version = pushgatewayVersion();
  const binary = pushgatewayBinary(version);
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (!opts.force && pushgatewayIsCurrent(version)) {
    log(`Pushgateway ${version} is current in ${dirname(binary)}`);
    return binary;
  }
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error || go.status !== 0) throw new PushgatewayBuildError('the Go toolchain (go >= 1.25) is not on PATH: install it and retry');
  log(`building Pushgateway ${version} with ${go.stdout.trim()} into ${dirname(binary)}`);
  const staging = `${binary}.partial`;
  mkdirSync(dirname(binary), { recursive: true });
  const started = Date.now();
  const ldflags = `-s -w -X github.com/prometheus/common/version.Version=${version.replace(/^v/, '')}`;
  await new Promise<void>((resolve, reject) => {
    const child = spawn('go', ['build', '-trimpath', '-ldflags', ldflags, '-o', staging, MODULE], { cwd: MODULE_DIR, env: { ...process.env, CGO_ENABLED: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const ticker = setInterval(() => log(`  pushgateway: still building (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
    child.on('error', (err) => {
      clearInterval(ticker);
      reject(new PushgatewayBuildError(`building pushgateway: could not run go: ${err.message}`, { cause: err }));
    });
    child.on('exit', (code) => {
      clearInterval(ticker);
      if (code === 0) resolve();
      else reject(new PushgatewayBuildError(`building pushgateway failed (go exit ${code}): ${stderr.trim().split('\n').slice(-5).join(' | ')}`));
    });
  });
  renameSync(staging, binary);
  writeFileSync(join(dirname(binary), '.stamp'), stamp(version));
  log(`  pushgateway: done in ${Math.round((Date.now() - started) / 1000)} s: ${binary}`);
  return binary;
}

export interface RunningPushgateway {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  pid: number;
  logFile: string;
  stop(): Promise<void>;
}

/** Starts the built Pushgateway on a free loopback port (no persistence) and waits until /-/ready answers. */
export async function startPushgateway(opts: { dir?: string } = {}): Promise<RunningPushgateway> {
  const binary = pushgatewayBinary();
  if (!pushgatewayIsCurrent()) throw new PushgatewayBuildError(`Pushgateway ${pushgatewayVersion()} is not built: run npm run testbed:build`);
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'kmaint-pushgateway-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = startComponent('pushgateway', binary, [`--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], join(dir, 'pushgateway.log'));
  try {
    await waitUntilReady(proc, async () => (await fetch(`${url}/-/ready`)).ok, 15_000);
  } catch (err) {
    await stopPid(proc.pid);
    throw err;
  }
  return { url, pid: proc.pid, logFile: proc.logFile, stop: () => stopPid(proc.pid) };
}
