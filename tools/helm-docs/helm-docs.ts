// helm-docs (github.com/norwoodj/helm-docs), pinned in tools/helm-docs/go.mod, writes each chart's README.md
// (charts/kmaint, charts/kmaint-crd) from its README.md.gotmpl and the `# --` comments in its values.yaml. Built from its Go module into
// ~/.cache/kmaint-testbed/helm-docs/<version>/ (skipped when current), as the testbed's other binaries are cached.
//   npx tsx tools/helm-docs/helm-docs.ts build   builds it (.ci/run)
//   npx tsx tools/helm-docs/helm-docs.ts write   rewrites the charts' README.md (npm run chart:docs)
//   npx tsx tools/helm-docs/helm-docs.ts check   exits 1 when one is not what helm-docs writes
import { errorMessage } from '../../shared/errors/index.ts';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const MODULE_DIR = dirname(fileURLToPath(import.meta.url));
const MODULE = 'github.com/norwoodj/helm-docs';
const REPO_ROOT = resolve(MODULE_DIR, '..', '..');
/** The charts helm-docs documents, by directory name under charts/. */
export const CHARTS = ['kmaint', 'kmaint-crd'] as const;
export type ChartName = (typeof CHARTS)[number];
export const chartReadme = (chart: ChartName): string => join(REPO_ROOT, 'charts', chart, 'README.md');

export class HelmDocsError extends Error {
  override readonly name = 'HelmDocsError';
}

/** The pinned version, from the `require` line of tools/helm-docs/go.mod. */
export function helmDocsVersion(): string {
  const text = readFileSync(join(MODULE_DIR, 'go.mod'), 'utf8');
  const version = new RegExp(`^\\s*(?:require\\s+)?${MODULE.replace(/[.]/g, '\\.')}\\s+(v\\S+)`, 'm').exec(text)?.[1];
  if (!version) throw new HelmDocsError(`no "require ${MODULE}" line in ${join(MODULE_DIR, 'go.mod')}`);
  return version;
}

/** `~/.cache/kmaint-testbed/helm-docs/<version>/helm-docs` */
export function helmDocsBinary(version: string = helmDocsVersion()): string {
  return join(homedir(), '.cache', 'kmaint-testbed', 'helm-docs', version, 'helm-docs');
}

/** Identifies a build: the version and the exact module files. */
function stamp(version: string): string {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum']) hash.update(readFileSync(join(MODULE_DIR, file)));
  return `helm-docs=${version} modules=${hash.digest('hex').slice(0, 16)}\n`;
}

export function helmDocsIsCurrent(version: string = helmDocsVersion()): boolean {
  const binary = helmDocsBinary(version);
  const stampFile = join(dirname(binary), '.stamp');
  return existsSync(binary) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp(version);
}

/** Builds helm-docs unless the cache holds this exact pin. Returns the binary. */
export async function ensureHelmDocs(opts: { force?: boolean; log?: (line: string) => void } = {}): Promise<string> {
  const version = helmDocsVersion();
  const binary = helmDocsBinary(version);
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (!opts.force && helmDocsIsCurrent(version)) {
    log(`helm-docs ${version} is current in ${dirname(binary)}`);
    return binary;
  }
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error || go.status !== 0) throw new HelmDocsError('the Go toolchain (go >= 1.25) is not on PATH: install it and retry');
  log(`building helm-docs ${version} with ${go.stdout.trim()} into ${dirname(binary)}`);
  const staging = `${binary}.partial`;
  mkdirSync(dirname(binary), { recursive: true });
  const started = Date.now();
  await new Promise<void>((done, reject) => {
    const args = ['build', '-trimpath', '-ldflags', '-s -w', '-o', staging, `${MODULE}/cmd/helm-docs`];
    const child = spawn('go', args, { cwd: MODULE_DIR, env: { ...process.env, CGO_ENABLED: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', (err) => reject(new HelmDocsError(`building helm-docs: could not run go: ${err.message}`, { cause: err })));
    child.on('exit', (code) => {
      if (code === 0) done();
      else reject(new HelmDocsError(`building helm-docs failed (go exit ${code}): ${stderr.trim().split('\n').slice(-5).join(' | ')}`));
    });
  });
  renameSync(staging, binary);
  writeFileSync(join(dirname(binary), '.stamp'), stamp(version));
  log(`  helm-docs: done in ${Math.round((Date.now() - started) / 1000)} s: ${binary}`);
  return binary;
}

/**
 * What helm-docs writes for a chart, without writing it (--dry-run prints it). helm-docs only warns about a chart
 * it cannot read and exits 0: an empty output is that failure. (Its strict mode is not used: it wants a comment on
 * every parent key and every list item too; charts/chart-readme.test.ts checks that every row has a description.)
 */
export function renderChartReadme(chart: ChartName): Promise<string> {
  const dir = join(REPO_ROOT, 'charts', chart);
  const args = [
    '--chart-search-root', dir,
    '--sort-values-order', 'file',
    '--skip-version-footer', '--log-level', 'warning', '--dry-run',
  ];
  return new Promise((done, reject) => {
    execFile(helmDocsBinary(), args, { cwd: REPO_ROOT, maxBuffer: 4 * 1024 * 1024, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new HelmDocsError(`helm-docs on ${dir} failed: ${stderr.trim() || err.message}`, { cause: err }));
      else if (stdout.trim() === '') reject(new HelmDocsError(`helm-docs on ${dir} wrote nothing: ${stderr.trim()}`));
      else done(stdout);
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const command = process.argv[2] ?? '';
  const main = async (): Promise<number> => {
    if (command === 'build') {
      await ensureHelmDocs({ force: process.argv.includes('--force') });
      return 0;
    }
    if (command !== 'write' && command !== 'check') throw new HelmDocsError(`usage: tools/helm-docs/helm-docs.ts build|write|check (got "${command}")`);
    await ensureHelmDocs();
    let stale = 0;
    for (const chart of CHARTS) {
      const want = await renderChartReadme(chart);
      const file = chartReadme(chart);
      if (command === 'write') writeFileSync(file, want);
      else if (!existsSync(file) || readFileSync(file, 'utf8') !== want) {
        process.stderr.write(`${file} is not what helm-docs writes from values.yaml: run npm run chart:docs and commit it\n`);
        stale += 1;
      }
    }
    return stale === 0 ? 0 : 1;
  };
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`helm-docs: ${errorMessage(err)}\n`);
      process.exit(1);
    },
  );
}
