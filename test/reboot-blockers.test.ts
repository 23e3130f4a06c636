// Issue 43 point 3 on the testbed: kured's blockers as admission gates, driven by pass('scheduler') on the real
// control plane. A pod matching spec.rebootBlockers.blockingPodSelector on node A holds A's request and takes no slot
// (B's is admitted under maxParallelOperations 1); a firing alert served by a loopback Alertmanager (/api/v2/alerts)
// holds every admission; the server stopped, every admission is held as unreachable. `kmaint explain` (in process,
// as the CLI reads) names the pod and the alert.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainRequest, readExplainSnapshot } from '../cli/explain.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { kmaintKubeConfig, kubectl } from './support/cluster.ts';
import { admin, bindPod, createNM, getNM, installCrds, KMAINT_NS, nodes, pass, removeAllNMs, setConfig } from './support/kmaint.ts';

const ns = `rb-${randomBytes(3).toString('hex')}`;
const REQUESTOR = 'blockers.example.com';
const SELECTOR = 'kmaint.io/blocks-reboot=true';

const readyMessage = async (name: string): Promise<string> => (await getNM(ns, name))?.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? '';
const phase = async (name: string): Promise<string> => (await getNM(ns, name))?.status?.conditions?.find((c) => c.type === 'Ready')?.reason ?? '';
const explainWaits = async (name: string): Promise<string[]> =>
  explainRequest(await readExplainSnapshot(new KubeClient(kmaintKubeConfig()), KMAINT_NS, { namespace: ns, name }), new Date()).filter((line) => line.includes('WAIT'));

let alerts: Server;
let alertsUrl = '';
let firing: { labels: Record<string, string>; status: { state: string } }[] = [];

describe('kured blockers as admission gates on the testbed', () => {
  beforeAll(async () => {
    await installCrds();
    await setConfig(undefined);
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    alerts = createServer((req, res) => {
      if (req.url === '/api/v2/alerts') return void res.setHeader('content-type', 'application/json').end(JSON.stringify(firing));
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => alerts.listen(0, '127.0.0.1', resolve));
    alertsUrl = `http://127.0.0.1:${(alerts.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await removeAllNMs(ns);
    await setConfig(undefined);
    if (alerts.listening) await new Promise<void>((resolve) => alerts.close(() => resolve()));
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  it('a blocking pod holds its node only, a firing alert and an unreachable Alertmanager hold everything; explain names each', async () => {
    const schedulable = (await nodes()).filter((n) => n.spec?.unschedulable !== true).map((n) => n.metadata?.name ?? '').sort();
    const [a, b, c] = schedulable as [string, string, string];
    await setConfig({ maxParallelOperations: 1, maxUnavailable: '100%', rebootBlockers: { blockingPodSelector: SELECTOR } });
    await bindPod(ns, 'db-0', a, { labels: { 'kmaint.io/blocks-reboot': 'true' } });
    await createNM(ns, 'on-a', { requestorID: REQUESTOR, nodeName: a });
    await createNM(ns, 'on-b', { requestorID: REQUESTOR, nodeName: b });

    // The pod on A holds A's request (older, ranked first) without a slot: B's takes the only one.
    const first = await pass('scheduler');
    expect(first.admitted).toBe(1);
    expect(await phase('on-b')).toBe('Scheduled');
    const podWait = `blocked by pod ${ns}/db-0 on node ${a} (matches blockingPodSelector ${SELECTOR})`;
    expect(await readyMessage('on-a')).toBe(`waiting: ${podWait}`);
    // Explain shows every gate: the pod, and (as this request is not admitted, its counts include B's admission) the slot.
    expect(await explainWaits('on-a')).toEqual(['  WAIT  next on this node: none (no request for it can start now)', `  WAIT  ${podWait}`, '  WAIT  maxParallelOperations 1 reached (1 in progress)']);

    // A firing alert holds every admission, even on a node with no blocking pod and a free slot.
    await removeAllNMs(ns);
    firing = [{ labels: { alertname: 'ZooKeeperQuorumLost' }, status: { state: 'active' } }, { labels: { alertname: 'Watchdog' }, status: { state: 'active' } }];
    await setConfig({ maxParallelOperations: 2, maxUnavailable: '100%', rebootBlockers: { alerts: { url: alertsUrl, ignoreNameRegexp: '^Watchdog$', timeoutSeconds: 2 } } });
    await createNM(ns, 'on-c', { requestorID: REQUESTOR, nodeName: c });
    expect((await pass('scheduler')).admitted).toBe(0);
    const alertWait = `blocked by firing alert ZooKeeperQuorumLost (${alertsUrl})`;
    expect(await readyMessage('on-c')).toBe(`waiting: ${alertWait}`);
    expect(await explainWaits('on-c')).toEqual(['  WAIT  next on this node: none (no request for it can start now)', `  WAIT  ${alertWait}`]);

    // The Alertmanager gone: unreachable, blocked, and the wait says so.
    await new Promise<void>((resolve) => alerts.close(() => resolve()));
    expect((await pass('scheduler')).admitted).toBe(0);
    expect(await readyMessage('on-c')).toMatch(new RegExp(`^waiting: blocked: alerts unreachable at ${alertsUrl.replace(/[.]/g, '\\.')} \\(fetch failed: .*ECONNREFUSED.*\\); nothing is admitted until they can be read$`));
  });
});
