// `npx tsx bench/scale-memory.ts --kubeconfig FILE [--fn scheduler] [--rounds 3] [--flags 'default=;semi2=--max-semi-space-size=2;old@/tmp/wt=']`:
// a pass bundled as bench:scale bundles it (from this checkout, or the worktree after @), run in a child per V8 flag set, rounds interleaved (A B A B: the machine is
// shared), each with its memory by phase (bench/scale-memory-child.ts). Against a testbed bench/scale-grow.ts left.
// Prints one line per pass and a markdown table; asserts nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { NODE_ESM_BUNDLE } from '../esbuild-options.ts';
import type { MemoryPass, Phase } from './scale-memory-child.ts';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const MiB = 2 ** 20;
const mib = (b: number | undefined): string => (b === undefined ? '–' : `${(b / MiB).toFixed(0)}`);
const PHASES: Phase[] = ['read nodes', 'read the rest', 'build state and plan', 'apply'];

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    fn: { type: 'string', default: 'scheduler' },
    rounds: { type: 'string', default: '3' },
    flags: { type: 'string', default: 'default=' },
    parts: { type: 'boolean', default: false },
  },
});
if (!values.kubeconfig) throw new Error('usage: bench/scale-memory.ts --kubeconfig FILE [--fn scheduler] [--rounds N] [--flags "name[@worktree]=--flag --flag;name2=..."] [--parts]');
const sets = (values.flags ?? '').split(';').map((part) => {
  const at = part.indexOf('=');
  const [name = '', source = REPO] = part.slice(0, at).split('@');
  return { name, source: resolve(source), argv: part.slice(at + 1).split(' ').filter(Boolean) };
});

const dir = mkdtempSync(join(tmpdir(), 'kmaint-mem-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const entries = new Map<string, string>();
for (const source of new Set(sets.map((x) => x.source))) {
  const entry = join(dir, `scale-memory-child-${entries.size}.mjs`);
  await build({ entryPoints: [join(source, 'bench/scale-memory-child.ts')], outfile: entry, ...NODE_ESM_BUNDLE });
  entries.set(source, entry);
}

function runChild(source: string, argv: string[], parts: boolean): Promise<MemoryPass> {
  const entry = entries.get(source) as string;
  return new Promise((res, rej) => {
    const args = [...argv, ...(parts ? ['--expose-gc'] : []), entry, '--kubeconfig', values.kubeconfig as string, '--fn', values.fn as string, ...(parts ? ['--parts'] : [])];
    const child = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', rej);
    child.on('close', (code) => {
      const last = text.trim().split('\n').pop() ?? '';
      if (code !== 0 || !last.startsWith('{')) return rej(new Error(`pass exited ${code}: ${(err || text).trim().slice(-800)}`));
      res(JSON.parse(last) as MemoryPass);
    });
  });
}

const rows: Array<{ name: string; m: MemoryPass }> = [];
for (let round = 0; round < Number(values.rounds); round++) {
  for (const set of sets) {
    const m = await runChild(set.source, set.argv, false);
    rows.push({ name: set.name, m });
    const phases = PHASES.map((p) => `${p} ${mib(m.phases[p]?.heapUsed)}/${mib(m.phases[p]?.rss)}`).join(', ');
    process.stderr.write(`${set.name} round ${round + 1}: peak RSS ${mib(m.peakRssBytes)} MiB, wall ${(m.wallMs / 1000).toFixed(1)} s, CPU ${(m.cpuMs / 1000).toFixed(1)} s; heap used/RSS MiB by phase: ${phases}; heap at peak ${mib(m.atPeak.used_heap_size)} used of ${mib(m.atPeak.total_heap_size)}, limit ${mib(m.atPeak.heap_size_limit)}, new space ${mib(m.atPeak.spaces['new_space']?.size)}\n`);
  }
}
for (const source of values.parts ? entries.keys() : []) {
  const m = await runChild(source, [], true);
  process.stdout.write(`${source}: the lean snapshot of ${m.nodes} nodes retains ${m.retained ?? 0} B of heap (${Math.round((m.retained ?? 0) / Math.max(1, m.nodes))} B/node)\n`);
}
process.stdout.write(`| flags | peak RSS MiB (each round) | CPU s (each round) | ${PHASES.map((p) => `${p}: heap used / RSS / external MiB`).join(' | ')} | heap at peak: used / total / limit MiB |\n`);
process.stdout.write(`|---|---:|---:|${PHASES.map(() => '---:|').join('')}---:|\n`);
for (const set of sets) {
  const mine = rows.filter((r) => r.name === set.name).map((r) => r.m);
  const best = mine.reduce((a, b) => (a.peakRssBytes <= b.peakRssBytes ? a : b));
  const cells = PHASES.map((p) => {
    const x = best.phases[p];
    return x ? `${mib(x.heapUsed)} / ${mib(x.rss)} / ${mib(x.external)}` : '–';
  });
  process.stdout.write(`| ${set.name} \`${set.argv.join(' ')}\` | ${mine.map((m) => mib(m.peakRssBytes)).join(', ')} | ${mine.map((m) => (m.cpuMs / 1000).toFixed(1)).join(', ')} | ${cells.join(' | ')} | ${mib(best.atPeak.used_heap_size)} / ${mib(best.atPeak.total_heap_size)} / ${mib(best.atPeak.heap_size_limit)} |\n`);
}
