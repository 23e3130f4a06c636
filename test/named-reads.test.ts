// Issue 34: on a cluster at or above spec.namedReadsFromNodes (1 here), the drainer and cleanup read only the Nodes
// their requests name between full reads, and still drain and release; once spec.fullReadEverySeconds has passed a full
// read's sweep lifts an orphaned cordon. Node reads are counted from the API server's audit log, by the Nodes they
// select. The passes' clock is injected (a record 600 s old is made by running a pass 600 s on), never slept for.
// Then node LISTs in protobuf (shared/kube/node-protobuf.ts), full and by name, read through KubeClient exactly the
// Nodes the JSON LISTs read: GPU-shaped nodes as bench:scale makes them, one cordoned by kubectl (whose managedFields
// entry is what cleanup's cordon-owner check reads), and the testbed's own nodes.
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig, PatchStrategy, setHeaderOptions, type V1Node } from '@kubernetes/client-node';
import { gpuNode, nodeName } from '../bench/scale-nodes.ts';
import { ANNOTATION_FULL_NODE_READ_NODES, ANNOTATION_FULL_NODE_READ_TIME, type Action } from '../shared/api/index.ts';
import { HttpTransport } from '../shared/kube/http-transport.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { NODE_LIST_ACCEPT_PROTOBUF, type NodeListEncoding } from '../shared/kube/node-list-encoding.ts';
import { applyActions, type ApplyResult } from '../shared/pass/apply.ts';
import { auditLog, holdKubeletStatusPosts, kmaintKubeConfig, kubectl, testbed } from './support/cluster.ts';
import { KMAINT_NS, admin, createNM, deleteNM, generalNodes, getNM, isUnschedulable, nodes, pass, phaseOf, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';
import { rawApi } from './support/raw-api.ts';

const ns = `nr-${randomBytes(3).toString('hex')}`;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const RECORD_KEYS = [ANNOTATION_FULL_NODE_READ_TIME, ANNOTATION_FULL_NODE_READ_NODES];
/** The passes' clock: real time at the start, moved on by hand. */
const T0 = Date.now();
const at = (seconds: number): Date => new Date(T0 + seconds * 1000);

let drained = '';
let orphaned = '';

/** The Node reads kmaint made since `mark`: the name each selected, or "every node" for a LIST of all. */
async function nodeReadsSince(mark: number): Promise<string[]> {
  const audit = auditLog();
  await audit.sync();
  const reads = audit.entries({ since: mark, user: testbed().kmaintUser, resource: 'nodes' }).filter((e) => e.verb === 'list' || e.verb === 'get');
  return reads.map((e) => `${e.verb} ${new URL(e.uri, 'https://x').searchParams.get('fieldSelector') ?? 'every node'}`);
}

async function markNow(): Promise<number> {
  const audit = auditLog();
  await audit.sync();
  return audit.mark();
}

async function leaseRecord(fn: string): Promise<Record<string, string>> {
  const lease = await kubectl(['get', 'lease', '-n', KMAINT_NS, `kmaint-${fn}`, '-o', 'json']);
  const annotations = (JSON.parse(lease.stdout) as { metadata: { annotations?: Record<string, string> } }).metadata.annotations ?? {};
  return Object.fromEntries(Object.entries(annotations).filter(([k]) => RECORD_KEYS.includes(k)));
}

beforeAll(async () => {
  [drained = '', , orphaned = ''] = await generalNodes();
  await kubectl(['create', 'namespace', ns]);
  await setConfig({ maxParallelOperations: 1, namedReadsFromNodes: 1, fullReadEverySeconds: 600 });
  // Files before this one on the testbed (test/lambda, test/wake…) leave the pass Leases with a full read recorded:
  // this file starts from none, as a first install does.
  for (const fn of ['drainer', 'cleanup']) await kubectl(['delete', 'lease', '-n', KMAINT_NS, `kmaint-${fn}`, '--ignore-not-found']);
});

afterAll(async () => {
  await removeAllNMs(ns);
  for (const n of [drained, orphaned]) if (n) await setUnschedulable(n, false);
  await admin().core.patchNode({ name: orphaned, body: { metadata: { annotations: { 'kmaint.io/cordoned-by': null, 'kmaint.io/cordon-reason': null } } } }, mergePatch);
  await setConfig(undefined);
  // The records this file made name a clock 600 s ahead: other files' passes start from no record.
  for (const fn of ['drainer', 'cleanup']) await kubectl(['annotate', 'lease', '-n', KMAINT_NS, `kmaint-${fn}`, ...RECORD_KEYS.map((k) => `${k}-`)]);
  await kubectl(['delete', 'namespace', ns, '--wait=false']);
});

describe('named node reads on a cluster at namedReadsFromNodes (1)', () => {
  it('the drainer and cleanup read only their requests\' Nodes between full reads, drain and release; the full read 600 s on lifts an orphaned cordon', async () => {
    const count = (await nodes()).length;
    await createNM(ns, 'firmware', { requestorID: 'reads.example.com', nodeName: drained, cordon: true });
    expect((await pass('scheduler', { now: at(0) })).admitted).toBe(1);

    // First passes: no record on their Leases, so each reads every Node once and records it.
    let mark = await markNow();
    await pass('drainer', { now: at(0) });
    await pass('cleanup', { now: at(0) });
    expect(await nodeReadsSince(mark)).toEqual(['list every node', 'list every node']);
    const recorded = { [ANNOTATION_FULL_NODE_READ_TIME]: at(0).toISOString(), [ANNOTATION_FULL_NODE_READ_NODES]: String(count) };
    expect([await leaseRecord('drainer'), await leaseRecord('cleanup')]).toEqual([recorded, recorded]);

    // A cordon whose request is gone (a finalizer stripped by hand), on a Node no request names.
    await admin().core.patchNode({ name: orphaned, body: { spec: { unschedulable: true }, metadata: { annotations: { 'kmaint.io/cordoned-by': `kmaint/${ns}/gone`, 'kmaint.io/cordon-reason': `NodeMaintenance ${ns}/gone` } } } }, mergePatch);

    // The drainer until Ready: each pass reads the one Node its request names.
    mark = await markNow();
    const passes: string[] = [];
    for (let s = 1; s <= 5 && phaseOf(await getNM(ns, 'firmware')) !== 'Ready'; s++) passes.push((await pass('drainer', { now: at(s) })).outcome);
    expect(phaseOf(await getNM(ns, 'firmware'))).toBe('Ready');
    expect(await isUnschedulable(drained)).toBe(true);
    expect(await nodeReadsSince(mark)).toEqual(passes.map(() => `list metadata.name=${drained}`));

    // Deleted: cleanup reads that one Node, uncordons it and lets the request go; the orphaned cordon waits.
    await deleteNM(ns, 'firmware');
    mark = await markNow();
    expect((await pass('cleanup', { now: at(10) })).released).toBe(1);
    expect(await nodeReadsSince(mark)).toEqual([`list metadata.name=${drained}`]);
    expect([await getNM(ns, 'firmware'), await isUnschedulable(drained), await isUnschedulable(orphaned)]).toEqual([undefined, false, true]);

    // 600 s after cleanup's full read: it reads every Node again, and its sweep lifts the orphaned cordon and its record.
    mark = await markNow();
    await pass('cleanup', { now: at(600) });
    expect(await nodeReadsSince(mark)).toEqual(['list every node']);
    const after = (await admin().core.readNode({ name: orphaned })).metadata?.annotations ?? {};
    expect([await isUnschedulable(orphaned), after['kmaint.io/cordoned-by'], after['kmaint.io/cordon-reason']]).toEqual([false, undefined, undefined]);
    expect(await leaseRecord('cleanup')).toEqual({ [ANNOTATION_FULL_NODE_READ_TIME]: at(600).toISOString(), [ANNOTATION_FULL_NODE_READ_NODES]: String(count) });
  });
});

/** Indexes far above any node the testbed has. */
const NAMES = [900_001, 900_002, 900_003, 900_004].map(nodeName);
const CORDONED = NAMES[3] ?? '';

function client(nodeListEncoding: NodeListEncoding): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromFile(testbed().kmaintKubeconfigPath);
  return new KubeClient(new HttpTransport(kc, { nodeListEncoding }));
}

async function createTestNodes(): Promise<void> {
  const now = new Date();
  // As bench/scale-grow.ts creates them: the JSON's dates are strings, which client-node sends as they are.
  for (const k of NAMES.keys()) await admin().core.createNode({ body: gpuNode(900_001 + k, now) as unknown as V1Node });
  await kubectl(['cordon', CORDONED]);
}

describe('node LISTs in protobuf on the real API server', () => {
  beforeAll(createTestNodes);
  afterAll(async () => {
    for (const name of NAMES) await admin().core.deleteNode({ name });
  });

  it('read the same Nodes as JSON through KubeClient, in full and by name; kubectl\'s cordon keeps its owner', async () => {
    // The API server answers kmaint's Accept in protobuf (kmaint's own credentials).
    const raw = await rawApi('GET', `/api/v1/nodes?fieldSelector=metadata.name=${CORDONED}`, { accept: NODE_LIST_ACCEPT_PROTOBUF, as: 'kmaint' });
    expect([raw.status, raw.headers['content-type']]).toEqual([200, 'application/vnd.kubernetes.protobuf']);

    const pb = client('protobuf');
    const js = client('json');
    // Controllers write nodes (the cordon's taint, heartbeats): compare a protobuf LIST with JSON LISTs before and
    // after it that agree with each other, so no write fell between them.
    let viaProtobuf: V1Node[] = [];
    let viaJson: V1Node[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      const before = await js.listNodes();
      viaProtobuf = await pb.listNodes();
      viaJson = await js.listNodes();
      if (isDeepStrictEqual(before, viaJson)) break;
    }
    expect(viaProtobuf).toStrictEqual(viaJson);
    expect(viaProtobuf.filter((n) => NAMES.includes(n.metadata?.name ?? '')).map((n) => n.metadata?.name)).toEqual(NAMES);

    for (const name of NAMES) {
      const [p, j] = [await pb.readNode(name), await js.readNode(name)];
      // A controller's write between the two reads shows as a new resourceVersion: read both again once.
      if (p?.metadata?.resourceVersion !== j?.metadata?.resourceVersion) expect(await pb.readNode(name)).toStrictEqual(await js.readNode(name));
      else expect(p).toStrictEqual(j);
    }
    const cordoned = await pb.readNode(CORDONED);
    expect(cordoned?.spec?.unschedulable).toBe(true);
    expect(cordoned?.metadata?.managedFields).toStrictEqual([{ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:spec': { 'f:unschedulable': {} } } }]);
    const shape = gpuNode(900_004, new Date());
    expect(cordoned?.metadata?.labels).toStrictEqual(shape.metadata.labels);
    expect(cordoned?.status?.conditions?.map((c) => c.type)).toEqual((shape.status['conditions'] as Array<{ type: string }>).map((c) => c.type));
  });
});

describe('a Node write refused 409 by a status post, on the real API server (shared/pass/apply.ts)', () => {
  it('reads the Node by name and sends the write again when only the heartbeat moved; when a label moved, the 409 stands', async () => {
    const node = (await generalNodes())[1] as string;
    const KEY = 'kmaint.io/test-refresh';
    const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
    const c = new KubeClient(kmaintKubeConfig());
    /** kmaint's writes and reads of `node` since `mark`, as "verb code selector". */
    const requests = async (mark: number): Promise<string[]> => {
      const audit = auditLog();
      await audit.sync();
      return audit
        .entries({ since: mark, user: testbed().kmaintUser, resource: 'nodes' })
        .map((e) => `${e.verb} ${e.code}${e.verb === 'list' ? ` ${new URL(e.uri, 'https://x').searchParams.get('fieldSelector') ?? 'every node'}` : ''}`);
    };
    /** kmaint's annotation write planned on `seen`, applied with the plan's Nodes. */
    const annotate = async (seen: V1Node, value: string): Promise<Pick<ApplyResult, 'applied' | 'conflicts' | 'refreshed'>> => {
      const action: Action = { kind: 'patchNodeAnnotations', node: { name: node, resourceVersion: seen.metadata?.resourceVersion ?? '' }, annotations: { [KEY]: value }, reason: 'test' };
      const { applied, conflicts, refreshed } = await applyActions([action], { client: c, maintenances: new Map(), nodes: new Map([[node, seen]]), now: new Date(), component: 'kmaint-test', namespace: KMAINT_NS });
      return { applied, conflicts, refreshed };
    };
    // The kubelet's own posts held: the only status post is the one below.
    await holdKubeletStatusPosts(node, true);
    try {
      let seen = (await c.readNodes([node])).get(node) as V1Node;
      await admin().core.patchNodeStatus({ name: node, body: { status: { conditions: [{ type: 'Ready', lastHeartbeatTime: new Date(Date.now() + 1000) }] } } }, strategic);
      let mark = await markNow();
      expect(await annotate(seen, 'heartbeat')).toEqual({ applied: { patchNodeAnnotations: 1 }, conflicts: 0, refreshed: 1 });
      expect(await requests(mark)).toEqual(['patch 409', `list 200 metadata.name=${node}`, 'patch 200']);
      expect((await admin().core.readNode({ name: node })).metadata?.annotations?.[KEY]).toBe('heartbeat');

      seen = (await c.readNodes([node])).get(node) as V1Node;
      await admin().core.patchNode({ name: node, body: { metadata: { labels: { [KEY]: 'moved' } } } }, mergePatch);
      mark = await markNow();
      expect(await annotate(seen, 'label')).toEqual({ applied: {}, conflicts: 1, refreshed: 0 });
      expect(await requests(mark)).toEqual(['patch 409', `list 200 metadata.name=${node}`]);
      expect((await admin().core.readNode({ name: node })).metadata?.annotations?.[KEY]).toBe('heartbeat');
    } finally {
      await admin().core.patchNode({ name: node, body: { metadata: { labels: { [KEY]: null }, annotations: { [KEY]: null } } } }, mergePatch);
      await holdKubeletStatusPosts(node, false);
    }
  });
});
