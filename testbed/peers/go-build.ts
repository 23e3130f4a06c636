// What the peer builds (build-nvidia.ts, build-kube-state-metrics.ts) share: a pinned module version read from a
// wrapper go.mod, the cache stamp that ties a build to that pin, and one build step run with progress lines.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A peer could not be built: the step and its last output lines, or what is missing. */
export class PeerBuildError extends Error {
  override readonly name: string = 'PeerBuildError';
}

/** The version `module` is required at in `pinDir`/go.mod (a `require` line or a line of a require block). */
export function pinnedVersion(pinDir: string, module: string): string {
  const text = readFileSync(join(pinDir, 'go.mod'), 'utf8');
  const version = new RegExp(`^\\s*(?:require\\s+)?${module.replace(/[.]/g, '\\.')}\\s+(v\\S+)`, 'm').exec(text)?.[1];
  if (!version) throw new PeerBuildError(`no "require ${module}" line in ${join(pinDir, 'go.mod')}`);
  return version;
}

/** The first line of a cache's `.stamp`: the module, its version and a hash of the pin file, so a changed pin rebuilds. */
export function pinStamp(pinDir: string, module: string, version: string, label: string): string {
  const hash = createHash('sha256').update(readFileSync(join(pinDir, 'go.mod'))).digest('hex').slice(0, 16);
  return `${module}@${version} ${label}=${hash}\n`;
}

/**
 * Runs one build step (`go mod download`, `go build`, `git archive`) with CGO off; a line every 30 s while it runs,
 * its time when done; resolves with its standard output, rejects with the step and its last four output lines.
 */
export function runStep(step: string, cmd: string, args: string[], cwd: string, log: (line: string) => void): Promise<string> {
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
      reject(new PeerBuildError(`${step}: could not run ${cmd}: ${err.message}`, { cause: err }));
    });
    child.on('exit', (code) => {
      clearInterval(ticker);
      if (code === 0) {
        log(`  ${step}: done in ${Math.round((Date.now() - started) / 1000)} s`);
        resolve(stdout);
      } else {
        const why = (stderr.trim() || stdout.trim()).split('\n').slice(-4).map((l) => l.trim()).join(' ');
        reject(new PeerBuildError(`${step} failed (exit ${code}): ${why}`));
      }
    });
  });
}

/** Unpacks tag `version` of the git directory `git` into `srcDir` (which must exist and be empty). */
export async function unpackGitTag(git: string, version: string, srcDir: string, log: (line: string) => void): Promise<void> {
  await runStep('git archive', 'sh', ['-c', `git --git-dir="${git}" archive "${version}" | tar -x -C "${srcDir}"`], dirname(srcDir), log);
}
