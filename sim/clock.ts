// One clock for the whole simulated cluster: real, accelerated (`speed` simulated ms per real ms) or manual time.
// Controllers, the simulated kubelet (through asKubeletClock) and kmaint's passes read `now` and set timers here.
import type { Clock as KubeletClock, TimerHandle } from './kubelet/clock.ts';

export type ClockMode = 'real' | 'accelerated' | 'manual';

/** An opaque timer; only the clock that made it can clear it. */
export interface SimTimer {
  readonly dueMs: number;
}

export interface TimerOptions {
  /** Do not keep the process alive for this timer (real and accelerated clocks). @default false */
  unref?: boolean;
}

export interface SimClock {
  readonly mode: ClockMode;
  /** Simulated milliseconds per real millisecond; 0 for a manual clock (time moves only by `advance`). */
  readonly speed: number;
  now(): Date;
  nowMs(): number;
  /** Runs `fn` once `ms` simulated milliseconds have passed. */
  setTimeout(fn: () => void, ms: number, options?: TimerOptions): SimTimer;
  clearTimeout(timer: SimTimer): void;
  /** Resolves after `ms` simulated milliseconds; rejects with `signal.reason` when the signal aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function sleepOn(clock: SimClock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = (): void => {
      clock.clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

interface RealTimer extends SimTimer {
  handle: NodeJS.Timeout;
}

/** Real time scaled by `speed` from `start` (speed 1 and no start: the wall clock itself). */
class ScaledClock implements SimClock {
  readonly mode: ClockMode;
  private readonly realAnchor = Date.now();
  private readonly simAnchor: number;

  constructor(readonly speed: number, start: Date | undefined) {
    if (!(speed > 0) || !Number.isFinite(speed)) throw new RangeError(`clock speed must be a positive number, got ${speed}`);
    this.mode = speed === 1 && start === undefined ? 'real' : 'accelerated';
    this.simAnchor = start?.getTime() ?? this.realAnchor;
  }

  nowMs(): number {
    return this.simAnchor + (Date.now() - this.realAnchor) * this.speed;
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  // Node's timers run on the event loop's millisecond clock, which can be up to a millisecond behind
  // Date.now(): a timer may fire just before its due time by this clock (at speed 1000, a simulated second
  // early). Such a timer is re-armed for what is left, so it never fires before `dueMs`.
  setTimeout(fn: () => void, ms: number, options: TimerOptions = {}): SimTimer {
    const delay = Math.max(0, ms);
    const dueMs = this.nowMs() + delay;
    const arm = (realMs: number): NodeJS.Timeout => {
      const handle = setTimeout(() => {
        const left = dueMs - this.nowMs();
        if (left > 0) timer.handle = arm(Math.max(1, Math.ceil(left / this.speed)));
        else fn();
      }, realMs);
      if (options.unref) handle.unref();
      return handle;
    };
    const timer: RealTimer = { dueMs, handle: arm(delay / this.speed) };
    return timer;
  }

  clearTimeout(timer: SimTimer): void {
    clearTimeout((timer as RealTimer).handle);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}

interface QueuedTimer extends SimTimer {
  readonly seq: number;
  readonly fn: () => void;
}

/** Time that moves only when a test calls `advance`; due timers fire in order, each at its own due time. */
export class ManualClock implements SimClock {
  readonly mode = 'manual' as const;
  readonly speed = 0;
  private current: number;
  private seq = 0;
  private queue: QueuedTimer[] = [];

  constructor(start: Date = new Date(0)) {
    this.current = start.getTime();
  }

  nowMs(): number {
    return this.current;
  }

  now(): Date {
    return new Date(this.current);
  }

  setTimeout(fn: () => void, ms: number): SimTimer {
    const timer: QueuedTimer = { dueMs: this.current + Math.max(0, ms), seq: this.seq++, fn };
    this.queue.push(timer);
    this.queue.sort((a, b) => a.dueMs - b.dueMs || a.seq - b.seq);
    return timer;
  }

  clearTimeout(timer: SimTimer): void {
    this.queue = this.queue.filter((t) => t !== timer);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Timers not yet fired. */
  pending(): number {
    return this.queue.length;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way at its due time. Between timers
   * the event loop turns once, so work a timer starts (a promise chain that sets the next timer) gets to run.
   */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`advance: ms must be >= 0, got ${ms}`);
    const target = this.current + ms;
    await turn();
    for (let next = this.queue[0]; next !== undefined && next.dueMs <= target; next = this.queue[0]) {
      this.queue.shift();
      this.current = Math.max(this.current, next.dueMs);
      next.fn();
      await turn();
    }
    this.current = target;
  }
}

function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The wall clock. */
export function realClock(): SimClock {
  return new ScaledClock(1, undefined);
}

/** `speed` simulated ms per real ms (60: a simulated minute per second), starting at `start` (@default now). */
export function acceleratedClock(speed: number, start?: Date): SimClock {
  return new ScaledClock(speed, start ?? new Date());
}

/** A clock for tests: starts at `start` (@default the epoch) and moves only by `advance`. */
export function manualClock(start?: Date): ManualClock {
  return new ManualClock(start);
}

/** The simulated kubelet's view of `clock` (epoch ms, unref'd timers, as its own real clock). */
export function asKubeletClock(clock: SimClock): KubeletClock {
  return {
    now: () => clock.nowMs(),
    setTimeout: (fn, ms): TimerHandle => clock.setTimeout(fn, ms, { unref: true }),
    clearTimeout: (handle) => clock.clearTimeout(handle as SimTimer),
  };
}
