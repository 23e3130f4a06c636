import { describe, expect, it } from 'vitest';
import type { V1Lease } from '@kubernetes/client-node';
import { WriteFenceError } from '../kube/index.ts';
import type { LeaseOutcome } from './lease.ts';
import { leaseFence, type FencedLease } from './lease-fence.ts';

/** A lease taken at `t = 0` on a clock the test moves; `renew` answers with the outcomes queued, in order. */
function fixture(outcomes: Array<LeaseOutcome | Error>) {
  const clock = { t: 0 };
  const state = { renewedAt: 0 as number | undefined, calls: 0 };
  const lease: FencedLease = {
    renewedAt: () => state.renewedAt,
    renew: () => {
      state.calls++;
      const at = clock.t;
      const out = outcomes.shift();
      if (out === undefined) throw new Error('no renewal outcome queued');
      if (out instanceof Error) return Promise.reject(out);
      if (out.kind === 'acquired') state.renewedAt = at;
      return Promise.resolve(out);
    },
  };
  const fence = leaseFence(lease, 30, () => clock.t, 'lease kmaint/kmaint-scheduler');
  return { clock, state, fence };
}

const acquired: LeaseOutcome = { kind: 'acquired', lease: { metadata: { name: 'kmaint-scheduler', resourceVersion: '7' } } as V1Lease };
const taken: LeaseOutcome = { kind: 'lost', message: 'lease kmaint/kmaint-scheduler changed since we renewed it (conflict)' };

/** The error a check ends with, or 'ok'. */
async function outcome(check: Promise<void>): Promise<string> {
  try {
    await check;
    return 'ok';
  } catch (err) {
    return err instanceof WriteFenceError ? `WriteFenceError: ${err.message}` : `other: ${String(err)}`;
  }
}

describe('leaseFence: a pass writes only while it holds the lease it planned under', () => {
  it('writes without renewing while less than a third of the duration is used (30 s lease: up to 9.999 s)', async () => {
    const { clock, state, fence } = fixture([]);
    clock.t = 9_999;
    expect(await outcome(fence.check())).toBe('ok');
    expect({ calls: state.calls, renewals: fence.renewals, stopped: fence.stopped }).toEqual({ calls: 0, renewals: 0, stopped: undefined });
  });

  it('renews once a third is used, then writes again without renewing for another third', async () => {
    const { clock, state, fence } = fixture([acquired]);
    clock.t = 10_000;
    expect(await outcome(fence.check())).toBe('ok');
    clock.t = 19_999;
    expect(await outcome(fence.check())).toBe('ok');
    expect({ calls: state.calls, renewedAt: state.renewedAt }).toEqual({ calls: 1, renewedAt: 10_000 });
  });

  it('stops every write for good once a renewal finds the lease taken by another pass', async () => {
    const { clock, state, fence } = fixture([taken]);
    clock.t = 40_000;
    const stop = 'WriteFenceError: lease kmaint/kmaint-scheduler changed since we renewed it (conflict): this pass writes no more';
    expect(await outcome(fence.check())).toBe(stop);
    // Even a write at a time that would not need a renewal: the pass's read is no longer the last one acted on.
    clock.t = 0;
    expect(await outcome(fence.check())).toBe(stop);
    expect({ calls: state.calls, stopped: fence.stopped }).toEqual({ calls: 1, stopped: stop.slice('WriteFenceError: '.length) });
  });

  it('a renewal that fails with a third of the lease still left lets the write go, and the next write tries again', async () => {
    const { clock, state, fence } = fixture([new Error('HTTP 503: unavailable'), acquired]);
    clock.t = 19_999;
    expect(await outcome(fence.check())).toBe('ok');
    clock.t = 19_999;
    expect(await outcome(fence.check())).toBe('ok');
    expect({ calls: state.calls, renewedAt: state.renewedAt, stopped: fence.stopped }).toEqual({ calls: 2, renewedAt: 19_999, stopped: undefined });
  });

  it('a renewal that fails with less than a third left stops the writes', async () => {
    const { clock, fence } = fixture([new Error('HTTP 503: unavailable')]);
    clock.t = 20_000;
    expect(await outcome(fence.check())).toBe('WriteFenceError: lease kmaint/kmaint-scheduler could not be renewed with a third of it left (HTTP 503: unavailable): this pass writes no more');
  });

  it('a lease another pass holds now (a run whose take found it held) stops the writes', async () => {
    const { clock, fence } = fixture([{ kind: 'held', holder: 'node-2-41-9f00', until: new Date(60_000) }]);
    clock.t = 15_000;
    expect(await outcome(fence.check())).toBe('WriteFenceError: lease kmaint/kmaint-scheduler is held by node-2-41-9f00: this pass writes no more');
  });

  it('a lease no longer held at all stops the writes without a renewal', async () => {
    const { state, fence } = fixture([]);
    state.renewedAt = undefined;
    expect(await outcome(fence.check())).toBe('WriteFenceError: lease kmaint/kmaint-scheduler is no longer held: this pass writes no more');
    expect(state.calls).toBe(0);
  });

  it('writes asking while a renewal is under way wait for it: one renewal for sixteen writes', async () => {
    const { clock, state, fence } = fixture([acquired]);
    clock.t = 12_000;
    const all = await Promise.all(Array.from({ length: 16 }, () => outcome(fence.check())));
    expect({ all: new Set(all), calls: state.calls, renewals: fence.renewals }).toEqual({ all: new Set(['ok']), calls: 1, renewals: 1 });
  });
});
