// `npx tsx bench/scale-encodings.ts --dir <testbed dir>`: one LIST of every node in each encoding kmaint could ask
// for (JSON/protobuf, gzip or not, PartialObjectMetadata, Table, page sizes), against a running testbed such as the
// one bench:scale grows: the API server's serving time, bytes on the wire and decoded, watch-cache objects fetched.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';

interface Variant {
  accept: string;
  gzip: boolean;
  /** Page size; 0 = one page. */
  limit: number;
  query?: string;
}

const VARIANTS: Record<string, Variant> = {
  'JSON + gzip, pages of 500 (what kmaint does)': { accept: 'application/json', gzip: true, limit: 500 },
  'JSON, pages of 500': { accept: 'application/json', gzip: false, limit: 500 },
  'JSON + gzip, pages of 5000': { accept: 'application/json', gzip: true, limit: 5000 },
  'JSON + gzip, one page': { accept: 'application/json', gzip: true, limit: 0 },
  'protobuf, pages of 500': { accept: 'application/vnd.kubernetes.protobuf', gzip: false, limit: 500 },
  'protobuf + gzip, pages of 500': { accept: 'application/vnd.kubernetes.protobuf', gzip: true, limit: 500 },
  'PartialObjectMetadata, pages of 500': { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', gzip: false, limit: 500 },
  'Table without objects, pages of 500': { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io', gzip: false, limit: 500, query: 'includeObject=None' },
};

const { values } = parseArgs({ options: { dir: { type: 'string' } } });
if (!values.dir) throw new Error('usage: bench/scale-encodings.ts --dir <testbed dir>');
const kubeconfig = readFileSync(`${values.dir}/kubeconfig`, 'utf8');
const server = /server: (\S+)/.exec(kubeconfig)?.[1] ?? '';
const token = /token: (\S+)/.exec(kubeconfig)?.[1] ?? '';
const ca = readFileSync(`${values.dir}/ca.crt`);

function get(path: string, headers: Record<string, string>): Promise<{ body: Buffer; gzipped: boolean }> {
  return new Promise((done, fail) => {
    request(`${server}${path}`, { ca, headers: { authorization: `Bearer ${token}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ body: Buffer.concat(chunks), gzipped: res.headers['content-encoding'] === 'gzip' }));
    })
      .on('error', fail)
      .end();
  });
}

/** LIST nodes serving seconds and watch-cache objects fetched, from /metrics. */
async function counters(): Promise<{ serving: number; fetched: number }> {
  const text = (await get('/metrics', {})).body.toString();
  let serving = 0;
  let fetched = 0;
  for (const line of text.split('\n')) {
    const value = Number(line.split(' ').pop());
    if (line.startsWith('apiserver_request_duration_seconds_sum{') && line.includes('resource="nodes"') && line.includes('verb="LIST"')) serving += value;
    if (line.startsWith('apiserver_cache_list_fetched_objects_total{') && line.includes('group=""') && line.includes('resource="nodes"')) fetched += value;
  }
  return { serving, fetched };
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

for (const [name, v] of Object.entries(VARIANTS)) {
  const before = await counters();
  let wire = 0;
  let decoded = 0;
  let cont = '';
  do {
    const q = new URLSearchParams({ ...(v.limit > 0 ? { limit: String(v.limit) } : {}), ...(cont ? { continue: cont } : {}) });
    const page = await get(`/api/v1/nodes?${q}${v.query ? `&${v.query}` : ''}`, { accept: v.accept, ...(v.gzip ? { 'accept-encoding': 'gzip' } : {}) });
    const body = page.gzipped ? gunzipSync(page.body) : page.body;
    wire += page.body.length;
    decoded += body.length;
    cont = continueOf(body, v.accept.includes('protobuf'));
  } while (cont);
  const after = await counters();
  const mib = (b: number): string => `${(b / 2 ** 20).toFixed(1)} MiB`;
  process.stdout.write(`| ${name} | ${(after.serving - before.serving).toFixed(2)} s | ${mib(wire)} | ${mib(decoded)} | ${after.fetched - before.fetched} |\n`);
}
