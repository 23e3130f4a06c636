import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.ts';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('WorkQueue', () => {
  it('never runs more than its concurrency', async () => {
    const q = new WorkQueue(2, () => {});
    let running = 0;
    let peak = 0;
    // Each task holds its slot until the test releases it, so the queue is full for as long as work is left.
    const held: Array<() => void> = [];
    for (let i = 0; i < 10; i++) {
      q.add(`k${i}`, async () => {
        peak = Math.max(peak, ++running);
        const gate = deferred();
        held.push(gate.resolve);
        await gate.promise;
        running--;
      });
    }
    const idle = q.idle();
    for (let released = 0; released < 10; released++) {
      const next = held.shift();
      if (!next) throw new Error(`no task running after ${released} of 10 released (queue size ${q.size})`);
      next();
      // The released task ends and the queue starts the next one: both happen within the microtasks before a macrotask.
      await new Promise((r) => setImmediate(r));
    }
    await idle;
    expect(peak).toBe(2);
  });

  it('a key pending twice runs once; a key added while running runs once more', async () => {
    const q = new WorkQueue(1, () => {});
    const runs: string[] = [];
    const gate = deferred();
    q.add('a', async () => {
      runs.push('a1');
      await gate.promise;
    });
    q.add('b', async () => void runs.push('b1'));
    q.add('b', async () => void runs.push('b2'));
    q.add('a', async () => void runs.push('a2'));
    q.add('a', async () => void runs.push('a3'));
    gate.resolve();
    await q.idle();
    expect(runs).toEqual(['a1', 'b1', 'a3']);
  });

  it('reports errors and keeps going', async () => {
    const errors: string[] = [];
    const q = new WorkQueue(1, (key) => errors.push(key));
    let ran = false;
    q.add('bad', () => Promise.reject(new Error('boom')));
    q.add('good', async () => void (ran = true));
    await q.idle();
    expect(errors).toEqual(['bad']);
    expect(ran).toBe(true);
  });

  it('close drops pending work and waits for running work', async () => {
    const q = new WorkQueue(1, () => {});
    const runs: string[] = [];
    const gate = deferred();
    q.add('a', async () => {
      await gate.promise;
      runs.push('a');
    });
    q.add('b', async () => void runs.push('b'));
    const closed = q.close().then(() => runs.push('closed'));
    // Released only after every microtask of close() has run: a close() that did not wait would already be done.
    setImmediate(gate.resolve);
    await closed;
    q.add('c', async () => void runs.push('c'));
    await q.idle();
    expect(runs).toEqual(['a', 'closed']);
  });
});
