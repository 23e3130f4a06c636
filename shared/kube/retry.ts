// Pure retry timing: which failures are retried, and how long to wait (exponential backoff, Retry-After).

export interface RetryPolicy {
  /** @default 4 */
  attempts: number;
  /** @default 200 */
  baseDelayMs: number;
  /** @default 5000 */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 200, maxDelayMs: 5000 };

/** Status 0 means the connection failed before a response arrived. */
export function isRetryable(status: number): boolean {
  return status === 0 || status === 429 || status === 500 || status === 502 || status === 503 || status === 504;
}

/**
 * Delay before retry number `attempt` (1-based): Retry-After (seconds) when the server sent one, capped at
 * maxDelayMs; otherwise baseDelayMs * 2^(attempt-1), capped. `jitter` in [0,1) scales the backoff by 0.5..1.
 */
export function retryDelayMs(attempt: number, policy: RetryPolicy, retryAfter: string | undefined, jitter: number): number {
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, policy.maxDelayMs);
  }
  const backoff = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  return Math.round(backoff * (0.5 + jitter / 2));
}
