// The shape of shared/ as a test: no import cycle among its files (nor anywhere in the repository), each area entered
// only through its index.ts
// (or its package.json "imports" alias) from the other areas, cli/ and functions/, and every error thrown in shared/
// and functions/ a KmaintError with no silent catch.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = join(ROOT, 'shared');

/** The package.json "imports" aliases (#api -> shared/api/index.ts), as absolute paths. */
function aliases(): ReadonlyMap<string, string> {
  const pkg: unknown = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const imports = typeof pkg === 'object' && pkg !== null && 'imports' in pkg ? pkg.imports : undefined;
  const out = new Map<string, string>();
  if (typeof imports !== 'object' || imports === null) return out;
  for (const [alias, target] of Object.entries(imports)) if (typeof target === 'string') out.set(alias, resolve(ROOT, target));
  return out;
}

/** Every .ts file under `dir`, as absolute paths, sorted (a stable order for stable cycle reports). */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.split(sep).includes('node_modules'))
    .map((f) => join(dir, f))
    .sort();
}

// Statements begin at the start of a line in this code base, so a comment mentioning "from '...'" is not one.
const STATIC_FROM = /^(?:import|export)\s[^;]*?\sfrom\s*['"]([^'"]+)['"]/gms;
const SIDE_EFFECT = /^import\s*['"]([^'"]+)['"]/gm;
// Type positions (`import('../api/types.ts').NodeMaintenance`) and lazy imports name a module just the same.
const IMPORT_CALL = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The module specifiers a file names, in order of appearance per kind. */
export function specifiersOf(source: string): string[] {
  return [...source.matchAll(STATIC_FROM), ...source.matchAll(SIDE_EFFECT), ...source.matchAll(IMPORT_CALL)].map((m) => m[1] ?? '');
}

/** The absolute file a specifier names, or undefined for a package (node:fs, vitest, @kubernetes/client-node). */
function resolveSpecifier(from: string, spec: string, alias: ReadonlyMap<string, string>): string | undefined {
  if (spec.startsWith('#')) return alias.get(spec);
  if (spec.startsWith('.')) return resolve(dirname(from), spec);
  return undefined;
}

/** file -> the files it imports (absolute paths). */
function importGraph(files: readonly string[], alias: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = specifiersOf(readFileSync(file, 'utf8'))
      .map((s) => resolveSpecifier(file, s, alias))
      .filter((t): t is string => t !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every cycle a depth-first search meets (one per back edge), each as the files in import order, first repeated last. */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      const seen = state.get(next);
      if (seen === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (seen === undefined) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return cycles;
}

/** The area of a file under shared/ (`shared/api/x.ts` -> 'api'), or undefined outside an area. */
function areaOf(file: string): string | undefined {
  const parts = relative(SHARED, file).split(sep);
  return parts.length >= 2 && parts[0] !== '..' ? parts[0] : undefined;
}

/** Test fixtures (aMaintenance, aPod, ...) are shared between the areas' tests on purpose; they are not an area's surface. */
const isTestBuilder = (file: string): boolean => file.endsWith(`${sep}test-builders.ts`);

/** The folders at the top of the repository that hold our code (not node_modules, build output or dot folders). */
function repositoryFolders(): string[] {
  const skip = new Set(['node_modules', 'dist', 'coverage']);
  return readdirSync(ROOT, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.') && !skip.has(d.name))
    .map((d) => join(ROOT, d.name))
    .sort();
}

/** The .ts files directly in the repository's root (esbuild.config.ts, vitest.config.ts, ...). */
function rootFiles(): string[] {
  return readdirSync(ROOT, { withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith('.ts'))
    .map((d) => join(ROOT, d.name))
    .sort();
}

const ALIASES = aliases();
const rel = (file: string): string => relative(ROOT, file).split(sep).join('/');

describe('shared/ architecture', () => {
  it('the import parser reads static imports, re-exports, type imports and import() types', () => {
    const source = [
      "import { a } from '#api';",
      "import type {\n  B,\n  C,\n} from '../kube/index.ts';",
      "export { d } from './d.ts';",
      "export type * from './types.ts';",
      "import 'node:fs';",
      "let x: import('../api/types.ts').NodeMaintenance;",
      "// a comment: nothing from './not-an-import.ts' here",
    ].join('\n');
    expect(specifiersOf(source)).toEqual(['#api', '../kube/index.ts', './d.ts', './types.ts', 'node:fs', '../api/types.ts']);
  });

  it('the cycle finder reports each cycle in import order', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
    ]);
    expect(findCycles(graph)).toEqual([['a', 'b', 'c', 'a']]);
    expect(findCycles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });

  it('has no import cycle among the files of shared/ (type-only imports included)', () => {
    const cycles = findCycles(importGraph(tsFiles(SHARED), ALIASES)).map((c) => c.map(rel).join(' -> '));
    expect(cycles).toEqual([]);
  });

  it('has no import cycle anywhere in the repository (every top-level folder and the root files, tests included)', () => {
    const files = [...repositoryFolders().flatMap(tsFiles), ...rootFiles()];
    const cycles = findCycles(importGraph(files, ALIASES)).map((c) => c.map(rel).join(' -> '));
    expect(cycles).toEqual([]);
  });

  it('enters each shared/<area> only through its index.ts (or #alias) from other areas, cli/ and functions/', () => {
    const files = [SHARED, join(ROOT, 'cli'), join(ROOT, 'functions')].flatMap(tsFiles);
    const violations: string[] = [];
    for (const [file, targets] of importGraph(files, ALIASES)) {
      const from = areaOf(file);
      for (const target of targets) {
        const to = areaOf(target);
        if (to === undefined || to === from || isTestBuilder(target)) continue;
        if (target !== join(SHARED, to, 'index.ts')) violations.push(`${rel(file)} imports ${rel(target)}: use shared/${to}/index.ts`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('gives every area an index.ts and every alias an existing index.ts', () => {
    const areas = readdirSync(SHARED, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    const indexed = new Set(tsFiles(SHARED).filter((f) => f.endsWith(`${sep}index.ts`)).map(areaOf));
    expect(areas.filter((a) => !indexed.has(a))).toEqual([]);
    const files = new Set(tsFiles(SHARED));
    expect([...ALIASES].filter(([, target]) => !files.has(target)).map(([alias]) => alias)).toEqual([]);
  });

  it('throws only KmaintError subclasses in shared/ and functions/, and swallows no error silently', () => {
    const sources = [SHARED, join(ROOT, 'functions')]
      .flatMap(tsFiles)
      .filter((f) => !f.endsWith('.test.ts') && !isTestBuilder(f))
      .map((f) => ({ file: rel(f), text: readFileSync(f, 'utf8') }));
    // Every error class declared here, by name -> the class it extends.
    const parents = new Map<string, string>();
    for (const { text } of sources) for (const m of text.matchAll(/\bclass (\w+) extends (\w+)/g)) parents.set(m[1] ?? '', m[2] ?? '');
    const isKmaintError = (name: string): boolean => {
      for (let at: string | undefined = name, hops = 0; at !== undefined && hops < 10; at = parents.get(at), hops++) if (at === 'KmaintError') return true;
      return false;
    };
    // client-node's own exception, thrown inside its response processing (lean-nodes.ts) so that the client's retry
    // and failure reading treat it as client-node's; the client wraps every failure in a KubeRequestError.
    const FOREIGN = new Set(['ApiException']);
    const problems: string[] = [];
    for (const { file, text } of sources) {
      for (const m of text.matchAll(/\bthrow new (\w+)\(/g)) {
        const name = m[1] ?? '';
        if (!FOREIGN.has(name) && !isKmaintError(name)) problems.push(`${file}: throws ${name}, not a KmaintError subclass`);
      }
      for (const m of text.matchAll(/\.catch\(\(\) => (undefined|null|\{\s*\})\)/g)) problems.push(`${file}: ${m[0]} swallows an error silently`);
      for (const m of text.matchAll(/\bclass (\w+Error) extends (\w+)/g)) if (!isKmaintError(m[1] ?? '')) problems.push(`${file}: ${m[1] ?? ''} extends ${m[2] ?? ''}, not KmaintError`);
    }
    expect(problems).toEqual([]);
  });
});
