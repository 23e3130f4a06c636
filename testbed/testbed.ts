// startTestbed(): the control plane, the simulated kubelet and a generated cluster, ready for tests.
import { KubeConfig, CoreV1Api, type V1Node, type V1Pod } from '@kubernetes/client-node';
import { createCluster, generateCluster, type GeneratedCluster, type ProfileName } from '../sim/generator/index.ts';
import { SimKubelet, apiServerAddress, hostProcessUnsupported, serveKubeletControl, type HostProcessOptions } from '../sim/kubelet/index.ts';
import { ensureBinaries } from './build.ts';
import { imageToolBinary, imageToolIsCurrent } from '../image/tool.ts';
import { startControlPlane, type ControlPlane } from './start.ts';
import type { AuditLog } from './audit.ts';

export interface TestbedOptions {
  dir: string;
  profile?: ProfileName;
  seed?: number;
  /** Override the profile's node count. */
  nodes?: number;
  /** Lease renewal interval of the simulated kubelet. @default 10000 */
  heartbeatIntervalMs?: number;
  log?: (line: string) => void;
  /** Wait at most this long for nodes Ready and pods Running (generous: a loaded machine; issue 18). @default 300000 */
  readyTimeoutMs?: number;
  /**
   * The bundled kmaint CLI (dist/kmaint.mjs, or the tests' build): the simulated kubelet runs kmaint's own pods (image
   * `kmaint`) as host processes of it, logs under DIR/pods/. Unset, or without root: their pods are simulated.
   */
  kmaintBundle?: string | Promise<string>;
  /** The control plane's feature gates (start.ts). @default TESTBED_FEATURE_GATES */
  featureGates?: Record<string, boolean>;
  /** GOMAXPROCS of the control plane's Go processes (start.ts). @default Go's own (every core) */
  goMaxProcs?: number;
}

/** The kubelet's host-process settings for a testbed in `dir`, or undefined (said through `log`) when it cannot run them. */
export function hostProcessOptions(dir: string, server: string, bundle: string | Promise<string> | undefined, log: (line: string) => void): HostProcessOptions | undefined {
  if (bundle === undefined) return undefined;
  const unsupported = hostProcessUnsupported();
  if (unsupported !== undefined) {
    log(`kmaint's pods are SIMULATED, not run: ${unsupported}`);
    return undefined;
  }
  // With the image tool built (npm run image:build), pods whose image names a loopback registry run from that image.
  return { bundle, logDir: dir, apiServer: apiServerAddress(server), ...(imageToolIsCurrent() ? { imageTool: imageToolBinary() } : {}) };
}

export interface Testbed {
  dir: string;
  kubeconfigPath: string;
  kubeConfig: KubeConfig;
  controlPlane: ControlPlane;
  audit: AuditLog;
  kubelet: SimKubelet;
  /** Loopback handle on the kubelet for other processes (sim/kubelet/control.ts): make a Node NotReady. */
  kubeletControlUrl: string;
  cluster: GeneratedCluster;
  stop(): Promise<void>;
}

function isNodeReady(n: V1Node): boolean {
  const ready = n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  const notReadyTaint = n.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/not-ready') ?? false;
  return ready && !notReadyTaint;
}

function isSettled(p: V1Pod): boolean {
  const phase = p.status?.phase;
  if (phase === 'Succeeded') return true;
  return phase === 'Running' && (p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false);
}

export function kubeConfigFrom(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

/** Waits until every node is Ready (taint cleared) and the expected pods run. */
export async function waitForCluster(kc: KubeConfig, cluster: GeneratedCluster, timeoutMs: number, log: (l: string) => void): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const nodes = (await core.listNode()).items;
    const pods = (await core.listPodForAllNamespaces()).items;
    const readyNodes = nodes.filter(isNodeReady).length;
    const settled = pods.filter(isSettled).length;
    const state = `${readyNodes}/${cluster.nodes.length} nodes Ready, ${settled}/${cluster.expectedPods} pods running`;
    if (state !== last) log(state);
    last = state;
    if (readyNodes >= cluster.nodes.length && settled >= cluster.expectedPods) return;
    if (Date.now() > deadline) throw new Error(`testbed cluster not ready after ${Math.round(timeoutMs / 1000)} s: ${state}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Waits until the simulated kubelet (another process) has registered `count` nodes. */
export async function waitForNodesRegistered(kc: KubeConfig, count: number, timeoutMs: number, logFile: string): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = (await core.listNode()).items.length;
    if (n >= count) return;
    if (Date.now() > deadline) throw new Error(`sim-kubelet: ${n}/${count} nodes registered after ${Math.round(timeoutMs / 1000)} s (log: ${logFile})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function hostOptions(opts: TestbedOptions, cp: ControlPlane, log: (line: string) => void): { hostProcesses?: HostProcessOptions } {
  const hostProcesses = hostProcessOptions(cp.dir, cp.server, opts.kmaintBundle, log);
  return hostProcesses ? { hostProcesses } : {};
}

export async function startTestbed(opts: TestbedOptions): Promise<Testbed> {
  const log = opts.log ?? (() => undefined);
  await ensureBinaries({ log });
  const cp = await startControlPlane({ dir: opts.dir, log, ...(opts.featureGates !== undefined ? { featureGates: opts.featureGates } : {}), ...(opts.goMaxProcs !== undefined ? { goMaxProcs: opts.goMaxProcs } : {}) });
  let kubelet: SimKubelet | undefined;
  try {
    const cluster = generateCluster({ profile: opts.profile ?? 'small', seed: opts.seed ?? 1, ...(opts.nodes !== undefined ? { nodes: opts.nodes } : {}) });
    const admin = kubeConfigFrom(cp.kubeconfigPath);
    kubelet = new SimKubelet({
      kubeConfig: kubeConfigFrom(cp.kubeconfigFor('kmaint-sim-kubelet')),
      nodes: cluster.nodes,
      heartbeatIntervalMs: opts.heartbeatIntervalMs ?? 10_000,
      // LIST then WATCH, as a kubelet does: polling every 500 ms listed every bound pod twice a second on each testbed,
      // idle or not (116 LISTs a minute on an idle testbed; docs/benchmarks.md, "Third session").
      podSync: 'watch',
      // A real control plane allocates DRA claims: the GPU nodes' simulated driver publishes their GPUs.
      draGpus: true,
      ...hostOptions(opts, cp, log),
    });
    await kubelet.start();
    await createCluster(admin, cluster);
    await waitForCluster(admin, cluster, opts.readyTimeoutMs ?? 300_000, log);
    const k = kubelet;
    const control = await serveKubeletControl(k);
    return {
      dir: cp.dir,
      kubeconfigPath: cp.kubeconfigPath,
      kubeConfig: admin,
      controlPlane: cp,
      audit: cp.audit,
      kubelet: k,
      kubeletControlUrl: control.url,
      cluster,
      stop: async () => {
        await control.close();
        await k.stop();
        await cp.stop();
      },
    };
  } catch (err) {
    await kubelet?.stop().catch(() => undefined);
    await cp.stop();
    throw err;
  }
}
