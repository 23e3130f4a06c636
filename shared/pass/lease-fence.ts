// The pass lease as a write fence: a pass sends a write only while it still holds the lease it planned under.
//
// A lease says "one pass of this function at a time" only for as long as it lasts. A pass slowed down past its lease
// (a loaded machine, an API server answering 429 with Retry-After, a Lambda frozen mid-call) would otherwise go on
// writing a plan read before another pass took the expired lease and acted: two schedulers each admitting up to
// maxParallelOperations. So every write the pass sends (each attempt of it, retries included: kube/client.ts
// fenceWrites) first asks the fence:
// - less than a third of the lease's duration since it was taken or renewed: write;
// - later: renew it first, preconditioned on the resourceVersion the pass last wrote (lease.ts renewPassLease). A
//   renewal that lands proves no other pass took the lease since (taking it is a write, and would have moved the
//   resourceVersion), so the pass's read is still the last one any pass of its function acted on: write;
// - the renewal finds the lease changed (another pass took it): no more writes from this pass, ever;
// - the renewal fails for another reason (after the client's retries): write while two thirds of the duration are
//   not yet used (a third is left, as leader election keeps its renew deadline short of the lease), else stop.
// A write sent with a third of the lease left that is still in flight when the lease runs out is the one window left
// open, as in every lease without server-side fencing; a third of the duration (40 s at the default 120 s) bounds it.
import { errorMessage } from '../errors/index.ts';
import { WriteFenceError } from '../kube/index.ts';
import type { LeaseOutcome } from './lease.ts';

/** The lease a fence guards: when it was last taken or renewed (the clock's ms), and how to renew it. */
export interface FencedLease {
  /** When the take or renewal in force was sent (ms, the pass's clock); undefined: not held any more. */
  renewedAt(): number | undefined;
  /** Renews it (a run's held lease: HeldLeases.take). */
  renew(): Promise<LeaseOutcome>;
}

export interface LeaseFence {
  /** Resolves when the pass may send a write now; throws WriteFenceError when it may not (and from then on). */
  check(): Promise<void>;
  /** Why writes stopped; undefined while they may go on. */
  readonly stopped: string | undefined;
  /** Renewals the fence made (landed or not). */
  readonly renewals: number;
}

export function leaseFence(lease: FencedLease, durationSeconds: number, now: () => number, what: string): LeaseFence {
  const durationMs = durationSeconds * 1000;
  let stopped: string | undefined;
  let renewals = 0;
  let renewing: Promise<void> | undefined;
  const renew = async (since: number): Promise<void> => {
    renewals++;
    try {
      const out = await lease.renew();
      if (out.kind === 'held') stopped = `${what} is held by ${out.holder}: this pass writes no more`;
      else if (out.kind === 'lost') stopped = `${out.message}: this pass writes no more`;
    } catch (err) {
      if (now() - since >= (2 * durationMs) / 3) stopped = `${what} could not be renewed with a third of it left (${errorMessage(err)}): this pass writes no more`;
    }
  };
  return {
    async check(): Promise<void> {
      if (stopped !== undefined) throw new WriteFenceError(stopped);
      const since = lease.renewedAt();
      if (since === undefined) stopped = `${what} is no longer held: this pass writes no more`;
      else if (now() - since < durationMs / 3) return;
      else {
        // One renewal at a time: the writes asking meanwhile wait for it and go by its outcome.
        renewing ??= renew(since).finally(() => {
          renewing = undefined;
        });
        await renewing;
      }
      // Renewed, or a failure with time left (the next write tries again): the write goes.
      if (stopped !== undefined) throw new WriteFenceError(stopped);
    },
    get stopped() {
      return stopped;
    },
    get renewals() {
      return renewals;
    },
  };
}
