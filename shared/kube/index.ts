// Public surface of shared/kube: the API client, its outcomes and errors, retry timing, and how to reach a cluster.
export { KubeClient, withOneConnectionPool } from './client.ts';
export { eventBody, EVENT_MESSAGE_MAX } from './event-body.ts';
export type { EventRequest } from './event-body.ts';
export type { KubeClientOptions, RequestCounts, WriteOutcome } from './client.ts';
export type { ListedVersion, WatchOutcome } from './watch-change.ts';
export { EksAuthError, KubeRequestError } from './errors.ts';
export { DEFAULT_RETRY, isRetryable, retryDelayMs } from './retry.ts';
export type { RetryPolicy } from './retry.ts';
export { KubeConfigError, kubeConfigFromText, loadKubeConfig } from './kubeconfig.ts';
export { kubeConfigFromSecret, secretArnRegion } from './kubeconfig-secret.ts';
export type { SecretKubeConfigOptions } from './kubeconfig-secret.ts';
export { EKS_CLUSTER_ID_HEADER, EKS_PRESIGN_EXPIRES_SECONDS, EKS_TOKEN_PREFIX, EksTokenSource, signEksToken } from './eks-token.ts';
export type { AwsCredentials, AwsCredentialsProvider, EksToken, EksTokenSourceOptions } from './eks-token.ts';
export { describeEksCluster, eksKubeConfig } from './eks-kubeconfig.ts';
export type { EksEndpoint, EksKubeConfigOptions } from './eks-kubeconfig.ts';
