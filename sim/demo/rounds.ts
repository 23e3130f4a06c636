// The demo's engine: the runtime's round loop over all four passes on the demo's clock, looking at the cluster after
// each pass (the observer's rows, the requestors' turn). The next round starts at once after progress, else after
// idleMs; it ends when `observe` says every request is done or the wall time is up.
import { PASS_FUNCTIONS, runPass, type PassOptions, type PassSummary } from '../../shared/pass/index.ts';
import { runRounds, type Sleep } from '../../shared/runtime/index.ts';

export interface DemoRoundsOptions {
  passOpts: PassOptions;
  /** After every pass: look at the cluster, let the requestors act; `done` once every request is released. */
  observe: () => Promise<{ done: boolean }>;
  onPass?: (summary: PassSummary) => void;
  sleep: Sleep;
  idleMs: number;
  /** Date.now() at which no new round starts. */
  wallLimit: number;
}

export async function runDemoRounds(o: DemoRoundsOptions): Promise<{ finished: boolean; rounds: number }> {
  let finished = false;
  const { rounds } = await runRounds<'finished' | 'wall-limit'>({
    round: async () => {
      let progressed = false;
      for (const fn of PASS_FUNCTIONS) {
        const s = await runPass(fn, o.passOpts);
        o.onPass?.(s);
        progressed ||= Object.keys(s.actions).length > 0;
        if ((await o.observe()).done) finished = true;
      }
      return { remains: true, progressed, failed: false, heldOnly: false };
    },
    backoff: { intervalMs: o.idleMs, maxIntervalMs: o.idleMs, heldMaxIntervalMs: o.idleMs, style: 'run' },
    sleep: o.sleep,
    untilIdle: false,
    beforeRound: () => (Date.now() < o.wallLimit ? undefined : 'wall-limit'),
    afterRound: () => (finished ? 'finished' : undefined),
  });
  return { finished, rounds };
}
