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

/** One failed HTTP exchange, read once from client-node's exception or the network error. */
export interface HttpFailure {
  /** HTTP status, 0 when no response arrived. */
  status: number;
  message: string;
  retryAfter: string | undefined;
}

/**
 * A request that failed and will not be retried, inside the client: the verb that made it decides what it means (a
 * 410 restarts a LIST, a 409 is a conflict outcome) or wraps it in a KubeRequestError saying what was being done.
 */
export class HttpFailureError extends KmaintError {
  override name = 'HttpFailureError';
  constructor(
    readonly httpFailure: HttpFailure,
    options?: ErrorOptions,
  ) {
    super(httpFailure.message, options);
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

/**
 * A node LIST answer in protobuf that is not a v1 NodeList (or Status) kmaint can read: wrong magic, another kind,
 * truncated or mistyped bytes. Carried as a failed request without a status (0), so it is retried like a body cut
 * short by a dropped connection, then reported.
 */
export class NodeListDecodeError extends KmaintError {
  override name = 'NodeListDecodeError';
}

/**
 * A write the client refused to send because its write fence said the caller may no longer write (a pass whose lease
 * was taken by another pass, or could not be renewed in time: shared/pass/lease-fence.ts). Thrown, never an outcome:
 * the rest of the caller's writes stop with it.
 */
export class WriteFenceError extends KmaintError {
  override name = 'WriteFenceError';
}
