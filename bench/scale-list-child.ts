// One node LIST as kmaint makes it (KubeClient.listNodes over the HTTP transport), in a process of its own for
// bench/scale-encodings.ts, bundled: prints one JSON line with wall, CPU, peak RSS and the nodes read. Page size
// from --page-size, compression from KMAINT_COMPRESS_LISTS as kmaint reads it.
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../shared/kube/index.ts';

export interface ListFigures {
  wallMs: number;
  cpuMs: number;
  peakRssBytes: number;
  nodes: number;
}

const { values } = parseArgs({ options: { kubeconfig: { type: 'string' }, 'page-size': { type: 'string' } } });
if (!values.kubeconfig || !values['page-size']) throw new Error('usage: scale-list-child --kubeconfig FILE --page-size N');
const kc = new KubeConfig();
kc.loadFromFile(values.kubeconfig);
const client = new KubeClient(kc, { pageSize: Number(values['page-size']) });
const cpuBefore = process.cpuUsage();
const started = performance.now();
const nodes = await client.listNodes();
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
const out: ListFigures = { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, peakRssBytes: process.resourceUsage().maxRSS * 1024, nodes: nodes.length };
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
