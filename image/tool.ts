// The image tool (image/tools: go-containerregistry's library behind its commands: build, serve, push, pull, push-index,
// attach), built from its own go.mod through the Go module proxy into ~/.cache/kmaint-image/tool-<hash>/ and skipped when current.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TOOLS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'tools');
const SOURCES = ['go.mod', 'go.sum', 'main.go', 'release.go'] as const;

export class ImageToolError extends Error {
  override readonly name = 'ImageToolError';
}

/** The cache root of everything image/ builds: the tool, the Debian root filesystems. */
export function imageCacheDir(): string {
  const fromEnv = process.env['KMAINT_IMAGE_CACHE'];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(homedir(), '.cache', 'kmaint-image');
}

/** The binary for the current sources: its directory is named after their hash, so a change builds a new one. */
export function imageToolBinary(): string {
  const hash = createHash('sha256');
  for (const f of SOURCES) hash.update(`${f}\0`).update(readFileSync(join(TOOLS_DIR, f)));
  return join(imageCacheDir(), `tool-${hash.digest('hex').slice(0, 16)}`, 'kmaint-image');
}

export function imageToolIsCurrent(): boolean {
  return existsSync(imageToolBinary());
}

/** Builds the tool unless current. Returns the binary. */
export async function ensureImageTool(log: (line: string) => void): Promise<string> {
  const binary = imageToolBinary();
  if (existsSync(binary)) {
    log(`image tool is current: ${binary}`);
    return binary;
  }
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error || go.status !== 0) throw new ImageToolError('the Go toolchain (go >= 1.25) is not on PATH: install it and retry');
  const staging = `${binary}.partial`;
  mkdirSync(dirname(binary), { recursive: true });
  rmSync(staging, { force: true });
  const started = Date.now();
  log(`building the image tool with ${go.stdout.trim()} into ${dirname(binary)}`);
  await new Promise<void>((resolve, reject) => {
    const child = spawn('go', ['build', '-trimpath', '-ldflags', '-s -w', '-o', staging, '.'], { cwd: TOOLS_DIR, env: { ...process.env, CGO_ENABLED: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', (err) => reject(new ImageToolError(`building the image tool: could not run go: ${err.message}`, { cause: err })));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new ImageToolError(`building the image tool failed (go exit ${code}): ${stderr.trim().split('\n').slice(-5).join(' | ')}`))));
  });
  renameSync(staging, binary);
  log(`image tool built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return binary;
}
