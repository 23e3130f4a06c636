// `npm run bench:peers -- [--scenarios a,b] [--systems kmaint,nvidia-operator,kubectl-drain] [--kmaint-config JSON] [--no-docs]`:
// kmaint, the upstream NVIDIA maintenance operator and a sequential `kubectl drain` script, each on a fresh
// testbed, per scenario in bench/peers/scenarios/ (issue 11). Prints a table, writes it into
// docs/benchmarks.md, and exits 1 if any system put more nodes under maintenance at once than its limit.
import { forEachBounded } from '../../shared/concurrency/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { GROUP, namespacedName, NODE_MAINTENANCE_PLURAL, VERSION } from '../../shared/api/index.ts';
import { ensureNvidiaOperator, type NvidiaOperator } from '../../testbed/peers/build-nvidia.ts';
import { ensureBinaries } from '../../testbed/build.ts';
import { stopTestbedDir } from '../../testbed/start.ts';
import { pinnedVersions } from '../../testbed/versions.ts';
import { planRequests } from '../cluster-setup.ts';
import { BENCH_NS, PDB_NAME, startBenchCluster } from './cluster.ts';
import { computeFigures, renderGoals, renderTable, type Figures } from './figures.ts';
import { Observer } from './observe.ts';
import type { Scenario } from './scenario.ts';
import { SCENARIOS } from './scenarios/index.ts';
import { SYSTEMS, installSystem, startCoordinator, type SystemName } from './systems.ts';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const DOCS = join(REPO, 'docs', 'benchmarks.md');
const SECTION = '## Peers: kmaint, the NVIDIA maintenance operator and `kubectl drain` (issue 11)';

const { values } = parseArgs({
  options: {
    scenarios: { type: 'string', default: SCENARIOS.map((s) => s.name).join(',') },
    systems: { type: 'string', default: SYSTEMS.join(',') },
    'no-docs': { type: 'boolean', default: false },
    /** Also append each run's figures to this JSON-lines file. */
    results: { type: 'string' },
    /** Run nothing: render the table (and docs) from these JSON-lines files, comma-separated. */
    render: { type: 'string' },
    /** More MaintenanceOperatorConfig spec for the kmaint rows, as JSON: '{"nodeConditions":false}' measures a setting's cost. */
    'kmaint-config': { type: 'string', default: '{}' },
  },
});

const kmaintConfig = JSON.parse(values['kmaint-config'] ?? '{}') as Record<string, unknown>;
const started = Date.now();
const log = (line: string): void => void process.stderr.write(`[peers ${((Date.now() - started) / 1000).toFixed(0)} s] ${line}\n`);
const print = (line = ''): void => void process.stdout.write(`${line}\n`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function pick<T extends { name: string } | string>(all: readonly T[], wanted: string, what: string): T[] {
  const names = wanted.split(',').filter((w) => w !== '');
  const nameOf = (t: T) => (typeof t === 'string' ? t : t.name);
  for (const n of names) {
    if (!all.some((t) => nameOf(t) === n)) {
      process.stderr.write(`bench:peers: unknown ${what} "${n}" (known: ${all.map(nameOf).join(', ')})\n`);
      process.exit(2);
    }
  }
  return all.filter((t) => names.includes(nameOf(t)));
}

const dirs: string[] = [];
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void Promise.all(dirs.map((d) => stopTestbedDir(d).catch(() => undefined))).finally(() => process.exit(130)));
}

async function runOne(scenario: Scenario, system: SystemName, nvidia: NvidiaOperator | undefined): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), `kmaint-peers-${scenario.name}-${system}-`));
  dirs.push(dir);
  log(`${scenario.name} / ${system}: starting a fresh testbed in ${dir}`);
  const c = await startBenchCluster(dir, scenario, log);
  const observer = new Observer(c.admin, system !== 'kubectl-drain');
  try {
    const login = await installSystem(system, c, scenario, nvidia, kmaintConfig);
    await observer.start();
    await c.cp.audit.sync();
    const mark = c.cp.audit.mark();
    const notes: string[] = [];
    // A controller (or loop) is already running when requests arrive; the kubectl script starts with them.
    const early = system === 'kubectl-drain' ? undefined : await startCoordinator(system, c, login, scenario, nvidia, log);
    await c.startJobs();
    const t0 = Date.now();
    if (system === 'kubectl-drain') for (const node of c.targets) observer.expect(node, t0);
    const coordinator = early ?? (await startCoordinator(system, c, login, scenario, nvidia, log));
    if (scenario.pdb) {
      const relax = scenario.pdb.blockSeconds * 1000;
      setTimeout(() => {
        c.kubectl(['patch', 'pdb', '-n', BENCH_NS, PDB_NAME, '--type=merge', '-p', '{"spec":{"minAvailable":0}}']).then(
          () => log(`PDB relaxed after ${scenario.pdb?.blockSeconds} s`),
          (err: unknown) => notes.push(`relaxing the PDB failed: ${String(err)}`),
        );
      }, relax);
    }
    let endMs = Number.NaN;
    if (system === 'kubectl-drain') {
      coordinator.onLine((line) => {
        const [phase, node, ms] = line.split(' ');
        if (phase === 'FAILED') notes.push(`kubectl drain failed on ${node}`);
        if (phase && node && ms) observer.phase(node, phase, Number(ms));
        const r = observer.requests.get(node ?? '');
        if (phase === 'Gone' && r) r.goneMs = Number(ms);
      });
      const timeout = sleep(scenario.timeoutSeconds * 1000).then(() => 'timeout' as const);
      if ((await Promise.race([coordinator.exited, timeout])) === 'timeout') notes.push(`TIMED OUT after ${scenario.timeoutSeconds} s`);
    } else {
      const plans = planRequests({ namespace: BENCH_NS, nodes: c.targets, requests: c.targets.length, requestors: scenario.requestors, spec: scenario.spec });
      const custom = c.admin.makeApiClient(CustomObjectsApi);
      await forEachBounded(plans, { limit: 16 }, async (p) => {
        observer.expect(namespacedName(p), Date.now());
        await custom.createNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace: p.namespace,
          plural: NODE_MAINTENANCE_PLURAL,
          body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', metadata: { name: p.name, namespace: p.namespace }, spec: p.spec },
        });
      });
      const deadline = t0 + scenario.timeoutSeconds * 1000;
      let lastReport = 0;
      while (!observer.allGone() && Date.now() < deadline) {
        await sleep(200);
        if (Date.now() - lastReport > 30_000) {
          lastReport = Date.now();
          const rs = [...observer.requests.values()];
          log(`${scenario.name} / ${system}: ${rs.filter((r) => r.phases.has('Ready')).length}/${rs.length} Ready, ${rs.filter((r) => r.goneMs).length} gone, ${observer.cordoned.size} cordoned`);
        }
      }
      if (!observer.allGone()) notes.push(`TIMED OUT after ${scenario.timeoutSeconds} s: ${[...observer.requests.values()].filter((r) => !r.goneMs).length} requests not gone`);
    }
    endMs = Math.max(...[...observer.requests.values()].map((r) => r.goneMs ?? Number.NaN));
    const cpuSeconds = await coordinator.stop();
    await c.cp.audit.sync(60_000);
    observer.stop();
    if (observer.cordoned.size > 0) notes.push(`still cordoned at the end: ${[...observer.cordoned].join(', ')}`);
    notes.push(...observer.errors());
    return computeFigures({
      scenario,
      system,
      entries: c.cp.audit.entries({ since: mark, user: coordinator.user }),
      times: observer.requests,
      startMs: t0,
      endMs,
      drainable: c.drainable,
      peakUnavailable: observer.peakCordoned,
      cpuSeconds,
      load: loadavg()[0] ?? Number.NaN,
      notes,
    });
  } finally {
    observer.stop();
    await c.stop();
  }
}

function otherApiServers(): number {
  try {
    return execFileSync('pgrep', ['-x', 'kube-apiserver'], { encoding: 'utf8' }).trim().split('\n').length;
  } catch {
    return 0; // pgrep exits 1 when nothing matches
  }
}

/** Replaces this benchmark's section of docs/benchmarks.md (or appends it), re-reading the file just before. */
function writeDocs(lines: readonly string[]): void {
  const current = existsSync(DOCS) ? readFileSync(DOCS, 'utf8') : '# Benchmarks\n';
  const start = current.indexOf(SECTION);
  const body = `${SECTION}\n\n${lines.join('\n')}\n`;
  if (start < 0) {
    writeFileSync(DOCS, `${current.trimEnd()}\n\n${body}`);
    return;
  }
  const next = current.indexOf('\n## ', start + SECTION.length);
  writeFileSync(DOCS, `${current.slice(0, start)}${body}${next < 0 ? '' : current.slice(next)}`);
}

const scenarios = values.render ? [] : pick(SCENARIOS, values.scenarios ?? '', 'scenario');
const systems = pick(SYSTEMS, values.systems ?? '', 'system');
await ensureBinaries({ log });
let nvidia: NvidiaOperator | undefined;
if (systems.includes('nvidia-operator')) nvidia = await ensureNvidiaOperator({ log });
const loadAtStart = loadavg();
const others = otherApiServers();
const rows: Figures[] = [];
const failures: string[] = [];
for (const file of (values.render ?? '').split(',').filter((f) => f !== '')) {
  for (const line of readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('{'))) {
    const saved = JSON.parse(line) as { figures?: Figures; failure?: string; load?: number[] };
    // Lines saved before the load column existed carry the load beside the figures.
    if (saved.figures) rows.push({ ...saved.figures, load: saved.figures.load ?? saved.load?.[0] ?? Number.NaN });
    if (saved.failure) failures.push(saved.failure);
  }
}
const save = (entry: { figures?: Figures; failure?: string }): void => {
  if (values.results) appendFileSync(values.results, `${JSON.stringify({ ...entry, load: loadavg(), at: new Date().toISOString() })}\n`);
};
for (const scenario of scenarios) {
  for (const system of systems) {
    try {
      const f = await runOne(scenario, system, nvidia);
      rows.push(f);
      save({ figures: f });
      print(renderTable([f]).slice(2, 3).join(''));
      if (f.peakUnavailable > f.limit) failures.push(`${scenario.name} / ${system}: ${f.peakUnavailable} nodes unavailable at once, limit ${f.limit}`);
    } catch (err) {
      failures.push(`${scenario.name} / ${system}: ${errorMessage(err)}`);
      save({ failure: failures.at(-1) ?? '' });
      log(`FAILED ${failures.at(-1)}`);
    }
  }
}
const v = pinnedVersions();
const commit = execFileSync('git', ['describe', '--always', '--dirty'], { cwd: REPO, encoding: 'utf8' }).trim();
const header = [
  `Command: \`npm run bench:peers -- ${process.argv.slice(2).join(' ')}\``.replace(' -- `', '`'),
  '',
  `Versions: kmaint ${JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version as string} at ${commit} (bundled CLI on plain node; kmaint: \`kmaint run all\` in a loop, 1 s apart when idle; ` +
    'kmaint-cron: `kmaint run all` started on each minute boundary, the CronJob cadence; kmaint-watch: the loop with `--wake watch` and the watch verb granted); ' +
    `NVIDIA maintenance operator ${nvidia ? `${nvidia.version} (built from ${nvidia.source})` : '(not run)'}; kubectl ${v.kubernetes}; ` +
    `testbed Kubernetes ${v.kubernetes}, etcd ${v.etcd}; node ${process.version}.`,
  '',
  `Machine: ${cpus().length} CPUs, load average ${loadAtStart.map((l) => l.toFixed(1)).join(' ')} at start and ${loadavg().map((l) => l.toFixed(1)).join(' ')} at end` +
    `${others > 0 ? `; ${others} other kube-apiserver(s) of other users running at start` : ''}. Figures are from one run each.`,
  '',
  'Each system runs on its own fresh testbed. Requests are created at once by the benchmark (the requestor), which deletes each',
  'request as soon as it is Ready; makespan runs from the first request to the last one gone (node uncordoned, finalizer removed).',
  'Overhead = makespan − what the workload alone forces with the limit fully used (pods\' own stop time per wave, the 10 s job,',
  'the 60 s PDB; one node after another for the kubectl script). API requests and writes are the audit log\'s entries of the',
  'coordinator\'s user from its start to its stop; writes exclude evictions. CPU is the coordinator process(es): the operator\'s',
  'process, the sum of every `kmaint run all` process, the sum of the kubectl processes.',
  '',
];
const table = renderTable(rows);
const goals = ['Goals (issue 11), kmaint against the operator:', '', ...renderGoals(rows)];
const failed = failures.length ? ['', 'FAILURES:', '', ...failures.map((f) => `- ${f}`)] : [];
print();
for (const l of [...header, ...table, '', ...goals, ...failed]) print(l);
if (!values['no-docs'] && rows.length > 0) writeDocs([...header, ...table, '', ...goals, ...failed]);
if (failures.length > 0) {
  process.stderr.write(`bench:peers: ${failures.length} failure(s):\n${failures.map((f) => `  ${f}`).join('\n')}\n`);
  process.exit(1);
}
process.exit(0);
