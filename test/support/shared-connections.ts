// The tests' own clients keep their connections: one pool per server and TLS identity for every KubeConfig the
// helpers hand out (adminKubeConfig, kmaintKubeConfig, tokenKubeConfig).
import type { KubeConfig, RequestContext } from '@kubernetes/client-node';

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

/** Kept for the worker's life: keyed by what the pool's connections are made with, so a pool serves only its own. */
const pools = new Map<string, Dispatcher>();

/**
 * What client-node builds a request's connection from (KubeConfig.applySecurityAuthentication): the server, how it
 * is verified and the client certificate. Tokens travel in headers, per request. Undefined where the certificate
 * comes from a plugin at request time (exec, auth-provider): such a config gets no shared pool.
 */
function connectionIdentity(kc: KubeConfig): string | undefined {
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (!cluster || user?.exec || user?.authProvider) return undefined;
  return JSON.stringify([
    cluster.server,
    cluster.caFile,
    cluster.caData,
    cluster.skipTLSVerify,
    cluster.tlsServerName,
    cluster.proxyUrl,
    user?.certFile,
    user?.certData,
    user?.keyFile,
    user?.keyData,
  ]);
}

/**
 * `kc`, changed so that its API clients reuse kept-alive connections across requests, clients and test files.
 * client-node 2.0 builds a new undici Agent, and so a new TLS connection, for every request: on the testbed that
 * cost about 4 ms of the test process's CPU and 1 ms of the API server's per request more than a kept connection
 * (docs/benchmarks.md, "Seventh session"). Headers are still applied per request by the original method, which reads
 * `kc` as it is at that moment; a change of server or certificate picks another pool.
 */
export function sharingConnections(kc: KubeConfig): KubeConfig {
  const own = kc.applySecurityAuthentication.bind(kc);
  kc.applySecurityAuthentication = async (context: RequestContext): Promise<void> => {
    await own(context);
    const key = connectionIdentity(kc);
    if (key === undefined) return;
    const kept = pools.get(key);
    if (kept) {
      context.setDispatcher(kept);
      return;
    }
    const built = context.getDispatcher();
    if (built) pools.set(key, built);
  };
  return kc;
}
