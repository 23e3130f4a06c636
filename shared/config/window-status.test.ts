// Table tests for windowStatus on the injected clock: edges, time zones, DST gaps and repeats, several windows, invalid sets.
import { describe, expect, it } from 'vitest';
import type { MaintenanceWindowSpec } from '#api';
import { compileWindows } from '#config';
import { windowStatus } from './window-status.ts';
import type { WindowStatus } from './window-status.ts';

const at = (iso: string): Date => new Date(iso);
const closed = (iso: string): WindowStatus => ({ kind: 'closed', nextOpen: at(iso) });
const OPEN: WindowStatus = { kind: 'open' };

describe('windowStatus', () => {
  it.each<{ rule: string; windows: MaintenanceWindowSpec[]; now: string; expected: WindowStatus }>([
    // Edges: a window is [start, start + duration).
    { rule: 'before the start: closed until 02:00 UTC (UTC when no zone)', windows: [{ schedule: '0 2 * * *', duration: '1h' }], now: '2026-01-01T01:59:59Z', expected: closed('2026-01-01T02:00:00Z') },
    { rule: 'at the start: open', windows: [{ schedule: '0 2 * * *', duration: '1h' }], now: '2026-01-01T02:00:00Z', expected: OPEN },
    { rule: 'a millisecond before the end: open', windows: [{ schedule: '0 2 * * *', duration: '1h' }], now: '2026-01-01T02:59:59.999Z', expected: OPEN },
    { rule: 'at the end: closed until the next day', windows: [{ schedule: '0 2 * * *', duration: '1h' }], now: '2026-01-01T03:00:00Z', expected: closed('2026-01-02T02:00:00Z') },
    { rule: 'a window reaching past midnight is open after it', windows: [{ schedule: '0 23 * * *', duration: '3h' }], now: '2026-01-02T01:30:00Z', expected: OPEN },
    { rule: 'a window longer than its period is always open', windows: [{ schedule: '0 * * * *', duration: '2h' }], now: '2026-01-01T05:59:00Z', expected: OPEN },
    // Time zones.
    { rule: 'Europe/Berlin in winter (UTC+1): 22:00 local is 21:00 UTC', windows: [{ schedule: '0 22 * * *', duration: '2h', timeZone: 'Europe/Berlin' }], now: '2026-01-15T12:00:00Z', expected: closed('2026-01-15T21:00:00Z') },
    { rule: 'Europe/Berlin in summer (UTC+2): 22:00 local is 20:00 UTC', windows: [{ schedule: '0 22 * * *', duration: '2h', timeZone: 'Europe/Berlin' }], now: '2026-07-15T12:00:00Z', expected: closed('2026-07-15T20:00:00Z') },
    { rule: 'Europe/Berlin: 23:30 local in winter is inside 22:00+2h', windows: [{ schedule: '0 22 * * *', duration: '2h', timeZone: 'Europe/Berlin' }], now: '2026-01-15T22:30:00Z', expected: OPEN },
    { rule: 'Asia/Kolkata (UTC+5:30): 01:30 local on the 2nd is 20:00 UTC on the 1st', windows: [{ schedule: '30 1 * * *', duration: '1h', timeZone: 'Asia/Kolkata' }], now: '2026-01-01T12:00:00Z', expected: closed('2026-01-01T20:00:00Z') },
    { rule: 'a weekly window in its own zone: Saturday 03:00 Berlin', windows: [{ schedule: '0 3 * * SAT', duration: '4h', timeZone: 'Europe/Berlin' }], now: '2026-01-07T12:00:00Z', expected: closed('2026-01-10T02:00:00Z') },
    { rule: 'a lower-case utc is a zone Intl knows', windows: [{ schedule: '0 2 * * MON-FRI', duration: '1h', timeZone: 'utc' }], now: '2026-01-03T12:00:00Z', expected: closed('2026-01-05T02:00:00Z') },
    // DST, as croner 9 resolves local times that do not exist or exist twice.
    { rule: 'New York spring forward: 02:30 does not exist on 8 March, the start moves by the gap to 03:30 EDT', windows: [{ schedule: '30 2 * * *', duration: '1h', timeZone: 'America/New_York' }], now: '2026-03-08T00:00:00Z', expected: closed('2026-03-08T07:30:00Z') },
    { rule: 'Berlin spring forward: 02:30 on 29 March becomes 03:30 CEST', windows: [{ schedule: '30 2 * * *', duration: '1h', timeZone: 'Europe/Berlin' }], now: '2026-03-29T00:00:00Z', expected: closed('2026-03-29T01:30:00Z') },
    { rule: 'New York fall back: 01:30 exists twice on 1 November, the window starts at the first (EDT)', windows: [{ schedule: '30 1 * * *', duration: '1h', timeZone: 'America/New_York' }], now: '2026-11-01T00:00:00Z', expected: closed('2026-11-01T05:30:00Z') },
    { rule: 'New York fall back: the repeated 01:30 (EST) opens no second window', windows: [{ schedule: '30 1 * * *', duration: '1h', timeZone: 'America/New_York' }], now: '2026-11-01T06:45:00Z', expected: closed('2026-11-02T06:30:00Z') },
    { rule: 'duration is elapsed time: 01:00 EDT + 3h ends at 03:00 EST, still open one minute before', windows: [{ schedule: '0 1 * * *', duration: '3h', timeZone: 'America/New_York' }], now: '2026-11-01T07:59:00Z', expected: OPEN },
    { rule: 'duration is elapsed time: closed at 08:00 UTC although the wall clock shows only 03:00', windows: [{ schedule: '0 1 * * *', duration: '3h', timeZone: 'America/New_York' }], now: '2026-11-01T08:00:00Z', expected: closed('2026-11-02T06:00:00Z') },
    // Cron features and several windows.
    { rule: 'Quartz 0/15 with seconds first and ?: every quarter hour for 5 minutes, closed at :07', windows: [{ schedule: '0 0/15 * * * ?', duration: '5m' }], now: '2026-01-01T00:07:00Z', expected: closed('2026-01-01T00:15:00Z') },
    { rule: 'Quartz 0/15: open at :16', windows: [{ schedule: '0 0/15 * * * ?', duration: '5m' }], now: '2026-01-01T00:16:00Z', expected: OPEN },
    { rule: 'L: the last day of February', windows: [{ schedule: '0 2 L * *', duration: '1h' }], now: '2026-02-03T00:00:00Z', expected: closed('2026-02-28T02:00:00Z') },
    {
      rule: 'several windows: open when any is',
      windows: [{ schedule: '0 2 * * *', duration: '1h' }, { schedule: '0 12 * * *', duration: '1h' }],
      now: '2026-01-01T12:30:00Z',
      expected: OPEN,
    },
    {
      rule: 'several windows: closed until the earliest next start',
      windows: [{ schedule: '0 2 * * *', duration: '1h' }, { schedule: '0 12 * * *', duration: '1h', timeZone: 'Asia/Tokyo' }],
      now: '2026-01-01T01:00:00Z',
      expected: closed('2026-01-01T02:00:00Z'),
    },
    { rule: 'a schedule that never fires never opens', windows: [{ schedule: '0 0 30 2 *', duration: '1h' }], now: '2026-01-01T00:00:00Z', expected: { kind: 'never' } },
  ])('$rule', ({ windows, now, expected }) => {
    expect(windowStatus(compileWindows(windows, 'spec.windows'), at(now))).toEqual(expected);
  });

  it('the next opening stays the same while the window is closed, so wait messages do not change between passes', () => {
    const set = compileWindows([{ schedule: '0 2 * * *', duration: '1h', timeZone: 'Europe/Berlin' }], 'spec.windows');
    const seen = ['2026-01-01T02:00:00Z', '2026-01-01T12:00:00Z', '2026-01-02T00:59:59Z'].map((now) => windowStatus(set, at(now)));
    expect(seen).toEqual([closed('2026-01-02T01:00:00Z'), closed('2026-01-02T01:00:00Z'), closed('2026-01-02T01:00:00Z')]);
  });

  it.each<{ rule: string; set: Parameters<typeof windowStatus>[0]; expected: WindowStatus }>([
    { rule: 'no windows at all: unrestricted', set: undefined, expected: { kind: 'unrestricted' } },
    { rule: 'an empty set: unrestricted', set: { kind: 'valid', windows: [] }, expected: { kind: 'unrestricted' } },
    { rule: 'an invalid set admits nothing, never everything', set: { kind: 'invalid', problem: 'p' }, expected: { kind: 'invalid', problem: 'p' } },
    {
      rule: 'a window that throws while evaluating fails closed',
      set: {
        kind: 'valid',
        windows: [
          {
            schedule: '0 2 * * *',
            pattern: '0 2 * * *',
            timeZone: 'Broken/Zone',
            durationMs: 60_000,
            nextStartAfter: () => {
              throw new RangeError('Invalid time zone specified: Broken/Zone');
            },
          },
        ],
      },
      expected: { kind: 'invalid', problem: 'schedule "0 2 * * *" in Broken/Zone: Invalid time zone specified: Broken/Zone' },
    },
  ])('$rule', ({ set, expected }) => {
    expect(windowStatus(set, at('2026-01-01T00:00:00Z'))).toEqual(expected);
  });
});
