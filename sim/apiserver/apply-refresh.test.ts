// A Node write refused 409 because a status post moved the Node after the plan read it (shared/pass/apply.ts): sent
// again on a fresh read when only heartbeat times moved; the 409 stands when anything a plan reads changed.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { V1Node } from '@kubernetes/client-node';
import type { Action } from '../../shared/api/index.ts';
import { KubeClient } from '../../shared/kube/index.ts';
import { applyActions, type ApplyResult } from '../../shared/pass/apply.ts';
import { startSimApiServer, type SimApiServer } from './index.ts';
import type { Json } from './json-value.ts';
import { call } from './test-support.ts';

const STRATEGIC = 'application/strategic-merge-patch+json';
const MERGE = 'application/merge-patch+json';
let server: SimApiServer;
let client: KubeClient;
let seq = 0;
let node = '';

const ready = (beat: string, status = 'True') => ({ type: 'Ready', status, reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: beat, lastTransitionTime: '2026-01-01T00:00:00Z' });

beforeAll(async () => {
  server = await startSimApiServer({});
  client = new KubeClient(server.kubeConfig({ user: 'kmaint' }));
});
afterAll(async () => {
  await server.stop();
});
beforeEach(async () => {
  node = `n${++seq}`;
  expect((await call(server, 'POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: node, labels: { 'kmaint.io/pool': 'general' } } })).status).toBe(201);
  expect((await call(server, 'PATCH', `/api/v1/nodes/${node}/status`, { status: { conditions: [ready('2026-01-01T00:00:00Z')] } }, STRATEGIC)).status).toBe(200);
});

async function planned(): Promise<V1Node> {
  const n = (await client.readNodes([node])).get(node);
  if (!n) throw new Error(`node ${node} not read`);
  return n;
}

/** The plan's cordon of `seen`, applied with or without the plan's Nodes; what it did and the Node afterwards. */
async function cordon(seen: V1Node, withNodes: boolean, via: KubeClient = client): Promise<{ result: Pick<ApplyResult, 'applied' | 'conflicts' | 'refreshed' | 'stopped'>; unschedulable: boolean; refused: number }> {
  const refusedBefore = client.counts.errorsByVerb['patch nodes'] ?? 0;
  const action: Action = { kind: 'cordonNode', node: { name: node, resourceVersion: seen.metadata?.resourceVersion ?? '' }, maintenance: { namespace: 'team', name: 'nm', resourceVersion: '1' }, reason: 'test', annotations: { 'kmaint.io/cordoned-by': 'team/nm' } };
  const { applied, conflicts, refreshed, stopped } = await applyActions([action], {
    client: via,
    maintenances: new Map(),
    now: new Date('2026-01-01T00:00:00Z'),
    component: 'kmaint-test',
    namespace: 'kmaint',
    ...(withNodes ? { nodes: new Map([[node, seen]]) } : {}),
  });
  const after = (await call(server, 'GET', `/api/v1/nodes/${node}`)).body as { spec?: { unschedulable?: boolean } };
  return { result: { applied, conflicts, refreshed, stopped }, unschedulable: after.spec?.unschedulable === true, refused: (client.counts.errorsByVerb['patch nodes'] ?? 0) - refusedBefore };
}

describe('a node write refused 409 after a status post', () => {
  it('only the heartbeat moved: read again and sent again, the cordon lands', async () => {
    const seen = await planned();
    await call(server, 'PATCH', `/api/v1/nodes/${node}/status`, { status: { conditions: [ready('2026-01-01T00:00:40Z')] } }, STRATEGIC);
    expect(await cordon(seen, true)).toEqual({ result: { applied: { cordonNode: 1 }, conflicts: 0, refreshed: 1, stopped: [] }, unschedulable: true, refused: 1 });
  });

  it.each<[string, string, Json, string]>([
    ['a condition changed (Ready=False)', `/api/v1/nodes/{}/status`, { status: { conditions: [ready('2026-01-01T00:00:40Z', 'False')] } }, STRATEGIC],
    ['a label changed', `/api/v1/nodes/{}`, { metadata: { labels: { 'kmaint.io/pool': 'gpu' } } }, MERGE],
    ['someone cordoned it', `/api/v1/nodes/{}`, { spec: { unschedulable: true } }, MERGE],
  ])('%s: the 409 stands, nothing is sent again', async (_what, path, body, type) => {
    const seen = await planned();
    await call(server, 'PATCH', path.replace('{}', node), body, type);
    const out = await cordon(seen, true);
    expect(out.result).toEqual({ applied: {}, conflicts: 1, refreshed: 0, stopped: ['nm/team/nm'] });
    expect(out.refused).toBe(1);
  });

  it('without the plan\'s Nodes the 409 stands, as before', async () => {
    const seen = await planned();
    await call(server, 'PATCH', `/api/v1/nodes/${node}/status`, { status: { conditions: [ready('2026-01-01T00:00:40Z')] } }, STRATEGIC);
    expect(await cordon(seen, false)).toEqual({ result: { applied: {}, conflicts: 1, refreshed: 0, stopped: ['nm/team/nm'] }, unschedulable: false, refused: 1 });
  });
});

describe('status posts that keep coming between the re-read and the write', () => {
  /** The client, but each of its first `posts` node reads is followed by a kubelet's heartbeat on the Node. */
  function postingAfterReads(posts: number): KubeClient {
    let left = posts;
    let beat = 0;
    return new Proxy(client, {
      get(target, prop, receiver) {
        if (prop !== 'readNodes') return Reflect.get(target, prop, receiver) as unknown;
        return async (names: string[]) => {
          const read = await target.readNodes(names);
          if (left > 0) {
            left--;
            beat++;
            await call(server, 'PATCH', `/api/v1/nodes/${node}/status`, { status: { conditions: [ready(`2026-01-01T00:01:0${beat}Z`)] } }, STRATEGIC);
          }
          return read;
        };
      },
    });
  }

  it('two more posts: read again each time, and the third write lands', async () => {
    const seen = await planned();
    await call(server, 'PATCH', `/api/v1/nodes/${node}/status`, { status: { conditions: [ready('2026-01-01T00:00:40Z')] } }, STRATEGIC);
    expect(await cordon(seen, true, postingAfterReads(2))).toEqual({ result: { applied: { cordonNode: 1 }, conflicts: 0, refreshed: 1, stopped: [] }, unschedulable: true, refused: 3 });
  });

  it('a post after every one of the three re-reads: the 409 stands, decided again next pass', async () => {
    const seen = await planned();
    await call(server, 'PATCH', `/api/v1/nodes/${node}/status`, { status: { conditions: [ready('2026-01-01T00:00:40Z')] } }, STRATEGIC);
    expect(await cordon(seen, true, postingAfterReads(3))).toEqual({ result: { applied: {}, conflicts: 1, refreshed: 1, stopped: ['nm/team/nm'] }, unschedulable: false, refused: 4 });
  });
});

/** The reaper's record of a termination (patchNodeAnnotations `record`) planned on `seen`, applied with the plan's Nodes. */
async function recordReap(seen: V1Node): Promise<{ result: Pick<ApplyResult, 'applied' | 'conflicts' | 'refreshed' | 'stopped'>; reaped: string | undefined }> {
  const action: Action = {
    kind: 'patchNodeAnnotations',
    node: { name: node, resourceVersion: seen.metadata?.resourceVersion ?? '' },
    annotations: { 'kmaint.io/reaped': '2026-01-01T00:01:00Z' },
    maintenance: { namespace: 'team', name: 'reap', resourceVersion: '1' },
    record: true,
    reason: 'record the reap before deleting the request',
  };
  const { applied, conflicts, refreshed, stopped } = await applyActions([action], { client, maintenances: new Map(), nodes: new Map([[node, seen]]), now: new Date('2026-01-01T00:01:00Z'), component: 'kmaint-reaper', namespace: 'kmaint' });
  const after = (await call(server, 'GET', `/api/v1/nodes/${node}`)).body as { metadata?: { annotations?: Record<string, string> } };
  return { result: { applied, conflicts, refreshed, stopped }, reaped: after.metadata?.annotations?.['kmaint.io/reaped'] };
}

describe('a record of a termination refused 409 (the reaper\'s kmaint.io/reaped)', () => {
  it('lands on a fresh read of the same Node whatever changed on it: Ready=False, a taint, a label', async () => {
    const seen = await planned();
    await call(server, 'PATCH', `/api/v1/nodes/${node}/status`, { status: { conditions: [ready('2026-01-01T00:00:40Z', 'False')] } }, STRATEGIC);
    await call(server, 'PATCH', `/api/v1/nodes/${node}`, { metadata: { labels: { 'kmaint.io/pool': 'gpu' } }, spec: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] } }, MERGE);
    expect(await recordReap(seen)).toEqual({ result: { applied: { patchNodeAnnotations: 1 }, conflicts: 0, refreshed: 1, stopped: [] }, reaped: '2026-01-01T00:01:00Z' });
  });

  it('a Node deleted and created again under the name (another uid) is not written: the 409 stands', async () => {
    const seen = await planned();
    expect((await call(server, 'DELETE', `/api/v1/nodes/${node}`)).status).toBe(200);
    expect((await call(server, 'POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: node } })).status).toBe(201);
    const recreated = await planned();
    expect(recreated.metadata?.uid).not.toBe(seen.metadata?.uid);
    expect(await recordReap(seen)).toEqual({ result: { applied: {}, conflicts: 1, refreshed: 0, stopped: ['nm/team/reap'] }, reaped: undefined });
  });
});

describe('a Node event naming a request follows that request\'s write (shared/api/write-order.ts rule 1)', () => {
  /** The validation outcome's patch planned on `seen` and its ValidationPassed event, with or without `maintenance`. */
  async function outcomeAndEvent(seen: V1Node, eventNamesRequest: boolean): Promise<{ conflicts: number; events: string[] }> {
    const about = { namespace: 'team', name: 'nm', resourceVersion: '1' };
    const actions: Action[] = [
      { kind: 'patchNodeAnnotations', node: { name: node, resourceVersion: seen.metadata?.resourceVersion ?? '' }, annotations: { 'validation.kmaint.io/outcome': 'Passed' }, maintenance: about, reason: 'outcome' },
      { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: node }, type: 'Normal', eventReason: 'ValidationPassed', message: `validated ${node}`, ...(eventNamesRequest ? { maintenance: about } : {}), reason: 'passed' },
    ];
    const { conflicts } = await applyActions(actions, { client, maintenances: new Map(), nodes: new Map([[node, seen]]), now: new Date('2026-01-01T00:01:00Z'), component: 'kmaint-cleanup', namespace: 'kmaint' });
    const list = (await call(server, 'GET', '/api/v1/namespaces/default/events')).body as { items: Array<{ reason?: string; message?: string; involvedObject?: { name?: string } }> };
    return { conflicts, events: list.items.filter((e) => e.involvedObject?.name === node).map((e) => `${e.reason ?? ''}: ${e.message ?? ''}`) };
  }

  it('the patch refused (a label moved the Node): no event; with the Node\'s own unit, as before, the event was said anyway', async () => {
    const seen = await planned();
    await call(server, 'PATCH', `/api/v1/nodes/${node}`, { metadata: { labels: { 'kmaint.io/pool': 'gpu' } } }, MERGE);
    expect(await outcomeAndEvent(seen, true)).toEqual({ conflicts: 1, events: [] });
    expect(await outcomeAndEvent(seen, false)).toEqual({ conflicts: 1, events: [`ValidationPassed: validated ${node}`] });
  });

  it('the patch landed: the event follows it', async () => {
    expect(await outcomeAndEvent(await planned(), true)).toEqual({ conflicts: 0, events: [`ValidationPassed: validated ${node}`] });
  });
});
