// How a function reaches its cluster: a kubeconfig file, or EKS with the function role's IAM credentials.
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import type { KubeConfig } from '@kubernetes/client-node';
import { eksKubeConfig, loadKubeConfig, type AwsCredentialsProvider } from '#kube';
import type { ClusterAccess } from './settings.ts';

/**
 * Builds the KubeConfig once per container; a failure is not cached, so the next invocation tries again.
 * EKS credentials default to the SDK's provider chain (the function role in Lambda).
 */
export function cachedKubeConfig(access: ClusterAccess, credentials?: AwsCredentialsProvider): () => Promise<KubeConfig> {
  let pending: Promise<KubeConfig> | undefined;
  return () => {
    pending ??= (
      access.kind === 'kubeconfig'
        ? Promise.resolve().then(() => loadKubeConfig({ path: access.path }))
        : eksKubeConfig({ clusterName: access.clusterName, region: access.region, credentials: credentials ?? fromNodeProviderChain(), ...(access.endpoint ? { endpoint: access.endpoint } : {}) })
    ).catch((err: unknown) => {
      pending = undefined;
      throw err;
    });
    return pending;
  };
}
