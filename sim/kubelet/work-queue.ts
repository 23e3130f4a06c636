// A keyed work queue with bounded concurrency: a key is never run twice at once, and a key added
// while it runs runs once more afterwards (the classic controller workqueue semantics).

export class WorkQueue {
  private readonly pending = new Map<string, () => Promise<void>>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly rerun = new Map<string, () => Promise<void>>();
  private closed = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly onError: (key: string, error: unknown) => void,
  ) {}

  add(key: string, task: () => Promise<void>): void {
    if (this.closed) return;
    if (this.running.has(key)) {
      this.rerun.set(key, task);
      return;
    }
    if (!this.pending.has(key)) this.pending.set(key, task);
    this.pump();
  }

  get size(): number {
    return this.pending.size + this.running.size;
  }

  /** Resolves once nothing is pending or running. */
  idle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Drops pending work and waits for what is running. */
  async close(): Promise<void> {
    this.closed = true;
    this.pending.clear();
    this.rerun.clear();
    await Promise.all(this.running.values());
  }

  private pump(): void {
    while (this.running.size < this.concurrency && this.pending.size > 0) {
      const [key, task] = this.pending.entries().next().value as [string, () => Promise<void>];
      this.pending.delete(key);
      const run = this.runOne(key, task);
      this.running.set(key, run);
    }
    if (this.size === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  private async runOne(key: string, task: () => Promise<void>): Promise<void> {
    try {
      await task();
    } catch (error) {
      this.onError(key, error);
    }
    this.running.delete(key);
    const again = this.rerun.get(key);
    if (again && !this.closed) {
      this.rerun.delete(key);
      this.pending.set(key, again);
    }
    this.pump();
  }
}
