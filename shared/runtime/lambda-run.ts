// One function's passes inside a time-boxed invocation (AWS Lambda): repeat with backoff while work remains,
// stop with a safety margin before the time runs out, give the pass lease back, then decide the chain and start it.
import { errorMessage } from '../errors/index.ts';
import { countReleases, PassRound, type HeldLeases, type PassFunction, type PassSummary } from '../pass/index.ts';
import { decideChain, type ChainDecision, type ChainSettings } from './chain.ts';
import { runRounds } from './round-loop.ts';
import { abortableSleep, type Sleep } from './sleep.ts';

/**
 * Runs one pass of `fn`; injected so the same budget logic serves any runner (real client, tests). `round` is the
 * pass's own round (nothing read yet) carrying the invocation's leases, for runPass's `round` option.
 */
export type PassRunner = (fn: PassFunction, signal?: AbortSignal, round?: PassRound) => Promise<PassSummary>;

/** Starts `target` asynchronously with the chain depth it should run at. */
export type ChainStarter = (target: PassFunction, depth: number) => Promise<void>;

export interface BudgetRunOptions {
  fn: PassFunction;
  runPass: PassRunner;
  /** Milliseconds left in the invocation, e.g. Lambda's `context.getRemainingTimeInMillis`. */
  remainingMs: () => number;
  /** Kept free at the end, on top of the longest pass seen so far. @default 10000 */
  safetyMarginMs?: number;
  /**
   * The invocation's pass leases, kept as `kmaint run` keeps them (shared/pass/held-leases.ts): taken by the first
   * pass with something to write, kept (and renewed) across the passes, and given back once when the passes end —
   * however they end, a throw included — before the chain starts. Absent (dry runs, runners that lease per pass):
   * each pass takes and gives back its own lease.
   */
  leases?: HeldLeases;
  /**
   * With `leases`: kept free on top of the margin and the longest pass for giving them back (one UPDATE, retried on
   * transient failures: 4 attempts with 0.1–0.8 s between them), the time each pass used to spend on it. @default 2000
   */
  leaseReleaseMs?: number;
  /** Stop after this many passes. @default unlimited */
  maxPasses?: number;
  /** Passes plan only; nothing is chained. @default false */
  dryRun?: boolean;
  /** First wait between passes while work remains; doubles while nothing changes. @default 500 */
  intervalMs?: number;
  /** @default 5000 */
  maxIntervalMs?: number;
  /** Longest wait after a pass that found the lease held by another live holder. @default 10000 */
  heldMaxIntervalMs?: number;
  /** Milliseconds clock used to time passes. @default Date.now */
  clock?: () => number;
  sleep?: Sleep;
  signal?: AbortSignal;
  chain: ChainSettings;
  /** Starts the chained function; without it the decision is only reported. */
  startChain?: ChainStarter;
}

export type ChainOutcome =
  | ChainDecision
  | { kind: 'failed'; target: PassFunction; depth: number; reason: string; error: string };

export interface BudgetRunSummary {
  fn: PassFunction;
  /** idle: nothing left to do; time-budget: the next pass might not finish in time; failed: every write failed. */
  stopped: 'idle' | 'time-budget' | 'max-passes' | 'failed';
  passes: PassSummary[];
  durationMs: number;
  /** Time left when the run stopped. */
  remainingMs: number;
  workRemains: boolean;
  admitted: number;
  becameReady: number;
  released: number;
  collected: number;
  conflicts: number;
  apiErrors: number;
  errors: number;
  /** Actions applied over all passes, by kind. */
  actions: Record<string, number>;
  chain: ChainOutcome;
}

const sum = (passes: readonly PassSummary[], pick: (p: PassSummary) => number): number => passes.reduce((a, p) => a + pick(p), 0);

function everyWriteFailed(s: PassSummary): boolean {
  return s.errors.length > 0 && s.planned > 0 && Object.keys(s.actions).length === 0;
}

/** Runs passes of `opts.fn` until idle or the time budget is spent, then chains as decided. */
export async function runWithinBudget(opts: BudgetRunOptions): Promise<BudgetRunSummary> {
  const clock = opts.clock ?? Date.now;
  const sleep = opts.sleep ?? abortableSleep;
  // The lease release happens after the last pass: its time is kept free like the margin.
  const margin = (opts.safetyMarginMs ?? 10_000) + (opts.leases ? (opts.leaseReleaseMs ?? 2000) : 0);
  const started = clock();
  const passes: PassSummary[] = [];
  let longestPassMs = 0;
  // Each pass is a round of its own: it reads its own snapshot; the round carries the invocation's leases.
  const round = new PassRound(opts.leases);
  let stopped: BudgetRunSummary['stopped'];
  try {
    ({ stopped } = await runRounds<'time-budget' | 'max-passes'>({
      round: async () => {
        const passStarted = clock();
        round.next();
        const summary = await opts.runPass(opts.fn, opts.signal, round);
        longestPassMs = Math.max(longestPassMs, clock() - passStarted);
        passes.push(summary);
        return {
          remains: summary.workRemains,
          progressed: Object.keys(summary.actions).length > 0,
          // A pass that leaves nothing to do ends the run as idle, whatever failed in it.
          failed: summary.workRemains && everyWriteFailed(summary),
          // Held back by another live holder's lease (an overlapping invocation, a `kmaint run`): back off further, as
          // `kmaint run` does: that holder is doing the work; this invocation takes over if it ends first.
          heldOnly: summary.outcome === 'lease-held',
        };
      },
      backoff: { intervalMs: opts.intervalMs ?? 500, maxIntervalMs: opts.maxIntervalMs ?? 5000, heldMaxIntervalMs: opts.heldMaxIntervalMs ?? 10_000, style: 'invocation' },
      sleep,
      ...(opts.signal ? { signal: opts.signal } : {}),
      untilIdle: true,
      // A pass is started only if one as long as the longest so far still ends before the margin.
      beforeRound: (n) => (opts.maxPasses !== undefined && n > opts.maxPasses ? 'max-passes' : opts.remainingMs() < margin + longestPassMs ? 'time-budget' : undefined),
      beforeWait: (waitMs) => (opts.remainingMs() - waitMs < margin + longestPassMs ? 'time-budget' : undefined),
    }));
  } finally {
    // Given back before the chain starts and before the summary: the invocation's passes are over.
    if (opts.leases) countReleases(passes, await opts.leases.releaseAll());
  }

  const { chain, admitted, becameReady } = await chainAfter(opts, passes);
  const actions: Record<string, number> = {};
  for (const p of passes) for (const [k, v] of Object.entries(p.actions)) actions[k] = (actions[k] ?? 0) + v;
  return {
    fn: opts.fn,
    stopped,
    passes,
    durationMs: clock() - started,
    remainingMs: opts.remainingMs(),
    workRemains: passes.at(-1)?.workRemains ?? true,
    admitted,
    becameReady,
    released: sum(passes, (p) => p.released),
    collected: sum(passes, (p) => p.collected),
    conflicts: sum(passes, (p) => p.conflicts),
    apiErrors: sum(passes, (p) => p.apiErrors),
    errors: sum(passes, (p) => p.errors.length),
    actions,
    chain,
  };
}

/** Decides whether to chain into the next function from the run's passes, and starts it; a failed start is an outcome. */
async function chainAfter(opts: BudgetRunOptions, passes: readonly PassSummary[]): Promise<{ chain: ChainOutcome; admitted: number; becameReady: number }> {
  const facts = {
    admitted: sum(passes, (p) => p.admitted),
    becameReady: sum(passes, (p) => p.becameReady),
    awaitingCleanup: passes.at(-1)?.awaitingCleanup ?? 0,
    dryRun: opts.dryRun === true,
  };
  const decision = decideChain(opts.fn, facts, opts.chain);
  let chain: ChainOutcome = decision;
  if (decision.kind === 'invoke' && opts.startChain) {
    try {
      await opts.startChain(decision.target, decision.depth);
    } catch (err) {
      // The state is in the objects: the target's next scheduled run does the same work.
      chain = { ...decision, kind: 'failed', error: errorMessage(err) };
    }
  }
  return { chain, admitted: facts.admitted, becameReady: facts.becameReady };
}
