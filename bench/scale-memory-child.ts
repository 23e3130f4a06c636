// One kmaint pass in a process of its own, bundled by bench/scale-memory.ts, with its memory sampled by phase: heap
// used, RSS and external at every request sent and answered (undici's diagnostics channels) and every 5 ms of idle
// event loop. Phases follow the pass's traffic: reading the nodes (LIST nodes), reading the rest (other reads), build
// state and plan (after the last read, before the first write), apply (writes); a page is parsed after its response
// ended, so the last page's parse counts in the phase after reading the nodes. With --parts it then LISTs the nodes
// again and measures the heap the lean snapshot retains (needs --expose-gc). Prints one JSON line.
import { errorMessage } from '../shared/errors/index.ts';
import { subscribe } from 'node:diagnostics_channel';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { parseArgs } from 'node:util';
import { KubeConfig, type V1Node } from '@kubernetes/client-node';
import { KubeClient } from '../shared/kube/index.ts';
import { PASS_FUNCTIONS, runPass, type PassFunction } from '../shared/pass/index.ts';

export type Phase = 'read nodes' | 'read the rest' | 'build state and plan' | 'apply' | 'done';

export interface PhasePeak {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  samples: number;
}

export interface MemoryPass {
  fn: PassFunction;
  execArgv: string[];
  nodes: number;
  wallMs: number;
  cpuMs: number;
  peakRssBytes: number;
  phases: Partial<Record<Phase, PhasePeak>>;
  /** v8.getHeapStatistics when heap used was highest, with the spaces' sizes. */
  atPeak: { total_heap_size: number; used_heap_size: number; heap_size_limit: number; malloced_memory: number; external_memory: number; spaces: Record<string, { size: number; used: number }> };
  /** Heap the lean snapshot of every node retains, bytes (--parts). */
  retained?: number;
}

const usage = (): Omit<PhasePeak, 'samples'> => {
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers };
};

interface Sample extends Omit<PhasePeak, 'samples'> {
  t: number;
}

/** Samples kept with their time; classed into phases at the end, from the times of the traffic. */
function sampler(): { sample: () => void; traffic: { lastNodesEnd: number; lastReadEnd: number; firstWrite: number }; result: (end: number) => { phases: MemoryPass['phases']; atPeak: MemoryPass['atPeak'] } } {
  const samples: Sample[] = [];
  let peakHeap = 0;
  let atPeak: MemoryPass['atPeak'] | undefined;
  const traffic = { lastNodesEnd: 0, lastReadEnd: 0, firstWrite: Infinity };
  const phaseAt = (t: number): Phase =>
    t <= traffic.lastNodesEnd ? 'read nodes' : t <= traffic.lastReadEnd && t < traffic.firstWrite ? 'read the rest' : t < traffic.firstWrite ? 'build state and plan' : 'apply';
  return {
    traffic,
    sample: (): void => {
      const u = usage();
      samples.push({ t: performance.now(), ...u });
      if (u.heapUsed > peakHeap) {
        peakHeap = u.heapUsed;
        const h = getHeapStatistics();
        const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]));
        atPeak = { total_heap_size: h.total_heap_size, used_heap_size: h.used_heap_size, heap_size_limit: h.heap_size_limit, malloced_memory: h.malloced_memory, external_memory: h.external_memory, spaces };
      }
    },
    result: (end: number) => {
      const phases: MemoryPass['phases'] = {};
      for (const u of samples) {
        const p = (phases[u.t > end ? 'done' : phaseAt(u.t)] ??= { rss: 0, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0, samples: 0 });
        p.rss = Math.max(p.rss, u.rss);
        p.heapUsed = Math.max(p.heapUsed, u.heapUsed);
        p.heapTotal = Math.max(p.heapTotal, u.heapTotal);
        p.external = Math.max(p.external, u.external);
        p.arrayBuffers = Math.max(p.arrayBuffers, u.arrayBuffers);
        p.samples++;
      }
      return { phases, atPeak: atPeak as MemoryPass['atPeak'] };
    },
  };
}

/** Samples at every request sent and every response ended, and notes when the reads of nodes, all reads and the writes happened. */
function followTraffic(s: ReturnType<typeof sampler>): void {
  const nodeLists = new WeakSet<object>();
  subscribe('undici:request:create', (m) => {
    const { request } = m as { request: { method: string; path: string } };
    s.sample();
    // The lease is written before the reads: the writes of the plan are those after the nodes were read.
    if (request.method !== 'GET' && s.traffic.lastNodesEnd > 0) s.traffic.firstWrite = Math.min(s.traffic.firstWrite, performance.now());
    else if (request.path.startsWith('/api/v1/nodes') && !request.path.includes('fieldSelector')) nodeLists.add(request);
  });
  subscribe('undici:request:trailers', (m) => {
    const { request } = m as { request: { method: string } };
    s.sample();
    const t = performance.now();
    if (request.method === 'GET' && t < s.traffic.firstWrite) s.traffic.lastReadEnd = t;
    if (nodeLists.has(request)) s.traffic.lastNodesEnd = t;
  });
}

declare const gc: (() => void) | undefined;

function retained(): number {
  if (typeof gc !== 'function') throw new Error('--parts needs node --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/**
 * The heap the lean snapshot of every node retains: one more LIST, measured between two full collections. What each
 * part of a node costs is bench/lean-node-parts.ts's (rebuilding objects here changes their hidden classes and sizes).
 */
async function measureRetained(client: KubeClient): Promise<{ retained: number; nodes: number }> {
  const empty = retained();
  const nodes: V1Node[] = await client.listNodes();
  return { retained: retained() - empty, nodes: nodes.length };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { kubeconfig: { type: 'string' }, fn: { type: 'string' }, namespace: { type: 'string', default: 'kmaint' }, parts: { type: 'boolean', default: false } } });
  const fn = values.fn as PassFunction;
  if (!values.kubeconfig || !PASS_FUNCTIONS.includes(fn)) throw new Error('usage: scale-memory-child --kubeconfig FILE --fn scheduler|drainer|cleanup|reaper [--parts]');
  const kc = new KubeConfig();
  kc.loadFromFile(values.kubeconfig);
  const client = new KubeClient(kc);
  const s = sampler();
  followTraffic(s);
  let timer: NodeJS.Timeout | undefined;
  const tick = (): void => {
    s.sample();
    timer = setTimeout(tick, 5);
  };
  tick();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await runPass(fn, { client, namespace: values.namespace ?? 'kmaint', now: () => new Date() });
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  s.sample();
  clearTimeout(timer);
  const peakRssBytes = process.resourceUsage().maxRSS * 1024;
  const { phases, atPeak } = s.result(performance.now());
  const snapshot = values.parts ? await measureRetained(client) : undefined;
  const nodes = snapshot?.nodes ?? 0;
  const out: MemoryPass = { fn, execArgv: process.execArgv, nodes, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, peakRssBytes, phases, atPeak, ...(snapshot ? { retained: snapshot.retained } : {}) };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`scale-memory-child: ${errorMessage(err, { stack: true })}\n`);
    process.exit(1);
  },
);
