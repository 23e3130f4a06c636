// A soak on the embedded simulated cluster (sim/): its API server on loopback over plain HTTP behind the same fault
// proxy, its kubelet taking nodes NotReady and killing them, its request log standing in for the audit log. No Go
// toolchain. Used by `npm run soak -- --cluster sim` and the short all-features seed of `npm test`.
import { CoreV1Api } from '@kubernetes/client-node';
import { realClock } from '../sim/clock.ts';
import { startEmbeddedCluster } from '../sim/embedded.ts';
import { KMAINT_SERVICE_ACCOUNT_USER } from '../test/setup/install-kmaint.ts';
import { runSoak, type SoakOptions, type SoakReport } from './run-soak.ts';

/** The soak's settings that do not depend on the cluster. */
export type SimSoakOptions = Omit<SoakOptions, 'admin' | 'kmaint' | 'server' | 'caPem' | 'nodeControl' | 'audit' | 'afterFeatureSetup'>;

export async function runSoakOnSim(nodes: number, opts: SimSoakOptions): Promise<SoakReport> {
  const sim = await startEmbeddedCluster({ clock: realClock(), profile: 'small', seed: opts.seed, nodes, pollIntervalMs: 250, readyTimeoutMs: 300_000 });
  try {
    const server = sim.apiserver;
    await sim.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: opts.kmaintNamespace } } });
    return await runSoak({
      ...opts,
      admin: sim.kubeConfig,
      kmaint: server.kubeConfig({ user: KMAINT_SERVICE_ACCOUNT_USER }),
      server: server.url,
      caPem: '',
      // No node deletions: the sim has no ownerReference garbage collector, so the request of a deleted Node (owned by
      // it) would stay for good, where the testbed's kube-controller-manager deletes it.
      nodeControl: { setNodeReady: (name, ready) => sim.kubelet.setNodeReady(name, ready), killNode: (name) => sim.kubelet.setNodeReady(name, false, { freezePods: true }) },
      audit: {
        log: { sync: () => Promise.resolve(), mark: () => server.mark(), entries: (f) => server.requests(f).map(({ fault: _fault, ...e }) => e) },
        kmaintUser: KMAINT_SERVICE_ACCOUNT_USER,
      },
    });
  } finally {
    await sim.stop();
  }
}
