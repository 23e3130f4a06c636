// The embedded simulated cluster: the sim API server with kmaint's CRDs, the simulated kubelet for every node,
// the simulated controllers, and a generated cluster's workloads, all on one clock.
import { fileURLToPath } from 'node:url';
import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { startSimApiServer, type SimApiServer } from './apiserver/index.ts';
import { asKubeletClock, type SimClock } from './clock.ts';
import { SimControllers } from './controllers/index.ts';
import { GarbageCollector } from './controllers/garbage-collector.ts';
import { PodGC } from './controllers/pod-gc.ts';
import { createCluster, generateCluster, type GeneratedCluster, type ProfileName } from './generator/index.ts';
import { SimKubelet } from './kubelet/index.ts';
import { silentLogger, type SimLogger } from './kubelet/logger.ts';

export const CRDS_DIR = fileURLToPath(new URL('../crds/', import.meta.url));

/** The users the embedded cluster's own clients send (the request log tells them apart). */
/**
 * How long a start may take until every expected pod runs, in real ms: the small profile is up in about 2 s on a quiet
 * machine; 60 s was too little at load 15 (issue 18). Only a cluster that never gets there fails, with its count.
 */
export const READY_TIMEOUT_MS = 300_000;

export const SIM_USERS = { admin: 'admin', kubelet: 'sim-kubelet', controllers: 'sim-controllers' } as const;

export interface EmbeddedClusterOptions {
  clock: SimClock;
  /** @default 'demo' */
  profile?: ProfileName;
  /** @default 1 */
  seed?: number;
  /** Node count; @default the profile's. */
  nodes?: number;
  /** @default 0 (any free port) */
  port?: number;
  /**
   * Simulated ms between polls of the controllers and the kubelet. Keep it at least a few real ms times the
   * clock's speed: every poll LISTs the cluster. @default 1000
   */
  pollIntervalMs?: number;
  /** Simulated ms from a pod's binding to Running and Ready (image pull, readiness probe). @default 500 */
  podStartDelayMs?: number;
  /** How the kubelet follows its pods: LIST then WATCH (cheap), or a LIST every poll. @default 'watch' */
  kubeletPodSync?: 'poll' | 'watch';
  /** Extra namespaces to create. */
  namespaces?: readonly string[];
  /** Simulated seconds a node stays NotReady when kmaint's reboot Job reboots it. @default the kubelet's 3 */
  rebootSeconds?: number;
  /** Real ms to wait for every expected pod to run. @default READY_TIMEOUT_MS */
  readyTimeoutMs?: number;
  logger?: SimLogger;
}

export interface EmbeddedCluster {
  apiserver: SimApiServer;
  /** The admin's kubeconfig. */
  kubeConfig: KubeConfig;
  cluster: GeneratedCluster;
  kubelet: SimKubelet;
  controllers: SimControllers;
  /** Pods Running and Ready (or Succeeded) when start returned. */
  podsReady: number;
  stop(): Promise<void>;
}

function settled(p: V1Pod): boolean {
  if (p.metadata?.deletionTimestamp) return false;
  if (p.status?.phase === 'Succeeded') return true;
  return p.status?.phase === 'Running' && (p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false);
}

/** Starts everything and resolves once every expected pod runs; on failure stops what it started. */
export async function startEmbeddedCluster(opts: EmbeddedClusterOptions): Promise<EmbeddedCluster> {
  const { clock } = opts;
  const log = opts.logger ?? silentLogger;
  const poll = opts.pollIntervalMs ?? 1000;
  const cluster = generateCluster({ profile: opts.profile ?? 'demo', seed: opts.seed ?? 1, ...(opts.nodes !== undefined ? { nodes: opts.nodes } : {}) });
  const apiserver = await startSimApiServer({ port: opts.port ?? 0, crds: [CRDS_DIR], clock });
  const stops: Array<() => Promise<void>> = [() => apiserver.stop()];
  // kube-controller-manager's garbage collector: deleted owners take their dependents along.
  const gc = new GarbageCollector(apiserver.context);
  gc.start();
  stops.push(() => Promise.resolve(gc.stop()));
  // and its pod garbage collector: pods of deleted Nodes and unscheduled terminating pods are force-deleted.
  const podGc = new PodGC(apiserver.context, clock);
  podGc.start();
  stops.push(() => Promise.resolve(podGc.stop()));
  const stop = async (): Promise<void> => {
    for (const s of stops.reverse()) await s().catch((err: unknown) => log.warn({ err }, 'embedded cluster: stop failed'));
    stops.length = 0;
  };
  try {
    const kubeConfig = apiserver.kubeConfig({ user: SIM_USERS.admin });
    const kubelet = new SimKubelet({
      kubeConfig: apiserver.kubeConfig({ user: SIM_USERS.kubelet }),
      nodes: cluster.nodes,
      clock: asKubeletClock(clock),
      pollIntervalMs: poll,
      podStartDelayMs: opts.podStartDelayMs ?? 500,
      podSync: opts.kubeletPodSync ?? 'watch',
      ...(opts.rebootSeconds !== undefined ? { rebootSeconds: opts.rebootSeconds } : {}),
      // Nothing in the sim reads leases or heartbeat times; renewing them at the real pace would dominate the load.
      heartbeatIntervalMs: Math.max(10_000, poll * 25),
      nodeStatusIntervalMs: Math.max(60_000, poll * 50),
      logger: log,
    });
    await kubelet.start();
    stops.push(() => kubelet.stop());
    const core = kubeConfig.makeApiClient(CoreV1Api);
    for (const ns of opts.namespaces ?? []) {
      await core.createNamespace({ body: { metadata: { name: ns } } }).catch((err: unknown) => {
        if ((err as { code?: number }).code !== 409) throw err;
      });
    }
    await createCluster(kubeConfig, cluster, { logger: log });
    // Controllers start once every workload exists: their first rounds then see the same objects on every run,
    // so the same seed places the same pods on the same nodes.
    const controllers = new SimControllers({ kubeConfig: apiserver.kubeConfig({ user: SIM_USERS.controllers }), clock, intervalMs: poll, seed: opts.seed ?? 1, logger: log });
    controllers.start();
    stops.push(() => controllers.stop());
    const deadline = Date.now() + (opts.readyTimeoutMs ?? READY_TIMEOUT_MS);
    let podsReady = 0;
    for (;;) {
      const pods = (await core.listPodForAllNamespaces()).items;
      podsReady = pods.filter(settled).length;
      if (podsReady >= cluster.expectedPods && pods.every((p) => settled(p) || p.status?.phase === 'Succeeded')) break;
      if (Date.now() > deadline) throw new Error(`embedded cluster not ready after ${Math.round((opts.readyTimeoutMs ?? READY_TIMEOUT_MS) / 1000)} s: ${podsReady}/${cluster.expectedPods} pods running`);
      // Each check LISTs every pod: a few per simulated poll interval are plenty.
      await clock.sleep(poll * 4);
    }
    return { apiserver, kubeConfig, cluster, kubelet, controllers, podsReady, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
