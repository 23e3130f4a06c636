// kmaint's passes as the soak runs them: several copies of each function at once, each pass with its own client
// (through the fault proxy), some killed part-way as a Lambda timeout would, and beside them `kmaint run all` as the
// CronJobs run it (rounds of all three functions, leases held for the run, one snapshot per round), every outcome tallied.
import { errorMessage } from '../shared/errors/index.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import { HttpFailureError, isRetryable, KubeClient, KubeRequestError } from '../shared/kube/index.ts';
import { runPass, type PassFunction } from '../shared/pass/index.ts';
import type { InstanceProviders } from '../shared/reaper/index.ts';
import { runUntilIdle, type RunSummary } from '../shared/runtime/index.ts';
import type { Rng } from '../sim/generator/prng.ts';

export interface PassTally {
  passes: number;
  /** `kmaint run all` runs started (their passes are counted in `passes`). */
  runs: number;
  leaseHeld: number;
  killed: number;
  /** Passes that threw for another reason than being killed or `gaveUp`: each one a violation. */
  thrown: string[];
  /**
   * Passes that threw because one request failed transiently on every attempt the client makes (an injected 429, 5xx
   * or dropped connection each time): what a pass is built to do, ending with a reason for the next one to go on from.
   */
  gaveUp: string[];
  /** Write requests sent by passes (anything but get, list and watch), retries included. */
  writes: number;
  conflicts: number;
  /** Write failures passes reported (counted, not thrown). */
  writeErrors: number;
}

/** Whether `err` (or an error it was caused by) is a request the client gave up on after retrying a transient status. */
export function exhaustedRetries(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof KubeRequestError && isRetryable(e.status)) return true;
    if (e instanceof HttpFailureError && isRetryable(e.httpFailure.status)) return true;
  }
  return false;
}

export interface PassDriverOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  rng: Rng;
  /** Copies of each function running at once. */
  copies: number;
  /** `kmaint run all` loops beside them (each run 2–12 s, then a new one). @default 1 */
  runLoops?: number;
  /**
   * Share of passes and runs given a kill budget: killed after their 1st to 6th write (lease writes not counted), as a
   * Lambda timeout would. Until a run has been killed, every run is killed after its first write: the runs hold the
   * leases and do most of the writing, so a budget drawn by chance alone can miss every pass that writes.
   */
  killRate: number;
  /** Lease duration of the soak's passes: a killed pass leaves its lease held this long. */
  leaseSeconds: number;
  isRunning: () => boolean;
  /**
   * The reaper pass's instance providers (a fake EC2 at the SDK boundary): given, reaper passes run beside the others
   * and in `kmaint run all` (spec.cloudEvents); absent, no reaper pass runs.
   */
  reaperProviders?: InstanceProviders;
  /** The passes' environment (the soak's Slurm token); none by default. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * What every soak pass is given besides its client: no slurmrestd token from this process's environment, only the
 * soak's own Slurm's when it runs one (spec.slurm.tokenEnv names it).
 */
const NO_ENV: Readonly<Record<string, string | undefined>> = Object.freeze({});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function writesOf(byVerb: Record<string, number>, leases = true): number {
  return Object.entries(byVerb)
    .filter(([k]) => !k.startsWith('get ') && !k.startsWith('list ') && !k.startsWith('watch ') && (leases || !k.endsWith(' leases')))
    .reduce((sum, [, n]) => sum + n, 0);
}

/** Runs `copies` loops per function until `isRunning()` turns false; resolves when every loop has stopped. */
export async function drivePasses(opts: PassDriverOptions, tally: PassTally): Promise<void> {
  let seq = 0;
  const providers = opts.reaperProviders ? { reaperProviders: opts.reaperProviders } : {};
  const functions: PassFunction[] = opts.reaperProviders ? ['scheduler', 'drainer', 'cleanup', 'reaper'] : ['scheduler', 'drainer', 'cleanup'];
  let runsKilled = 0;
  /** A client of its own for one pass or run, with a kill budget for `killRate` of them (aborted after 1-6 writes), or the one given. */
  const killable = (forcedBudget?: number): { client: KubeClient; controller: AbortController; kill: ReturnType<typeof setInterval> | undefined } => {
    const controller = new AbortController();
    const client = new KubeClient(opts.kubeConfig, { signal: controller.signal });
    const budget = forcedBudget ?? (opts.rng.next() < opts.killRate ? opts.rng.int(1, 6) : undefined);
    const kill =
      budget === undefined
        ? undefined
        : setInterval(() => {
            if (writesOf(client.counts.byVerb, false) >= budget) controller.abort(new Error(`killed by the soak after ${budget} writes`));
          }, 2);
    return { client, controller, kill };
  };
  const loop = async (fn: PassFunction, copy: number): Promise<void> => {
    while (opts.isRunning()) {
      const holder = `soak-${fn}-${copy}-${++seq}`;
      const { client, controller, kill } = killable();
      tally.passes++;
      try {
        const summary = await runPass(fn, { client, namespace: opts.namespace, now: () => new Date(), holder, leaseSeconds: opts.leaseSeconds, signal: controller.signal, env: opts.env ?? NO_ENV, ...providers });
        if (summary.outcome === 'lease-held') tally.leaseHeld++;
        tally.conflicts += summary.conflicts;
        tally.writeErrors += summary.errors.length;
        if (controller.signal.aborted) tally.killed++;
      } catch (err) {
        if (controller.signal.aborted) tally.killed++;
        else (exhaustedRetries(err) ? tally.gaveUp : tally.thrown).push(`${fn} pass ${holder}: ${errorMessage(err)}`);
      } finally {
        clearInterval(kill);
        tally.writes += writesOf(client.counts.byVerb);
      }
      await sleep(opts.rng.int(100, 700));
    }
  };
  // `kmaint run all`: killed part-way like a pass (its held leases then expire as a killed pass's does).
  const runLoop = async (copy: number): Promise<void> => {
    while (opts.isRunning()) {
      const holder = `soak-run-${copy}-${++seq}`;
      const { client, controller, kill } = killable(runsKilled === 0 ? 1 : undefined);
      tally.runs++;
      const countPass = (summary: { outcome: string; conflicts: number; errors: readonly unknown[] }): void => {
        tally.passes++;
        if (summary.outcome === 'lease-held') tally.leaseHeld++;
        tally.conflicts += summary.conflicts;
        tally.writeErrors += summary.errors.length;
      };
      try {
        await runUntilIdle({ client, namespace: opts.namespace, now: () => new Date(), holder, leaseSeconds: opts.leaseSeconds, signal: controller.signal, functions, timeoutMs: opts.rng.int(2000, 12000), onPass: countPass, env: opts.env ?? NO_ENV, ...providers });
      } catch (err) {
        if (!controller.signal.aborted) (exhaustedRetries(err) ? tally.gaveUp : tally.thrown).push(`run ${holder}: ${errorMessage(err)}`);
      } finally {
        if (controller.signal.aborted) {
          tally.killed++;
          runsKilled++;
        }
        clearInterval(kill);
        tally.writes += writesOf(client.counts.byVerb);
      }
      await sleep(opts.rng.int(100, 700));
    }
  };
  const loops: Promise<void>[] = [];
  for (const fn of functions) for (let c = 1; c <= opts.copies; c++) loops.push(loop(fn, c));
  for (let c = 1; c <= (opts.runLoops ?? 1); c++) loops.push(runLoop(c));
  await Promise.all(loops);
}

/**
 * The passes going quiet after a run: `kmaint run all` (every function, no faults, no kills) again and again until one
 * run ends idle having written nothing, or `timeoutMs` is spent. Resolves with the runs made and whether it went quiet.
 */
export async function runUntilQuiet(kubeConfig: KubeConfig, namespace: string, reaperProviders: InstanceProviders | undefined, timeoutMs: number, env: Readonly<Record<string, string | undefined>> = NO_ENV): Promise<{ runs: number; quiet: boolean; writes: number }> {
  const until = Date.now() + timeoutMs;
  let runs = 0;
  let writes = 0;
  const functions: PassFunction[] = reaperProviders ? ['scheduler', 'drainer', 'cleanup', 'reaper'] : ['scheduler', 'drainer', 'cleanup'];
  while (Date.now() < until) {
    const client = new KubeClient(kubeConfig);
    const summary: RunSummary = await runUntilIdle({ client, namespace, now: () => new Date(), holder: `soak-quiet-${++runs}`, leaseSeconds: 5, functions, timeoutMs: Math.max(1000, until - Date.now()), env, ...(reaperProviders ? { reaperProviders } : {}) });
    const wrote = writesOf(client.counts.byVerb, false);
    writes += wrote;
    if (summary.stopped === 'idle' && wrote === 0) return { runs, quiet: true, writes };
    await sleep(500);
  }
  return { runs, quiet: false, writes };
}
