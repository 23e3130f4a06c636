// Drives passes: every listed function in turn, again while work remains, until idle or the deadline.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { KubeClient } from '../kube/index.ts';
import { countReleases, HeldLeases, PassRound, runPass, type PassFunction, type PassOptions, type PassSummary } from '../pass/index.ts';
import { runRounds, type BackoffSettings, type RoundOutcome } from './round-loop.ts';
import { abortableSleep, type Sleep } from './sleep.ts';
import { planWake, wokenRoundDelayMs } from './wake.ts';

export interface RunOptions extends PassOptions {
  functions: readonly PassFunction[];
  /** Stop starting new rounds after this many ms. @default 60000 */
  timeoutMs?: number;
  /** Wait between rounds while requests are in flight; doubles up to maxIntervalMs. @default 250 */
  intervalMs?: number;
  /**
   * Longest wait between rounds when polling. It bounds how late the run notices pods gone or a slot freed, which is
   * kmaint's own share of request -> Ready (issue 4: under 2 s per node); 2000 measured 2.3–2.6 s.
   * @default 1000
   */
  maxIntervalMs?: number;
  /**
   * After a round that made no progress: `watch` waits for a change to what the round read (one WATCH per LIST, see
   * wake.ts) or a timer, and polls only where that cannot see what the run waits for; `poll` always polls. `watch`
   * needs the `watch` verb on nodemaintenances, pods and poddisruptionbudgets; refused, the run polls. Not with an
   * injected `sleep` (a simulated clock): watches wait in real time.
   * @default 'poll'
   */
  wake?: 'watch' | 'poll';
  /**
   * Longest wait between rounds that only found a lease held by another live holder (another run doing this work; a
   * killed one's lease expires). Without it a second run beside a long one would read a snapshot every second for
   * nothing. @default 10000
   */
  heldMaxIntervalMs?: number;
  /** Longest wait for a change while watching (node readiness and new handshakes are seen at the latest then). @default 25000 */
  maxWatchMs?: number;
  /**
   * After a watch saw a change, wait this long before the round: changes come in bursts (the pods of one drain stop
   * together, requests are created together), and one round for the burst is cheaper than one per change. Never less
   * than polling would have waited since the round ended: watching makes no more rounds than polling.
   * @default 250
   */
  settleMs?: number;
  /** Stop after this many rounds. @default unlimited */
  maxRounds?: number;
  /** Injected sleep (simulated clocks). */
  sleep?: Sleep;
  onPass?: (summary: PassSummary) => void;
}

/** `kmaint run`'s waits between rounds by default: 500 ms after a quiet round, doubling to 1 s (10 s while another run holds the lease). */
export const RUN_BACKOFF: Readonly<BackoffSettings> = { intervalMs: 250, maxIntervalMs: 1000, heldMaxIntervalMs: 10_000, style: 'run' };

export interface RunSummary {
  rounds: number;
  passes: PassSummary[];
  /** Why the run ended. */
  stopped: 'idle' | 'timeout' | 'max-rounds' | 'failed';
  durationMs: number;
}

/**
 * Runs rounds of passes until a round changes nothing and nothing is in flight. The passes of a round share one
 * snapshot while none of them writes, and each function's lease is taken once, when it first has something to write,
 * and kept until the run ends.
 */
export async function runUntilIdle(opts: RunOptions): Promise<RunSummary> {
  const started = Date.now();
  const deadline = started + (opts.timeoutMs ?? 60_000);
  const sleep = opts.sleep ?? abortableSleep;
  const passes: PassSummary[] = [];
  const leases = opts.dryRun
    ? undefined
    : new HeldLeases({
        client: opts.client,
        namespace: opts.namespace,
        holder: opts.holder ?? `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`,
        durationSeconds: opts.leaseSeconds ?? 120,
        now: opts.now,
        ...(opts.logger ? { logger: opts.logger } : {}),
      });
  const round = new PassRound(leases, opts.functions);
  const wake = new WakeByWatch(opts, round, deadline, sleep);
  try {
    const { rounds, stopped } = await runRounds<'timeout' | 'max-rounds'>({
      round: async () => {
        round.next();
        wake.roundStarts();
        const summaries: PassSummary[] = [];
        for (const fn of opts.functions) {
          const summary = await runPass(fn, { ...opts, round });
          passes.push(summary);
          summaries.push(summary);
          opts.onPass?.(summary);
          // Every write failed: report it instead of spinning.
          if (summary.errors.length > 0 && summary.planned > 0 && Object.keys(summary.actions).length === 0) break;
        }
        return wake.roundEnded(summaries);
      },
      backoff: { ...RUN_BACKOFF, ...(opts.intervalMs !== undefined ? { intervalMs: opts.intervalMs } : {}), ...(opts.maxIntervalMs !== undefined ? { maxIntervalMs: opts.maxIntervalMs } : {}), ...(opts.heldMaxIntervalMs !== undefined ? { heldMaxIntervalMs: opts.heldMaxIntervalMs } : {}) },
      sleep,
      ...(opts.signal ? { signal: opts.signal } : {}),
      untilIdle: true,
      afterRound: (_o, n) => (opts.maxRounds !== undefined && n >= opts.maxRounds ? 'max-rounds' : Date.now() >= deadline ? 'timeout' : undefined),
      wait: (_waitMs, intervalMs) => wake.wait(intervalMs),
    });
    return { rounds, passes, stopped, durationMs: Date.now() - started };
  } finally {
    if (leases) countReleases(passes, await leases.releaseAll());
  }
}

/** A round's passes as the loop reads them. */
function outcomeOf(summaries: readonly PassSummary[]): RoundOutcome {
  const troubled = summaries.some((s) => s.conflicts > 0 || s.errors.length > 0);
  return {
    remains: summaries.some((s) => s.workRemains),
    progressed: summaries.some((s) => Object.keys(s.actions).length > 0),
    failed: summaries.some((s) => s.errors.length > 0 && s.planned > 0 && Object.keys(s.actions).length === 0),
    heldOnly: !troubled && summaries.some((s) => s.outcome === 'lease-held'),
  };
}

/**
 * The wait after a quiet round: a WATCH on what the round read where that sees what the run waits for (wake.ts), else
 * a timer. Another run holding a lease, conflicts or failed writes are decided again by polling, as before watches.
 */
class WakeByWatch {
  private watching: boolean;
  private mark = 0;
  private unsettled = false;

  constructor(
    private readonly opts: RunOptions,
    private readonly round: PassRound,
    private readonly deadline: number,
    private readonly sleep: Sleep,
  ) {
    this.watching = opts.wake === 'watch' && opts.sleep === undefined;
  }

  roundStarts(): void {
    this.mark = KubeClient.listMark(this.opts.client);
  }

  roundEnded(summaries: readonly PassSummary[]): RoundOutcome {
    this.unsettled = summaries.some((s) => s.outcome === 'lease-held' || s.conflicts > 0 || s.errors.length > 0);
    return outcomeOf(summaries);
  }

  async wait(intervalMs: number): Promise<void> {
    const { opts, deadline } = this;
    if (this.watching && !this.unsettled) {
      const roundEnded = Date.now();
      const plan = planWake({ read: this.round.last(), listed: KubeClient.listedSince(opts.client, this.mark), medik8sSeen: this.round.medik8sSeen, nowMs: Date.now(), maxWaitMs: opts.maxWatchMs ?? 25_000 });
      if (plan.kind === 'watch') {
        const outcome = await KubeClient.watchForChange(opts.client, plan.targets, Math.min(plan.atMs, deadline) - Date.now());
        opts.signal?.throwIfAborted();
        if (outcome === 'changed') await this.sleep(Math.min(wokenRoundDelayMs(opts.settleMs ?? 250, intervalMs, Date.now() - roundEnded), Math.max(0, deadline - Date.now())), opts.signal);
        if (outcome === 'changed' || outcome === 'timeout') return;
        // Refused (no `watch` verb): poll for the rest of the run; a broken connection: poll this once.
        if (outcome === 'refused') this.watching = false;
        opts.logger?.warn({ wake: outcome }, `waiting by watch ${outcome === 'refused' ? 'refused' : 'failed'}; polling instead`);
      } else {
        opts.logger?.debug({ wake: 'poll', why: plan.why }, 'polling');
      }
    }
    await this.sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())), opts.signal);
  }
}
