// `npx tsx bench/scale-grow.ts --dir DIR --nodes N [--requests M]`: a testbed control plane left running in DIR with
// N GPU-shaped nodes (bench/scale-nodes.ts), kmaint's CRDs and M NodeMaintenances in namespace "bench" when asked,
// and a quiet API server, for bench/scale-encodings.ts to measure against repeatedly.
// `npm run testbed -- down --dir DIR` stops it. Nodes stay Ready as in bench:scale (node-monitor grace 24 h).
import { forEachBounded } from '../shared/concurrency/index.ts';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startControlPlane } from '../testbed/start.ts';
import { readFileSync } from 'node:fs';
import { GROUP, NODE_MAINTENANCE_PLURAL, VERSION } from '../shared/api/index.ts';
import { installKmaint, planRequests } from './cluster-setup.ts';
import { connect, create, untilQuiet } from './scale-api.ts';
import { gpuNode, nodeName } from './scale-nodes.ts';

const log = (line: string): void => void process.stderr.write(`[scale-grow] ${line}\n`);

const { values } = parseArgs({ options: { dir: { type: 'string' }, nodes: { type: 'string' }, concurrency: { type: 'string', default: '64' }, requests: { type: 'string', default: '0' } } });
if (!values.dir || !values.nodes) throw new Error('usage: bench/scale-grow.ts --dir DIR --nodes N [--requests M] [--concurrency 64]');
const dir = resolve(values.dir);
const n = Number(values.nodes);
const cp = await startControlPlane({ dir, nodeMonitorGraceSeconds: 86_400, log });
const sched = cp.components.find((c) => c.name === 'kube-scheduler');
// No pods here; kube-scheduler's informer would only hold another copy of every node.
if (sched) process.kill(sched.pid, 'SIGTERM');
const token = /token: (\S+)/.exec(readFileSync(cp.kubeconfigPath, 'utf8'))?.[1] ?? '';
const conn = connect(cp.server, token, cp.caFile);
const now = new Date();
const t = Date.now();
for (let from = 0; from < n; from += 2000) {
  const to = Math.min(n, from + 2000);
  await forEachBounded(Array.from({ length: to - from }, (_, k) => from + k), { limit: Number(values.concurrency) }, (i) => create(conn, '/api/v1/nodes', JSON.stringify(gpuNode(i, now))));
  log(`${to} nodes (${Math.round(to / ((Date.now() - t) / 1000))}/s), load ${loadavg()[0]?.toFixed(1)}`);
}
const requests = Number(values.requests);
if (requests > 0) {
  await installKmaint(cp.kubeconfigPath, ['bench']);
  const plans = planRequests({ namespace: 'bench', nodes: Array.from({ length: n }, (_, i) => nodeName(i)), requests, requestors: 10 });
  const path = `/apis/${GROUP}/${VERSION}/namespaces/bench/${NODE_MAINTENANCE_PLURAL}`;
  await forEachBounded(plans, { limit: Number(values.concurrency) }, (p) => create(conn, path, JSON.stringify({ apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', metadata: { name: p.name, namespace: p.namespace }, spec: p.spec })));
  log(`${requests} NodeMaintenances in namespace bench (no status: no kmaint pass has run)`);
}
log(`quiet after ${((await untilQuiet(conn)) / 1000).toFixed(0)} s; testbed left running in ${dir}`);
process.exit(0);
