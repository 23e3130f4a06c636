// Test fixtures of the kube area: a KubeClient talking to a loopback http server that plays the API server.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from './client.ts';
import type { KubeTransport } from './transport.ts';

/** A kubeconfig whose only cluster is `server` (listening on 127.0.0.1), with a token user. */
export function aLoopbackKubeConfig(server: Server): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

/** A client of `server` (listening on 127.0.0.1) that tries each request once: the server's answer is the test's. */
export function aLoopbackClient(server: Server, opts: { pageSize?: number } = {}): KubeClient {
  return new KubeClient(aLoopbackKubeConfig(server), { ...(opts.pageSize !== undefined ? { pageSize: opts.pageSize } : {}), retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
}

/** The write calls of a transport a test may fail. */
type WriteMethod = 'create' | 'patch';

/**
 * `inner` with its first `method` call that `matches` answered by `fail` instead (which gets the real call, to let the
 * write land first when the test loses only its answer); every other call goes through. `failed()` counts the failures.
 */
export function failingFirst<M extends WriteMethod>(
  inner: KubeTransport,
  method: M,
  matches: (...args: Parameters<KubeTransport[M]>) => boolean,
  fail: (call: () => ReturnType<KubeTransport[M]>) => ReturnType<KubeTransport[M]>,
): { transport: KubeTransport; failed: () => number } {
  let failures = 0;
  const transport = new Proxy(inner, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      const bound = (value as (...a: unknown[]) => unknown).bind(target);
      if (prop !== method) return bound;
      return (...args: Parameters<KubeTransport[M]>) => {
        const call = (): ReturnType<KubeTransport[M]> => bound(...args) as ReturnType<KubeTransport[M]>;
        if (failures > 0 || !matches(...args)) return call();
        failures++;
        return fail(call);
      };
    },
  });
  return { transport, failed: () => failures };
}
