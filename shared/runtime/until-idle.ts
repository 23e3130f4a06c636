// Drives passes: every listed function in turn, again while work remains, until idle or the deadline.
import { runPass, type PassFunction, type PassOptions, type PassSummary } from '../pass/index.ts';
import { abortableSleep, type Sleep } from './sleep.ts';

export interface RunOptions extends PassOptions {
  functions: readonly PassFunction[];
  /** Stop starting new rounds after this many ms. @default 60000 */
  timeoutMs?: number;
  /** Wait between rounds while requests are in flight; doubles up to maxIntervalMs. @default 250 */
  intervalMs?: number;
  /**
   * Longest wait between rounds. It bounds how late the run notices pods gone or a slot freed, which is
   * kmaint's own share of request -> Ready (issue 4: under 2 s per node); 2000 measured 2.3–2.6 s.
   * @default 1000
   */
  maxIntervalMs?: number;
  /** Stop after this many rounds. @default unlimited */
  maxRounds?: number;
  /** Injected sleep (simulated clocks). */
  sleep?: Sleep;
  onPass?: (summary: PassSummary) => void;
}

export interface RunSummary {
  rounds: number;
  passes: PassSummary[];
  /** Why the run ended. */
  stopped: 'idle' | 'timeout' | 'max-rounds' | 'failed';
  durationMs: number;
}

/** Runs rounds of passes until a round changes nothing and nothing is in flight. */
export async function runUntilIdle(opts: RunOptions): Promise<RunSummary> {
  const started = Date.now();
  const deadline = started + (opts.timeoutMs ?? 60_000);
  const sleep = opts.sleep ?? abortableSleep;
  const passes: PassSummary[] = [];
  let interval = opts.intervalMs ?? 250;
  for (let round = 1; ; round++) {
    let remains = false;
    let progressed = false;
    for (const fn of opts.functions) {
      const summary = await runPass(fn, opts);
      passes.push(summary);
      opts.onPass?.(summary);
      if (summary.errors.length > 0 && summary.planned > 0 && Object.keys(summary.actions).length === 0) {
        // Every write failed: report it instead of spinning.
        return { rounds: round, passes, stopped: 'failed', durationMs: Date.now() - started };
      }
      remains ||= summary.workRemains;
      progressed ||= Object.keys(summary.actions).length > 0;
    }
    if (!remains) return { rounds: round, passes, stopped: 'idle', durationMs: Date.now() - started };
    if (opts.maxRounds !== undefined && round >= opts.maxRounds) return { rounds: round, passes, stopped: 'max-rounds', durationMs: Date.now() - started };
    if (Date.now() >= deadline) return { rounds: round, passes, stopped: 'timeout', durationMs: Date.now() - started };
    // Progress resets the backoff: the next step is likely ready soon.
    interval = progressed ? (opts.intervalMs ?? 250) : Math.min(interval * 2, opts.maxIntervalMs ?? 1000);
    if (!progressed) await sleep(Math.min(interval, Math.max(0, deadline - Date.now())), opts.signal);
  }
}
