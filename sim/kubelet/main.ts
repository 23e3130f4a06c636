// Runs the simulated kubelet as its own process (used by `npm run testbed -- up`): regenerates the cluster's
// nodes from the seed in --cluster and keeps them alive until SIGTERM. With --kmaint-bundle it runs kmaint's own pods
// as host processes of that bundle (logs under --log-dir/pods/). It plays the DRA GPU driver too (ResourceSlices of
// the GPU nodes, dra-driver.ts), as the tests' testbed does.
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { generateCluster, type GenerateOptions } from '../generator/index.ts';
import { SimKubelet, apiServerAddress, hostProcessUnsupported, type HostProcessOptions } from './index.ts';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const kubeconfig = arg('kubeconfig');
const clusterFile = arg('cluster');
if (!kubeconfig || !clusterFile) {
  process.stderr.write('usage: sim/kubelet/main.ts --kubeconfig FILE --cluster cluster.json [--heartbeat MS] [--kmaint-bundle FILE --log-dir DIR]\n');
  process.exit(2);
}
const kc = new KubeConfig();
kc.loadFromFile(kubeconfig);
const cluster = generateCluster(JSON.parse(readFileSync(clusterFile, 'utf8')) as GenerateOptions);
const bundle = arg('kmaint-bundle');
let hostProcesses: HostProcessOptions | undefined;
if (bundle !== undefined) {
  const unsupported = hostProcessUnsupported();
  if (unsupported !== undefined) process.stderr.write(`sim-kubelet: kmaint's pods are SIMULATED, not run: ${unsupported}\n`);
  else hostProcesses = { bundle, logDir: arg('log-dir') ?? process.cwd(), apiServer: apiServerAddress(kc.getCurrentCluster()?.server ?? '') };
}
const kubelet = new SimKubelet({ kubeConfig: kc, nodes: cluster.nodes, heartbeatIntervalMs: Number(arg('heartbeat') ?? 10_000), podSync: 'watch', draGpus: true, ...(hostProcesses ? { hostProcesses } : {}) });
await kubelet.start();
process.stderr.write(`sim-kubelet: ${cluster.nodes.length} nodes registered\n`);
const stop = (): void => {
  kubelet.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
// The kubelet's own timers do not hold the process open (they are unref'd for in-process use).
setInterval(() => undefined, 1 << 30);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
