// `npm run bench:scale -- [--sizes 10000,50000,100000] [--ratios ...]`: kmaint's passes on a real kube-apiserver
// holding 10,000 to 100,000 GPU-shaped nodes (bench/scale-nodes.ts), each pass bundled in a child process, with what
// the API server says the pass cost it; then the upstream operator on the same cluster. One control plane grows from
// size to size. Prints figures (stdout) and a markdown table; asserts nothing.
import { forEachBounded } from '../shared/concurrency/index.ts';
import { errorMessage } from '../shared/errors/index.ts';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { build } from 'esbuild';
import { NODE_ESM_BUNDLE } from '../esbuild-options.ts';
import { ANNOTATION_FULL_NODE_READ_NODES, ANNOTATION_FULL_NODE_READ_TIME, GROUP, NODE_MAINTENANCE_PLURAL, VERSION } from '../shared/api/index.ts';
import { startControlPlane, stopTestbedDir, type ControlPlane } from '../testbed/start.ts';
import { kubeConfigFrom } from '../testbed/testbed.ts';
import { installKmaint, planRequests, setConfig } from './cluster-setup.ts';
import { call, connect, costBetween, cpuSeconds, create, rssOf, scrape, total, untilQuiet, type Conn, type ServerCost } from './scale-api.ts';
import type { ScalePass } from './scale-child.ts';
import { gpuNode, nodeName } from './scale-nodes.ts';
import { minutesLine, targetsReport, upstreamAllocLine, type FullList, type PassMinutes, type Row } from './scale-report.ts';
import { measureUpstream, type UpstreamFigures } from './scale-upstream.ts';

export type { Row } from './scale-report.ts';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const NS = 'bench';
const started = Date.now();
const out = (line = ''): void => void process.stdout.write(`${line}\n`);
const progress = (line: string): void => void process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(0)} s] ${line}\n`);
const MiB = 2 ** 20;
const mib = (b: number): string => `${(b / MiB).toFixed(b < 10 * MiB ? 1 : 0)} MiB`;
const s = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
const load = (): string => `load ${loadavg()[0]?.toFixed(1)}`;

/** MemAvailable of the machine, bytes: the other engineers' tests need ~8 GiB of it. */
function memAvailable(): number {
  return Number(/^MemAvailable:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0) * 1024;
}

const bundles = new Map<string, string>();
/** Node flags of every pass's process (--child-flags), e.g. the heap limit a CronJob's memory limit calls for. */
let childFlags: string[] = [];
/**
 * The pass bundled from the source as it is when first asked for: `before` at the start of the run, `after` once
 * the file named by --after-when exists (a change made while a long run is under way is measured on the same cluster).
 */
async function childBundle(version: 'before' | 'after'): Promise<string> {
  const have = bundles.get(version);
  if (have) return have;
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-scale-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'scale-child.mjs');
  await build({ entryPoints: [join(REPO, 'bench/scale-child.ts')], outfile: file, ...NODE_ESM_BUNDLE });
  bundles.set(version, file);
  return file;
}

function runChild(kubeconfig: string, fn: string, version: 'before' | 'after' = 'before', pageSize?: number): Promise<ScalePass> {
  return childBundle(version).then(
    (entry) =>
      new Promise((res, rej) => {
        const env = pageSize === undefined ? process.env : { ...process.env, KMAINT_LIST_PAGE_SIZE: String(pageSize) };
        const child = spawn(process.execPath, [...childFlags, entry, '--kubeconfig', kubeconfig, '--fn', fn], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let text = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (text += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('error', rej);
        child.on('close', (code) => {
          const last = text.trim().split('\n').pop() ?? '';
          if (code !== 0 || !last.startsWith('{')) return rej(new Error(`${fn} pass exited ${code}: ${(err || text).trim().slice(-500)}`));
          res(JSON.parse(last) as ScalePass);
        });
      }),
  );
}

/** What the API server spent between two scrapes, and its process CPU. */
async function serverSide<T>(conn: Conn, apiPid: number, fn: () => Promise<T>): Promise<{ result: T; cost: ServerCost; cpu: number }> {
  const before = await scrape(conn);
  const cpu0 = cpuSeconds(apiPid);
  const result = await fn();
  const cpu = cpuSeconds(apiPid) - cpu0;
  const cost = costBetween(await scrape(conn), before);
  return { result, cost, cpu };
}

function topServing(cost: ServerCost): string {
  return Object.entries(cost.seconds)
    .filter(([k]) => !k.startsWith('WATCH'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([k, v]) => `${k} ${v.toFixed(2)} s/${cost.requests[k] ?? 0}`)
    .join(', ');
}

async function measurePass(cp: ControlPlane, conn: Conn, apiPid: number, nodes: number, requests: number, fn: string, label = fn, version: 'before' | 'after' = 'before', pageSize?: number): Promise<Row> {
  const l = load();
  const { result: m, cost, cpu } = await serverSide(conn, apiPid, () => runChild(cp.kubeconfigFor('kmaint'), fn, version, pageSize));
  const writes = Object.values(m.actions).reduce((a, b) => a + b, 0);
  const row: Row = {
    nodes, requests, pass: label, wallMs: m.wallMs, cpuMs: m.cpuMs, peakRss: m.peakRssBytes, requestsMade: Object.values(m.requests).reduce((a, b) => a + b, 0),
    decoded: m.decodedBytes, wire: m.wireBytes, serverSeconds: total(cost.seconds), readSeconds: total(cost.seconds, (k) => k.startsWith('LIST') || k.startsWith('GET')), serverCpu: cpu, top: topServing(cost), load: l, writes, allocBytes: cost.allocBytes,
  };
  progress(`${nodes} nodes, ${requests} requests, ${label}: wall ${s(row.wallMs)}, peak RSS ${mib(row.peakRss)}, decoded ${mib(row.decoded)}, API server allocated ${mib(cost.allocBytes)} in ${cost.gcCycles} GC cycles, server ${row.serverSeconds.toFixed(2)} s (${row.top}); kmaint requests ${counts(m.requests)}; actions ${counts(m.actions)}; errors ${m.errors}`);
  return row;
}

function counts(r: Record<string, number>): string {
  return Object.entries(r).map(([k, v]) => `${k} ${v}`).join(', ') || '(none)';
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The API server's CPU over `count` minutes, `work` started at the top of each: a window of kmaint's steady passes
 * (each function once a minute, as a schedule runs them) against the same window idle. Several minutes average the
 * API server's garbage collection, which one pass's /proc delta catches or misses whole.
 */
async function cpuMinutes(conn: Conn, apiPid: number, count: number, work: () => Promise<void>): Promise<{ cpu: number; alloc: number }> {
  const before = await scrape(conn);
  const cpu0 = cpuSeconds(apiPid);
  const t = Date.now();
  for (let m = 0; m < count; m++) {
    await work();
    const rest = t + (m + 1) * 60_000 - Date.now();
    if (rest > 0) await sleep(rest);
  }
  const minutes = (Date.now() - t) / 60_000;
  const cpu = (cpuSeconds(apiPid) - cpu0) / minutes;
  return { cpu, alloc: costBetween(await scrape(conn), before).allocBytes / minutes };
}

async function minutesOfPasses(cp: ControlPlane, conn: Conn, apiPid: number, nodes: number, requests: number, count: number): Promise<PassMinutes> {
  const idle = await cpuMinutes(conn, apiPid, count, () => Promise.resolve());
  let late = 0;
  const busy = await cpuMinutes(conn, apiPid, count, async () => {
    const t = Date.now();
    for (const fn of PASSES) await runChild(cp.kubeconfigFor('kmaint'), fn);
    if (Date.now() - t > 60_000) late++;
  });
  return { nodes, requests, minutes: count, busyPerMin: busy.cpu, idlePerMin: idle.cpu, late, load: load(), busyAllocPerMin: busy.alloc, idleAllocPerMin: idle.alloc };
}

async function fullList(conn: Conn, apiPid: number, nodes: number): Promise<FullList> {
  const once = async (): Promise<number> => {
    const t = performance.now();
    let cont = '';
    do {
      const { status, text } = await call(conn, 'GET', `/api/v1/nodes?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      if (status !== 200) throw new Error(`LIST nodes: HTTP ${status}`);
      cont = (JSON.parse(text) as { metadata?: { continue?: string } }).metadata?.continue ?? '';
    } while (cont);
    return performance.now() - t;
  };
  await once(); // warm: the first LIST after a burst of creates pays for the watch cache catching up
  const l = load();
  const { result: wallMs, cost, cpu } = await serverSide(conn, apiPid, once);
  return { nodes, wallMs, decoded: cost.bytes['LIST nodes'] ?? 0, serverSeconds: cost.seconds['LIST nodes'] ?? 0, serverCpu: cpu, load: l };
}

/** Adds nodes [from, to), `concurrency` POSTs in flight; stops early when the machine's free memory runs low. */
async function addNodes(conn: Conn, from: number, to: number, concurrency: number, reserve: number): Promise<{ created: number; stoppedForMemory: boolean }> {
  const now = new Date();
  const t = Date.now();
  let created = from;
  let lowMemory = false;
  const indexes = Array.from({ length: to - from }, (_, k) => from + k);
  for (let chunk = 0; chunk < indexes.length && !lowMemory; chunk += 5000) {
    await forEachBounded(indexes.slice(chunk, chunk + 5000), { limit: concurrency }, (i) => create(conn, '/api/v1/nodes', JSON.stringify(gpuNode(i, now))));
    created = from + Math.min(chunk + 5000, indexes.length);
    const avail = memAvailable();
    progress(`${created} nodes (${Math.round((created - from) / ((Date.now() - t) / 1000))}/s), MemAvailable ${(avail / 2 ** 30).toFixed(1)} GiB, ${load()}`);
    lowMemory = avail < reserve;
  }
  return { created, stoppedForMemory: lowMemory };
}

/**
 * Requests up to `target` in all (kept from the smaller ratios), named round-robin over the nodes. Named by their
 * index, which a larger target keeps: planRequests' names follow the requests per requestor, so a second ratio's names
 * met the first's (POST 409, taken for a retry's echo) and the larger ratios had fewer requests than they said.
 * Counted after: a count other than `target` stops the run.
 */
async function growRequests(conn: Conn, nodes: number, have: number, target: number): Promise<void> {
  const names = Array.from({ length: nodes }, (_, i) => nodeName(i));
  const plans = planRequests({ namespace: NS, nodes: names, requests: target, requestors: 10 })
    .map((p, k) => ({ ...p, name: `req-${String(k).padStart(6, '0')}` }))
    .slice(have);
  const path = `/apis/${GROUP}/${VERSION}/namespaces/${NS}/${NODE_MAINTENANCE_PLURAL}`;
  await forEachBounded(plans, { limit: 64 }, (p) => create(conn, path, JSON.stringify({ apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', metadata: { name: p.name, namespace: p.namespace }, spec: p.spec })));
  const { status, text } = await call(conn, 'GET', `${path}?limit=1`);
  const list = JSON.parse(text) as { items?: unknown[]; metadata?: { remainingItemCount?: number } };
  const count = (list.items?.length ?? 0) + (list.metadata?.remainingItemCount ?? 0);
  if (status !== 200 || count !== target) throw new Error(`requests in ${NS}: ${count} after growing to ${target} (HTTP ${status})`);
}

/** Every request gone: finalizers stripped as the admin (no cleanup pass timed here), then a collection delete. */
async function dropRequests(conn: Conn): Promise<void> {
  const path = `/apis/${GROUP}/${VERSION}/namespaces/${NS}/${NODE_MAINTENANCE_PLURAL}`;
  const { text } = await call(conn, 'GET', path);
  const held = (JSON.parse(text) as { items: Array<{ metadata: { name: string; finalizers?: string[] } }> }).items.filter((o) => (o.metadata.finalizers ?? []).length > 0);
  await forEachBounded(held, { limit: 32 }, async (o) => {
    await call(conn, 'PATCH', `${path}/${o.metadata.name}`, JSON.stringify({ metadata: { finalizers: null } }), 'application/merge-patch+json');
  });
  const { status } = await call(conn, 'DELETE', path);
  if (status !== 200) throw new Error(`DELETE collection of requests: HTTP ${status}`);
}

const PASSES = ['scheduler', 'drainer', 'cleanup', 'reaper'] as const;

interface Options {
  sizes: number[];
  ratios: Record<number, number[]>;
  parallel: number;
  concurrency: number;
  reserveGiB: number;
  upstream: boolean;
  churnSeconds: number;
  afterWhen?: string;
  pageSizes: number[];
  stopControllerManagerAbove: number;
  minutes: number;
}

/** Kept free when deciding whether the upstream operator can run at a size: at 100,000 nodes with 4 GiB left its heartbeat windows reached 65 of the 333 writes a second asked (docs/benchmarks.md). */
const UPSTREAM_RESERVE = 6 * 2 ** 30;

/** The upstream operator's RSS a node at the largest size it ran at; 64 KiB before it has run. */
function upstreamBytesPerNode(measured: readonly UpstreamFigures[]): number {
  const last = measured.at(-1);
  return last ? last.rssAtRest / last.nodes : 64 * 1024;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Removes the record of a function's last full node read from its pass Lease, so its next pass reads every Node. */
async function dropFullReadRecord(conn: Conn, fn: string): Promise<void> {
  const body = JSON.stringify({ metadata: { annotations: { [ANNOTATION_FULL_NODE_READ_TIME]: null, [ANNOTATION_FULL_NODE_READ_NODES]: null } } });
  const { status, text } = await call(conn, 'PATCH', `/apis/coordination.k8s.io/v1/namespaces/kmaint/leases/kmaint-${fn}`, body, 'application/merge-patch+json');
  if (status !== 200 && status !== 404) throw new Error(`dropping ${fn}'s full read record: HTTP ${status}: ${text.slice(0, 200)}`);
}

async function main(o: Options): Promise<void> {
  out(`command: npm run bench:scale -- ${process.argv.slice(2).join(' ')}`.trimEnd());
  out(`machine: ${load()} (1-min load average at start; 2 cores shared with other engineers' tests), MemAvailable ${(memAvailable() / 2 ** 30).toFixed(1)} GiB`);
  await childBundle('before');
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-scale-tb-'));
  process.once('SIGINT', () => void stopTestbedDir(dir).finally(() => process.exit(130)));
  // Nodes no kubelet backs stay Ready when the node lifecycle controller's grace outlasts the run: it times a node
  // from when it first saw it, so with 24 h it never marks one NotReady or taints it.
  const cp = await startControlPlane({ dir, nodeMonitorGraceSeconds: 86_400, log: progress });
  const rows: Row[] = [];
  const lists: FullList[] = [];
  const upstream: UpstreamFigures[] = [];
  const minutes: PassMinutes[] = [];
  try {
    const api = cp.components.find((c) => c.name === 'kube-apiserver');
    const sched = cp.components.find((c) => c.name === 'kube-scheduler');
    if (!api || !sched) throw new Error('control plane without kube-apiserver or kube-scheduler');
    // No pods are scheduled here; kube-scheduler's node informer would only hold another copy of every node.
    process.kill(sched.pid, 'SIGTERM');
    out('kube-scheduler stopped (no pods to place; its informer would hold a copy of every node); kube-controller-manager runs, node lifecycle grace 24 h');
    const token = /token: (\S+)/.exec(readFileSync(cp.kubeconfigPath, 'utf8'))?.[1] ?? '';
    const conn = connect(cp.server, token, cp.caFile);
    await installKmaint(cp.kubeconfigPath, [NS]);
    await setConfig(kubeConfigFrom(cp.kubeconfigPath), { maxParallelOperations: o.parallel });
    const probe = gpuNode(0, new Date());
    let have = 0;
    for (const n of o.sizes) {
      if (n > o.stopControllerManagerAbove) {
        const kcm = cp.components.find((c) => c.name === 'kube-controller-manager');
        if (kcm && isAlive(kcm.pid)) {
          process.kill(kcm.pid, 'SIGTERM');
          out(`kube-controller-manager stopped before growing past ${o.stopControllerManagerAbove} nodes (memory: its informers hold every node); the nodes added from here get none of its writes`);
        }
      }
      const t = Date.now();
      const grown = await addNodes(conn, have, n, o.concurrency, o.reserveGiB * 2 ** 30);
      have = grown.created;
      out();
      out(`## ${have} nodes (added in ${s(Date.now() - t)}; API server RSS ${mib(rssOf(api.pid))}, MemAvailable ${(memAvailable() / 2 ** 30).toFixed(1)} GiB)`);
      if (grown.stoppedForMemory) {
        out(`STOPPED at ${have} nodes: MemAvailable fell under the ${o.reserveGiB} GiB kept for the other engineers`);
        break;
      }
      const quietMs = await untilQuiet(conn);
      out(`control plane quiet ${s(quietMs)} after the last node was added (kube-controller-manager's node controller: 2 PATCH + 1 GET + 1 event per new node)`);
      const list = await fullList(conn, api.pid, have);
      lists.push(list);
      out(`full LIST of nodes (paged 500): ${s(list.wallMs)} wall, ${mib(list.decoded)} JSON (${Math.round(list.decoded / have)} B/node; ${JSON.stringify(probe).length} B as created, the rest managedFields), API server ${list.serverSeconds.toFixed(2)} s serving, ${list.serverCpu.toFixed(1)} s CPU (${list.load})`);
      let requests = 0;
      for (const ratio of o.ratios[n] ?? o.ratios[0] ?? []) {
        const target = Math.round(have * ratio);
        await growRequests(conn, have, requests, target);
        requests = target;
        await untilQuiet(conn);
        rows.push(await measurePass(cp, conn, api.pid, have, requests, 'scheduler', 'scheduler (new requests)'));
        rows.push(await measurePass(cp, conn, api.pid, have, requests, 'drainer', 'drainer (cordons the admitted)'));
        rows.push(await measurePass(cp, conn, api.pid, have, requests, 'scheduler'));
        rows.push(await measurePass(cp, conn, api.pid, have, requests, 'drainer'));
        // Cleanup twice: its full read (the record of the last one dropped first, as if fullReadEverySeconds had
        // passed), then what it reads the other passes (by name at or above namedReadsFromNodes).
        await dropFullReadRecord(conn, 'cleanup');
        rows.push(await measurePass(cp, conn, api.pid, have, requests, 'cleanup', 'cleanup (full read)'));
        rows.push(await measurePass(cp, conn, api.pid, have, requests, 'cleanup', 'cleanup (named reads)'));
        rows.push(await measurePass(cp, conn, api.pid, have, requests, 'reaper'));
        for (const size of o.pageSizes) rows.push(await measurePass(cp, conn, api.pid, have, requests, 'scheduler', `scheduler (pages of ${size})`, 'before', size));
        if (o.afterWhen && existsSync(o.afterWhen)) {
          for (const fn of PASSES) rows.push(await measurePass(cp, conn, api.pid, have, requests, fn, `${fn} (after)`, 'after'));
        }
      }
      if (o.minutes > 0) {
        const m = await minutesOfPasses(cp, conn, api.pid, have, requests, o.minutes);
        minutes.push(m);
        out(minutesLine(m));
      }
      await dropRequests(conn);
      const upstreamNeeds = upstreamBytesPerNode(upstream) * have;
      if (o.upstream && memAvailable() - upstreamNeeds < UPSTREAM_RESERVE) {
        out(`upstream operator at ${have} nodes: NOT RUN: it would hold ~${(upstreamNeeds / 2 ** 30).toFixed(1)} GiB (its RSS a node at the largest size measured), MemAvailable ${(memAvailable() / 2 ** 30).toFixed(1)} GiB, ${UPSTREAM_RESERVE / 2 ** 30} GiB kept free; read off the line through the sizes measured below`);
      } else if (o.upstream) {
        try {
          upstream.push(await measureUpstream({ cp, conn, apiPid: api.pid, nodes: have, churnSeconds: o.churnSeconds, log: progress }));
        } catch (err) {
          out(`upstream operator at ${have} nodes: NOT MEASURED: ${errorMessage(err)}`);
        }
      }
      // The table so far after each size: a run stopped at the next (hours at 100,000 nodes) keeps what it measured.
      out();
      printTable(rows, lists, upstream);
      out();
      for (const line of targetsReport(rows, lists, upstream, minutes)) out(line);
    }
  } finally {
    progress('stopping the control plane');
    await cp.stop();
  }
}

function printTable(rows: readonly Row[], lists: readonly FullList[], upstream: readonly UpstreamFigures[]): void {
  out('| nodes | requests | pass | wall | CPU | peak RSS | requests made | writes | JSON decoded | on the wire | API server serving, reads | all | API server CPU | top serving (verb resource s/count) | load |');
  out('|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|');
  for (const l of lists) out(`| ${l.nodes} | – | full node LIST (yardstick) | ${s(l.wallMs)} | – | – | ${Math.ceil(l.nodes / 500)} | – | ${mib(l.decoded)} | – | ${l.serverSeconds.toFixed(2)} s | – | ${l.serverCpu.toFixed(1)} s | LIST nodes | ${l.load} |`);
  for (const r of rows) {
    out(`| ${r.nodes} | ${r.requests} | ${r.pass} | ${s(r.wallMs)} | ${s(r.cpuMs)} | ${mib(r.peakRss)} | ${r.requestsMade} | ${r.writes} | ${mib(r.decoded)} | ${mib(r.wire)} | ${r.readSeconds.toFixed(2)} s | ${r.serverSeconds.toFixed(2)} s | ${r.serverCpu.toFixed(1)} s | ${r.top} | ${r.load} |`);
  }
  if (upstream.length > 0) {
    out();
    out('| nodes | upstream operator: start-up to workers | start-up LIST/GET serving | start-up JSON | RSS at rest | churn (node status writes/s) | API server CPU/min, watching | without it | watch bytes/min to it | load |');
    out('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const u of upstream) {
      out(`| ${u.nodes} | ${s(u.startMs)} | ${u.startServerSeconds.toFixed(2)} s | ${mib(u.startDecoded)} | ${mib(u.rssAtRest)} | ${u.churnPerSecond.toFixed(0)} | ${u.cpuPerMinWith.toFixed(1)} s | ${u.cpuPerMinWithout.toFixed(1)} s | ${mib(u.watchBytesPerMin)} | ${u.load} |`);
    }
    out();
    for (const u of upstream) {
      const line = upstreamAllocLine(u);
      if (line) out(line);
    }
  }
}

const parseList = (v: string): number[] => v.split(',').map(Number);
const program = new Command('bench:scale')
  .option('--sizes <list>', 'node counts, ascending; one control plane grows through them', parseList, [10_000, 50_000, 100_000])
  .option('--ratios <spec>', 'requests as fractions of N: "10000=0.01,0.1,0.2;*=0.1"', '10000=0.01,0.1,0.2;*=0.1')
  .option('--parallel <n>', 'maxParallelOperations of the config', (v) => Number(v), 50)
  .option('--concurrency <n>', 'node POSTs in flight', (v) => Number(v), 64)
  .option('--reserve-gib <g>', 'stop growing when MemAvailable falls under this', (v) => Number(v), 9)
  .option('--no-upstream', 'skip the upstream operator')
  .option('--churn-seconds <s>', 'window of node status churn for the upstream watch cost', (v) => Number(v), 60)
  .option('--after-when <file>', 'once this file exists, each size also measures the passes bundled from the source as it is then')
  .option('--page-sizes <list>', 'also measure the steady scheduler pass with each of these LIST page sizes (KMAINT_LIST_PAGE_SIZE)', parseList, [])
  .option('--stop-controller-manager-above <n>', 'stop kube-controller-manager before growing past n nodes (its informers hold every node)', (v) => Number(v), Number.POSITIVE_INFINITY)
  .option('--minutes <n>', 'after the passes at each size, n minutes of steady passes (each function once a minute) against n idle minutes: the API server CPU a minute costs', (v) => Number(v), 0)
  .option('--child-flags <flags>', 'node flags of each pass process, space-separated (e.g. "--max-old-space-size=768", as docs/large-clusters.md advises for a 1 GiB CronJob)', '')
  .action(async (v: { sizes: number[]; ratios: string; parallel: number; concurrency: number; reserveGib: number; upstream: boolean; churnSeconds: number; afterWhen?: string; pageSizes: number[]; stopControllerManagerAbove: number; childFlags: string; minutes: number }) => {
    childFlags = v.childFlags.split(' ').filter(Boolean);
    const ratios: Record<number, number[]> = {};
    for (const part of v.ratios.split(';')) {
      const [k = '*', list = ''] = part.split('=');
      ratios[k === '*' ? 0 : Number(k)] = parseList(list);
    }
    await main({ sizes: v.sizes, ratios, parallel: v.parallel, concurrency: v.concurrency, reserveGiB: v.reserveGib, upstream: v.upstream, churnSeconds: v.churnSeconds, ...(v.afterWhen ? { afterWhen: v.afterWhen } : {}), pageSizes: v.pageSizes, stopControllerManagerAbove: v.stopControllerManagerAbove, minutes: v.minutes });
  });

try {
  await program.parseAsync(process.argv);
  process.exit(0);
} catch (err) {
  process.stderr.write(`bench:scale: ${errorMessage(err, { stack: true })}\n`);
  process.exit(1);
}
