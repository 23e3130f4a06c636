// Table tests for compiling maintenance windows: Quartz spellings normalised for croner, and every unusable window named.
import { describe, expect, it } from 'vitest';
import { compileWindows, normaliseCron, windowDurationMs } from './windows.ts';

describe('normaliseCron', () => {
  it.each([
    { rule: 'a plain 5-field expression is unchanged', expression: '0 2 * * *', pattern: '0 2 * * *' },
    { rule: 'Quartz 0/15 in minutes becomes */15', expression: '0/15 * * * *', pattern: '*/15 * * * *' },
    { rule: 'a step from a later start becomes a range to the field maximum', expression: '5/15 * * * *', pattern: '5-59/15 * * * *' },
    { rule: 'hours start at 0', expression: '0 0/6 * * *', pattern: '0 */6 * * *' },
    { rule: 'day-of-month starts at 1, so 1/2 is */2', expression: '0 2 1/2 * *', pattern: '0 2 */2 * *' },
    { rule: 'months start at 1 and end at 12', expression: '0 2 1 3/3 *', pattern: '0 2 1 3-12/3 *' },
    { rule: 'day-of-week ends at 6', expression: '0 2 * * 1/2', pattern: '0 2 * * 1-6/2' },
    { rule: 'each item of a list is normalised', expression: '0/30,7 * * * *', pattern: '*/30,7 * * * *' },
    { rule: 'ranges with steps are left alone', expression: '10-50/10 * * * *', pattern: '10-50/10 * * * *' },
    { rule: 'Quartz with seconds first: 0/15 in seconds and ? in day-of-week', expression: '0 0/15 * * * ?', pattern: '0 */15 * * * *' },
    { rule: 'Quartz ? in day-of-month becomes *', expression: '0 2 ? * MON', pattern: '0 2 * * MON' },
    { rule: 'extra whitespace is collapsed', expression: '  0   2 * * *  ', pattern: '0 2 * * *' },
    { rule: 'a nickname passes through', expression: '@daily', pattern: '@daily' },
  ])('$rule: "$expression" -> "$pattern"', ({ expression, pattern }) => {
    expect(normaliseCron(expression)).toEqual({ ok: true, pattern });
  });

  it.each([
    { expression: '0 2 * *', error: 'has 4 fields; use 5 (minute hour day-of-month month day-of-week) or 6 with seconds first' },
    { expression: '0 0 2 * * ? 2026', error: 'has 7 fields; use 5 (minute hour day-of-month month day-of-week) or 6 with seconds first' },
    { expression: '0 ? * * *', error: 'uses "?" in hour ("?"); "?" is allowed only as the whole day-of-month or day-of-week field' },
    { expression: '0 2 1? * *', error: 'uses "?" in day-of-month ("1?"); "?" is allowed only as the whole day-of-month or day-of-week field' },
  ])('"$expression" is refused: $error', ({ expression, error }) => {
    expect(normaliseCron(expression)).toEqual({ ok: false, error });
  });
});

describe('windowDurationMs', () => {
  it.each([
    { duration: '30m', ms: 1_800_000 },
    { duration: '4h', ms: 14_400_000 },
    { duration: '1h30m', ms: 5_400_000 },
    { duration: '1h30m0s', ms: 5_400_000 },
    { duration: '90m', ms: 5_400_000 },
    { duration: '0m', ms: 0 },
  ])('$duration is $ms ms', ({ duration, ms }) => {
    expect(windowDurationMs(duration)).toBe(ms);
  });
});

describe('compileWindows', () => {
  it('compiles every window, UTC unless a time zone is named, keeping what was written', () => {
    const set = compileWindows(
      [
        { schedule: '0/30 22 * * *', duration: '2h' },
        { schedule: '0 3 * * SAT', duration: '1h30m', timeZone: 'Europe/Berlin' },
      ],
      'spec.windows',
    );
    if (set.kind !== 'valid') throw new Error(set.problem);
    expect(set.windows.map(({ schedule, pattern, timeZone, durationMs }) => ({ schedule, pattern, timeZone, durationMs }))).toEqual([
      { schedule: '0/30 22 * * *', pattern: '*/30 22 * * *', timeZone: 'UTC', durationMs: 7_200_000 },
      { schedule: '0 3 * * SAT', pattern: '0 3 * * SAT', timeZone: 'Europe/Berlin', durationMs: 5_400_000 },
    ]);
    expect(set.windows[0]?.nextStartAfter(new Date('2026-01-01T22:10:00Z'))).toEqual(new Date('2026-01-01T22:30:00Z'));
    // 03:00 CET is 02:00 UTC; 2026-01-03 is a Saturday.
    expect(set.windows[1]?.nextStartAfter(new Date('2026-01-01T00:00:00Z'))).toEqual(new Date('2026-01-03T02:00:00Z'));
  });

  it.each([
    {
      rule: 'an invalid cron field value',
      windows: [{ schedule: '61 2 * * *', duration: '1h' }],
      problem: 'spec.windows[0].schedule: "61 2 * * *" is not a valid cron expression (CronPattern: Invalid value for minute: 61)',
    },
    {
      rule: 'text that is no cron expression',
      windows: [{ schedule: 'every night', duration: '1h' }],
      problem: 'spec.windows[0].schedule: "every night" has 2 fields; use 5 (minute hour day-of-month month day-of-week) or 6 with seconds first',
    },
    {
      rule: 'an unknown time zone',
      windows: [{ schedule: '0 2 * * *', duration: '1h', timeZone: 'Mars/Olympus' }],
      problem: 'spec.windows[0].timeZone: "Mars/Olympus" is not a known IANA time zone',
    },
    {
      rule: 'a UTC offset is not an IANA time zone',
      windows: [{ schedule: '0 2 * * *', duration: '1h', timeZone: '+05:30' }],
      problem: 'spec.windows[0].timeZone: "+05:30" is not a known IANA time zone',
    },
    {
      rule: 'a zero duration would never be open',
      windows: [{ schedule: '0 2 * * *', duration: '0h0m' }],
      problem: 'spec.windows[0].duration: "0h0m" must be longer than zero',
    },
    {
      rule: 'one bad window spoils the scope, and every problem is listed',
      windows: [
        { schedule: '0 2 * * *', duration: '1h' },
        { schedule: '0 25 * * *', duration: '1h' },
        { schedule: '0 2 * * *', duration: '1h', timeZone: 'Nowhere/City' },
      ],
      problem:
        'spec.pools[1].windows[1].schedule: "0 25 * * *" is not a valid cron expression (CronPattern: Invalid value for hour: 25); spec.pools[1].windows[2].timeZone: "Nowhere/City" is not a known IANA time zone',
      path: 'spec.pools[1].windows',
    },
  ])('$rule makes the whole set invalid', ({ windows, problem, path }) => {
    expect(compileWindows(windows, path ?? 'spec.windows')).toEqual({ kind: 'invalid', problem });
  });
});
