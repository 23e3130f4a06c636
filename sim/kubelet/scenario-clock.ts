// Runs a scenario's actions at their offsets on a clock; stopping cancels what has not run.
import type { ScenarioAction } from '../generator/scenario.ts';
import type { Clock, TimerHandle } from './clock.ts';

export interface ScenarioResult {
  ran: number;
  failed: Array<{ action: ScenarioAction; error: unknown }>;
  /** Actions not run because the kubelet stopped first. */
  cancelled: number;
}

export class ScenarioTimers {
  private readonly pending = new Map<TimerHandle, () => void>();
  private stopped = false;

  constructor(private readonly clock: Clock) {}

  /** Resolves once every action ran, failed (never thrown: collected in the result) or was cancelled. */
  run(actions: readonly ScenarioAction[], perform: (action: ScenarioAction) => Promise<void>): Promise<ScenarioResult> {
    const result: ScenarioResult = { ran: 0, failed: [], cancelled: 0 };
    const runs = actions.map(
      (action) =>
        new Promise<void>((resolve) => {
          if (this.stopped) {
            result.cancelled++;
            return resolve();
          }
          const handle = this.clock.setTimeout(() => {
            this.pending.delete(handle);
            perform(action).then(
              () => void result.ran++,
              (error: unknown) => void result.failed.push({ action, error }),
            ).finally(resolve);
          }, action.at);
          this.pending.set(handle, () => {
            result.cancelled++;
            resolve();
          });
        }),
    );
    return Promise.all(runs).then(() => result);
  }

  cancelAll(): void {
    this.stopped = true;
    for (const [handle, cancel] of this.pending) {
      this.clock.clearTimeout(handle);
      cancel();
    }
    this.pending.clear();
  }
}
