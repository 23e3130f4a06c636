// One kmaint pass in a process of its own for the scale benchmark, bundled (bench/scale.ts builds it): prints one
// JSON line with wall, CPU, peak RSS and the response bytes on the wire and decoded.
import { errorMessage } from '../shared/errors/index.ts';
import { subscribe } from 'node:diagnostics_channel';
import { createBrotliDecompress, createGunzip, createInflate, type Gunzip } from 'node:zlib';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../shared/kube/index.ts';
import { PASS_FUNCTIONS, runPass, type PassFunction } from '../shared/pass/index.ts';

export interface ScalePass {
  fn: PassFunction;
  wallMs: number;
  cpuMs: number;
  peakRssBytes: number;
  /** Response body bytes as they came over the wire (compressed when the API server gzipped them). */
  wireBytes: number;
  /** Response body bytes after decompression: the JSON the pass parsed. */
  decodedBytes: number;
  requests: Record<string, number>;
  actions: Record<string, number>;
  errors: number;
}

/**
 * Counts response bodies from undici's diagnostics channels: chunks as received, and the same chunks through a
 * decompressor of their Content-Encoding (on libuv's thread pool: its CPU is in the pass's CPU figure, a few per cent
 * of JSON.parse's). Nothing of kmaint's is changed or wrapped.
 */
function countBodies(): { wire: number; decoded: number; settle: () => Promise<void> } {
  const totals = { wire: 0, decoded: 0 };
  const inflaters = new WeakMap<object, Gunzip | ReturnType<typeof createBrotliDecompress>>();
  const pending = new Set<Promise<void>>();
  subscribe('undici:request:headers', (m) => {
    const { request, response } = m as { request: object; response: { headers: Buffer[] } };
    let encoding = '';
    for (let i = 0; i + 1 < response.headers.length; i += 2) if (String(response.headers[i]).toLowerCase() === 'content-encoding') encoding = String(response.headers[i + 1]);
    if (!encoding) return;
    const z = encoding === 'gzip' ? createGunzip() : encoding === 'br' ? createBrotliDecompress() : createInflate();
    z.on('data', (d: Buffer) => (totals.decoded += d.length));
    pending.add(new Promise((r) => z.on('end', r).on('error', r)));
    inflaters.set(request, z);
  });
  subscribe('undici:request:bodyChunkReceived', (m) => {
    const { request, chunk } = m as { request: object; chunk: Buffer };
    totals.wire += chunk.length;
    const z = inflaters.get(request);
    if (z) z.write(chunk);
    else totals.decoded += chunk.length;
  });
  subscribe('undici:request:trailers', (m) => inflaters.get((m as { request: object }).request)?.end());
  return { get wire() { return totals.wire; }, get decoded() { return totals.decoded; }, settle: async () => void (await Promise.all(pending)) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { kubeconfig: { type: 'string' }, fn: { type: 'string' }, namespace: { type: 'string', default: 'kmaint' } } });
  const fn = values.fn as PassFunction;
  if (!values.kubeconfig || !PASS_FUNCTIONS.includes(fn)) throw new Error('usage: scale-child --kubeconfig FILE --fn scheduler|drainer|cleanup|reaper');
  const kc = new KubeConfig();
  kc.loadFromFile(values.kubeconfig);
  const client = new KubeClient(kc);
  const bodies = countBodies();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const summary = await runPass(fn, { client, namespace: values.namespace ?? 'kmaint', now: () => new Date() });
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const peakRssBytes = process.resourceUsage().maxRSS * 1024;
  await bodies.settle();
  const out: ScalePass = {
    fn,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    peakRssBytes,
    wireBytes: bodies.wire,
    decodedBytes: bodies.decoded,
    requests: summary.requests,
    actions: summary.actions,
    errors: summary.errors.length,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`scale-child: ${errorMessage(err)}\n`);
    process.exit(1);
  },
);
