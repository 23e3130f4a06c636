// Errors of the Kubernetes I/O layer.
import { KmaintError } from '../errors/index.ts';

/** A request to the API server failed in a way the caller cannot treat as an outcome. */
export class KubeRequestError extends KmaintError {
  override name = 'KubeRequestError';
  constructor(
    /** What was being done, e.g. "patching NodeMaintenance ns/name". */
    readonly doing: string,
    /** HTTP status, 0 when no response arrived. */
    readonly status: number,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`${doing}: ${status ? `HTTP ${status}: ` : ''}${detail}`, options);
  }
}

/** Reaching an EKS cluster failed before any Kubernetes request: credentials, signing, or DescribeCluster. */
export class EksAuthError extends KmaintError {
  override name = 'EksAuthError';
  constructor(
    readonly clusterName: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
