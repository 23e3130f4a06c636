// The upstream maintenance operator (testbed/peers builds it) on the scale benchmark's cluster: what its start costs
// the API server (the informers' LISTs), its RSS at rest, and the API server CPU a minute of watching costs while node
// statuses change at a kubelet's pace (every node re-posts its status every 5 min: N/300 writes a second).
import { forEachBounded } from '../shared/concurrency/index.ts';
import { rfc3339Seconds } from '../shared/api/index.ts';
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { nvidiaOperatorIsBuilt } from '../testbed/peers/build-nvidia.ts';
import type { ControlPlane } from '../testbed/start.ts';
import { call, costBetween, cpuSeconds, rssOf, scrape, total, type Conn } from './scale-api.ts';
import { nodeName } from './scale-nodes.ts';

export interface UpstreamFigures {
  nodes: number;
  startMs: number;
  startServerSeconds: number;
  startDecoded: number;
  rssAtRest: number;
  churnPerSecond: number;
  cpuPerMinWith: number;
  cpuPerMinWithout: number;
  watchBytesPerMin: number;
  load: string;
  /** Bytes the API server allocated a minute, with the operator watching and without it. */
  allocPerMinWith?: number;
  allocPerMinWithout?: number;
}

const NVIDIA_NS = 'nvidia-maintenance';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Node status heartbeats at `perSecond` for `seconds`, round-robin over the nodes, as kubelets post them. */
async function churn(conn: Conn, nodes: number, perSecond: number, seconds: number, offset: number): Promise<number> {
  let sent = 0;
  const start = Date.now();
  for (let sec = 0; sec < seconds; sec++) {
    const batch = Array.from({ length: perSecond }, (_, k) => nodeName((offset + sec * perSecond + k) % nodes));
    const hb = rfc3339Seconds(new Date());
    const body = JSON.stringify({ status: { conditions: [{ type: 'Ready', lastHeartbeatTime: hb }] } });
    await forEachBounded(batch, { limit: 32 }, async (node) => {
      const r = await call(conn, 'PATCH', `/api/v1/nodes/${node}/status`, body, 'application/strategic-merge-patch+json').catch(() => ({ status: 0 }));
      if (r.status === 200) sent++;
    });
    const behind = start + (sec + 1) * 1000 - Date.now();
    if (behind > 0) await sleep(behind);
  }
  return sent / ((Date.now() - start) / 1000);
}

async function window(conn: Conn, apiPid: number, nodes: number, perSecond: number, seconds: number, offset: number): Promise<{ cpuPerMin: number; watchBytesPerMin: number; achieved: number; allocPerMin: number; gcCycles: number }> {
  const before = await scrape(conn);
  const cpu0 = cpuSeconds(apiPid);
  const t = Date.now();
  const achieved = await churn(conn, nodes, perSecond, seconds, offset);
  const minutes = (Date.now() - t) / 60_000;
  const cpu = cpuSeconds(apiPid) - cpu0;
  const cost = costBetween(await scrape(conn), before);
  return { cpuPerMin: cpu / minutes, watchBytesPerMin: ((cost.watchBytes['nodes'] ?? 0) + (cost.watchBytes['Node'] ?? 0)) / minutes, achieved, allocPerMin: cost.allocBytes / minutes, gcCycles: cost.gcCycles };
}

export async function measureUpstream(o: { cp: ControlPlane; conn: Conn; apiPid: number; nodes: number; churnSeconds: number; log: (l: string) => void }): Promise<UpstreamFigures> {
  const op = nvidiaOperatorIsBuilt();
  if (!op) throw new Error('the upstream operator is not built: npm run bench:peers builds it (testbed/peers/build-nvidia.ts), or pass --no-upstream');
  await call(o.conn, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: NVIDIA_NS } }));
  const perSecond = Math.max(1, Math.round(o.nodes / 300));
  const load = `load ${loadavg()[0]?.toFixed(1)}`;
  const before = await scrape(o.conn);
  const t = Date.now();
  // kmaint's CRDs are installed: wire-compatible with the operator's (same group, kinds and fields).
  const child = spawn(op.binary, ['--kubeconfig', o.cp.kubeconfigPath, '--metrics-bind-address', '0', '--health-probe-bind-address', '0', '--zap-log-level', 'info'], {
    env: { ...process.env, ENABLE_WEBHOOKS: 'false', OPERATOR_NAMESPACE: NVIDIA_NS },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  let exited = false;
  child.stdout.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr.on('data', (d: Buffer) => (text += d.toString()));
  child.on('exit', () => (exited = true));
  try {
    const deadline = Date.now() + 600_000;
    while ((text.match(/Starting workers/g) ?? []).length < 3) {
      if (exited || Date.now() > deadline) throw new Error(`the upstream operator did not start: ${text.trim().split('\n').slice(-5).join(' | ')}`);
      await sleep(200);
    }
    const startMs = Date.now() - t;
    const start = costBetween(await scrape(o.conn), before);
    o.log(`upstream operator up in ${startMs} ms; serving ${JSON.stringify(start.seconds)}`);
    await sleep(20_000);
    const rssAtRest = rssOf(child.pid ?? 0);
    o.log(`upstream operator RSS at rest ${(rssAtRest / 2 ** 20).toFixed(0)} MiB`);
    const withIt = await window(o.conn, o.apiPid, o.nodes, perSecond, o.churnSeconds, 0);
    child.kill('SIGTERM');
    await sleep(3000);
    const without = await window(o.conn, o.apiPid, o.nodes, perSecond, o.churnSeconds, perSecond * o.churnSeconds);
    o.log(`upstream: with ${JSON.stringify(withIt)}, without ${JSON.stringify(without)}`);
    return {
      nodes: o.nodes,
      startMs,
      startServerSeconds: total(start.seconds),
      startDecoded: total(start.bytes),
      rssAtRest,
      churnPerSecond: Math.min(withIt.achieved, without.achieved),
      cpuPerMinWith: withIt.cpuPerMin,
      cpuPerMinWithout: without.cpuPerMin,
      watchBytesPerMin: withIt.watchBytesPerMin - without.watchBytesPerMin,
      load,
      allocPerMinWith: withIt.allocPerMin,
      allocPerMinWithout: without.allocPerMin,
    };
  } finally {
    if (!exited) child.kill('SIGKILL');
  }
}
