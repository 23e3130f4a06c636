// Public surface of shared/kube: the API client, its outcomes and errors, retry timing.
export { KubeClient } from './client.ts';
export type { KubeClientOptions, RequestCounts, WriteOutcome } from './client.ts';
export { KubeRequestError } from './errors.ts';
export { DEFAULT_RETRY, isRetryable, retryDelayMs } from './retry.ts';
export type { RetryPolicy } from './retry.ts';
export { loadKubeConfig } from './kubeconfig.ts';
