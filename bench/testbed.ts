// `npm run bench:testbed -- [--profile small|large] [--nodes N] [--seed S]`: the testbed's speed and scale
// figures (issue 3). Prints measurements, asserts nothing; progress goes to stderr, figures to stdout.
import { forEachBounded } from '../shared/concurrency/index.ts';
import { errorMessage } from '../shared/errors/index.ts';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import { Command, Option } from 'commander';
import { withNodeOwnerUid } from '../sim/generator/apply.ts';
import { createCluster, generateCluster, preboundPods, type GeneratedCluster } from '../sim/generator/index.ts';
import { SimKubelet } from '../sim/kubelet/index.ts';
import { ensureBinaries } from '../testbed/build.ts';
import { isAlive, listeningSockets, portsOf } from '../testbed/processes.ts';
import { startControlPlane, stopTestbedDir, testbedPids, type ControlPlane } from '../testbed/start.ts';
import { kubeConfigFrom } from '../testbed/testbed.ts';
import { pinnedVersions } from '../testbed/versions.ts';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
/** Large-profile settings: a kubelet that keeps 5,000 nodes alive without flooding the API server. */
const LARGE = {
  /** Unchanged node status is re-posted every 5 min, as the real kubelet's nodeStatusReportFrequency. */
  nodeStatusIntervalMs: 300_000,
  /** Three missed 40 s heartbeats before a node turns NotReady (the default 50 s allows barely one). */
  nodeMonitorGraceSeconds: 120,
  /**
   * Lease and status writes in flight. The API server shares itself among requests in flight (no priority
   * and fairness on the testbed), so with 32, as many as the pod creates, heartbeats fell minutes behind
   * and nodes went NotReady while the pods were being created.
   */
  heartbeatConcurrency: 128,
  createConcurrency: 32,
  pageSize: 500,
  steadyWindowMs: 60_000,
};

const started = Date.now();
const out = (line: string): void => void process.stdout.write(`${line}\n`);
const progress = (line: string): void => void process.stderr.write(`[${secs(Date.now() - started)}] ${line}\n`);
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const fmt = (n: number): string => n.toLocaleString('en-US');

/** VmRSS and VmHWM (peak) of a process, in MiB, from /proc/<pid>/status. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: Math.round(kib('VmRSS') / 1024), peak: Math.round(kib('VmHWM') / 1024) };
}

/** User + system CPU seconds a process has used, from /proc/<pid>/stat (clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function cpuLine(pids: Array<{ name: string; pid: number }>, since: Map<number, number>, wallMs: number): string {
  return pids.filter((p) => isAlive(p.pid)).map((p) => {
    const used = cpuSeconds(p.pid) - (since.get(p.pid) ?? 0);
    return `${p.name} ${Math.round(used)} s (${Math.round((used / (wallMs / 1000)) * 100)}%)`;
  }).join(', ');
}

function memoryLine(pids: Array<{ name: string; pid: number }>): string {
  return pids.filter((p) => isAlive(p.pid)).map((p) => {
    const m = memoryOf(p.pid);
    return `${p.name} ${fmt(m.rss)} MiB (peak ${fmt(m.peak)})`;
  }).join(', ');
}

function leftovers(pids: number[], ports: number[]): string {
  const alive = pids.filter(isAlive);
  const listening = new Set(listeningSockets().values());
  const open = ports.filter((p) => listening.has(p));
  return `${alive.length} of ${pids.length} processes left${alive.length ? ` (${alive.join(', ')})` : ''}, ` +
    `${open.length} of ${ports.length} listening ports left${open.length ? ` (${open.join(', ')})` : ''}`;
}

interface Conn {
  server: string;
  token: string;
  ca: Buffer;
  agent: Agent;
}

function connFor(kc: KubeConfig, caFile: string): Conn {
  return { server: kc.getCurrentCluster()?.server ?? '', token: kc.getCurrentUser()?.token ?? '', ca: readFileSync(caFile), agent: new Agent({ keepAlive: true }) };
}

function getJson(conn: Conn, path: string): Promise<{ body: { metadata?: { continue?: string }; items?: unknown[] }; bytes: number }> {
  return new Promise((done, fail) => {
    const req = request(`${conn.server}${path}`, { ca: conn.ca, agent: conn.agent, headers: { authorization: `Bearer ${conn.token}`, accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks);
        if (res.statusCode !== 200) return fail(new Error(`GET ${path}: HTTP ${res.statusCode}: ${text.toString().slice(0, 200)}`));
        done({ body: JSON.parse(text.toString()) as { metadata?: { continue?: string }; items?: unknown[] }, bytes: text.length });
      });
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });
}

/** Every page of a LIST (limit 500), each page decoded; calls `each` per item. */
async function listAll(conn: Conn, path: string, fieldSelector?: string, each?: (item: unknown) => void): Promise<{ ms: number; items: number; pages: number; mib: number }> {
  const t = performance.now();
  let items = 0;
  let pages = 0;
  let bytes = 0;
  let token: string | undefined;
  do {
    const q = new URLSearchParams({ limit: String(LARGE.pageSize), ...(fieldSelector ? { fieldSelector } : {}), ...(token ? { continue: token } : {}) });
    const page = await getJson(conn, `${path}?${q}`);
    pages++;
    bytes += page.bytes;
    for (const item of page.body.items ?? []) {
      items++;
      each?.(item);
    }
    token = page.body.metadata?.continue || undefined;
  } while (token);
  return { ms: performance.now() - t, items, pages, mib: bytes / 2 ** 20 };
}

async function listLatency(conn: Conn, what: string, path: string, fieldSelector?: string): Promise<void> {
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await listAll(conn, path, fieldSelector));
  const last = runs.at(-1);
  out(`  LIST ${what}: median ${fmt(Math.round(median(runs.map((r) => r.ms))))} ms (runs ${runs.map((r) => Math.round(r.ms)).join(', ')} ms; ` +
    `${fmt(last?.items ?? 0)} items, ${last?.pages} pages, ${last?.mib.toFixed(1)} MiB)`);
}

type Obj = { metadata?: { name?: string; deletionTimestamp?: string }; spec?: { taints?: Array<{ key: string }>; renewTime?: string }; status?: { phase?: string; conditions?: Array<{ type: string; status: string }> } };
const ready = (o: Obj) => o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const nodeReady = (o: Obj) => ready(o) && !(o.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/not-ready' || t.key === 'node.kubernetes.io/unreachable');
const podSettled = (o: Obj) => o.status?.phase === 'Succeeded' || (o.status?.phase === 'Running' && ready(o));

/** Nodes Ready and pods settled, counted from paged LISTs. */
async function census(conn: Conn): Promise<{ nodes: number; readyNodes: number; pods: number; settled: number }> {
  let readyNodes = 0;
  let settled = 0;
  const nodes = await listAll(conn, '/api/v1/nodes', undefined, (n) => {
    if (nodeReady(n as Obj)) readyNodes++;
  });
  const pods = await listAll(conn, '/api/v1/pods', undefined, (p) => {
    if (podSettled(p as Obj)) settled++;
  });
  return { nodes: nodes.items, readyNodes, pods: pods.items, settled };
}

function machine(): string {
  const v = pinnedVersions();
  return `machine: ${cpus().length} CPUs (${cpus()[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}; ` +
    `Kubernetes ${v.kubernetes}, etcd ${v.etcd}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at start`;
}

function otherApiServers(): string[] {
  try {
    return execFileSync('pgrep', ['-x', 'kube-apiserver'], { encoding: 'utf8' }).trim().split('\n');
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** Another testbed on this 2-core machine distorts every figure: wait for it to go, or say it was there. */
async function waitForOtherTestbeds(minutes: number): Promise<string> {
  const deadline = Date.now() + minutes * 60_000;
  for (;;) {
    const pids = otherApiServers();
    if (pids.length === 0) return '';
    if (Date.now() > deadline) return `NOTE: another testbed was running throughout (kube-apiserver pids ${pids.join(', ')}); figures are pessimistic`;
    progress(`another testbed is running (kube-apiserver pids ${pids.join(', ')}); waiting`);
    await sleep(20_000);
  }
}

/** Small profile through the CLI, as a developer runs it: `up`, then `down`. */
async function benchSmall(opts: { nodes?: number; seed: number }): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-testbed-bench-'));
  const cli = (args: string[], onLine: (l: string, ms: number) => void) =>
    new Promise<number | null>((done) => {
      const t = Date.now();
      const child = spawn(process.execPath, ['--import', 'tsx', 'testbed/cli.ts', ...args], { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] });
      let buf = '';
      child.stderr.on('data', (d: Buffer) => {
        buf += d.toString();
        const lines = buf.split('\n');
        buf = lines.pop() ?? '';
        for (const l of lines) onLine(l, Date.now() - t);
      });
      child.on('exit', (code) => done(code));
    });
  const phases: string[] = [];
  const upStarted = Date.now();
  const upCode = await cli(['up', '--dir', dir, '--profile', 'small', '--seed', String(opts.seed), ...(opts.nodes ? ['--nodes', String(opts.nodes)] : [])], (l, ms) => {
    progress(l);
    const phase = /^\[testbed\] (etcd ready|kube-apiserver ready|kube-controller-manager and kube-scheduler healthy|\d+\/\d+ nodes Ready, \d+\/\d+ pods running)/.exec(l)?.[1];
    if (phase) phases.push(`${phase.replace(' and kube-scheduler', '+scheduler')} at ${secs(ms)}`);
  });
  const upMs = Date.now() - upStarted;
  out(`testbed bench: profile small${opts.nodes ? ` (--nodes ${opts.nodes})` : ''}, seed ${opts.seed}`);
  out(machine());
  if (upCode !== 0) {
    out(`up FAILED (exit ${upCode}) after ${secs(upMs)}; see the log above`);
    process.exitCode = 1;
    return;
  }
  out(`up: ${secs(upMs)} from starting \`testbed up\` to its exit (control plane, simulated kubelet, cluster ready)`);
  out(`  ${phases.join('; ')}`);
  const pids = testbedPids(dir);
  const ports = portsOf(pids.map((p) => p.pid));
  out(`  memory: ${memoryLine(pids)}`);
  const downStarted = Date.now();
  const downCode = await cli(['down', '--dir', dir], (l) => progress(l));
  out(`down: exit ${downCode} in ${secs(Date.now() - downStarted)}; ${leftovers(pids.map((p) => p.pid), ports)}; DIR ${existsSync(dir) ? 'still there' : 'removed'}`);
}

/** Large profile in-process: control plane, one SimKubelet for every node, bounded creation of the bound pods. */
async function benchLarge(opts: { nodes?: number; seed: number; heartbeatMs: number; budgetMinutes: number }): Promise<void> {
  const deadline = Date.now() + opts.budgetMinutes * 60_000;
  const cluster = generateCluster({ profile: 'large', seed: opts.seed, ...(opts.nodes ? { nodes: opts.nodes } : {}) });
  out(`testbed bench: profile large, ${fmt(cluster.nodes.length)} nodes, ${fmt(cluster.expectedPods)} pods (prebound), seed ${opts.seed}`);
  out(machine());
  out(`settings: heartbeat ${opts.heartbeatMs / 1000} s (${LARGE.heartbeatConcurrency} in flight), node status every ${LARGE.nodeStatusIntervalMs / 1000} s, ` +
    `pod sync watch, node-monitor-grace ${LARGE.nodeMonitorGraceSeconds} s, ${LARGE.createConcurrency} pod creates in flight, budget ${opts.budgetMinutes} min`);
  await ensureBinaries({ log: progress });
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-testbed-bench-'));
  // Ctrl-C still stops every process this run started.
  process.once('SIGINT', () => void stopTestbedDir(dir).finally(() => process.exit(130)));
  const t0 = Date.now();
  const cp = await startControlPlane({ dir, nodeMonitorGraceSeconds: LARGE.nodeMonitorGraceSeconds, log: progress });
  const phase = (name: string) => out(`  ${name}: ${secs(Date.now() - t0)}`);
  const admin = kubeConfigFrom(cp.kubeconfigPath);
  const conn = connFor(admin, cp.caFile);
  const kubelet = new SimKubelet({
    kubeConfig: kubeConfigFrom(cp.kubeconfigFor('kmaint-sim-kubelet')),
    nodes: cluster.nodes,
    heartbeatIntervalMs: opts.heartbeatMs,
    nodeStatusIntervalMs: LARGE.nodeStatusIntervalMs,
    heartbeatConcurrency: LARGE.heartbeatConcurrency,
    podSync: 'watch',
  });
  const leases = new LeaseWatch(conn);
  const components = [...cp.components.map((c) => ({ name: c.name, pid: c.pid })), { name: 'bench+sim-kubelet (node)', pid: process.pid }];
  const cpuAtStart = new Map(components.map((c) => [c.pid, cpuSeconds(c.pid)]));
  let created = 0;
  let notReady = '';
  const ticker = setInterval(() => {
    const s = kubelet.stats();
    leases.sample();
    progress(`pods created ${fmt(created)}/${fmt(cluster.expectedPods)}, kubelet started ${fmt(s.pods.started)} (tracking ${fmt(s.pods.tracked)}); ` +
      `oldest node lease ${leases.last.toFixed(0)} s; ${memoryLine(components.slice(0, 2))}`);
  }, 15_000);
  try {
    out('time to ready:');
    phase('control plane healthy');
    await kubelet.start();
    phase(`${fmt(cluster.nodes.length)} nodes registered and Ready (simulated kubelet)`);
    // PDBs come last, so the disruption controller counts each budget's pods once rather than after every
    // pod start (each count scans the namespace: 15,000 pods at this size). The end state is the same.
    const { prebound: _prebound, ...controllers } = cluster;
    const pdbs = cluster.workloads.podDisruptionBudgets;
    await createCluster(admin, { ...controllers, workloads: { ...cluster.workloads, podDisruptionBudgets: [] } });
    phase('namespaces, StatefulSet and Job created');
    const abort = new AbortController();
    const budget = setTimeout(() => abort.abort(new Error(`budget of ${opts.budgetMinutes} min spent`)), deadline - Date.now());
    try {
      const createStarted = Date.now();
      const cpuBefore = new Map(components.map((c) => [c.pid, cpuSeconds(c.pid)]));
      created = await createBoundPods(conn, cluster, abort.signal, (n) => (created = n));
      phase(`${fmt(created)} bound pods created (${Math.round(created / ((Date.now() - createStarted) / 1000))}/s)`);
      out(`    CPU while creating them: ${cpuLine(components, cpuBefore, Date.now() - createStarted)}`);
      const none = { services: [], deployments: [], statefulSets: [], daemonSets: [], jobs: [], pods: [] };
      await createCluster(admin, { ...controllers, namespaces: [], workloads: { ...none, podDisruptionBudgets: pdbs } });
      phase(`${fmt(pdbs.length)} PodDisruptionBudgets created`);
      while (kubelet.stats().pods.started < cluster.expectedPods && !abort.signal.aborted) await sleep(1000);
      phase(`simulated kubelet started ${fmt(kubelet.stats().pods.started)} pods`);
      for (;;) {
        const c = await census(conn);
        notReady = `${fmt(c.readyNodes)}/${fmt(cluster.nodes.length)} nodes Ready, ${fmt(c.settled)}/${fmt(cluster.expectedPods)} pods running (${fmt(c.pods)} listed)`;
        if (c.readyNodes >= cluster.nodes.length && c.settled >= cluster.expectedPods) break;
        if (abort.signal.aborted) throw abort.signal.reason;
        progress(notReady);
        await sleep(5000);
      }
      phase(`READY, checked by paged LIST (${notReady})`);
      notReady = '';
    } catch (err) {
      const s = kubelet.stats();
      notReady = `NOT READY after ${secs(Date.now() - t0)}: ${errorMessage(err)}; ` +
        `${fmt(created)} pods created, kubelet started ${fmt(s.pods.started)}${notReady ? `; last census ${notReady}` : ''}`;
      out(`  ${notReady}`);
      out('  (the figures below are for the cluster as far as it got)');
    } finally {
      clearTimeout(budget);
    }
    clearInterval(ticker);
    const wall = Date.now() - t0;
    out(`CPU used since the control plane started (${secs(wall)} wall, ${cpus().length} cores): ${cpuLine(components, cpuAtStart, wall)}; ` +
      `load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    out(`memory (VmRSS, peak VmHWM): ${memoryLine(components)}`);
    out(`disk: etcd db ${(dbSize(dir) / 2 ** 20).toFixed(0)} MiB, audit log ${(statSync(cp.audit.path).size / 2 ** 20).toFixed(0)} MiB`);
    out('LIST latency (paged 500, wall time incl. JSON decoding, 3 runs):');
    await listLatency(conn, 'all nodes', '/api/v1/nodes');
    await listLatency(conn, 'all pods', '/api/v1/pods');
    const node = cluster.nodes[Math.floor(cluster.nodes.length / 2)]?.metadata?.name ?? '';
    await listLatency(conn, `pods of one node (fieldSelector=spec.nodeName=${node})`, '/api/v1/pods', `spec.nodeName=${node}`);
    await steadyState(cp, conn, kubelet, cluster, opts.heartbeatMs);
    const evicted = kubelet.stats().pods.deleted;
    out(`oldest node lease seen during the run (sampled every 15 s): ${leases.oldest.toFixed(0)} s (NotReady after ${LARGE.nodeMonitorGraceSeconds} s)` +
      `${evicted > 0 ? `; ${fmt(evicted)} pods were deleted, i.e. evicted from nodes that went NotReady` : '; no pod was evicted'}`);
  } finally {
    clearInterval(ticker);
    progress('stopping');
    const pids = testbedPids(cp.dir).map((p) => p.pid);
    const ports = portsOf(pids.filter(isAlive));
    const stopStarted = Date.now();
    await kubelet.stop();
    await cp.stop();
    conn.agent.destroy();
    out(`down: ${secs(Date.now() - stopStarted)}; ${leftovers(pids, ports)}; DIR ${existsSync(cp.dir) ? 'still there' : 'removed'}`);
  }
}

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';

/** Seconds since each node Lease was renewed, ascending. */
async function leaseAges(conn: Conn): Promise<number[]> {
  const now = Date.now();
  const ages: number[] = [];
  await listAll(conn, LEASES, undefined, (l) => {
    const renew = (l as Obj).spec?.renewTime;
    if (renew) ages.push((now - Date.parse(renew)) / 1000);
  });
  return ages.sort((a, b) => a - b);
}

/** The oldest node Lease, sampled now and then while the cluster loads: did the kubelet keep up? */
class LeaseWatch {
  last = 0;
  oldest = 0;
  private busy = false;
  constructor(private readonly conn: Conn) {}

  sample(): void {
    if (this.busy) return;
    this.busy = true;
    leaseAges(this.conn).then(
      (ages) => {
        this.last = ages.at(-1) ?? 0;
        this.oldest = Math.max(this.oldest, this.last);
        this.busy = false;
      },
      () => (this.busy = false),
    );
  }
}

/** Requests the API server saw per user over a quiet minute, node lease ages, node readiness. */
async function steadyState(cp: ControlPlane, conn: Conn, kubelet: SimKubelet, cluster: GeneratedCluster, heartbeatMs: number): Promise<void> {
  await cp.audit.sync(60_000);
  const mark = cp.audit.mark();
  progress(`steady state: watching ${LARGE.steadyWindowMs / 1000} s`);
  await sleep(LARGE.steadyWindowMs);
  await cp.audit.sync(60_000);
  const perUser = new Map<string, Record<string, number>>();
  for (const e of cp.audit.entries({ since: mark })) {
    const counts = perUser.get(e.user) ?? {};
    counts[`${e.verb} ${e.resource}`] = (counts[`${e.verb} ${e.resource}`] ?? 0) + 1;
    perUser.set(e.user, counts);
  }
  const window = LARGE.steadyWindowMs / 1000;
  out(`steady state, requests/s over ${window} s by user (audit log; the kubelet's Lease renewals are not audited, ${(cluster.nodes.length / (heartbeatMs / 1000)).toFixed(1)}/s by design):`);
  for (const [user, counts] of [...perUser].sort()) {
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const top = Object.entries(counts).sort((a, b) => b[1] - a[1]).slice(0, 4).map(([k, n]) => `${k} ${(n / window).toFixed(1)}`).join(', ');
    out(`  ${user}: ${(total / window).toFixed(1)}/s (${top})`);
  }
  const ages = await leaseAges(conn);
  const c = await census(conn);
  out(`  node leases: ${fmt(ages.length)}, age median ${median(ages).toFixed(1)} s, max ${(ages.at(-1) ?? NaN).toFixed(1)} s; ` +
    `${fmt(c.readyNodes)}/${fmt(c.nodes)} nodes Ready, ${fmt(c.settled)}/${fmt(c.pods)} pods running`);
  out(`simulated kubelet stats(): ${JSON.stringify(kubelet.stats())}`);
}

/**
 * The bound pods, at most LARGE.createConcurrency creates in flight over kept-alive connections (client-node
 * opens a TLS connection per request); 409 counts as created, so a rerun is harmless.
 */
async function createBoundPods(conn: Conn, cluster: GeneratedCluster, signal: AbortSignal, onCount: (n: number) => void): Promise<number> {
  const nodeUids = new Map<string, string>();
  await listAll(conn, '/api/v1/nodes', undefined, (n) => {
    const { name, uid } = (n as { metadata?: { name?: string; uid?: string } }).metadata ?? {};
    if (name && uid) nodeUids.set(name, uid);
  });
  let count = 0;
  await forEachBounded(preboundPods(cluster), { limit: LARGE.createConcurrency, signal }, async (pod) => {
    const namespace = pod.metadata?.namespace ?? 'default';
    const body = JSON.stringify(withNodeOwnerUid(pod, nodeUids));
    for (let attempt = 0; ; attempt++) {
      const { status, text } = await post(conn, `/api/v1/namespaces/${namespace}/pods`, body).catch((err: unknown) => ({ status: 0, text: String(err) }));
      if (status === 201 || status === 409) break;
      // 0: the connection failed; 403: the ServiceAccount admission cache has not seen `default` yet.
      if (attempt < 6 && (status === 0 || status === 429 || status === 403 || status >= 500)) {
        await sleep(200 * 2 ** attempt);
        continue;
      }
      throw new Error(`creating Pod ${namespace}/${pod.metadata?.name}: HTTP ${status}: ${text.slice(0, 300)}`);
    }
    onCount(++count);
  });
  return count;
}

function post(conn: Conn, path: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((done, fail) => {
    const headers = { authorization: `Bearer ${conn.token}`, 'content-type': 'application/json', accept: 'application/json' };
    const req = request(`${conn.server}${path}`, { method: 'POST', ca: conn.ca, agent: conn.agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode ?? 0, text: res.statusCode === 201 ? '' : Buffer.concat(chunks).toString() }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(body);
  });
}

function dbSize(dir: string): number {
  try {
    return statSync(join(dir, 'etcd-data', 'member', 'snap', 'db')).size;
  } catch {
    return NaN;
  }
}

const program = new Command('bench:testbed')
  .addOption(new Option('--profile <p>', 'cluster profile').choices(['small', 'large']).default('small'))
  .option('--nodes <n>', 'override the profile\'s node count', (v) => Number.parseInt(v, 10))
  .option('--seed <s>', 'generator seed', (v) => Number.parseInt(v, 10), 1)
  .option('--heartbeat <ms>', 'large profile: Lease renewal interval of the simulated kubelet', (v) => Number.parseInt(v, 10), 40_000)
  .option('--budget-minutes <m>', 'large profile: give up (and say how far it got) after this long', (v) => Number(v), 25)
  .option('--wait-minutes <m>', 'wait this long for other testbeds on the machine to finish first', (v) => Number(v), 30)
  .action(async (o: { profile: 'small' | 'large'; nodes?: number; seed: number; heartbeat: number; budgetMinutes: number; waitMinutes: number }) => {
    const note = await waitForOtherTestbeds(o.waitMinutes);
    out(`command: npm run bench:testbed -- ${process.argv.slice(2).join(' ')}`.trimEnd());
    if (note) out(note);
    if (o.profile === 'small') await benchSmall(o);
    else await benchLarge({ ...o, heartbeatMs: o.heartbeat });
    const others = otherApiServers();
    out(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at end${others.length ? `; other kube-apiservers running now: ${others.join(', ')}` : ''}`);
  });

try {
  await program.parseAsync(process.argv);
  process.exit(process.exitCode ?? 0);
} catch (err) {
  process.stderr.write(`bench:testbed: ${errorMessage(err).split('\n')[0]}\n`);
  process.exit(1);
}
