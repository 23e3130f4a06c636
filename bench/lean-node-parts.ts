// `node --expose-gc --import tsx bench/lean-node-parts.ts [--nodes 5000] [--distinct-times]`: what the lean node
// snapshot retains of heap a node, and what each part of it costs: the nodes of bench/scale-nodes.ts, in pages of 500
// as a LIST returns them, through leanNode with a pool a page (as LeanNodeListProcessor does), once whole and once
// with each part left out of the raw node. No API server: the retained heap of the same objects the pass keeps.
// --distinct-times gives every node its own condition times (the bench's nodes all share one instant). --protobuf: the
// same pages encoded as the API server's protobuf and decoded by node-protobuf.ts, the whole node only.
import { parseArgs } from 'node:util';
import { leanNode } from '../shared/kube/lean-nodes.ts';
import { decodeNodeListProtobuf } from '../shared/kube/node-protobuf.ts';
import { nodeListBody } from '../shared/kube/protobuf-test-bodies.ts';
import { StringPool } from '../shared/kube/string-pool.ts';
import { gpuNode, type NodeJson } from './scale-nodes.ts';

declare const gc: (() => void) | undefined;
type Raw = Parameters<typeof leanNode>[0];
type Meta = NodeJson['metadata'] & { creationTimestamp?: string };

const { values } = parseArgs({ options: { nodes: { type: 'string', default: '5000' }, 'distinct-times': { type: 'boolean', default: false }, protobuf: { type: 'boolean', default: false } } });
const N = Number(values.nodes);
const PAGE = 500;
if (typeof gc !== 'function') throw new Error('run with node --expose-gc');
const collect = gc;
const now = new Date('2026-11-28T00:00:00Z');

/** Pages of JSON text as the API server serves them (uid, resourceVersion and creationTimestamp added). */
const pages: string[] = [];
for (let p = 0; p < N; p += PAGE) {
  const items = Array.from({ length: Math.min(PAGE, N - p) }, (_, k) => {
    const i = p + k;
    const n = gpuNode(i, values['distinct-times'] ? new Date(now.getTime() + i * 1000) : now);
    return { ...n, metadata: { ...n.metadata, uid: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`, resourceVersion: String(1000 + i), creationTimestamp: now.toISOString() } };
  });
  pages.push(JSON.stringify({ items }));
}

function heapUsed(): number {
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}

const without = (key: keyof Meta) => (raw: Raw): Raw => {
  const { [key]: _dropped, ...metadata } = raw.metadata as Meta;
  return { ...raw, metadata };
};
const variants: Array<[string, (raw: Raw) => Raw]> = [
  ['whole', (raw) => raw],
  ['without the conditions\' times', (raw) => ({ ...raw, status: { conditions: (raw.status?.conditions ?? []).map(({ lastHeartbeatTime: _h, lastTransitionTime: _t, ...c }) => c) } })],
  ['without the conditions', ({ status: _s, ...raw }) => raw],
  ['without labels', without('labels')],
  ['without annotations', without('annotations')],
  ['without creationTimestamp', without('creationTimestamp')],
  ['without spec', ({ spec: _s, ...raw }) => raw],
];

if (values.protobuf) {
  const bodies = pages.map((text) => nodeListBody((JSON.parse(text) as { items: unknown[] }).items, {}));
  pages.length = 0;
  for (const round of ['warm-up', 'whole (protobuf)']) {
    const before = heapUsed();
    const kept: unknown[] = [];
    for (const body of bodies) kept.push(...decodeNodeListProtobuf(body, new StringPool()).items);
    const perNode = (heapUsed() - before) / N;
    kept.length = 0;
    if (round !== 'warm-up') process.stdout.write(`${round}: ${perNode.toFixed(0)} B/node\n`);
  }
  process.exit(0);
}

let whole = 0;
// A first round unmeasured: the hidden classes and code of leanNode are made once, not per node.
for (const [name, shape] of [['warm-up', (raw: Raw) => raw] as const, ...variants]) {
  const before = heapUsed();
  const kept: unknown[] = [];
  for (const text of pages) {
    const pool = new StringPool();
    for (const raw of (JSON.parse(text) as { items: Raw[] }).items) kept.push(leanNode(shape(raw), pool));
  }
  const perNode = (heapUsed() - before) / N;
  kept.length = 0;
  if (name === 'warm-up') continue;
  if (name === 'whole') whole = perNode;
  process.stdout.write(`${name}: ${perNode.toFixed(0)} B/node${name === 'whole' ? '' : ` (the part: ${(whole - perNode).toFixed(0)} B)`}\n`);
}
