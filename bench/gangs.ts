// `npm run bench:gangs`: `kmaint simulate` judged by the testbed on gangs (issue 21): 72 nodes in 4 NVLink cliques of 18
// (gangNodeLabel nvidia.com/gpu.clique), one pod per node, maxParallelOperations 27 so that one clique fits at a time.
// Predicts the makespan from a snapshot of the testbed, then runs the same maintenance for real there (kmaint's
// passes as `kmaint run all` runs them, a requestor deleting each request once Ready), predicts again with the pass
// time measured there (`kmaint simulate --pass-time`), and prints all three. Exits 1 when that prediction is more than
// 10% off. Starts and stops a testbed of its own.
import { forEachBounded } from '../shared/concurrency/index.ts';
import { errorMessage } from '../shared/errors/index.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { KubeClient } from '../shared/kube/index.ts';
import { PASS_FUNCTIONS } from '../shared/pass/index.ts';
import { runUntilIdle } from '../shared/runtime/index.ts';
import { maintenancePhase } from '../shared/scheduling/index.ts';
import { SimKubelet } from '../sim/kubelet/index.ts';
import { readClusterSnapshot, simulate, WHATIF_DRAIN_SPEC, WHATIF_NAMESPACE, WHATIF_REQUESTOR } from '../sim/whatif/index.ts';
import { ensureBinaries } from '../testbed/build.ts';
import { startControlPlane, stopTestbedDir } from '../testbed/start.ts';
import { kubeConfigFrom } from '../testbed/testbed.ts';
import { installKmaint, KMAINT_NS, setConfig } from './cluster-setup.ts';
import { print } from './figures.ts';

const CLIQUE = 'nvidia.com/gpu.clique';
const LABEL = 'kmaint.io/bench-gangs';
const GANGS = 4;
const GANG_SIZE = 18;
const GRACE_SECONDS = 10;
const POD_START_MS = 2000;
const CONFIG = { maxParallelOperations: 27, gangNodeLabel: CLIQUE };
const NS = 'bench-gangs';
const names = Array.from({ length: GANGS * GANG_SIZE }, (_, i) => `gb200-${String(i + 1).padStart(2, '0')}`);
const log = (line: string): void => {
  process.stderr.write(`[bench:gangs] ${line}\n`);
};

function node(name: string, index: number): V1Node {
  const cidr = `10.210.${index}.0/24`;
  const clique = `7f3a2c1e-0000-4000-8000-00000000000${Math.floor(index / GANG_SIZE)}.1`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', [CLIQUE]: clique, [LABEL]: 'true' } },
    spec: { podCIDR: cidr, podCIDRs: [cidr] },
    status: {
      capacity: { cpu: '144', memory: '850Gi', pods: '110' },
      allocatable: { cpu: '140', memory: '800Gi', pods: '110' },
      addresses: [{ type: 'InternalIP', address: `10.210.${index}.1` }],
      nodeInfo: {
        architecture: 'arm64',
        bootID: `b-${index}`,
        containerRuntimeVersion: 'containerd://2.1.4',
        kernelVersion: '6.12.40-sim',
        kubeProxyVersion: '',
        kubeletVersion: 'v1.35.0',
        machineID: `m-${index}`,
        operatingSystem: 'linux',
        osImage: 'sim',
        systemUUID: `u-${index}`,
      },
    },
  };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`bench:gangs: ${what} not reached in ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface RealRun {
  makespanMs: number;
  admittedMs: Map<string, number>;
  /** Every pass's wall ms and whether it applied anything. */
  passes: Array<{ ms: number; acted: boolean }>;
}

/** One request per node, kmaint's passes as `kmaint run all`, a requestor deleting each request once Ready. */
async function maintainForReal(admin: KubeClient, kmaint: KubeClient, create: (node: string) => Promise<void>): Promise<RealRun> {
  // The simulation creates every request at its time 0, before its first pass: so does this run, and counts from there.
  await forEachBounded(names, { limit: 16 }, create);
  const t0 = Date.now();
  const stop = new AbortController();
  const passes: RealRun['passes'] = [];
  const loop = (async () => {
    while (!stop.signal.aborted) {
      const run = await runUntilIdle({ client: kmaint, namespace: KMAINT_NS, now: () => new Date(), functions: [...PASS_FUNCTIONS], timeoutMs: 600_000, signal: stop.signal, onPass: (p) => passes.push({ ms: p.durationMs, acted: Object.keys(p.actions).length > 0 }) });
      if (run.stopped === 'failed') throw new Error(`kmaint run all failed: ${run.passes.flatMap((p) => p.errors).join('; ')}`);
    }
  })();
  const admittedMs = new Map<string, number>();
  const deleted = new Set<string>();
  try {
    for (;;) {
      const at = Date.now() - t0;
      const open = (await admin.listMaintenances()).filter((nm) => nm.spec.requestorID === WHATIF_REQUESTOR);
      for (const nm of open) {
        const phase = maintenancePhase(nm);
        if (phase !== '' && phase !== 'Pending' && !admittedMs.has(nm.spec.nodeName)) admittedMs.set(nm.spec.nodeName, at);
        if (phase === 'Ready' && !deleted.has(nm.metadata.name)) {
          deleted.add(nm.metadata.name);
          await admin.deleteMaintenance(WHATIF_NAMESPACE, nm.metadata.name, {});
        }
      }
      if (open.length === 0) return { makespanMs: at, admittedMs, passes };
      if (at > 900_000) throw new Error(`the maintenance is not done after 15 min: ${open.length} requests left`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    stop.abort();
    await loop;
  }
}

/** Admission times of each gang: "gang 1 at 0.0 s", the spread within a gang must be one pass. */
function waves(admittedMs: ReadonlyMap<string, number>): string {
  return Array.from({ length: GANGS }, (_, g) => {
    const times = names.slice(g * GANG_SIZE, (g + 1) * GANG_SIZE).map((n) => admittedMs.get(n) ?? Number.NaN);
    return `clique ${g}: ${(Math.min(...times) / 1000).toFixed(1)}-${(Math.max(...times) / 1000).toFixed(1)} s`;
  }).join(', ');
}

async function main(): Promise<number> {
  await ensureBinaries({ log });
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-bench-gangs-'));
  const cp = await startControlPlane({ dir, log });
  let kubelet: SimKubelet | undefined;
  try {
    const adminKc = kubeConfigFrom(cp.kubeconfigPath);
    const core = adminKc.makeApiClient(CoreV1Api);
    kubelet = new SimKubelet({ kubeConfig: kubeConfigFrom(cp.kubeconfigFor('kmaint-sim-kubelet')), nodes: names.map((n, i) => node(n, i)), podSync: 'watch', podStartDelayMs: POD_START_MS, heartbeatIntervalMs: 10_000 });
    await kubelet.start();
    await installKmaint(cp.kubeconfigPath, [NS]);
    await until(`${names.length} nodes Ready`, async () => (await core.listNode({ labelSelector: LABEL })).items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') && !n.spec?.taints?.length).length === names.length, 180_000);
    await until('namespace bench-gangs has its default ServiceAccount', async () => (await core.listNamespacedServiceAccount({ namespace: NS })).items.length > 0, 60_000);
    await forEachBounded(names, { limit: 8 }, async (n) => {
      await core.createNamespacedPod({
        namespace: NS,
        body: { metadata: { name: `job-${n}` }, spec: { nodeName: n, terminationGracePeriodSeconds: GRACE_SECONDS, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } },
      });
    });
    await until('every pod Running', async () => (await core.listNamespacedPod({ namespace: NS })).items.filter((p) => p.status?.phase === 'Running').length === names.length, 120_000);
    await setConfig(adminKc, CONFIG);

    const snapshot = await readClusterSnapshot(adminKc, KMAINT_NS, new Date());
    const predicted = await simulate({ snapshot, nodes: { selector: `${LABEL}=true` }, podStartMs: POD_START_MS });
    if (predicted.outcome !== 'done' || predicted.makespanMs === undefined) throw new Error(`simulate did not finish: ${predicted.outcome}`);
    const predictedAdmitted = new Map(predicted.admissionOrder.map((a) => [a.node, a.admittedMs]));

    const admin = new KubeClient(adminKc);
    const create = async (n: string): Promise<void> => {
      const name = `whatif-${n}`;
      const outcome = await admin.createMaintenance(WHATIF_NAMESPACE, {
        apiVersion: 'maintenance.nvidia.com/v1alpha1',
        kind: 'NodeMaintenance',
        metadata: { name, namespace: WHATIF_NAMESPACE },
        spec: { requestorID: WHATIF_REQUESTOR, nodeName: n, cordon: true, drainSpec: { ...WHATIF_DRAIN_SPEC } },
      });
      if (outcome.kind !== 'ok') throw new Error(`creating NodeMaintenance ${name}: ${outcome.kind}`);
    };
    const real = await maintainForReal(admin, new KubeClient(kubeConfigFrom(cp.kubeconfigFor('kmaint'))), create);
    const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const acting = real.passes.filter((p) => p.acted).map((p) => p.ms);
    const meanAll = mean(real.passes.map((p) => p.ms));
    // What `kmaint simulate --pass-time` is for: the duration kmaint's own pass summaries report on this cluster, here
    // the mean of the testbed run's passes that wrote something (they are the ones between a gang's admission and its
    // release; the machine is shared, so the figure is measured, not assumed).
    const meanPass = mean(acting);
    const calibrated = await simulate({ snapshot, nodes: { selector: `${LABEL}=true` }, podStartMs: POD_START_MS, passMs: Math.round(meanPass) });
    if (calibrated.outcome !== 'done' || calibrated.makespanMs === undefined) throw new Error(`simulate did not finish: ${calibrated.outcome}`);
    const errorOf = (ms: number): number => (ms - real.makespanMs) / real.makespanMs;
    const pct = (e: number): string => `${e >= 0 ? '+' : ''}${(e * 100).toFixed(1)}%`;
    const error = errorOf(calibrated.makespanMs);
    print(`bench:gangs  ${names.length} nodes, ${GANGS} gangs of ${GANG_SIZE} by ${CLIQUE}, maxParallelOperations ${CONFIG.maxParallelOperations}, one pod per node (grace ${GRACE_SECONDS} s)`);
    print(`  predicted makespan (kmaint simulate, passes ${predicted.settings.passMs} ms)  ${(predicted.makespanMs / 1000).toFixed(1)} s   (ideal ${((predicted.idealMakespanMs ?? Number.NaN) / 1000).toFixed(1)} s)`);
    print(`  testbed makespan                                      ${(real.makespanMs / 1000).toFixed(1)} s   (${real.passes.length} passes, mean ${meanAll.toFixed(0)} ms; ${acting.length} that wrote, mean ${meanPass.toFixed(0)} ms)`);
    print(`  predicted makespan with --pass-time ${Math.round(meanPass)} ms (the testbed's mean writing pass)  ${(calibrated.makespanMs / 1000).toFixed(1)} s`);
    print(`  prediction error: ${pct(error)} with the measured pass time (limit ±10%); ${pct(errorOf(predicted.makespanMs))} with the default 100 ms`);
    print(`  admitted, predicted (100 ms passes): ${waves(predictedAdmitted)}`);
    print(`  admitted, predicted (${Math.round(meanPass)} ms passes): ${waves(new Map(calibrated.admissionOrder.map((a) => [a.node, a.admittedMs])))}`);
    print(`  admitted, testbed: ${waves(real.admittedMs)} (a gang's statuses are written one by one in its pass)`);
    print(`  load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    return Math.abs(error) <= 0.1 ? 0 : 1;
  } finally {
    await kubelet?.stop();
    await stopTestbedDir(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench:gangs: ${errorMessage(err)}\n`);
    process.exit(1);
  },
);
