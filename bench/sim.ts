// `npm run bench:sim -- [--only hold|simulate]`: the embedded sim's figures (issue 5, "Speed"). `hold`: the large
// profile loaded into the sim API server (start time, RSS), LIST all nodes, LIST one node's pods at two cluster sizes.
// `simulate`: `kmaint simulate --profile large --all-nodes` with maxParallelOperations 50, as a user runs it. The
// machine's load average is printed next to each figure. The prediction judged against the testbed is a test:
// test/whatif-testbed.test.ts. Figures on stdout, progress on stderr.
import { rfc3339Seconds } from '../shared/api/index.ts';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { KubeClient } from '../shared/kube/index.ts';
import { startSimApiServer, type Json, type SimApiServer } from '../sim/apiserver/index.ts';
import { CRDS_DIR } from '../sim/embedded.ts';
import { generateCluster } from '../sim/generator/index.ts';
import { profileSnapshot, type WhatIfReport } from '../sim/whatif/index.ts';
import { seedSnapshot } from '../sim/whatif/seed.ts';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const out = (line = ''): void => void process.stdout.write(`${line}\n`);
const fmt = (n: number): string => n.toLocaleString('en-US');
const s1 = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const mib = (bytes: number): string => `${fmt(Math.round(bytes / 2 ** 20))} MiB`;
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ');

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** This process's CPU time so far (user + system), ms: on a shared machine it says what wall time cannot. */
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Wall ms of `fn`, `runs` times, and the CPU ms each took (the server and the client are both in this process). */
async function timed(runs: number, fn: () => Promise<unknown>): Promise<number[] & { cpu: number[] }> {
  const times = Object.assign([] as number[], { cpu: [] as number[] });
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const c = cpuMs();
    await fn();
    times.push(performance.now() - t);
    times.cpu.push(cpuMs() - c);
  }
  return times;
}

/** GET a path of the sim API server; returns the body's length and its items (the JSON parsed). */
async function get(api: SimApiServer, path: string): Promise<{ bytes: number; items: number }> {
  const res = await fetch(`${api.url}${path}`, { headers: { authorization: 'Bearer admin' } });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status}: ${text.slice(0, 200)}`);
  return { bytes: Buffer.byteLength(text), items: (JSON.parse(text) as { items: unknown[] }).items.length };
}

/**
 * The large profile (or `nodes` of it) stored in a fresh sim API server, in-process: the generator's Nodes as the
 * simulated kubelet registers them (full status: capacity, addresses, nodeInfo, conditions), then every pod placed,
 * owned and Running as `kmaint simulate --profile large` loads them.
 */
async function loadProfile(nodes: number): Promise<{ api: SimApiServer; ms: number; cpuMs: number; pods: number }> {
  const t = Date.now();
  const c = cpuMs();
  const api = await startSimApiServer({ crds: [CRDS_DIR], watchHistorySize: 1000, requestLogLimit: 1000 });
  const at = rfc3339Seconds(0);
  for (const node of generateCluster({ profile: 'large', seed: 1, nodes }).nodes) {
    const ready = { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: at, lastTransitionTime: at };
    api.local.create({ apiVersion: 'v1', resource: 'nodes' }, '', JSON.parse(JSON.stringify({ ...node, status: { ...node.status, conditions: [ready] } })) as Json);
  }
  const snapshot = profileSnapshot({ profile: 'large', nodes });
  seedSnapshot(api, { ...snapshot, nodes: [] }, { namespace: 'kmaint' }, 0);
  return { api, ms: Date.now() - t, cpuMs: cpuMs() - c, pods: snapshot.pods.length };
}

async function benchHold(): Promise<void> {
  out('## hold: the large profile in the sim API server');
  gc();
  const before = process.memoryUsage().rss;
  const large = await loadProfile(5000);
  gc();
  const mem = process.memoryUsage();
  out(`start: 5,000 nodes and ${fmt(large.pods)} pods generated, placed and stored in ${s1(large.ms)} wall, ${s1(large.cpuMs)} CPU (in-process, through the server's create path; target < 30 s) [load ${load()}]`);
  out(`RSS: ${mib(mem.rss)} holding them (heap used ${mib(mem.heapUsed)}; ${mib(before)} before loading; target < 2 GiB) [load ${load()}]`);
  const nodeList = await timed(5, () => get(large.api, '/api/v1/nodes'));
  const nodesBody = await get(large.api, '/api/v1/nodes');
  out(`LIST all nodes (HTTP GET /api/v1/nodes, one page, body read and parsed): median ${median(nodeList).toFixed(0)} ms wall, ${median(nodeList.cpu).toFixed(0)} ms CPU, of 5 (${nodeList.map((t) => t.toFixed(0)).join(', ')} ms; ${fmt(nodesBody.items)} items, ${mib(nodesBody.bytes)}; target < 0.5 s) [load ${load()}]`);
  const client = new KubeClient(large.api.kubeConfig({ user: 'admin' }));
  const viaClient = await timed(5, () => client.listNodes());
  out(`LIST all nodes through kmaint's KubeClient (client-node, pages of 500): median ${median(viaClient).toFixed(0)} ms wall, ${median(viaClient.cpu).toFixed(0)} ms CPU, of 5 (${viaClient.map((t) => t.toFixed(0)).join(', ')} ms) [load ${load()}]`);
  const byNode = async (api: SimApiServer, node: string): Promise<{ median: number; cpu: number; items: number; load: string }> => {
    const path = `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${node}`)}`;
    const times = await timed(20, () => get(api, path));
    return { median: median(times), cpu: median(times.cpu), items: (await get(api, path)).items, load: load() };
  };
  const line = (what: string, r: { median: number; cpu: number; items: number; load: string }): string =>
    `  ${what}: ${r.median.toFixed(2)} ms wall, ${r.cpu.toFixed(2)} ms CPU for ${r.items} pods [load ${r.load}]`;
  const big = await byNode(large.api, 'node-2500');
  // The same cluster with one node holding 10x the pods: 270 more bare pods bound to node-2501.
  for (let i = 0; i < 270; i++) {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: `extra-${i}`, namespace: 'default' }, spec: { nodeName: 'node-2501', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } };
    large.api.local.create({ apiVersion: 'v1', resource: 'pods' }, 'default', pod as unknown as Json);
  }
  const crowded = await byNode(large.api, 'node-2501');
  await large.api.stop();
  gc();
  const small = await loadProfile(500);
  const little = await byNode(small.api, 'node-250');
  await small.api.stop();
  out(`LIST pods of one node (HTTP GET /api/v1/pods?fieldSelector=spec.nodeName=..., served from the node index), median of 20:`);
  out(line(`500 nodes / ${fmt(small.pods)} pods, a node of ${little.items}`, little));
  out(line(`5,000 nodes / ${fmt(large.pods)} pods, a node of ${big.items}`, big));
  out(line(`5,000 nodes / ${fmt(large.pods + 270)} pods, a node of ${crowded.items}`, crowded));
  out(`  => 10x the cluster, same pods on the node: ${(big.median / little.median).toFixed(2)}x the wall time (${(big.cpu / little.cpu).toFixed(2)}x the CPU); same cluster, ${(crowded.items / big.items).toFixed(0)}x the pods on the node: ${(crowded.median / big.median).toFixed(2)}x the wall time (${(crowded.cpu / big.cpu).toFixed(2)}x the CPU)`);
}

/** CPU time (user + system) a process has used so far, ms; NaN once it is gone. */
function cpuOf(pid: number): number {
  try {
    // Fields after the command name: state is the 3rd, utime the 14th, stime the 15th (clock ticks, 100 a second).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** Peak RSS (VmHWM) of a process so far, in bytes. */
function peakRss(pid: number): number {
  try {
    return Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;
  } catch {
    return NaN;
  }
}

async function benchSimulate(): Promise<void> {
  out('## simulate: kmaint simulate --profile large --all-nodes, maxParallelOperations 50');
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-bench-sim-'));
  const config = join(dir, 'cfg.yaml');
  writeFileSync(config, 'maxParallelOperations: 50\n');
  const args = ['--import', 'tsx', 'cli/main.ts', 'simulate', '--profile', 'large', '--all-nodes', '--config', config, '--output', 'json'];
  out(`command: node ${args.join(' ')} (cfg.yaml: maxParallelOperations: 50); load average ${load()} at start`);
  const t = Date.now();
  const child = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
  let peak = 0;
  let cpu = 0;
  const watch = setInterval(() => {
    if (child.pid === undefined) return;
    peak = Math.max(peak, peakRss(child.pid) || 0);
    cpu = Math.max(cpu, cpuOf(child.pid) || 0);
  }, 500);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  const code = await new Promise<number>((res) => child.on('exit', (c) => res(c ?? 1)));
  clearInterval(watch);
  const wallMs = Date.now() - t;
  rmSync(dir, { recursive: true, force: true });
  const report = JSON.parse(Buffer.concat(chunks).toString('utf8')) as WhatIfReport;
  out(`exit ${code}, wall ${s1(wallMs)} (target < 5 min), CPU ${s1(cpu)} (sampled every 0.5 s); peak RSS ${mib(peak)}; load average ${load()} at end`);
  out(`  simulated with kmaint's passes taking ${report.settings.passMs} ms each (--pass-time default)`);
  out(`  cluster loaded in ${s1(report.loadMs)}; ${fmt(report.passes.run)} kmaint passes in ${fmt(report.passes.rounds)} rounds (${fmt(report.passes.skippedQuiet)} passes skipped: inputs unchanged)`);
  out(`  outcome ${report.outcome}: predicted makespan ${report.makespanMs === undefined ? '-' : s1(report.makespanMs)} simulated, ideal ${report.idealMakespanMs === undefined ? '-' : s1(report.idealMakespanMs)}`);
  out(`  ${fmt(report.evictions)} evictions, ${fmt(report.activity.replacementsCreated)} replacement pods; peak unavailable ${report.peakUnavailableByPool.map((p) => `${p.pool} ${p.peak}`).join(', ')}`);
  out(`  top budget waits: ${report.budgetWaits.map((w) => `${w.budget} (${w.pods} pods, longest ${s1(w.longestWaitMs)})`).join('; ')}`);
}

const program = new Command('bench:sim').addOption(new Option('--only <part>', 'run one part').choices(['hold', 'simulate']));
program.parse();
const opts = program.opts<{ only?: string }>();
out(`bench:sim on ${cpus().length} CPUs (${cpus()[0]?.model ?? ''}), Node ${process.version}; load average ${load()}`);
if (!opts.only || opts.only === 'hold') await benchHold();
if (!opts.only || opts.only === 'simulate') await benchSimulate();
