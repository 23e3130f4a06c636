// `npm run bench:unit-speed -- [--only cel,filters,clock,gc,demo]`: the speed targets the unit tests used to assert
// (issue 18: no test depends on the load of the machine), timed here instead. Each operation runs several times and
// is checked for the same answer its test expects; the table gives min/median/max against the target, and the
// process exits 1 when a median misses its target.
import { execFile } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compileEvictionFilters, passesEvictionFilters } from '../shared/drain/eviction-filters.ts';
import { compilePredicate } from '../shared/reaper/cel.ts';
import { nodeFacts } from '../shared/reaper/node-view.ts';
import { aReaperNode, NOW } from '../shared/reaper/test-builders.ts';
import { startSimApiServer, type ResourceRef } from '../sim/apiserver/index.ts';
import { at, CRD_DIR } from '../sim/apiserver/test-support.ts';
import { acceleratedClock, realClock } from '../sim/clock.ts';
import { GarbageCollector } from '../sim/controllers/garbage-collector.ts';
import { percentile, print } from './figures.ts';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const GROUPS = ['cel', 'filters', 'clock', 'gc', 'demo'] as const;
type Group = (typeof GROUPS)[number];

interface Measured {
  /** What was timed, and the test that used to assert its target. */
  name: string;
  from: string;
  targetMs: number;
  runsMs: number[];
}

const { values } = parseArgs({ options: { only: { type: 'string', default: GROUPS.join(',') } } });
const only = new Set(values.only.split(',').map((s) => s.trim()));
for (const g of only) {
  if (!(GROUPS as readonly string[]).includes(g)) {
    process.stderr.write(`bench:unit-speed: --only takes ${GROUPS.join(', ')}; got "${g}"\n`);
    process.exit(2);
  }
}

/** Runs `op` `runs` times; each run returns its own elapsed milliseconds (so setup stays outside). */
async function timed(runs: number, op: (run: number) => number | Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) out.push(await op(i));
  return out;
}

function check(what: string, got: unknown, want: unknown): void {
  if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

async function celPathological(): Promise<Measured[]> {
  const facts = nodeFacts(aReaperNode({ name: 'x' }), NOW, 'topology.kubernetes.io/zone');
  const name = `${'a'.repeat(50_000)}b`;
  const runsMs = await timed(5, () => {
    const c = compilePredicate("name.re2Matches('(a+)+$')");
    if (!c.ok) throw new Error(c.error);
    const started = performance.now();
    const result = c.predicate.evaluate({ ...facts, name });
    const ms = performance.now() - started;
    check('CEL (a+)+$', result, { ok: true, value: false });
    return ms;
  });
  return [{ name: "CEL name.re2Matches('(a+)+$'), 50,000 a's and a b", from: 'shared/reaper/cel.test.ts', targetMs: 1000, runsMs }];
}

async function evictionFilters(): Promise<Measured[]> {
  const out: Measured[] = [];
  for (const [label, resource, expected] of [
    ['no match', `example.com/${'a'.repeat(50_000)}!`, false],
    ['match', `example.com/${'a'.repeat(50_000)}`, true],
  ] as const) {
    const pod = { metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'c', resources: { requests: { [resource]: '1' } } }] } };
    const runsMs = await timed(5, () => {
      const filters = compileEvictionFilters([{ byResourceNameRegex: '(a+)+$' }]);
      const started = performance.now();
      const result = passesEvictionFilters(pod, filters);
      const ms = performance.now() - started;
      check(`eviction filter (${label})`, [filters.problems, result], [[], expected]);
      return ms;
    });
    out.push({ name: `eviction filter (a+)+$, 50,000-character resource name, ${label}`, from: 'shared/drain/eviction-filters.test.ts', targetMs: 250, runsMs });
  }
  return out;
}

async function clocks(): Promise<Measured[]> {
  const T0 = new Date('2026-01-01T00:00:00Z');
  const sleeps = await timed(5, async () => {
    const clock = acceleratedClock(1000, T0);
    const started = performance.now();
    await clock.sleep(20_000);
    const ms = performance.now() - started;
    if (clock.nowMs() - T0.getTime() < 20_000) throw new Error('accelerated clock: sleep(20_000) woke early');
    return ms;
  });
  const reads = await timed(5, () => {
    const clock = realClock();
    return Math.abs(clock.nowMs() - Date.now());
  });
  return [
    { name: 'accelerated clock (speed 1000): sleep(20,000 simulated ms), wall time', from: 'sim/clock.test.ts', targetMs: 1000, runsMs: sleeps },
    { name: 'realClock().nowMs() minus Date.now(), absolute', from: 'sim/clock.test.ts', targetMs: 50, runsMs: reads },
  ];
}

async function garbageCollector(): Promise<Measured[]> {
  const PODS: ResourceRef = { apiVersion: 'v1', resource: 'pods' };
  const CMS: ResourceRef = { apiVersion: 'v1', resource: 'configmaps' };
  const server = await startSimApiServer({ crds: [CRD_DIR], namespaces: ['default', 'other'] });
  const gc = new GarbageCollector(server.context);
  gc.start();
  try {
    const local = server.local;
    const owners = Array.from({ length: 200 }, (_, i) => {
      const cm = local.create(CMS, 'other', { metadata: { name: `rs-${i}`, namespace: 'other' } });
      return { apiVersion: 'v1', kind: 'ConfigMap', name: `rs-${i}`, uid: String(at(cm, 'metadata.uid')), controller: true };
    });
    for (let i = 0; i < 20_000; i++) {
      local.create(PODS, 'other', { metadata: { name: `p-${i}`, namespace: 'other', ownerReferences: [owners[i % 200] ?? {}] }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    }
    await gc.idle();
    const runsMs = await timed(5, async (run) => {
      const before = gc.stats().deleted;
      const started = performance.now();
      local.delete(CMS, 'other', `rs-${run}`);
      await gc.idle();
      const ms = performance.now() - started;
      check(`garbage collector (owner rs-${run})`, [gc.stats().deleted - before, local.list(PODS, { namespace: 'other' }).length], [100, 20_000 - 100 * (run + 1)]);
      return ms;
    });
    check('garbage collector errors', gc.stats().errors, []);
    return [{ name: 'garbage collector: delete 1 of 200 owners of 20,000 pods, until idle', from: 'sim/controllers/garbage-collector.test.ts', targetMs: 1000, runsMs }];
  } finally {
    gc.stop();
    await server.stop();
  }
}

function demoOnce(): Promise<number> {
  const started = performance.now();
  return new Promise((res, rej) => {
    execFile(process.execPath, ['--import', 'tsx', 'cli/main.ts', 'demo', '--speed', '120'], { cwd: REPO, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const ms = performance.now() - started;
      const last = stdout.trimEnd().split('\n').at(-1) ?? '';
      if (err || !last.startsWith('invariants held:')) return rej(new Error(`kmaint demo --speed 120: ${err?.message ?? `last line "${last}"`} ${stderr.trim()}`));
      res(ms);
    });
  });
}

async function demo(): Promise<Measured[]> {
  const runsMs = await timed(3, () => demoOnce());
  return [{ name: 'kmaint demo --speed 120 (child process), wall time', from: 'cli/demo.test.ts', targetMs: 60_000, runsMs }];
}

const BENCHES: Record<Group, () => Promise<Measured[]>> = { cel: celPathological, filters: evictionFilters, clock: clocks, gc: garbageCollector, demo };

function fmt(v: number): string {
  if (v >= 10_000) return `${(v / 1000).toFixed(1)} s`;
  return v >= 100 ? `${Math.round(v)} ms` : `${v.toFixed(v >= 10 ? 1 : 2)} ms`;
}

const load = (): string => loadavg().map((l) => l.toFixed(1)).join(', ');

print(`command: npm run bench:unit-speed -- ${process.argv.slice(2).join(' ')}`.trimEnd());
print(`started ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), load average ${load()}`);
print();
print('| operation (test it was asserted in) | runs | min | median | max | target | met? |');
print('|---|---|---|---|---|---|---|');
let missed = 0;
for (const group of GROUPS) {
  if (!only.has(group)) continue;
  for (const m of await BENCHES[group]()) {
    const median = percentile(m.runsMs, 50);
    const over = m.runsMs.filter((v) => v >= m.targetMs).length;
    const met = median < m.targetMs;
    if (!met) missed++;
    const verdict = met ? (over === 0 ? 'yes' : `yes (median; ${over} of ${m.runsMs.length} runs over)`) : '**no**';
    print(`| ${m.name} (${m.from}) | ${m.runsMs.length} | ${fmt(Math.min(...m.runsMs))} | ${fmt(median)} | ${fmt(Math.max(...m.runsMs))} | < ${m.targetMs >= 10_000 ? `${m.targetMs / 1000} s` : `${m.targetMs} ms`} | ${verdict} |`);
  }
}
print();
print(`finished ${new Date().toISOString()}, load average ${load()}; ${missed === 0 ? 'every target met' : `${missed} target(s) missed`}`);
if (missed > 0) process.exitCode = 1;
