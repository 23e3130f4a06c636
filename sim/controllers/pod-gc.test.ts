// The sim's pod garbage collector against the sim API server in-process, on a manual clock: orphans after the
// quarantine (and their DisruptionTarget condition, as the testbed's PodGC writes it), mirror pods of a deleted Node,
// unscheduled terminating pods, terminating pods on an out-of-service Node, and the terminated-pod threshold.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimApiServer, type JsonObject, type LocalApi, type ResourceRef, type SimApiServer } from '../apiserver/index.ts';
import { aPod, at } from '../apiserver/test-support.ts';
import { ManualClock } from '../clock.ts';
import { GarbageCollector } from './garbage-collector.ts';
import { PodGC, type PodGCOptions, type PodGCStats } from './pod-gc.ts';

const NODES: ResourceRef = { apiVersion: 'v1', resource: 'nodes' };
const PODS: ResourceRef = { apiVersion: 'v1', resource: 'pods' };
const HOLD = 'example.com/hold';
const START = new Date('2026-01-01T00:00:00Z');

let server: SimApiServer;
let local: LocalApi;
let clock: ManualClock;
let podGc: PodGC;
let stops: Array<() => void> = [];

async function startWith(options: PodGCOptions = {}): Promise<void> {
  clock = new ManualClock(START);
  server = await startSimApiServer({ clock, namespaces: ['default'] });
  local = server.local;
  podGc = new PodGC(server.context, clock, options);
  podGc.start();
  stops = [() => podGc.stop()];
}

beforeEach(async () => {
  await startWith();
});
afterEach(async () => {
  await podGc.idle();
  expect(podGc.stats().errors).toEqual([]);
  for (const s of stops.reverse()) s();
  await server.stop();
});

function aNode(name: string, extra: JsonObject = {}): void {
  local.create(NODES, '', { metadata: { name }, ...extra });
}

function aBoundPod(name: string, node: string, extra: JsonObject = {}): JsonObject {
  const pod = aPod(name, { node });
  return local.create(PODS, 'default', { ...pod, metadata: { ...(pod['metadata'] as JsonObject), ...extra } });
}

/** [present, terminating, phase] of a pod, after the collector has done its work. */
async function podState(name: string): Promise<[boolean, boolean, unknown]> {
  await podGc.idle();
  const o = local.get(PODS, 'default', name);
  return [o !== undefined, at(o, 'metadata.deletionTimestamp') !== undefined, at(o, 'status.phase') ?? null];
}

const GONE = [false, false, null];
const NOTHING: PodGCStats = { orphaned: 0, unscheduledTerminating: 0, outOfService: 0, terminated: 0, conflicts: 0, errors: [] };

describe('orphaned pods (bound to a Node that does not exist)', () => {
  it('a pod of a deleted Node is marked Failed with DisruptionTarget and force-deleted once the 40 s quarantine is over, not before', async () => {
    aNode('n1');
    aBoundPod('p1', 'n1');
    const seen: Array<[string, unknown, unknown]> = [];
    const stopWatch = local.watch(PODS, (type, o) => seen.push([type, at(o, 'status.phase'), at(o, 'status.conditions')]));
    stops.push(stopWatch);
    local.delete(NODES, '', 'n1');
    expect(podGc.quarantined()).toEqual(['n1']);
    await clock.advance(39_999);
    expect(await podState('p1')).toEqual([true, false, 'Pending']);
    await clock.advance(1);
    expect(await podState('p1')).toEqual(GONE);
    const condition = { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists', observedGeneration: 1, lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:40Z' };
    // Marked Failed, then force-deleted: a pod's graceless delete is stored with its deletionTimestamp first (MODIFIED).
    expect(seen.map(([type]) => type)).toEqual(['MODIFIED', 'MODIFIED', 'DELETED']);
    expect(seen[0]?.slice(1)).toEqual(['Failed', [condition]]);
    expect([podGc.stats(), podGc.quarantined()]).toEqual([{ ...NOTHING, orphaned: 1 }, []]);
  });

  it('a pod created bound to a Node that never existed goes after the quarantine', async () => {
    aBoundPod('p2', 'ghost');
    await clock.advance(39_000);
    expect(await podState('p2')).toEqual([true, false, 'Pending']);
    await clock.advance(1_000);
    expect(await podState('p2')).toEqual(GONE);
  });

  it('a Node back before the quarantine ends keeps its pods', async () => {
    aNode('n3');
    aBoundPod('p3', 'n3');
    local.delete(NODES, '', 'n3');
    await clock.advance(20_000);
    aNode('n3');
    expect(podGc.quarantined()).toEqual([]);
    await clock.advance(60_000);
    expect([await podState('p3'), podGc.stats()]).toEqual([[true, false, 'Pending'], NOTHING]);
  });

  it('a mirror pod of a deleted Node, left Terminating by the ownerReference collector, goes after the quarantine', async () => {
    const gc = new GarbageCollector(server.context);
    gc.start();
    stops.push(() => gc.stop());
    aNode('n4');
    const uid = String(at(local.get(NODES, '', 'n4'), 'metadata.uid'));
    aBoundPod('kube-proxy-n4', 'n4', { annotations: { 'kubernetes.io/config.mirror': 'hash' }, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n4', uid, controller: true }] });
    local.delete(NODES, '', 'n4');
    await gc.idle();
    expect(await podState('kube-proxy-n4')).toEqual([true, true, 'Pending']);
    await clock.advance(40_000);
    expect(await podState('kube-proxy-n4')).toEqual(GONE);
    expect(podGc.stats()).toEqual({ ...NOTHING, orphaned: 1 });
  });

  it('a pod on an existing Node is untouched, terminating or not', async () => {
    aNode('n5');
    aBoundPod('p5a', 'n5');
    aBoundPod('p5b', 'n5');
    local.delete(PODS, 'default', 'p5b');
    await clock.advance(120_000);
    expect([await podState('p5a'), await podState('p5b'), podGc.stats()]).toEqual([[true, false, 'Pending'], [true, true, 'Pending'], NOTHING]);
  });
});

describe('unscheduled terminating pods', () => {
  it('a pod held by a finalizer without a Node is marked Failed (no condition) and deleted with grace 0 at once; it goes when released', async () => {
    local.create(PODS, 'default', aPod('u1', { finalizers: [HOLD] }));
    local.delete(PODS, 'default', 'u1');
    expect(await podState('u1')).toEqual([true, true, 'Failed']);
    const pod = local.get(PODS, 'default', 'u1');
    expect([at(pod, 'status.conditions') ?? null, at(pod, 'status.observedGeneration'), at(pod, 'metadata.deletionGracePeriodSeconds')]).toEqual([null, 2, 0]);
    expect(podGc.stats()).toEqual({ ...NOTHING, unscheduledTerminating: 1 });
    local.patch(PODS, 'default', 'u1', { metadata: { finalizers: null } });
    expect(await podState('u1')).toEqual(GONE);
  });

  it('an unscheduled pod that is not terminating is untouched', async () => {
    local.create(PODS, 'default', aPod('u2'));
    await clock.advance(60_000);
    expect([await podState('u2'), podGc.stats()]).toEqual([[true, false, 'Pending'], NOTHING]);
  });
});

describe('terminating pods on an out-of-service Node', () => {
  const taint = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' };
  const notReady = { conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady' }] };

  it.each([
    ['NotReady and tainted: the terminating pod is force-deleted', notReady, [taint], GONE, 1],
    ['tainted but Ready: kept', { conditions: [{ type: 'Ready', status: 'True' }] }, [taint], [true, true, 'Pending'], 0],
    ['NotReady without the taint: kept', notReady, [], [true, true, 'Pending'], 0],
  ])('%s', async (_rule, status, taints, expected, deleted) => {
    aNode('o1', { spec: { taints }, status });
    aBoundPod('t1', 'o1');
    aBoundPod('r1', 'o1');
    local.delete(PODS, 'default', 't1');
    expect(await podState('t1')).toEqual(expected);
    expect([await podState('r1'), podGc.stats()]).toEqual([[true, false, 'Pending'], { ...NOTHING, outOfService: deleted }]);
  });

  it('a Node turning out-of-service takes the pods already terminating on it', async () => {
    aNode('o2');
    aBoundPod('t2', 'o2');
    local.delete(PODS, 'default', 't2');
    expect(await podState('t2')).toEqual([true, true, 'Pending']);
    local.patch(NODES, '', 'o2', { spec: { taints: [taint] } });
    local.patch(NODES, '', 'o2', { status: notReady }, 'merge', 'status');
    expect(await podState('t2')).toEqual(GONE);
  });
});

describe('terminated pods above --terminated-pod-gc-threshold', () => {
  it('the surplus goes at the next check, evicted pods first, then the oldest', async () => {
    podGc.stop();
    podGc = new PodGC(server.context, clock, { terminatedPodThreshold: 2, checkPeriodMs: 20_000 });
    podGc.start();
    stops = [() => podGc.stop()];
    const finish = (name: string, status: JsonObject): void => {
      local.create(PODS, 'default', aPod(name));
      local.patch(PODS, 'default', name, { status }, 'merge', 'status');
    };
    finish('a-oldest', { phase: 'Succeeded' });
    await clock.advance(1_000);
    finish('b-middle', { phase: 'Failed' });
    await clock.advance(1_000);
    finish('c-newest', { phase: 'Succeeded' });
    await clock.advance(1_000);
    finish('d-evicted', { phase: 'Failed', reason: 'Evicted' });
    local.create(PODS, 'default', aPod('e-running'));
    // Above the threshold since c-newest (t = 2 s): the check is due at 22 s.
    await clock.advance(18_999);
    expect((await Promise.all(['a-oldest', 'b-middle', 'c-newest', 'd-evicted'].map(podState))).map(([present]) => present)).toEqual([true, true, true, true]);
    await clock.advance(1);
    const left = await Promise.all(['a-oldest', 'b-middle', 'c-newest', 'd-evicted', 'e-running'].map(podState));
    expect(left.map(([present]) => present)).toEqual([false, true, true, false, true]);
    expect(podGc.stats()).toEqual({ ...NOTHING, terminated: 2 });
  });
});
