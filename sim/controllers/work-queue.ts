// The sim's collectors' work queue: work keyed by object (a key queued again before it ran runs once, the latest
// work), run on the next turn of the event loop in batches, so a burst of store changes does not block the server.

export class WorkQueue {
  private readonly queue = new Map<string, () => void>();
  private immediate: NodeJS.Immediate | undefined;
  private idleWaiters: Array<() => void> = [];
  private open = false;

  /** `batch`: works run per turn of the event loop. */
  constructor(private readonly batch: number) {}

  /** Accepts work from now on. */
  start(): void {
    this.open = true;
  }

  /** Drops the work not done yet and accepts no more; `idle()` waiters are released. */
  stop(): void {
    this.open = false;
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
    this.queue.clear();
    this.wakeIdle();
  }

  /** Queues `work` under `key` (replacing work queued under it that has not run); ignored while stopped. */
  enqueue(key: string, work: () => void): void {
    if (!this.open) return;
    this.queue.set(key, work);
    this.immediate ??= setImmediate(() => this.drain());
  }

  /** Resolves once nothing is queued (work that queues more is waited for too). */
  idle(): Promise<void> {
    if (this.queue.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private drain(): void {
    this.immediate = undefined;
    let n = 0;
    for (const [key, work] of this.queue) {
      if (n++ >= this.batch) break;
      this.queue.delete(key);
      work();
    }
    if (this.queue.size > 0) this.immediate ??= setImmediate(() => this.drain());
    else this.wakeIdle();
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
