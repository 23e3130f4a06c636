import { describe, expect, it } from 'vitest';
import { acceleratedClock, asKubeletClock, manualClock, realClock } from './clock.ts';
import { pause } from './kubelet/clock.ts';

const T0 = new Date('2026-01-01T00:00:00Z');

describe('manualClock', () => {
  it('starts at the given time and moves only by advance', async () => {
    const clock = manualClock(T0);
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    await clock.advance(90_000);
    expect(clock.now().toISOString()).toBe('2026-01-01T00:01:30.000Z');
  });

  it('fires due timers in due order, each at its own due time', async () => {
    const clock = manualClock(T0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push(`b@${clock.nowMs() - T0.getTime()}`), 2000);
    clock.setTimeout(() => fired.push(`a@${clock.nowMs() - T0.getTime()}`), 1000);
    clock.setTimeout(() => fired.push(`c@${clock.nowMs() - T0.getTime()}`), 5000);
    await clock.advance(3000);
    expect(fired).toEqual(['a@1000', 'b@2000']);
    expect(clock.pending()).toBe(1);
    await clock.advance(2000);
    expect(fired).toEqual(['a@1000', 'b@2000', 'c@5000']);
  });

  it('timers of equal due time fire in the order they were set', async () => {
    const clock = manualClock(T0);
    const fired: number[] = [];
    for (const n of [1, 2, 3]) clock.setTimeout(() => fired.push(n), 100);
    await clock.advance(100);
    expect(fired).toEqual([1, 2, 3]);
  });

  it('a chain of sleeps inside one advance runs to its end', async () => {
    const clock = manualClock(T0);
    const seen: number[] = [];
    const chain = (async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(1000);
        seen.push(clock.nowMs() - T0.getTime());
      }
    })();
    await clock.advance(10_000);
    await chain;
    expect(seen).toEqual([1000, 2000, 3000]);
  });

  it('clearTimeout cancels; an aborted sleep rejects with the reason', async () => {
    const clock = manualClock(T0);
    let fired = false;
    const t = clock.setTimeout(() => (fired = true), 10);
    clock.clearTimeout(t);
    const controller = new AbortController();
    const slept = clock.sleep(1000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(slept).rejects.toThrow('stop');
    await clock.advance(2000);
    expect(fired).toBe(false);
    expect(clock.pending()).toBe(0);
  });

  it('drives the simulated kubelet clock (pause) through asKubeletClock', async () => {
    const clock = manualClock(T0);
    const kubelet = asKubeletClock(clock);
    expect(kubelet.now()).toBe(T0.getTime());
    let done = false;
    const p = pause(kubelet, 500).then(() => (done = true));
    await clock.advance(499);
    expect(done).toBe(false);
    await clock.advance(1);
    await p;
    expect(done).toBe(true);
  });
});

/**
 * `read()` between two wall-clock readings. The scaled clocks read Date.now() themselves (there is no time source to
 * inject), so a test brackets each reading instead of bounding how long the machine took.
 */
function bracketed<T>(read: () => T): { value: T; wallFrom: number; wallTo: number } {
  const wallFrom = Date.now();
  const value = read();
  return { value, wallFrom, wallTo: Date.now() };
}

describe('acceleratedClock', () => {
  // Simulated time is start + (wall now - wall at creation) x speed, both wall readings whole milliseconds: so the
  // simulated time elapsed is a whole number of `speed`s, between speed x the shortest and the longest wall time the
  // readings around it allow. Exact however slow the machine is; how fast it sleeps is in `npm run bench:unit-speed`.
  it.each([
    [1000, 20_000],
    [60, 1_200],
  ])('runs `speed` simulated ms per real ms (speed %i, a sleep of %i simulated ms)', async (speed, sleepMs) => {
    const created = bracketed(() => acceleratedClock(speed, T0));
    const clock = created.value;
    expect([clock.mode, clock.speed, clock.nowMs() >= T0.getTime()]).toEqual(['accelerated', speed, true]);
    await clock.sleep(sleepMs);
    const read = bracketed(() => clock.nowMs() - T0.getTime());
    const simulated = read.value;
    expect(simulated).toBeGreaterThanOrEqual(sleepMs);
    expect(simulated % speed).toBe(0);
    expect(simulated).toBeGreaterThanOrEqual((read.wallFrom - created.wallTo) * speed);
    expect(simulated).toBeLessThanOrEqual((read.wallTo - created.wallFrom) * speed);
    // Hence the sleep took at least sleepMs / speed of wall time (20 ms): a lower bound, which load cannot break.
    expect(read.wallTo - created.wallFrom).toBeGreaterThanOrEqual(sleepMs / speed);
  });

  it('never fires a timer before its simulated due time (Node timers can fire a millisecond early)', async () => {
    const clock = acceleratedClock(10_000, T0);
    const early: number[] = [];
    await Promise.all(
      Array.from({ length: 200 }, (_, i) => {
        const ms = 10_000 + (i % 40) * 250;
        const due = clock.nowMs() + ms;
        return clock.sleep(ms).then(() => {
          if (clock.nowMs() < due) early.push(due - clock.nowMs());
        });
      }),
    );
    expect(early).toEqual([]);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('rejects speed %s', (speed) => {
    expect(() => acceleratedClock(speed)).toThrow(RangeError);
  });
});

describe('realClock', () => {
  it('reads the wall clock itself', () => {
    const clock = realClock();
    expect([clock.mode, clock.speed]).toEqual(['real', 1]);
    const read = bracketed(() => clock.nowMs());
    expect(read.value).toBeGreaterThanOrEqual(read.wallFrom);
    expect(read.value).toBeLessThanOrEqual(read.wallTo);
  });
});
