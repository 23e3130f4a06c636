import { describe, expect, it } from 'vitest';
import { forEachBounded } from './for-each-bounded.ts';

/** A call that finishes when the test says so, to watch how many are in flight. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('forEachBounded', () => {
  it('keeps at most `limit` calls in flight, each item once, with its index', async () => {
    const gates = Array.from({ length: 5 }, gate);
    const started: string[] = [];
    const done = forEachBounded(['a', 'b', 'c', 'd', 'e'], { limit: 2 }, async (item, index) => {
      started.push(`${item}${index}`);
      await gates[index]?.promise;
    });
    await Promise.resolve();
    expect(started).toEqual(['a0', 'b1']);
    gates[1]?.open();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a0', 'b1', 'c2']);
    for (const g of gates) g.open();
    await done;
    expect(started).toEqual(['a0', 'b1', 'c2', 'd3', 'e4']);
  });

  it('pulls a lazy iterable only as workers free up, and a limit below 1 still makes progress', async () => {
    const pulled: number[] = [];
    function* numbers(): Generator<number> {
      for (let i = 0; i < 3; i++) {
        pulled.push(i);
        yield i;
      }
    }
    const seen: number[] = [];
    await forEachBounded(numbers(), { limit: 0 }, async (n) => {
      seen.push(n);
      expect(pulled).toEqual(seen);
    });
    expect(seen).toEqual([0, 1, 2]);
  });

  it('the first failure stops new work, waits for the calls in flight, then is thrown', async () => {
    const finished: string[] = [];
    const slow = gate();
    const run = forEachBounded(['slow', 'bad', 'never'], { limit: 2 }, async (item) => {
      if (item === 'bad') throw new Error('bad item');
      await slow.promise;
      finished.push(item);
    });
    let settled = false;
    void run.catch(() => undefined).then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    slow.open();
    await expect(run).rejects.toThrow('bad item');
    expect(finished).toEqual(['slow']);
  });

  it('an aborted signal starts nothing and rejects with its reason', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stopped'));
    const seen: number[] = [];
    await expect(forEachBounded([1, 2], { limit: 2, signal: controller.signal }, async (n) => void seen.push(n))).rejects.toThrow('stopped');
    expect(seen).toEqual([]);
  });
});
