// kmaint's passes as the soak runs them: several copies of each function at once, each pass with its own client
// (through the fault proxy), some killed part-way as a Lambda timeout would, and beside them `kmaint run all` as the
// CronJobs run it (rounds of all three functions, leases held for the run, one snapshot per round), every outcome tallied.
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../shared/kube/index.ts';
import { runPass, type PassFunction } from '../shared/pass/index.ts';
import { runUntilIdle } from '../shared/runtime/index.ts';
import type { Rng } from '../sim/generator/prng.ts';

export interface PassTally {
  passes: number;
  /** `kmaint run all` runs started (their passes are counted in `passes`). */
  runs: number;
  leaseHeld: number;
  killed: number;
  /** Passes that threw for another reason than being killed: each one a violation. */
  thrown: string[];
  /** Write requests sent by passes (anything but get, list and watch), retries included. */
  writes: number;
  conflicts: number;
  /** Write failures passes reported (counted, not thrown). */
  writeErrors: number;
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
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function writesOf(byVerb: Record<string, number>, leases = true): number {
  return Object.entries(byVerb)
    .filter(([k]) => !k.startsWith('get ') && !k.startsWith('list ') && !k.startsWith('watch ') && (leases || !k.endsWith(' leases')))
    .reduce((sum, [, n]) => sum + n, 0);
}

/** Runs `copies` loops per function until `isRunning()` turns false; resolves when every loop has stopped. */
export async function drivePasses(opts: PassDriverOptions, tally: PassTally): Promise<void> {
  let seq = 0;
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
        const summary = await runPass(fn, { client, namespace: opts.namespace, now: () => new Date(), holder, leaseSeconds: opts.leaseSeconds, signal: controller.signal });
        if (summary.outcome === 'lease-held') tally.leaseHeld++;
        tally.conflicts += summary.conflicts;
        tally.writeErrors += summary.errors.length;
        if (controller.signal.aborted) tally.killed++;
      } catch (err) {
        if (controller.signal.aborted) tally.killed++;
        else tally.thrown.push(`${fn} pass ${holder}: ${err instanceof Error ? err.message : String(err)}`);
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
        await runUntilIdle({ client, namespace: opts.namespace, now: () => new Date(), holder, leaseSeconds: opts.leaseSeconds, signal: controller.signal, functions: ['scheduler', 'drainer', 'cleanup'], timeoutMs: opts.rng.int(2000, 12000), onPass: countPass });
      } catch (err) {
        if (!controller.signal.aborted) tally.thrown.push(`run ${holder}: ${err instanceof Error ? err.message : String(err)}`);
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
  for (const fn of ['scheduler', 'drainer', 'cleanup'] as const) for (let c = 1; c <= opts.copies; c++) loops.push(loop(fn, c));
  for (let c = 1; c <= (opts.runLoops ?? 1); c++) loops.push(runLoop(c));
  await Promise.all(loops);
}
