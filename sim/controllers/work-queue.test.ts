import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.ts';

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('WorkQueue', () => {
  it('runs the latest work of a key once, in batches per turn of the event loop, and resolves idle() when empty', async () => {
    const q = new WorkQueue(2);
    const ran: string[] = [];
    q.start();
    q.enqueue('a', () => ran.push('a1'));
    q.enqueue('b', () => ran.push('b'));
    q.enqueue('a', () => ran.push('a2'));
    q.enqueue('c', () => ran.push('c'));
    expect(ran).toEqual([]);
    await turn();
    expect(ran).toEqual(['a2', 'b']);
    await q.idle();
    expect(ran).toEqual(['a2', 'b', 'c']);
  });

  it('work that queues more is waited for by idle()', async () => {
    const q = new WorkQueue(1);
    const ran: string[] = [];
    q.start();
    q.enqueue('x', () => {
      ran.push('x');
      q.enqueue('y', () => ran.push('y'));
    });
    await q.idle();
    expect(ran).toEqual(['x', 'y']);
  });

  it('takes nothing before start or after stop; stop drops queued work and releases idle() waiters', async () => {
    const q = new WorkQueue(10);
    const ran: string[] = [];
    q.enqueue('early', () => ran.push('early'));
    q.start();
    q.enqueue('dropped', () => ran.push('dropped'));
    const waiting = q.idle();
    q.stop();
    await waiting;
    q.enqueue('late', () => ran.push('late'));
    await turn();
    expect(ran).toEqual([]);
  });
});
