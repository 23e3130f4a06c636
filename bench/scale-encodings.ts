// `npx tsx bench/scale-encodings.ts --dir <testbed dir> [--rounds N] [--kmaint]`: one LIST of every node in each
// encoding kmaint could ask for (JSON/protobuf, gzip or not, PartialObjectMetadata, Table, page sizes), against a
// running testbed such as bench/scale-grow.ts leaves: the API server's serving time and CPU, bytes on the wire and
// decoded, watch-cache objects fetched. With --kmaint, then kmaint's own node LIST (bundled, a process each) at each
// page size, identity and gzip, protobuf and JSON: its wall, CPU and peak RSS beside the API server's cost. Rounds
// interleave the variants, so a burst of load on the shared machine falls on all of them; --only picks the raw variants
// by name, --kmaint-only kmaint's.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { NODE_ESM_BUNDLE } from '../esbuild-options.ts';
import { cpuSeconds } from './scale-api.ts';
import type { ListFigures } from './scale-list-child.ts';

interface Variant {
  accept: string;
  gzip: boolean;
  /** Page size; 0 = one page. */
  limit: number;
  query?: string;
}

const VARIANTS: Record<string, Variant> = {
  'JSON + gzip, pages of 500 (kmaint before identity)': { accept: 'application/json', gzip: true, limit: 500 },
  'JSON, pages of 500': { accept: 'application/json', gzip: false, limit: 500 },
  // Ten times the watch-cache fetches of pages of 500 (they grow as N²/2·limit): what one fetched object costs.
  'JSON, pages of 50': { accept: 'application/json', gzip: false, limit: 50 },
  'JSON, pages of 2000': { accept: 'application/json', gzip: false, limit: 2000 },
  'JSON, pages of 5000': { accept: 'application/json', gzip: false, limit: 5000 },
  'JSON, one page': { accept: 'application/json', gzip: false, limit: 0 },
  'JSON + gzip, pages of 5000': { accept: 'application/json', gzip: true, limit: 5000 },
  'JSON + gzip, one page': { accept: 'application/json', gzip: true, limit: 0 },
  'protobuf, pages of 500': { accept: 'application/vnd.kubernetes.protobuf', gzip: false, limit: 500 },
  // What kmaint's node LISTs ask (shared/kube/node-list-encoding.ts): protobuf, JSON acceptable.
  'protobuf or JSON (kmaint\'s Accept), pages of 500': { accept: 'application/vnd.kubernetes.protobuf, application/json', gzip: false, limit: 500 },
  'protobuf, pages of 5000': { accept: 'application/vnd.kubernetes.protobuf', gzip: false, limit: 5000 },
  'protobuf + gzip, pages of 500': { accept: 'application/vnd.kubernetes.protobuf', gzip: true, limit: 500 },
  'PartialObjectMetadata, pages of 500': { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', gzip: false, limit: 500 },
  'Table without objects, pages of 500': { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io', gzip: false, limit: 500, query: 'includeObject=None' },
};

const { values } = parseArgs({ options: { dir: { type: 'string' }, rounds: { type: 'string', default: '1' }, kmaint: { type: 'boolean', default: false }, only: { type: 'string' }, 'kmaint-only': { type: 'string' }, resource: { type: 'string', default: '/api/v1/nodes' } } });
if (!values.dir) throw new Error('usage: bench/scale-encodings.ts --dir <testbed dir> [--rounds N] [--kmaint] [--only <regexp of variant names>] [--kmaint-only <regexp of kmaint variant names>] [--resource <collection path>]');
/** The collection listed (--resource; nodes by default) and its plural, as /metrics labels it. */
const collection = values.resource ?? '/api/v1/nodes';
const plural = collection.split('/').pop() ?? '';
/** The variants measured: all, or those whose name matches --only ("none" matches none). */
const chosen = Object.entries(VARIANTS).filter(([name]) => values.only === undefined || new RegExp(values.only).test(name));
const dir = resolve(values.dir);
/** kube-apiserver's pid, from the testbed's record of what it started. */
const apiPid = (JSON.parse(readFileSync(join(dir, 'pids.json'), 'utf8')) as Array<{ name: string; pid: number }>).find((p) => p.name === 'kube-apiserver')?.pid ?? 0;
const kubeconfig = readFileSync(`${values.dir}/kubeconfig`, 'utf8');
const server = /server: (\S+)/.exec(kubeconfig)?.[1] ?? '';
const token = /token: (\S+)/.exec(kubeconfig)?.[1] ?? '';
const ca = readFileSync(`${values.dir}/ca.crt`);

function get(path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<{ body: Buffer; gzipped: boolean }> {
  return new Promise((done, fail) => {
    request(`${server}${path}`, { method, ca, headers: { authorization: `Bearer ${token}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ body: Buffer.concat(chunks), gzipped: res.headers['content-encoding'] === 'gzip' }));
    })
      .on('error', fail)
      .end(body);
  });
}

/**
 * One write to the collection (for nodes, as a kubelet's heartbeat would make) before each LIST. The watch cache
 * serves a LIST's continue pages only from a snapshot at the LIST's resourceVersion; on a testbed whose nodes nobody writes, other objects
 * move the resourceVersion past the last node snapshot within minutes and every page after the first is read from
 * etcd (apiserver_storage_list_total counts them) — 2-3x the serving of the cache's pages, and not what a real
 * cluster, where nodes heartbeat all the time, does.
 */
async function touchCollection(): Promise<void> {
  const first = JSON.parse((await get(`${collection}?limit=1`, { accept: 'application/json' })).body.toString()) as { items: Array<{ metadata: { name: string } }> };
  const name = first.items[0]?.metadata.name;
  if (name === undefined) throw new Error(`${collection} is empty`);
  const patch = JSON.stringify({ metadata: { annotations: { 'bench.kmaint.io/touched': new Date().toISOString() } } });
  await get(`${collection}/${name}`, { 'content-type': 'application/merge-patch+json' }, 'PATCH', patch);
}

/** LIST serving seconds, watch-cache objects fetched and LISTs that went to etcd of the collection, from /metrics. */
async function counters(): Promise<{ serving: number; fetched: number; fromEtcd: number }> {
  const text = (await get('/metrics', {})).body.toString();
  let serving = 0;
  let fetched = 0;
  let fromEtcd = 0;
  for (const line of text.split('\n')) {
    const value = Number(line.split(' ').pop());
    if (line.startsWith('apiserver_storage_list_total{') && line.includes(`resource="${plural}"`)) fromEtcd += value;
    if (line.startsWith('apiserver_request_duration_seconds_sum{') && line.includes(`resource="${plural}"`) && line.includes('verb="LIST"')) serving += value;
    if (line.startsWith('apiserver_cache_list_fetched_objects_total{') && line.includes(`resource="${plural}"`)) fetched += value;
  }
  return { serving, fetched, fromEtcd };
}

/** The continue token of a page: JSON's metadata.continue, or in protobuf the base64 token (it starts "eyJ", `{"`). */
function continueOf(body: Buffer, protobuf: boolean): string {
  if (!protobuf) return (JSON.parse(body.toString()) as { metadata?: { continue?: string } }).metadata?.continue ?? '';
  const at = body.indexOf('eyJ');
  if (at < 0) return '';
  let end = at;
  while (end < body.length && /[A-Za-z0-9=_-]/.test(String.fromCharCode(body[end] ?? 0))) end++;
  return body.subarray(at, end).toString();
}

const mib = (b: number): string => `${(b / 2 ** 20).toFixed(1)} MiB`;
const load = (): string => (loadavg()[0] ?? 0).toFixed(1);

/** One LIST of every node as `v` asks for it; prints its row. */
async function measureVariant(name: string, v: Variant): Promise<void> {
  await touchCollection();
  const l = load();
  const before = await counters();
  const cpu0 = cpuSeconds(apiPid);
  let wire = 0;
  let decoded = 0;
  let cont = '';
  do {
    const q = new URLSearchParams({ ...(v.limit > 0 ? { limit: String(v.limit) } : {}), ...(cont ? { continue: cont } : {}) });
    const page = await get(`${collection}?${q}${v.query ? `&${v.query}` : ''}`, { accept: v.accept, ...(v.gzip ? { 'accept-encoding': 'gzip' } : {}) });
    const body = page.gzipped ? gunzipSync(page.body) : page.body;
    wire += page.body.length;
    decoded += body.length;
    cont = continueOf(body, v.accept.includes('protobuf'));
  } while (cont);
  const cpu = cpuSeconds(apiPid) - cpu0;
  const after = await counters();
  process.stdout.write(`| ${name} | ${(after.serving - before.serving).toFixed(2)} s | ${cpu.toFixed(1)} s | ${mib(wire)} | ${mib(decoded)} | ${after.fetched - before.fetched} | ${after.fromEtcd - before.fromEtcd} | ${l} |\n`);
}

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** bench/scale-list-child.ts bundled as kmaint ships (esbuild), in a temporary directory. */
async function listChild(): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), 'kmaint-encodings-'));
  process.on('exit', () => rmSync(out, { recursive: true, force: true }));
  const file = join(out, 'scale-list-child.mjs');
  await build({ entryPoints: [join(REPO, 'bench/scale-list-child.ts')], outfile: file, ...NODE_ESM_BUNDLE });
  return file;
}

/** One of kmaint's own node LISTs: page size, Accept-Encoding and KMAINT_NODE_LIST_ENCODING. */
interface KmaintVariant {
  pageSize: number;
  compress: boolean;
  encoding: 'protobuf' | 'json';
}

const KMAINT_VARIANTS: KmaintVariant[] = [
  { pageSize: 500, compress: true, encoding: 'json' },
  { pageSize: 500, compress: false, encoding: 'json' },
  { pageSize: 500, compress: false, encoding: 'protobuf' },
  { pageSize: 2000, compress: false, encoding: 'json' },
  { pageSize: 2000, compress: false, encoding: 'protobuf' },
  { pageSize: 5000, compress: false, encoding: 'json' },
  { pageSize: 10000, compress: false, encoding: 'json' },
];
const kmaintName = (v: KmaintVariant): string => `kmaint listNodes, pages of ${v.pageSize}, ${v.compress ? 'gzip' : 'identity'}, ${v.encoding}`;

function runList(entry: string, v: KmaintVariant): Promise<ListFigures> {
  const { pageSize, compress } = v;
  return new Promise((done, fail) => {
    const env = { ...process.env, KMAINT_COMPRESS_LISTS: String(compress), KMAINT_NODE_LIST_ENCODING: v.encoding };
    const child = spawn(process.execPath, [entry, '--kubeconfig', join(dir, 'kubeconfig'), '--page-size', String(pageSize)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => (code === 0 ? done(JSON.parse(text.trim()) as ListFigures) : fail(new Error(`scale-list-child exited ${code}: ${err.trim().slice(-300)}`))));
  });
}

/** kmaint's node LIST as `v` asks for it: the client's figures beside the API server's. */
async function measureKmaint(entry: string, v: KmaintVariant): Promise<void> {
  await touchCollection();
  const l = load();
  const before = await counters();
  const cpu0 = cpuSeconds(apiPid);
  const m = await runList(entry, v);
  const cpu = cpuSeconds(apiPid) - cpu0;
  const after = await counters();
  const name = kmaintName(v);
  process.stdout.write(
    `| ${name} | ${(after.serving - before.serving).toFixed(2)} s | ${cpu.toFixed(1)} s | ${after.fetched - before.fetched} | ${after.fromEtcd - before.fromEtcd} | ${m.nodes} | ${(m.wallMs / 1000).toFixed(2)} s | ${(m.cpuMs / 1000).toFixed(2)} s | ${mib(m.peakRssBytes)} | ${l} |\n`,
  );
}

process.stdout.write(`command: npx tsx bench/scale-encodings.ts ${process.argv.slice(2).join(' ')}; ${new Date().toISOString()}\n\n`);
process.stdout.write(`| LIST of all ${plural} | API server serving | API server CPU | wire | decoded | watch-cache objects fetched | LISTs from etcd | load |\n|---|---:|---:|---:|---:|---:|---:|---:|\n`);
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [name, v] of chosen) await measureVariant(name, v);
}
if (values.kmaint && plural !== 'nodes') throw new Error('--kmaint measures the node LIST: leave --resource out');
if (values.kmaint) {
  const entry = await listChild();
  process.stdout.write('\n| kmaint\'s node LIST (bundled, a process each) | API server serving | API server CPU | watch-cache objects fetched | LISTs from etcd | nodes | wall | client CPU | client peak RSS | load |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n');
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const v of KMAINT_VARIANTS.filter((k) => values['kmaint-only'] === undefined || new RegExp(values['kmaint-only']).test(kmaintName(k)))) await measureKmaint(entry, v);
  }
}
