// Part 4 of the lifecycle benchmark: how long kmaint adds, from request created to Ready, beyond the time the
// drained pods take to stop — all three passes driven by runUntilIdle as `kmaint run all` drives them.
import { namespacedName } from '../shared/api/index.ts';
import { forEachBounded } from '../shared/concurrency/index.ts';
import { CoreV1Api } from '@kubernetes/client-node';
import { KubeClient } from '../shared/kube/index.ts';
import { runUntilIdle, type RunSummary } from '../shared/runtime/index.ts';
import { createCluster, generateCluster, LABEL_POOL, ANNOTATION_SIM_TERMINATION_SECONDS } from '../sim/generator/index.ts';
import { SimKubelet } from '../sim/kubelet/index.ts';
import { ensureBinaries } from '../testbed/build.ts';
import { startControlPlane } from '../testbed/start.ts';
import { kubeConfigFrom, waitForCluster } from '../testbed/testbed.ts';
import { timedRequests } from './audit-timing.ts';
import { KMAINT_NS, createRequests, installKmaint, listRequests, phaseOf, planRequests, setConfig } from './cluster-setup.ts';
import { counts, machineLoad, ms, percentile, print } from './figures.ts';

export interface OverheadOptions {
  dir: string;
  /** Nodes of the small-profile cluster. */
  clusterNodes: number;
  /** Nodes put under maintenance at once (general pool). */
  drainNodes: number;
  /** Pods drained per node. */
  podsPerNode: number;
  /** How long each drained pod takes to stop (kmaint.io/sim-termination-seconds; grace period 30 s). */
  terminationSeconds: number;
  log: (line: string) => void;
}

const NS = 'bench';
const LABEL = 'kmaint-bench';

export async function benchOverhead(opts: OverheadOptions): Promise<void> {
  await ensureBinaries({ log: opts.log });
  const cp = await startControlPlane({ dir: opts.dir, log: opts.log });
  let kubelet: SimKubelet | undefined;
  try {
    const admin = kubeConfigFrom(cp.kubeconfigPath);
    const core = admin.makeApiClient(CoreV1Api);
    const cluster = generateCluster({ profile: 'small', seed: 1, nodes: opts.clusterNodes });
    // Watch, as a real kubelet does: a polling sim would add its poll period to every pod's stop.
    kubelet = new SimKubelet({ kubeConfig: kubeConfigFrom(cp.kubeconfigFor('kmaint-sim-kubelet')), nodes: cluster.nodes, heartbeatIntervalMs: 10_000, podSync: 'watch' });
    await kubelet.start();
    await createCluster(admin, cluster);
    await waitForCluster(admin, cluster, 180_000, opts.log);
    await installKmaint(cp.kubeconfigPath, [NS]);
    await setConfig(admin, { maxParallelOperations: opts.drainNodes });

    const targets = cluster.nodes
      .filter((n) => n.metadata?.labels?.[LABEL_POOL] === 'general')
      .map((n) => n.metadata?.name ?? '')
      .slice(0, opts.drainNodes);
    while ((await core.listNamespacedServiceAccount({ namespace: NS })).items.every((sa) => sa.metadata?.name !== 'default')) {
      await new Promise((r) => setTimeout(r, 200));
    }
    const pods = targets.flatMap((node) => Array.from({ length: opts.podsPerNode }, (_, i) => ({ node, name: `drain-${node}-${i}` })));
    await forEachBounded(pods, { limit: 16 }, async ({ node, name }) => {
      await core.createNamespacedPod({
        namespace: NS,
        body: {
          metadata: { name, namespace: NS, labels: { [LABEL]: 'overhead' }, annotations: { [ANNOTATION_SIM_TERMINATION_SECONDS]: String(opts.terminationSeconds) } },
          spec: { nodeName: node, terminationGracePeriodSeconds: 30, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m' } } }] },
        },
      });
    });
    for (;;) {
      const running = (await core.listNamespacedPod({ namespace: NS })).items.filter((p) => p.status?.phase === 'Running').length;
      if (running === pods.length) break;
      await new Promise((r) => setTimeout(r, 250));
    }

    await cp.audit.sync();
    const mark = cp.audit.mark();
    const plans = planRequests({
      namespace: NS,
      nodes: targets,
      requests: targets.length,
      requestors: 1,
      spec: { cordon: true, drainSpec: { force: true, deleteEmptyDir: true, podSelector: `${LABEL}=overhead`, timeoutSeconds: 0 } },
    });
    const client = new KubeClient(kubeConfigFrom(cp.kubeconfigFor('kmaint')));
    const load = machineLoad([cp.dir]);
    const createdAt = await createRequests(admin, plans, plans.length);
    // As `kmaint run all --until-idle` (its default intervals), started as the requests land.
    const run: Promise<RunSummary> = runUntilIdle({ client, namespace: KMAINT_NS, now: () => new Date(), functions: ['scheduler', 'drainer', 'cleanup'], timeoutMs: 300_000 });
    const readyAt = new Map<string, number>();
    let runDone = false;
    void run.finally(() => (runDone = true));
    while (readyAt.size < plans.length && !runDone) {
      for (const nm of await listRequests(admin, NS)) {
        const key = `${NS}/${nm.metadata.name}`;
        if (phaseOf(nm) === 'Ready' && !readyAt.has(key)) readyAt.set(key, Date.now());
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const summary = await run;
    await cp.audit.sync();

    // The pods' own stop, per node: first eviction by kmaint to the last pod deleted by the (simulated) kubelet.
    const evictions = timedRequests(cp.audit.path, mark, 'kmaint').filter((r) => r.resource === 'pods/eviction');
    const kubeletDeletes = timedRequests(cp.audit.path, mark, 'kmaint-sim-kubelet').filter((r) => r.verb === 'delete' && r.resource === 'pods');
    const nodeOfPod = new Map(pods.map((p) => [p.name, p.node]));
    const rows = plans.map((p) => {
      const key = namespacedName(p);
      const node = p.spec.nodeName;
      const total = (readyAt.get(key) ?? Number.NaN) - (createdAt.get(key) ?? Number.NaN);
      const firstEvict = Math.min(...evictions.filter((e) => nodeOfPod.get(e.name) === node).map((e) => e.receivedMs));
      const lastGone = Math.max(...kubeletDeletes.filter((d) => nodeOfPod.get(d.name) === node).map((d) => d.completedMs));
      return { total, stop: lastGone - firstEvict, toEvict: firstEvict - (createdAt.get(key) ?? Number.NaN), afterGone: (readyAt.get(key) ?? Number.NaN) - lastGone };
    });
    const passes: Record<string, number> = {};
    for (const s of summary.passes) passes[s.fn] = (passes[s.fn] ?? 0) + 1;
    const line = (label: string, values: number[]): void => print(`    ${label}: p50 ${ms(percentile(values, 50))}, max ${ms(Math.max(...values))}`);

    print();
    print(`4. Request -> Ready overhead: ${targets.length} nodes of a ${opts.clusterNodes}-node small-profile cluster, ${opts.podsPerNode} pods per node that stop in ${opts.terminationSeconds} s, runUntilIdle over scheduler, drainer, cleanup`);
    print(`    (${load})`);
    print(`    run: ${summary.stopped} after ${summary.rounds} rounds in ${ms(summary.durationMs)}; passes ${counts(passes)}; Ready ${readyAt.size}/${plans.length}`);
    line('request created -> Ready', rows.map((r) => r.total));
    line('pods\' own stop (first eviction -> last pod deleted by the kubelet)', rows.map((r) => r.stop));
    line('request created -> first eviction', rows.map((r) => r.toEvict));
    line('last pod deleted -> Ready seen', rows.map((r) => r.afterGone));
    line(`overhead = total - nominal ${opts.terminationSeconds} s`, rows.map((r) => r.total - opts.terminationSeconds * 1000));
    line('overhead = total - measured pods\' stop', rows.map((r) => r.total - r.stop));
  } finally {
    await kubelet?.stop().catch(() => undefined);
    await cp.stop();
  }
}
