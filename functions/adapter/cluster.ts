// How a function reaches its cluster: a kubeconfig (a file, its text in the environment, or a Secrets Manager
// secret), or EKS with the function role's IAM credentials.
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import type { KubeConfig } from '@kubernetes/client-node';
import { eksKubeConfig, kubeConfigFromSecret, kubeConfigFromText, loadKubeConfig, type AwsCredentialsProvider } from '#kube';
import type { ClusterAccess } from './settings.ts';

function buildKubeConfig(access: ClusterAccess, credentials: AwsCredentialsProvider | undefined): Promise<KubeConfig> {
  switch (access.kind) {
    case 'kubeconfig':
      return Promise.resolve().then(() => loadKubeConfig({ path: access.path }));
    case 'kubeconfig-text':
      return Promise.resolve().then(() => kubeConfigFromText(access.text, { source: 'from KMAINT_KUBECONFIG' }));
    case 'kubeconfig-secret':
      return kubeConfigFromSecret({ secretArn: access.secretArn });
    case 'eks':
      return eksKubeConfig({ clusterName: access.clusterName, region: access.region, credentials: credentials ?? fromNodeProviderChain(), ...(access.endpoint ? { endpoint: access.endpoint } : {}) });
  }
}

/**
 * Builds the KubeConfig once per container (one GetSecretValue per container for a secret); a failure is not
 * cached, so the next invocation tries again. EKS credentials default to the SDK's provider chain (the function role
 * in Lambda); the secret is always read with that chain.
 */
export function cachedKubeConfig(access: ClusterAccess, credentials?: AwsCredentialsProvider): () => Promise<KubeConfig> {
  let pending: Promise<KubeConfig> | undefined;
  return () => {
    pending ??= buildKubeConfig(access, credentials).catch((err: unknown) => {
      pending = undefined;
      throw err;
    });
    return pending;
  };
}
