// How often kmaint's passes run during a what-if, modelled on `kmaint run all` (shared/runtime runUntilIdle with
// its defaults): the next round starts at once after a round that applied something; after one that did not, it
// waits, twice as long each time from 2 x 250 ms up to 1 s. A run that goes idle is taken to restart at once
// (a schedule that keeps `kmaint run all` going), so the cadence never stops while requests are open.

export interface CadenceSettings {
  /** @default 250 (runUntilIdle's intervalMs) */
  intervalMs: number;
  /** @default 1000 (runUntilIdle's maxIntervalMs) */
  maxIntervalMs: number;
}

export const DEFAULT_CADENCE: Readonly<CadenceSettings> = { intervalMs: 250, maxIntervalMs: 1000 };

export class RoundCadence {
  private interval: number;

  constructor(private readonly settings: CadenceSettings = DEFAULT_CADENCE) {
    this.interval = settings.intervalMs;
  }

  /** Ms from the end of a round to the start of the next, as runUntilIdle computes it. */
  after(progressed: boolean): number {
    this.interval = progressed ? this.settings.intervalMs : Math.min(this.interval * 2, this.settings.maxIntervalMs);
    return progressed ? 0 : this.interval;
  }
}
