// The one round loop: run a round of passes, decide whether to stop, wait as the backoff says, again. `kmaint run`
// (until-idle.ts), the Lambda budget runner (lambda-run.ts), the demo and what-if all drive passes through it; what
// differs between them is only what a round is, when to stop, and how a wait passes (a timer, a watch, simulated
// time), each given here as a function. Nothing here reads a clock.
import type { Sleep } from './sleep.ts';

/** What one round did, as the loop reads it. */
export interface RoundOutcome {
  /** Some pass has work left (in flight or blocked). */
  remains: boolean;
  /** Some pass applied something. */
  progressed: boolean;
  /** A pass's every write failed: stop and report it instead of spinning. */
  failed: boolean;
  /** Held back by another live holder's pass lease, and by nothing else: that holder is doing the work. */
  heldOnly: boolean;
}

export interface BackoffSettings {
  /** The wait after progress, and the base the waits double from. */
  intervalMs: number;
  /** Longest wait. */
  maxIntervalMs: number;
  /** Longest wait after a round held back only by another holder's lease. */
  heldMaxIntervalMs: number;
  /**
   * `kmaint run`: the next round at once after progress, the first wait after a quiet round twice intervalMs.
   * `invocation` (Lambda): intervalMs after progress and after the first round, whatever it did.
   */
  style: 'run' | 'invocation';
}

/** The wait before the next round, from the wait before and what the round did. Pure. */
export function nextWait(settings: BackoffSettings, previousMs: number, o: RoundOutcome, firstRound: boolean): { waitMs: number; intervalMs: number } {
  const cap = o.heldOnly ? settings.heldMaxIntervalMs : settings.maxIntervalMs;
  const reset = o.progressed || (settings.style === 'invocation' && firstRound);
  const intervalMs = reset ? settings.intervalMs : Math.min(previousMs * 2, cap);
  return { intervalMs, waitMs: o.progressed && settings.style === 'run' ? 0 : intervalMs };
}

export interface RoundLoopOptions<Stop extends string> {
  /** Runs round `n` (from 1). */
  round: (n: number) => Promise<RoundOutcome>;
  backoff: BackoffSettings;
  /** The injected sleep; `wait` replaces it where a wait is more than time passing. */
  sleep: Sleep;
  signal?: AbortSignal;
  /** `idle` ends the loop when a round leaves no work (a run); false: go on (what-if models a schedule restarting it). */
  untilIdle: boolean;
  /** Before each round: a reason to stop instead, or undefined. */
  beforeRound?: (n: number) => Stop | undefined;
  /** After a round that neither failed nor went idle: a reason to stop, or undefined. */
  afterRound?: (o: RoundOutcome, n: number) => Stop | undefined;
  /** With the wait the backoff chose (0: none): a reason to stop instead of waiting, or undefined. */
  beforeWait?: (waitMs: number) => Stop | undefined;
  /** How a wait of `waitMs` passes (the backoff's interval is `intervalMs`). @default sleep(waitMs) */
  wait?: (waitMs: number, intervalMs: number) => Promise<void>;
}

export interface RoundLoopResult<Stop extends string> {
  rounds: number;
  stopped: Stop | 'idle' | 'failed';
}

export async function runRounds<Stop extends string>(opts: RoundLoopOptions<Stop>): Promise<RoundLoopResult<Stop>> {
  let intervalMs = opts.backoff.intervalMs;
  for (let n = 1; ; n++) {
    const before = opts.beforeRound?.(n);
    if (before !== undefined) return { rounds: n - 1, stopped: before };
    const o = await opts.round(n);
    if (o.failed) return { rounds: n, stopped: 'failed' };
    if (opts.untilIdle && !o.remains) return { rounds: n, stopped: 'idle' };
    const after = opts.afterRound?.(o, n);
    if (after !== undefined) return { rounds: n, stopped: after };
    const next = nextWait(opts.backoff, intervalMs, o, n === 1);
    intervalMs = next.intervalMs;
    const instead = opts.beforeWait?.(next.waitMs);
    if (instead !== undefined) return { rounds: n, stopped: instead };
    if (next.waitMs > 0) await (opts.wait ? opts.wait(next.waitMs, intervalMs) : opts.sleep(next.waitMs, opts.signal));
  }
}
