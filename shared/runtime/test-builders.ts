// Fixtures for runtime tests: pass summaries with only the fields that matter, and a scripted pass runner on a fake clock.
import { emptyPassSummary, type PassFunction, type PassSummary } from '../pass/index.ts';
import type { PassRunner } from './lambda-run.ts';

export function aPassSummary(overrides: Partial<PassSummary> & { fn?: PassFunction } = {}): PassSummary {
  return { ...emptyPassSummary('scheduler', 'p0', 'applied'), ...overrides };
}

/** A fake clock in ms that sleeps and passes advance; `remaining` counts down from `budgetMs`. */
export interface FakeTime {
  now: () => number;
  remaining: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Time passing without a sleep (a pass running). */
  advance: (ms: number) => void;
  slept: number[];
}

export function fakeTime(budgetMs: number): FakeTime {
  let t = 0;
  const slept: number[] = [];
  return {
    now: () => t,
    remaining: () => budgetMs - t,
    sleep: (ms) => {
      slept.push(ms);
      t += ms;
      return Promise.resolve();
    },
    advance: (ms) => {
      t += ms;
    },
    slept,
  };
}

/** Returns the scripted summaries in order (the last one repeats), each pass taking `passMs` of fake time. */
export function scriptedPasses(time: FakeTime, passMs: number, script: readonly Partial<PassSummary>[]): PassRunner & { calls: PassFunction[] } {
  const calls: PassFunction[] = [];
  const runner = (fn: PassFunction): Promise<PassSummary> => {
    const step = script[Math.min(calls.length, script.length - 1)] ?? {};
    calls.push(fn);
    time.advance(passMs);
    return Promise.resolve(aPassSummary({ fn, passId: `p${calls.length}`, durationMs: passMs, ...step }));
  };
  return Object.assign(runner, { calls });
}
