// The round loop's waits (both styles) and where it stops, with scripted rounds and a recording sleep.
import { describe, expect, it } from 'vitest';
import { nextWait, runRounds, type BackoffSettings, type RoundOutcome } from './round-loop.ts';

const RUN: BackoffSettings = { intervalMs: 250, maxIntervalMs: 1000, heldMaxIntervalMs: 10_000, style: 'run' };
const INVOCATION: BackoffSettings = { intervalMs: 500, maxIntervalMs: 5000, heldMaxIntervalMs: 10_000, style: 'invocation' };
const quiet: RoundOutcome = { remains: true, progressed: false, failed: false, heldOnly: false };
const progressed: RoundOutcome = { ...quiet, progressed: true };
const held: RoundOutcome = { ...quiet, heldOnly: true };
const idle: RoundOutcome = { ...quiet, remains: false };

/** The waits a loop makes over `script` (the last outcome repeats), and how it ended. */
async function waits(backoff: BackoffSettings, script: RoundOutcome[], maxRounds = script.length): Promise<{ slept: number[]; stopped: string; rounds: number }> {
  const slept: number[] = [];
  const r = await runRounds<'max-rounds'>({
    round: (n) => Promise.resolve(script[Math.min(n, script.length) - 1] ?? quiet),
    backoff,
    sleep: (ms) => Promise.resolve(void slept.push(ms)),
    untilIdle: true,
    afterRound: (_o, n) => (n >= maxRounds ? 'max-rounds' : undefined),
  });
  return { slept, ...r };
}

describe('nextWait', () => {
  it.each([
    ['run: straight on after progress', RUN, 500, progressed, false, { waitMs: 0, intervalMs: 250 }],
    ['run: a first quiet round waits twice the interval', RUN, 250, quiet, true, { waitMs: 500, intervalMs: 500 }],
    ['run: doubling stops at the maximum', RUN, 1000, quiet, false, { waitMs: 1000, intervalMs: 1000 }],
    ['run: held by another holder doubles past the maximum', RUN, 1000, held, false, { waitMs: 2000, intervalMs: 2000 }],
    ['invocation: the interval after progress', INVOCATION, 4000, progressed, false, { waitMs: 500, intervalMs: 500 }],
    ['invocation: the interval after the first round, quiet or not', INVOCATION, 500, quiet, true, { waitMs: 500, intervalMs: 500 }],
    ['invocation: doubling after a later quiet round', INVOCATION, 500, quiet, false, { waitMs: 1000, intervalMs: 1000 }],
  ] as const)('%s', (_rule, settings, previous, outcome, first, expected) => {
    expect(nextWait(settings, previous, outcome, first)).toEqual(expected);
  });
});

describe('runRounds', () => {
  it('waits as `kmaint run` does: 500 ms, 1 s, 1 s; none after progress; then 500 ms again', async () => {
    expect(await waits(RUN, [quiet, quiet, quiet, progressed, quiet, idle])).toEqual({ slept: [500, 1000, 1000, 500], stopped: 'idle', rounds: 6 });
  });

  it('waits as a Lambda invocation does: 500 ms after the first round, doubling to 5 s, 500 ms after progress', async () => {
    expect(await waits(INVOCATION, [quiet, quiet, quiet, quiet, quiet, quiet, progressed, quiet], 8)).toEqual({ slept: [500, 1000, 2000, 4000, 5000, 5000, 500], stopped: 'max-rounds', rounds: 8 });
  });

  it('stops at a failed round before anything else', async () => {
    expect(await waits(RUN, [quiet, { ...idle, failed: true }])).toEqual({ slept: [500], stopped: 'failed', rounds: 2 });
  });

  it('does not stop at idle when told to go on, and stops where beforeRound and beforeWait say', async () => {
    const seen: number[] = [];
    const r = await runRounds<'enough' | 'no-time'>({
      round: (n) => Promise.resolve(void seen.push(n)).then(() => idle),
      backoff: RUN,
      sleep: () => Promise.resolve(),
      untilIdle: false,
      beforeRound: (n) => (n === 4 ? 'enough' : undefined),
    });
    const w = await runRounds<'no-time'>({ round: () => Promise.resolve(quiet), backoff: RUN, sleep: () => Promise.resolve(), untilIdle: true, beforeWait: (ms) => (ms > 600 ? 'no-time' : undefined) });
    expect([seen, r, w]).toEqual([[1, 2, 3], { rounds: 3, stopped: 'enough' }, { rounds: 2, stopped: 'no-time' }]);
  });
});
