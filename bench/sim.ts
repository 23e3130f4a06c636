// `npm run bench:sim -- [--only hold|simulate|testbed]`: the embedded sim's figures (issue 5). `hold`: the large
// profile loaded into the sim API server (start time, RSS), LIST all nodes, LIST one node's pods at two cluster
// sizes. `simulate`: `kmaint simulate --profile large --all-nodes` with maxParallelOperations 50, as a user runs it.
// `testbed`: the same small scenario predicted by `kmaint simulate` and run on a real control plane; exits 1 when
// the prediction is more than 10% off. Figures on stdout, progress on stderr.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { Command, Option } from 'commander';
import { API_VERSION, CONFIG_KIND, CONFIG_NAME, GROUP, NODE_MAINTENANCE_KIND, NODE_MAINTENANCE_PLURAL, VERSION, type NodeMaintenance } from '../shared/api/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { PASS_FUNCTIONS, runPass } from '../shared/pass/index.ts';
import { readyCondition } from '../shared/scheduling/index.ts';
import { startSimApiServer, type Json, type SimApiServer } from '../sim/apiserver/index.ts';
import { CRDS_DIR } from '../sim/embedded.ts';
import { createCluster, generateCluster } from '../sim/generator/index.ts';
import { SimKubelet } from '../sim/kubelet/index.ts';
import { profileSnapshot, readClusterSnapshot, RoundCadence, simulate, WHATIF_DRAIN_SPEC, WHATIF_NAMESPACE, WHATIF_REQUESTOR, type WhatIfReport } from '../sim/whatif/index.ts';
import { seedSnapshot } from '../sim/whatif/seed.ts';
import { startControlPlane } from '../testbed/start.ts';
import { binaryPath } from '../testbed/versions.ts';
import { kubeConfigFrom, waitForCluster } from '../testbed/testbed.ts';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const execFileAsync = promisify(execFile);
const started = Date.now();
const out = (line = ''): void => void process.stdout.write(`${line}\n`);
const progress = (line: string): void => void process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}\n`);
const fmt = (n: number): string => n.toLocaleString('en-US');
const s1 = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const mib = (bytes: number): string => `${fmt(Math.round(bytes / 2 ** 20))} MiB`;
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ');

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Wall ms of `fn`, `runs` times. */
async function timed(runs: number, fn: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
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
async function loadProfile(nodes: number): Promise<{ api: SimApiServer; ms: number; pods: number }> {
  const t = Date.now();
  const api = await startSimApiServer({ crds: [CRDS_DIR], watchHistorySize: 1000, requestLogLimit: 1000 });
  const at = new Date(0).toISOString().replace('.000Z', 'Z');
  for (const node of generateCluster({ profile: 'large', seed: 1, nodes }).nodes) {
    const ready = { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: at, lastTransitionTime: at };
    api.local.create({ apiVersion: 'v1', resource: 'nodes' }, '', JSON.parse(JSON.stringify({ ...node, status: { ...node.status, conditions: [ready] } })) as Json);
  }
  const snapshot = profileSnapshot({ profile: 'large', nodes });
  seedSnapshot(api, { ...snapshot, nodes: [] }, { namespace: 'kmaint' }, 0);
  return { api, ms: Date.now() - t, pods: snapshot.pods.length };
}

async function benchHold(): Promise<void> {
  out('## hold: the large profile in the sim API server');
  gc();
  const before = process.memoryUsage().rss;
  const large = await loadProfile(5000);
  gc();
  const mem = process.memoryUsage();
  out(`start: 5,000 nodes and ${fmt(large.pods)} pods generated, placed and stored in ${s1(large.ms)} (in-process, through the server's create path; target < 30 s)`);
  out(`RSS: ${mib(mem.rss)} holding them (heap used ${mib(mem.heapUsed)}; ${mib(before)} before loading; target < 2 GiB)`);
  const nodeList = await timed(5, () => get(large.api, '/api/v1/nodes'));
  const nodesBody = await get(large.api, '/api/v1/nodes');
  out(`LIST all nodes (HTTP GET /api/v1/nodes, one page, body read and parsed): median ${median(nodeList).toFixed(0)} ms of 5 (${nodeList.map((t) => t.toFixed(0)).join(', ')} ms; ${fmt(nodesBody.items)} items, ${mib(nodesBody.bytes)}; target < 0.5 s)`);
  const client = new KubeClient(large.api.kubeConfig({ user: 'admin' }));
  const viaClient = await timed(5, () => client.listNodes());
  out(`LIST all nodes through kmaint's KubeClient (client-node, pages of 500): median ${median(viaClient).toFixed(0)} ms of 5 (${viaClient.map((t) => t.toFixed(0)).join(', ')} ms)`);
  const byNode = async (api: SimApiServer, node: string): Promise<{ median: number; items: number }> => {
    const path = `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${node}`)}`;
    const times = await timed(20, () => get(api, path));
    return { median: median(times), items: (await get(api, path)).items };
  };
  const big = await byNode(large.api, 'node-2500');
  await large.api.stop();
  gc();
  const small = await loadProfile(500);
  const little = await byNode(small.api, 'node-250');
  await small.api.stop();
  out(`LIST pods of one node (fieldSelector spec.nodeName, served from the node index), median of 20:`);
  out(`  5,000 nodes / ${fmt(large.pods)} pods: ${big.median.toFixed(2)} ms for ${big.items} pods`);
  out(`  500 nodes / ${fmt(small.pods)} pods: ${little.median.toFixed(2)} ms for ${little.items} pods`);
  out(`  => ${(big.median / little.median).toFixed(2)}x the time for 10x the cluster and the same ${big.items} pods on the node`);
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
  const watch = setInterval(() => {
    if (child.pid !== undefined) peak = Math.max(peak, peakRss(child.pid) || 0);
  }, 500);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  const code = await new Promise<number>((res) => child.on('exit', (c) => res(c ?? 1)));
  clearInterval(watch);
  const wallMs = Date.now() - t;
  rmSync(dir, { recursive: true, force: true });
  const report = JSON.parse(Buffer.concat(chunks).toString('utf8')) as WhatIfReport;
  out(`exit ${code}, wall ${s1(wallMs)} (target < 5 min); peak RSS ${mib(peak)}; load average ${load()} at end`);
  out(`  cluster loaded in ${s1(report.loadMs)}; ${fmt(report.passes.run)} kmaint passes in ${fmt(report.passes.rounds)} rounds (${fmt(report.passes.skippedQuiet)} passes skipped: inputs unchanged)`);
  out(`  outcome ${report.outcome}: predicted makespan ${report.makespanMs === undefined ? '-' : s1(report.makespanMs)} simulated, ideal ${report.idealMakespanMs === undefined ? '-' : s1(report.idealMakespanMs)}`);
  out(`  ${fmt(report.evictions)} evictions, ${fmt(report.activity.replacementsCreated)} replacement pods; peak unavailable ${report.peakUnavailableByPool.map((p) => `${p.pool} ${p.peak}`).join(', ')}`);
  out(`  top budget waits: ${report.budgetWaits.map((w) => `${w.budget} (${w.pods} pods, longest ${s1(w.longestWaitMs)})`).join('; ')}`);
}

/** The real run on the testbed: the same requests, passes at the what-if's cadence, the requestor deleting Ready requests. */
async function maintainOnTestbed(admin: KubeConfig, nodes: readonly string[], namespace: string): Promise<{ makespanMs: number; order: string[] }> {
  const custom = admin.makeApiClient(CustomObjectsApi);
  const client = new KubeClient(admin);
  for (const node of nodes) {
    await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: WHATIF_NAMESPACE,
      plural: NODE_MAINTENANCE_PLURAL,
      body: { apiVersion: API_VERSION, kind: NODE_MAINTENANCE_KIND, metadata: { name: `whatif-${node}`, namespace: WHATIF_NAMESPACE }, spec: { requestorID: WHATIF_REQUESTOR, nodeName: node, cordon: true, drainSpec: WHATIF_DRAIN_SPEC } },
    });
  }
  const t0 = Date.now();
  const cadence = new RoundCadence();
  const order: string[] = [];
  const deleted = new Set<string>();
  for (;;) {
    let progressed = false;
    for (const fn of PASS_FUNCTIONS) {
      const s = await runPass(fn, { client, namespace, now: () => new Date(), holder: 'bench-testbed' });
      progressed ||= Object.keys(s.actions).length > 0;
    }
    const open = await client.listMaintenances();
    for (const nm of open) {
      const phase = readyCondition(nm)?.reason ?? '';
      if (phase !== '' && phase !== 'Pending' && !order.includes(nm.spec.nodeName)) order.push(nm.spec.nodeName);
      if (readyCondition(nm)?.reason === 'Ready' && readyCondition(nm)?.status === 'True' && !deleted.has(nm.metadata.name)) {
        await custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: WHATIF_NAMESPACE, plural: NODE_MAINTENANCE_PLURAL, name: nm.metadata.name });
        deleted.add(nm.metadata.name);
        progressed = true;
      }
    }
    if (open.length === 0) return { makespanMs: Date.now() - t0, order };
    if (Date.now() - t0 > 20 * 60_000) throw new Error(`testbed maintenance not done after 20 min: ${open.map((nm: NodeMaintenance) => `${nm.metadata.name} ${readyCondition(nm)?.reason ?? ''}`).join(', ')}`);
    const wait = cadence.after(progressed);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
}

async function benchTestbed(opts: { graceSeconds: number; podStartMs: number; selector: string }): Promise<number> {
  out(`## testbed: the what-if's prediction against the same maintenance on a real control plane`);
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-bench-whatif-'));
  const cp = await startControlPlane({ dir, log: progress });
  let kubelet: SimKubelet | undefined;
  try {
    const cluster = generateCluster({ profile: 'small', seed: 1, graceSeconds: opts.graceSeconds });
    const admin = kubeConfigFrom(cp.kubeconfigPath);
    kubelet = new SimKubelet({ kubeConfig: kubeConfigFrom(cp.kubeconfigFor('kmaint-sim-kubelet')), nodes: cluster.nodes, podSync: 'watch', podStartDelayMs: opts.podStartMs, heartbeatIntervalMs: 5000 });
    await kubelet.start();
    await createCluster(admin, cluster);
    await waitForCluster(admin, cluster, 180_000, progress);
    const custom = admin.makeApiClient(CustomObjectsApi);
    // kmaint's CRDs and a config, as a user installs them.
    const kubectl = (args: string[]) => execFileAsync(binaryPath('kubectl'), ['--kubeconfig', cp.kubeconfigPath, ...args], { timeout: 60_000 });
    await kubectl(['apply', '-f', CRDS_DIR]);
    await kubectl(['wait', '--for=condition=Established', '-f', CRDS_DIR, '--timeout=30s']);
    const core = admin.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'kmaint' } } });
    await custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'kmaint', plural: 'maintenanceoperatorconfigs', body: { apiVersion: API_VERSION, kind: CONFIG_KIND, metadata: { name: CONFIG_NAME, namespace: 'kmaint' }, spec: { maxParallelOperations: 1 } } });

    const snapshot = await readClusterSnapshot(admin, 'kmaint', new Date());
    out(`scenario: profile small (seed 1) with every pod's grace period ${opts.graceSeconds} s, replacement pods Ready ${opts.podStartMs / 1000} s after binding; a request for each node with ${opts.selector}; maxParallelOperations 1`);
    out(`snapshot of the testbed: ${snapshot.nodes.length} nodes, ${snapshot.pods.length} pods, ${snapshot.podDisruptionBudgets.length} budgets`);
    const predicted = await simulate({ snapshot, nodes: { selector: opts.selector }, podStartMs: opts.podStartMs });
    out(`kmaint simulate: makespan ${predicted.makespanMs === undefined ? predicted.outcome : s1(predicted.makespanMs)} simulated (ideal ${predicted.idealMakespanMs === undefined ? '-' : s1(predicted.idealMakespanMs)}), order ${predicted.admissionOrder.map((a) => a.node).join(', ')}, computed in ${s1(predicted.wallMs)}`);
    const nodes = snapshot.nodes.filter((n) => predicted.admissionOrder.some((a) => a.node === n.name)).map((n) => n.name);
    progress(`running the same maintenance on the testbed (${nodes.length} nodes)`);
    const real = await maintainOnTestbed(admin, nodes, 'kmaint');
    out(`testbed: makespan ${s1(real.makespanMs)} wall (real kmaint passes through client-node, kube-controller-manager, kube-scheduler, simulated kubelet), order ${real.order.join(', ')}`);
    if (predicted.makespanMs === undefined) {
      out('=> FAIL: the simulation did not finish');
      return 1;
    }
    const error = (predicted.makespanMs - real.makespanMs) / real.makespanMs;
    const sameOrder = real.order.join(',') === predicted.admissionOrder.map((a) => a.node).join(',');
    const ok = Math.abs(error) <= 0.1 && sameOrder;
    out(`=> prediction ${error >= 0 ? '+' : ''}${(error * 100).toFixed(1)}% of the testbed's makespan (limit ±10%), admission order ${sameOrder ? 'the same' : 'DIFFERENT'}: ${ok ? 'PASS' : 'FAIL'}`);
    return ok ? 0 : 1;
  } finally {
    await kubelet?.stop().catch(() => undefined);
    await cp.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const program = new Command('bench:sim')
  .addOption(new Option('--only <part>', 'run one part').choices(['hold', 'simulate', 'testbed']))
  .option('--grace <s>', 'testbed part: grace period of every pod, seconds', '30')
  .option('--pod-start <s>', 'testbed part: seconds from binding to Ready', '5')
  .option('--nodes <selector>', 'testbed part: nodes to maintain', 'kmaint.io/pool=general');
program.parse();
const opts = program.opts<{ only?: string; grace: string; podStart: string; nodes: string }>();
out(`bench:sim on ${cpus().length} CPUs (${cpus()[0]?.model ?? ''}), Node ${process.version}; load average ${load()}`);
let code = 0;
if (!opts.only || opts.only === 'hold') await benchHold();
if (!opts.only || opts.only === 'simulate') await benchSimulate();
if (!opts.only || opts.only === 'testbed') code = await benchTestbed({ graceSeconds: Number(opts.grace), podStartMs: Number(opts.podStart) * 1000, selector: opts.nodes });
process.exitCode = code;
