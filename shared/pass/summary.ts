// What one pass reports: the functions a pass can run, and the summary it ends with (one log line, the runtime's input).
import type { PassMetrics } from '../metrics/index.ts';

export const PASS_FUNCTIONS = ['scheduler', 'drainer', 'cleanup', 'reaper'] as const;
export type PassFunction = (typeof PASS_FUNCTIONS)[number];

/** A request the scheduler leaves Pending, and why. */
export interface PassWait {
  /** namespace/name */
  request: string;
  node: string;
  /** The Ready condition message the scheduler writes for it ("waiting: ..."). */
  reason: string;
}

export interface PassSummary {
  fn: PassFunction;
  passId: string;
  outcome: 'applied' | 'dry-run' | 'lease-held';
  durationMs: number;
  /**
   * API requests by "verb resource". In a run (`kmaint run`, a Lambda invocation) the last pass of each function also
   * counts the request that gave its lease back when the run ended (after the pass's own log line).
   */
  requests: Record<string, number>;
  apiErrors: number;
  retries: number;
  planned: number;
  /** Actions applied, by kind. */
  actions: Record<string, number>;
  conflicts: number;
  blocked: number;
  errors: string[];
  /** Another pass soon would make progress (requests in flight, conflicts to decide again). */
  workRemains: boolean;
  /** Requests waiting on a limit (scheduler) — blocked, not idle. */
  waiting: number;
  admitted: number;
  becameReady: number;
  released: number;
  collected: number;
  /** Deleted requests still carrying our finalizer and no other requestor: work for cleanup. */
  awaitingCleanup: number;
  configProblems: string[];
  /** Every planned action, one line each (dry runs and debug logs). */
  plan: string[];
  /**
   * Scheduler dry runs only: every request left Pending with its wait reason, also those whose reason is
   * unchanged (no action). Absent otherwise, so real passes' summaries and logs stay small at 10,000 requests.
   */
  waits?: PassWait[];
  leaseHolder?: string;
  /** What the pass measured (shared/metrics); absent when it read nothing (lease held, reaper disabled). */
  metrics?: PassMetrics;
}

/** A summary of a pass that has done nothing yet: every count 0, every list empty. */
export function emptyPassSummary(fn: PassFunction, passId: string, outcome: PassSummary['outcome']): PassSummary {
  return {
    fn,
    passId,
    outcome,
    durationMs: 0,
    requests: {},
    apiErrors: 0,
    retries: 0,
    planned: 0,
    actions: {},
    conflicts: 0,
    blocked: 0,
    errors: [],
    workRemains: false,
    waiting: 0,
    admitted: 0,
    becameReady: 0,
    released: 0,
    collected: 0,
    awaitingCleanup: 0,
    configProblems: [],
    plan: [],
  };
}
