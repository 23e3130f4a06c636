import { describe, expect, it } from 'vitest';
import { ANNOTATION_DEADLINE, ANNOTATION_DEADLINE_REPORTED, ANNOTATION_NOT_BEFORE } from '#api';
import type { Action } from '#api';
import { planDeadlineReports } from './deadlines.ts';
import { aMaintenance, NOW } from './test-builders.ts';

// NOW is 2026-01-01T00:00:00Z; the fixtures' Ready conditions flipped at 2025-12-31T00:00:00Z.
const WARN_MISSED = (phase: string, after = '') => `not Ready by its deadline 2025-12-31T12:00:00Z (kmaint.io/deadline); phase ${phase}${after}`;

/** The plan as [event reason, message, record] per request; the patch and its event always come as a pair. */
function reports(actions: readonly Action[]): Array<[string, string, string]> {
  const out: Array<[string, string, string]> = [];
  for (let i = 0; i < actions.length; i += 2) {
    const patch = actions[i];
    const event = actions[i + 1];
    if (patch?.kind !== 'patchMaintenanceMeta' || event?.kind !== 'emitEvent') throw new Error(`unexpected pair ${patch?.kind ?? ''} ${event?.kind ?? ''}`);
    expect(event.type).toBe('Warning');
    expect(`${patch.target.namespace}/${patch.target.name}`).toBe(`${event.target.namespace}/${event.target.name}`);
    out.push([event.eventReason, event.message, patch.annotations?.[ANNOTATION_DEADLINE_REPORTED] ?? '']);
  }
  return out;
}

describe('planDeadlineReports', () => {
  it.each<{ rule: string; phase: string; annotations: Record<string, string>; deleting?: boolean; expected: Array<[string, string, string]> }>([
    { rule: 'no deadline: nothing to say', phase: 'Draining', annotations: {}, expected: [] },
    { rule: 'a deadline still to come: nothing yet', phase: 'Pending', annotations: { [ANNOTATION_DEADLINE]: '2026-01-01T00:00:01Z' }, expected: [] },
    {
      rule: 'not Ready after its deadline: one Warning and its record',
      phase: 'Draining',
      annotations: { [ANNOTATION_DEADLINE]: '2025-12-31T12:00:00Z' },
      expected: [['DeadlineMissed', WARN_MISSED('Draining'), 'missed 2025-12-31T12:00:00Z']],
    },
    {
      rule: 'a request no pass has seen yet can miss it too',
      phase: '',
      annotations: { [ANNOTATION_DEADLINE]: '2025-12-31T14:00:00+02:00' },
      expected: [['DeadlineMissed', WARN_MISSED('new'), 'missed 2025-12-31T14:00:00+02:00']],
    },
    { rule: 'already reported for this value: nothing again', phase: 'Draining', annotations: { [ANNOTATION_DEADLINE]: '2025-12-31T12:00:00Z', [ANNOTATION_DEADLINE_REPORTED]: 'missed 2025-12-31T12:00:00Z' }, expected: [] },
    {
      rule: 'a new value is reported again',
      phase: 'Draining',
      annotations: { [ANNOTATION_DEADLINE]: '2025-12-31T12:00:00Z', [ANNOTATION_DEADLINE_REPORTED]: 'missed 2025-12-30T12:00:00Z' },
      expected: [['DeadlineMissed', WARN_MISSED('Draining'), 'missed 2025-12-31T12:00:00Z']],
    },
    { rule: 'Ready before its deadline: met, nothing to say', phase: 'Ready', annotations: { [ANNOTATION_DEADLINE]: '2025-12-31T00:00:00Z' }, expected: [] },
    {
      rule: 'Ready only after its deadline: missed',
      phase: 'Ready',
      annotations: { [ANNOTATION_DEADLINE]: '2025-12-30T12:00:00Z' },
      expected: [['DeadlineMissed', 'not Ready by its deadline 2025-12-30T12:00:00Z (kmaint.io/deadline); phase Ready reached after it', 'missed 2025-12-30T12:00:00Z']],
    },
    { rule: 'being deleted: its requestor gave up, no warning', phase: 'Draining', deleting: true, annotations: { [ANNOTATION_DEADLINE]: '2025-12-31T12:00:00Z' }, expected: [] },
    {
      rule: 'unreadable times are reported, never guessed',
      phase: 'Pending',
      annotations: { [ANNOTATION_DEADLINE]: 'friday', [ANNOTATION_NOT_BEFORE]: '2026-01-01' },
      expected: [
        [
          'InvalidRequestTime',
          'kmaint.io/deadline "friday" is not an RFC 3339 time (e.g. 2026-12-01T06:00:00Z); kmaint.io/not-before "2026-01-01" is not an RFC 3339 time (e.g. 2026-12-01T06:00:00Z); the value is not used',
          'invalid friday 2026-01-01',
        ],
      ],
    },
    {
      rule: 'a deadline before the request was created (queue jumping): reported as invalid, never as missed',
      phase: 'Pending',
      annotations: { [ANNOTATION_DEADLINE]: '2000-01-01T00:00:00Z' },
      expected: [['InvalidRequestTime', 'kmaint.io/deadline 2000-01-01T00:00:00Z is before the request was created (2025-12-01T00:00:00Z); the value is not used', 'invalid 2000-01-01T00:00:00Z ']],
    },
    {
      rule: 'a deadline before creation, already reported: nothing again',
      phase: 'Pending',
      annotations: { [ANNOTATION_DEADLINE]: '2000-01-01T00:00:00Z', [ANNOTATION_DEADLINE_REPORTED]: 'invalid 2000-01-01T00:00:00Z ' },
      expected: [],
    },
  ])('$rule', ({ phase, annotations, deleting, expected }) => {
    const nm = aMaintenance({ name: 'a', nodeName: 'node-01', phase, annotations, ...(deleting === true ? { deleting } : {}) });
    expect(reports(planDeadlineReports([nm], NOW))).toEqual(expected);
  });
});
