// Formatting of benchmark figures, and running one measured pass in a child process.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PassMeasurement } from './child-pass.ts';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));

export function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

export function ms(v: number): string {
  return v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`;
}

export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

/** "a 1, b 2" in key order. */
export function counts(rec: Record<string, number>): string {
  const keys = Object.keys(rec).sort();
  return keys.length === 0 ? '(none)' : keys.map((k) => `${k} ${rec[k]}`).join(', ');
}

/** Nearest-rank percentile of `values` (0 < p <= 100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** How the pass process loads kmaint: through tsx, as bin/kmaint.mjs does, or bundled by esbuild into plain JS. */
export type PassRuntime = 'tsx' | 'bundle';

let bundled: string | undefined;

/** bench/child-pass.ts and everything it imports as one ES module (esbuild ships with tsx). */
function bundledChild(): string {
  if (bundled) return bundled;
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-bench-bundle-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const out = join(dir, 'child-pass.mjs');
  execFileSync(resolve(REPO, 'node_modules/.bin/esbuild'), [
    resolve(REPO, 'bench/child-pass.ts'),
    '--bundle',
    '--platform=node',
    '--format=esm',
    '--target=node20',
    `--outfile=${out}`,
    // client-node's CommonJS dependencies call require().
    "--banner:js=import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    '--log-level=error',
  ]);
  bundled = out;
  return out;
}

/** Runs one pass of `fn` in a fresh Node process and returns what it measured. */
export function passInChild(kubeconfig: string, fn: 'scheduler' | 'drainer' | 'cleanup', runtime: PassRuntime = 'tsx'): Promise<PassMeasurement> {
  const entry = runtime === 'tsx' ? ['--import', 'tsx', resolve(REPO, 'bench/child-pass.ts')] : [bundledChild()];
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [...entry, '--kubeconfig', kubeconfig, '--fn', fn], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', rej);
    child.on('close', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !last.startsWith('{')) return rej(new Error(`${fn} pass (child process) exited ${code}: ${err.trim() || out.trim()}`));
      res(JSON.parse(last) as PassMeasurement);
    });
  });
}

/** What else loads the machine right now: the 1-minute load average and other kube-apiservers (by state dir). */
export function machineLoad(ownDirs: readonly string[]): string {
  let others: string[] = [];
  try {
    others = execFileSync('pgrep', ['-af', 'kube-apiserver'], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((l) => l.split(' ')[1]?.endsWith('/kube-apiserver') && !ownDirs.some((d) => l.includes(d)))
      .map((l) => /--audit-log-path=(\S+)\/audit\.log/.exec(l)?.[1] ?? l.split(' ')[0] ?? '');
  } catch {
    // pgrep exits 1 when nothing matches
  }
  return `load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} CPUs; other testbeds running: ${others.length === 0 ? 'none' : others.join(', ')}`;
}

/** Writes actually applied (all kinds) in a pass. */
export function appliedWrites(m: PassMeasurement): number {
  return Object.values(m.summary.actions).reduce((a, b) => a + b, 0);
}
