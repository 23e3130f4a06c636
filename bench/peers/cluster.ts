// A fresh testbed for one system's run of one scenario: control plane, simulated kubelet for the generated
// nodes (no generated workloads), the scenario's pods, Jobs and PDB, and ServiceAccount logins.
import { forEachBounded } from '../../shared/concurrency/index.ts';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BatchV1Api, CoreV1Api, PolicyV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_SIM_RUN_SECONDS, ANNOTATION_SIM_TERMINATION_SECONDS, LABEL_POOL, PAUSE_IMAGE, generateCluster } from '../../sim/generator/index.ts';
import { SimKubelet } from '../../sim/kubelet/index.ts';
import { kubeconfigYaml } from '../../testbed/certs.ts';
import { startControlPlane, type ControlPlane } from '../../testbed/start.ts';
import { kubeConfigFrom } from '../../testbed/testbed.ts';
import { binaryPath } from '../../testbed/versions.ts';
import { DRAIN_LABEL, type BenchPod, type Scenario } from './scenario.ts';

const run = promisify(execFile);
export const BENCH_NS = 'bench';
export const PDB_NAME = 'bench-guard';

export interface BenchCluster {
  cp: ControlPlane;
  admin: KubeConfig;
  kubelet: SimKubelet;
  /** The maintained nodes, in request order. */
  targets: string[];
  /** Pods the drain is meant to evict (namespace/name). */
  drainable: Set<string>;
  kubectl(args: string[], input?: string): Promise<string>;
  /** Creates the scenario's Jobs and waits for their pods to run: call just before the requests. */
  startJobs(): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function podBody(node: string, p: BenchPod): V1Pod {
  const annotations: Record<string, string> = { [ANNOTATION_SIM_TERMINATION_SECONDS]: String(p.terminationSeconds) };
  if (p.job) annotations[ANNOTATION_SIM_RUN_SECONDS] = String(p.job.runSeconds);
  return {
    metadata: { name: p.name, namespace: BENCH_NS, labels: p.labels, annotations },
    spec: {
      nodeName: node,
      terminationGracePeriodSeconds: 30,
      ...(p.job ? { restartPolicy: 'Never' } : {}),
      tolerations: [{ operator: 'Exists' }],
      containers: [{ name: 'c', image: PAUSE_IMAGE, resources: { requests: { cpu: '10m', ...(p.requests ?? {}) }, limits: { ...(p.requests ?? {}) } } }],
    },
  };
}

async function untilTrue(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not done after ${Math.round(timeoutMs / 1000)} s`);
    await sleep(250);
  }
}

export async function startBenchCluster(dir: string, scenario: Scenario, log: (line: string) => void): Promise<BenchCluster> {
  const cp = await startControlPlane({ dir, log });
  const admin = kubeConfigFrom(cp.kubeconfigPath);
  const generated = generateCluster({ profile: 'small', seed: 1, nodes: scenario.clusterNodes });
  const kubelet = new SimKubelet({
    kubeConfig: kubeConfigFrom(cp.kubeconfigFor('kmaint-sim-kubelet')),
    nodes: generated.nodes,
    heartbeatIntervalMs: 10_000,
    // Watch, as a real kubelet does: polling would add its period to every pod's stop.
    podSync: 'watch',
  });
  const kubectl = async (args: string[], input?: string): Promise<string> => {
    const child = run(binaryPath('kubectl'), ['--kubeconfig', cp.kubeconfigPath, ...args], { maxBuffer: 64 * 2 ** 20 });
    if (input !== undefined) child.child.stdin?.end(input);
    return (await child).stdout;
  };
  const stop = async (): Promise<void> => {
    await kubelet.stop().catch(() => undefined);
    await cp.stop();
  };
  try {
    await kubelet.start();
    const core = admin.makeApiClient(CoreV1Api);
    await untilTrue('nodes Ready', 120_000, async () => (await core.listNode()).items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length >= generated.nodes.length);
    const targets = generated.nodes
      .filter((n) => n.metadata?.labels?.[LABEL_POOL] === scenario.pool)
      .map((n) => n.metadata?.name ?? '')
      .slice(0, scenario.maintained);
    if (targets.length < scenario.maintained) throw new Error(`scenario ${scenario.name}: ${scenario.maintained} ${scenario.pool} nodes wanted, the cluster has ${targets.length}`);
    await core.createNamespace({ body: { metadata: { name: BENCH_NS } } });
    await untilTrue('ServiceAccount bench/default', 60_000, async () => (await core.listNamespacedServiceAccount({ namespace: BENCH_NS })).items.some((sa) => sa.metadata?.name === 'default'));
    const pods = targets.flatMap((node) => scenario.pods(node).map((p) => ({ node, p })));
    const drainable = new Set(pods.filter(({ p }) => !p.job && p.labels[DRAIN_LABEL] !== undefined).map(({ p }) => `${BENCH_NS}/${p.name}`));
    await forEachBounded(pods.filter(({ p }) => !p.job), { limit: 16 }, async ({ node, p }) => {
      await core.createNamespacedPod({ namespace: BENCH_NS, body: podBody(node, p) });
    });
    if (scenario.pdb) {
      await admin.makeApiClient(PolicyV1Api).createNamespacedPodDisruptionBudget({
        namespace: BENCH_NS,
        body: { metadata: { name: PDB_NAME, namespace: BENCH_NS }, spec: { minAvailable: scenario.pdb.minAvailable, selector: { matchLabels: scenario.pdb.selector } } },
      });
    }
    await untilTrue('bench pods Running', 180_000, async () => (await core.listNamespacedPod({ namespace: BENCH_NS })).items.filter((p) => p.status?.phase === 'Running').length >= pods.length - pods.filter(({ p }) => p.job).length);
    if (scenario.pdb) {
      await untilTrue('PDB observed', 60_000, async () => (await admin.makeApiClient(PolicyV1Api).readNamespacedPodDisruptionBudget({ namespace: BENCH_NS, name: PDB_NAME })).status?.observedGeneration === 1);
    }
    const startJobs = async (): Promise<void> => {
      const batch = admin.makeApiClient(BatchV1Api);
      const jobs = pods.filter(({ p }) => p.job);
      for (const { node, p } of jobs) {
        const tpl = podBody(node, p);
        await batch.createNamespacedJob({
          namespace: BENCH_NS,
          body: { metadata: { name: p.name, namespace: BENCH_NS }, spec: { ttlSecondsAfterFinished: 0, backoffLimit: 0, template: { metadata: { labels: p.labels, annotations: tpl.metadata?.annotations ?? {} }, spec: tpl.spec ?? { containers: [] } } } },
        });
      }
      await untilTrue('Job pods Running', 60_000, async () => {
        const items = (await core.listNamespacedPod({ namespace: BENCH_NS, labelSelector: 'batch.kubernetes.io/job-name' })).items;
        return items.filter((p) => p.status?.phase === 'Running').length >= jobs.length;
      });
    };
    return { cp, admin, kubelet, targets, drainable, kubectl, startJobs, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A ServiceAccount bound to a ClusterRole, and a kubeconfig logged in as it (TokenRequest). */
export async function serviceAccountLogin(c: BenchCluster, sa: { namespace: string; name: string; clusterRole: string }): Promise<{ kubeconfig: string; user: string }> {
  const core = c.admin.makeApiClient(CoreV1Api);
  await c.kubectl(['create', 'namespace', sa.namespace]).catch(() => '');
  await core.createNamespacedServiceAccount({ namespace: sa.namespace, body: { metadata: { name: sa.name, namespace: sa.namespace } } }).catch((err: unknown) => {
    if ((err as { code?: number }).code !== 409) throw err;
  });
  await c.kubectl(['create', 'clusterrolebinding', `${sa.namespace}-${sa.name}`, `--clusterrole=${sa.clusterRole}`, `--serviceaccount=${sa.namespace}:${sa.name}`]);
  const res = await core.createNamespacedServiceAccountToken({
    namespace: sa.namespace,
    name: sa.name,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [], expirationSeconds: 3 * 3600 } },
  });
  const token = res.status?.token ?? '';
  const kubeconfig = join(c.cp.dir, `kubeconfig-sa-${sa.name}`);
  writeFileSync(kubeconfig, kubeconfigYaml({ server: c.cp.server, caFile: c.cp.caFile, token, user: sa.name }), { mode: 0o600 });
  return { kubeconfig, user: `system:serviceaccount:${sa.namespace}:${sa.name}` };
}
