// `npm pack` as a release makes it, and the tarball installed as a user installs it (offline, into its own prefix):
// the package has no runtime dependencies, its `kmaint` and `kubectl-kmaint` (bin/kmaint.mjs) run the esbuild bundle with plain node
// (the only modules it loads are bin/kmaint.mjs and dist/kmaint.mjs: no tsx, no node_modules), `kubectl kmaint` finds it on PATH, and the
// krew manifest template names files the tarball holds. Packed from a copy of the sources, so that its prepack build
// never touches the dist/ another test builds. Needs no cluster.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { binaryPath } from '../testbed/versions.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 240_000, maxBuffer: 16 * 1024 * 1024, ...opts }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
/** What the CLI bundle is built from (esbuild.config.ts cli), and what npm pack reads. */
const SOURCES = ['package.json', 'package-lock.json', 'tsconfig.json', 'esbuild.config.ts', 'esbuild-options.ts', 'README.md', 'bin', 'cli', 'shared', 'sim', 'crds'];
const KUBECTL = binaryPath('kubectl');

/**
 * Preloaded with --import: records every module URL the process resolves (module.register's resolve hook runs in the
 * loader thread; the file outlives the process).
 */
const TRACE_HOOKS = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.KMAINT_TRACE_FILE, result.url + '\\n');
  return result;
}
`;
const TRACE_REGISTER = `import { register } from 'node:module';
register(new URL('./trace-hooks.mjs', import.meta.url));
`;

describe('npm pack: the kmaint package', () => {
  let dir = '';
  let tarball = '';
  let prefix = '';
  let packed: Run;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kmaint-npm-pack-'));
    const src = join(dir, 'src');
    for (const entry of SOURCES) cpSync(entry, join(src, entry), { recursive: true });
    symlinkSync(realpathSync('node_modules'), join(src, 'node_modules'));
    packed = await run('npm', ['pack', '--pack-destination', dir], { cwd: src });
    tarball = join(dir, `kmaint-${VERSION}.tgz`);
    prefix = join(dir, 'prefix');
  }, 300_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('holds the executable bundle, the CRDs, the README and a package.json without runtime dependencies', async () => {
    expect([packed.code, packed.stdout.trimEnd().split('\n').at(-1)]).toEqual([0, `kmaint-${VERSION}.tgz`]);
    const listing = await run('tar', ['tvzf', tarball]);
    expect(listing.stdout.trimEnd().split('\n').map((l) => [l.split(/\s+/)[0], l.split(/\s+/).at(-1)])).toEqual([
      ['-rw-r--r--', 'package/package.json'],
      ['-rw-r--r--', 'package/README.md'],
      ['-rwxr-xr-x', 'package/bin/kmaint.mjs'],
      ['-rwxr-xr-x', 'package/dist/kmaint.mjs'],
      ['-rw-r--r--', 'package/crds/maintenanceoperatorconfigs.maintenance.nvidia.com.yaml'],
      ['-rw-r--r--', 'package/crds/nodemaintenances.maintenance.nvidia.com.yaml'],
    ]);
    const manifest = JSON.parse((await run('tar', ['xzOf', tarball, 'package/package.json'])).stdout) as Record<string, unknown>;
    expect([manifest['bin'], manifest['dependencies'], manifest['engines']]).toEqual([{ kmaint: 'bin/kmaint.mjs', 'kubectl-kmaint': 'bin/kmaint.mjs' }, undefined, { node: '>=20.19' }]);
  });

  it('installs offline; kmaint --version loads only bin/kmaint.mjs (which finds no cli/ and so no tsx) and the bundle, and kubectl kmaint finds it on PATH', async () => {
    const installed = await run('npm', ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball]);
    expect(installed.code).toBe(0);
    // One package: nothing to fetch, so it installs offline.
    expect(installed.stdout.trim()).toMatch(/^added 1 package in \S+$/);
    const pkgDir = join(prefix, 'lib', 'node_modules', 'kmaint');
    expect(existsSync(join(pkgDir, 'node_modules'))).toBe(false);

    writeFileSync(join(dir, 'trace-hooks.mjs'), TRACE_HOOKS);
    writeFileSync(join(dir, 'trace.mjs'), TRACE_REGISTER);
    const traceFile = join(dir, 'resolved.txt');
    const env = { ...process.env, NODE_OPTIONS: `--import=${pathToFileURL(join(dir, 'trace.mjs')).href}`, KMAINT_TRACE_FILE: traceFile };
    const version = await run(join(prefix, 'bin', 'kmaint'), ['--version'], { env });
    expect(version).toEqual({ code: 0, stdout: `kmaint ${VERSION}\n`, stderr: '' });
    const resolved = readFileSync(traceFile, 'utf8').trimEnd().split('\n');
    // Besides Node's own modules (node:*) and the trace's hooks: the bin and the bundle, by their installed paths, and nothing else.
    expect(resolved.filter((url) => !url.startsWith('node:') && !url.includes('/trace-hooks.mjs'))).toEqual(['bin', 'dist'].map((d) => pathToFileURL(realpathSync(join(pkgDir, d, 'kmaint.mjs'))).href));

    if (!existsSync(KUBECTL)) {
      process.stderr.write(`[test/npm-pack] NOT RUN: kubectl kmaint (no kubectl at ${KUBECTL}; npm run testbed:build)\n`);
      return;
    }
    const path = `${join(prefix, 'bin')}:${process.env['PATH'] ?? ''}`;
    const [plugin, help] = await Promise.all([run(KUBECTL, ['kmaint', '--version'], { env: { ...process.env, PATH: path } }), run(KUBECTL, ['kmaint', 'status', '--help'], { env: { ...process.env, PATH: path } })]);
    expect(plugin).toEqual({ code: 0, stdout: `kmaint ${VERSION}\n`, stderr: '' });
    expect([help.code, help.stdout.split('\n')[0]]).toEqual([0, 'Usage: kubectl kmaint status [options]']);
  });

  it('plugins/krew/kmaint.yaml, its placeholders filled for this tarball, installs files the tarball holds', async () => {
    const sha = createHash('sha256').update(readFileSync(tarball)).digest('hex');
    const text = readFileSync('plugins/krew/kmaint.yaml', 'utf8').replaceAll('{{VERSION}}', VERSION).replaceAll('{{URI}}', pathToFileURL(tarball).href).replaceAll('{{SHA256}}', sha);
    expect(text).not.toContain('{{');
    const plugin = parseYaml(text) as { apiVersion: string; kind: string; metadata: { name: string }; spec: { version: string; platforms: Array<{ uri: string; sha256: string; bin: string; files: Array<{ from: string; to: string }> }> } };
    const [platform] = plugin.spec.platforms;
    expect([plugin.apiVersion, plugin.kind, plugin.metadata.name, plugin.spec.version, plugin.spec.platforms.length, platform?.sha256]).toEqual(['krew.googlecontainertools.github.com/v1alpha2', 'Plugin', 'kmaint', `v${VERSION}`, 1, sha]);
    const entries = (await run('tar', ['tzf', tarball])).stdout.trimEnd().split('\n');
    const glob = (pattern: string): RegExp => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
    // Each `from` matches something; `bin` is where its `from` lands (`to` plus the file name).
    expect(platform?.files.map((f) => [f.from, entries.filter((e) => glob(f.from).test(e)).length > 0])).toEqual(platform?.files.map((f) => [f.from, true]));
    const binFrom = platform?.files.find((f) => `${f.to}/${f.from.split('/').at(-1) ?? ''}` === platform.bin);
    expect(binFrom?.from).toBe('package/dist/kmaint.mjs');
  });
});
