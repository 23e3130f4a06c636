// sigstore's cosign, the signer and verifier of the release's image index, built from its Go module at a pinned version
// through the Go module proxy (`go install`, its own go.sum) into ~/.cache/kmaint-image/cosign-<version>/, and skipped
// when there. Signing is with a key pair and no transparency log: `cosign sign --key … --tlog-upload=false`, checked by
// `cosign verify --key … --insecure-ignore-tlog=true`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ImageToolError, imageCacheDir } from './tool.ts';

export const COSIGN_MODULE = 'github.com/sigstore/cosign/v2/cmd/cosign';
export const COSIGN_VERSION = 'v2.6.5';

export function cosignBinary(): string {
  return join(imageCacheDir(), `cosign-${COSIGN_VERSION}`, 'cosign');
}

/** Builds cosign unless there. Returns the binary. */
export async function ensureCosign(log: (line: string) => void): Promise<string> {
  const binary = cosignBinary();
  if (existsSync(binary)) {
    log(`cosign ${COSIGN_VERSION} is current: ${binary}`);
    return binary;
  }
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error || go.status !== 0) throw new ImageToolError('the Go toolchain (go >= 1.25) is not on PATH: install it and retry');
  const staging = `${dirname(binary)}.partial`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const started = Date.now();
  log(`building cosign ${COSIGN_VERSION} from ${COSIGN_MODULE} with ${go.stdout.trim()} (~5 min the first time)`);
  await new Promise<void>((resolve, reject) => {
    const child = spawn('go', ['install', '-trimpath', '-ldflags', '-s -w', `${COSIGN_MODULE}@${COSIGN_VERSION}`], {
      env: { ...process.env, CGO_ENABLED: '0', GOBIN: staging, GOFLAGS: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', (err) => reject(new ImageToolError(`building cosign: could not run go: ${err.message}`, { cause: err })));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new ImageToolError(`building cosign failed (go exit ${code}): ${stderr.trim().split('\n').slice(-5).join(' | ')}`))));
  });
  rmSync(dirname(binary), { recursive: true, force: true });
  renameSync(staging, dirname(binary));
  log(`cosign built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return binary;
}

export interface CosignResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs cosign with the key's password from `password` (COSIGN_PASSWORD, never on the command line or in a log) and
 * with no sigstore service reached: no transparency log, no TUF root fetch.
 */
export function runCosign(binary: string, args: string[], opts: { password?: string; home?: string; cwd?: string } = {}): CosignResult {
  const env: NodeJS.ProcessEnv = { ...process.env, COSIGN_PASSWORD: opts.password ?? '', COSIGN_YES: 'true', COSIGN_EXPERIMENTAL: '0' };
  if (opts.home !== undefined) env['HOME'] = opts.home;
  const r = spawnSync(binary, args, { env, ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}), encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, timeout: 300_000 });
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}
