// The kubelet's clock: real timers by default, injectable so tests can drive time.

export type TimerHandle = unknown;

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Resolves after `ms` on `clock`, or at once (without rejecting) when `signal` aborts. */
export function pause(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    const handle = clock.setTimeout(done, ms);
    const onAbort = () => {
      clock.clearTimeout(handle);
      done();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
