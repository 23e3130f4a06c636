// Drives passes: every listed function in turn, again while work remains, until idle or the deadline.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { KubeClient } from '../kube/index.ts';
import { countReleases, HeldLeases, PassRound, runPass, type PassFunction, type PassOptions, type PassSummary } from '../pass/index.ts';
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
  let interval = opts.intervalMs ?? 250;
  let watching = opts.wake === 'watch' && opts.sleep === undefined;
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
  const round = new PassRound(leases);
  const end = (rounds: number, stopped: RunSummary['stopped']): RunSummary => ({ rounds, passes, stopped, durationMs: Date.now() - started });
  try {
    for (let n = 1; ; n++) {
      round.next();
      const mark = KubeClient.listMark(opts.client);
      let remains = false;
      let progressed = false;
      // Another run holding a lease, conflicts or failed writes: decided again by polling, as before watches.
      let unsettled = false;
      let held = false;
      let troubled = false;
      for (const fn of opts.functions) {
        const summary = await runPass(fn, { ...opts, round });
        passes.push(summary);
        opts.onPass?.(summary);
        if (summary.errors.length > 0 && summary.planned > 0 && Object.keys(summary.actions).length === 0) {
          // Every write failed: report it instead of spinning.
          return end(n, 'failed');
        }
        remains ||= summary.workRemains;
        progressed ||= Object.keys(summary.actions).length > 0;
        held ||= summary.outcome === 'lease-held';
        troubled ||= summary.conflicts > 0 || summary.errors.length > 0;
        unsettled ||= summary.outcome === 'lease-held' || summary.conflicts > 0 || summary.errors.length > 0;
      }
      if (!remains) return end(n, 'idle');
      if (opts.maxRounds !== undefined && n >= opts.maxRounds) return end(n, 'max-rounds');
      if (Date.now() >= deadline) return end(n, 'timeout');
      // Progress resets the backoff: the next step is likely ready soon.
      // A round held back only by another holder's lease backs off further: that holder is doing the work.
      const cap = held && !troubled ? (opts.heldMaxIntervalMs ?? 10_000) : (opts.maxIntervalMs ?? 1000);
      interval = progressed ? (opts.intervalMs ?? 250) : Math.min(interval * 2, cap);
      if (progressed) continue;
      if (watching && !unsettled) {
        const roundEnded = Date.now();
        const plan = planWake({ base: round.last(), listed: KubeClient.listedSince(opts.client, mark), medik8sSeen: round.medik8sSeen, nowMs: Date.now(), maxWaitMs: opts.maxWatchMs ?? 25_000 });
        if (plan.kind === 'watch') {
          const outcome = await KubeClient.watchForChange(opts.client, plan.targets, Math.min(plan.atMs, deadline) - Date.now());
          opts.signal?.throwIfAborted();
          if (outcome === 'changed') await sleep(Math.min(wokenRoundDelayMs(opts.settleMs ?? 250, interval, Date.now() - roundEnded), Math.max(0, deadline - Date.now())), opts.signal);
          if (outcome === 'changed' || outcome === 'timeout') continue;
          // Refused (no `watch` verb): poll for the rest of the run; a broken connection: poll this once.
          if (outcome === 'refused') watching = false;
          opts.logger?.warn({ wake: outcome }, `waiting by watch ${outcome === 'refused' ? 'refused' : 'failed'}; polling instead`);
        } else {
          opts.logger?.debug({ wake: 'poll', why: plan.why }, 'polling');
        }
      }
      await sleep(Math.min(interval, Math.max(0, deadline - Date.now())), opts.signal);
    }
  } finally {
    if (leases) countReleases(passes, await leases.releaseAll());
  }
}
