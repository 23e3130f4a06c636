import { describe, expect, it } from 'vitest';
import { ANNOTATION_DEADLINE, ANNOTATION_NOT_BEFORE } from '../shared/api/index.ts';
import { aMaintenance } from '../shared/scheduling/test-builders.ts';
import { requestTimes, requestTimesText, type RequestTimes } from './request-times.ts';

const NOW = new Date('2026-01-01T12:00:00Z');

describe('requestTimes and requestTimesText', () => {
  it.each<{ rule: string; phase: string; annotations: Record<string, string>; times: RequestTimes; text: string }>([
    { rule: 'neither set: nothing to show', phase: 'Pending', annotations: {}, times: {}, text: '' },
    {
      rule: 'a deadline still to come is open',
      phase: 'Pending',
      annotations: { [ANNOTATION_DEADLINE]: '2026-01-01T15:00:00+01:00' },
      times: { deadline: '2026-01-01T14:00:00Z', deadlineState: 'open' },
      text: 'deadline 2026-01-01T14:00:00Z (open, in 120m)',
    },
    {
      rule: 'not Ready after the deadline: missed',
      phase: 'Draining',
      annotations: { [ANNOTATION_DEADLINE]: '2026-01-01T09:00:00Z' },
      times: { deadline: '2026-01-01T09:00:00Z', deadlineState: 'missed' },
      text: 'deadline 2026-01-01T09:00:00Z (missed, 3h ago)',
    },
    {
      rule: 'Ready before the deadline (the fixture turned Ready on 2025-12-31): met, even once it has passed',
      phase: 'Ready',
      annotations: { [ANNOTATION_DEADLINE]: '2026-01-01T09:00:00Z' },
      times: { deadline: '2026-01-01T09:00:00Z', deadlineState: 'met' },
      text: 'deadline 2026-01-01T09:00:00Z (met, 3h ago)',
    },
    {
      rule: 'Ready after the deadline: missed',
      phase: 'Ready',
      annotations: { [ANNOTATION_DEADLINE]: '2025-12-30T00:00:00Z' },
      times: { deadline: '2025-12-30T00:00:00Z', deadlineState: 'missed' },
      text: 'deadline 2025-12-30T00:00:00Z (missed, 2d12h ago)',
    },
    {
      rule: 'an invalid value is shown with why, never guessed',
      phase: 'Pending',
      annotations: { [ANNOTATION_DEADLINE]: 'soon', [ANNOTATION_NOT_BEFORE]: '2026-13-01T00:00:00Z' },
      times: {
        deadline: 'invalid: kmaint.io/deadline "soon" is not an RFC 3339 time (e.g. 2026-12-01T06:00:00Z)',
        notBefore: 'invalid: kmaint.io/not-before "2026-13-01T00:00:00Z" is not an RFC 3339 time (e.g. 2026-12-01T06:00:00Z)',
      },
      text: 'deadline invalid: kmaint.io/deadline "soon" is not an RFC 3339 time (e.g. 2026-12-01T06:00:00Z); not before invalid: kmaint.io/not-before "2026-13-01T00:00:00Z" is not an RFC 3339 time (e.g. 2026-12-01T06:00:00Z)',
    },
    {
      rule: 'a not-before still to come says how long',
      phase: 'Pending',
      annotations: { [ANNOTATION_NOT_BEFORE]: '2026-01-01T18:30:00Z' },
      times: { notBefore: '2026-01-01T18:30:00Z' },
      text: 'not before 2026-01-01T18:30:00Z (in 6h30m)',
    },
    {
      rule: 'a not-before that has passed says so',
      phase: 'Draining',
      annotations: { [ANNOTATION_NOT_BEFORE]: '2026-01-01T11:00:00Z' },
      times: { notBefore: '2026-01-01T11:00:00Z' },
      text: 'not before 2026-01-01T11:00:00Z (passed, 60m ago)',
    },
  ])('$rule', ({ phase, annotations, times, text }) => {
    const nm = aMaintenance({ name: 'a', nodeName: 'node-01', phase, annotations });
    expect(requestTimes(nm, NOW)).toEqual(times);
    expect(requestTimesText(requestTimes(nm, NOW), NOW)).toBe(text);
  });

  it('without a clock (the status table) shows no relative time', () => {
    const nm = aMaintenance({ name: 'a', nodeName: 'node-01', annotations: { [ANNOTATION_DEADLINE]: '2026-01-01T09:00:00Z', [ANNOTATION_NOT_BEFORE]: '2026-01-01T08:00:00Z' } });
    expect(requestTimesText(requestTimes(nm, NOW))).toBe('deadline 2026-01-01T09:00:00Z (missed); not before 2026-01-01T08:00:00Z');
  });
});
