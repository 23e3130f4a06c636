// `kmaint status --watch` without a cluster: a new table only when something but the ages changed (off a terminal),
// every read redrawn on one, stopping on abort or at the timeout.
import { describe, expect, it } from 'vitest';
import { aMaintenance } from '../shared/scheduling/test-builders.ts';
import { statusRows, watchStatus, type StatusView } from './status.ts';
import { statusChangeKey } from './status-render.ts';

const NOW = new Date('2025-12-01T00:01:00Z');
const view = (phase: string, ageShift = 0): StatusView => ({
  config: 'MaintenanceOperatorConfig kmaint/default: maxParallelOperations 1, maxUnavailable unlimited',
  rows: statusRows([aMaintenance({ name: 'a', nodeName: 'n1', phase })], new Date(NOW.getTime() + ageShift)),
});

describe('statusChangeKey', () => {
  it('ignores the ages, sees a phase change', () => {
    expect(statusChangeKey(view('Pending', 5000))).toBe(statusChangeKey(view('Pending')));
    expect(statusChangeKey(view('Draining'))).not.toBe(statusChangeKey(view('Pending')));
  });
});

describe('watchStatus', () => {
  /** Reads the views in turn (the last one repeating) and aborts after `reads` reads. */
  function script(views: StatusView[], reads: number, redraw: boolean): Promise<{ written: string[]; count: number; reads: number }> {
    const stop = new AbortController();
    const written: string[] = [];
    let n = 0;
    const read = (): Promise<StatusView> => {
      const v = views[Math.min(n, views.length - 1)] as StatusView;
      n++;
      if (n >= reads) stop.abort();
      return Promise.resolve(v);
    };
    return watchStatus(
      { read, render: (v) => `${v.rows.map((r) => `${r.request} ${r.phase} ${r.ageSeconds ?? '-'}`).join('\n')}\n`, write: (t) => written.push(t), redraw, intervalMs: 10, signal: stop.signal, sleep: () => Promise.resolve() },
      statusChangeKey,
    ).then((count) => ({ written, count, reads: n }));
  }

  it('off a terminal: a table at start and one per change, none for the age ticking', async () => {
    const views = [view('Pending'), view('Pending', 1000), view('Pending', 2000), view('Scheduled', 3000), view('Scheduled', 4000)];
    // The sixth read aborts the watch before it renders.
    expect(await script(views, 6, false)).toEqual({ written: ['default/a Pending 60\n', 'default/a Scheduled 63\n'], count: 2, reads: 6 });
  });

  it('on a terminal: every read redrawn', async () => {
    const views = [view('Pending'), view('Pending', 1000), view('Pending', 2000)];
    expect((await script(views, 4, true)).written).toEqual(['default/a Pending 60\n', 'default/a Pending 61\n', 'default/a Pending 62\n']);
  });

  it('stops at the timeout with the real sleep', async () => {
    const started = Date.now();
    const written: string[] = [];
    const count = await watchStatus({ read: () => Promise.resolve(view('Pending')), render: () => 'x\n', write: (t) => written.push(t), redraw: false, intervalMs: 20, timeoutMs: 200, signal: new AbortController().signal }, statusChangeKey);
    expect([count, written]).toEqual([1, ['x\n']]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});
