// One kmaint pass in a process of its own, so its wall time and memory are not mixed with the benchmark's.
// `node --import tsx bench/child-pass.ts --kubeconfig FILE --fn scheduler` prints one JSON line (PassMeasurement).
import { errorMessage } from '../shared/errors/index.ts';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../shared/kube/index.ts';
import { PASS_FUNCTIONS, runPass, type PassFunction, type PassSummary } from '../shared/pass/index.ts';

export interface PassMeasurement {
  fn: PassFunction;
  /** Wall time of runPass, lease to lease. */
  wallMs: number;
  /** Resident set before the pass (node + tsx + client-node loaded), after it, and the process peak. */
  rssBeforeBytes: number;
  rssAfterBytes: number;
  peakRssBytes: number;
  heapUsedAfterBytes: number;
  /** CPU time of this process during the pass (user + system). */
  cpuMs: number;
  /** Planned writes by what they do: "status Pending -> Scheduled", "status wait reason", "event", ... */
  plannedByKind: Record<string, number>;
  summary: Omit<PassSummary, 'plan'>;
}

/** Sorts a planned action (its describeAction line) into the kind of write it is. */
function kindOfPlanLine(line: string): string {
  const transition = /^status \S+ (\S+) -> (\S+):/.exec(line);
  if (transition) return `status ${transition[1]} -> ${transition[2]}`;
  if (line.startsWith('status MaintenanceOperatorConfig')) return 'status config';
  if (line.startsWith('status ')) return 'status wait reason changed';
  if (line.startsWith('event ')) return `event ${line.split(' ')[2] ?? ''}`;
  return line.split(' ')[0] ?? line;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { kubeconfig: { type: 'string' }, fn: { type: 'string' }, namespace: { type: 'string', default: 'kmaint' } } });
  const fn = values.fn as PassFunction;
  if (!values.kubeconfig || !PASS_FUNCTIONS.includes(fn)) {
    process.stderr.write('usage: bench/child-pass.ts --kubeconfig FILE --fn scheduler|drainer|cleanup [--namespace NS]\n');
    process.exit(2);
  }
  const kc = new KubeConfig();
  kc.loadFromFile(values.kubeconfig);
  const client = new KubeClient(kc);
  const rssBeforeBytes = process.memoryUsage().rss;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const summary = await runPass(fn, { client, namespace: values.namespace ?? 'kmaint', now: () => new Date() });
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const plannedByKind: Record<string, number> = {};
  for (const line of summary.plan) {
    const k = kindOfPlanLine(line);
    plannedByKind[k] = (plannedByKind[k] ?? 0) + 1;
  }
  const { plan: _plan, ...rest } = summary;
  const out: PassMeasurement = {
    fn,
    wallMs,
    rssBeforeBytes,
    rssAfterBytes: process.memoryUsage().rss,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    heapUsedAfterBytes: process.memoryUsage().heapUsed,
    cpuMs: (cpu.user + cpu.system) / 1000,
    plannedByKind,
    summary: rest,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().then(
  // Keep-alive sockets would hold the process open.
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`child-pass: ${errorMessage(err)}\n`);
    process.exit(1);
  },
);
