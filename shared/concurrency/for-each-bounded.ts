// Work over many items with a bounded number in flight: the pass's reads per node, apply's write units, the sim's
// controllers and generator, the benchmarks' setup. The one worker pool (the lint rule of
// tools/lint/written-once.json refuses a new `Promise.all(Array.from({ length }, worker))`).

export interface BoundedOptions {
  /** At most this many calls of `fn` in flight (at least 1). */
  limit: number;
  /** Aborting stops new work; the call then rejects with the signal's reason once the calls in flight are done. */
  signal?: AbortSignal | undefined;
}

/**
 * Calls `fn` on every item, pulling the items lazily, at most `limit` at a time. The first failure stops new work:
 * the calls in flight finish, then it is thrown (no call outlives the returned promise).
 */
export async function forEachBounded<T>(items: Iterable<T>, opts: BoundedOptions, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  const iterator = items[Symbol.iterator]();
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && !opts.signal?.aborted) {
      const item = iterator.next();
      if (item.done === true) return;
      const index = next++;
      try {
        await fn(item.value, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const workers: Promise<void>[] = [];
  for (let i = 0; i < Math.max(1, opts.limit); i++) workers.push(worker());
  await Promise.all(workers);
  if (failure !== undefined) throw failure.error;
  opts.signal?.throwIfAborted();
}
