// Test fixtures of the kube area: a KubeClient talking to a loopback http server that plays the API server.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from './client.ts';

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
