import { describe, expect, it } from 'vitest';
import type { NodeMaintenance } from '#api';
import { withReadyCondition } from './maintenance.ts';
import { rfc3339Seconds } from './wire-time.ts';
import { aMaintenance, EARLIER, NOW } from '../scheduling/test-builders.ts';

describe('rfc3339Seconds', () => {
  it.each([
    { now: new Date('2026-01-01T00:00:00Z'), expected: '2026-01-01T00:00:00Z' },
    { now: new Date('2026-01-01T12:34:56.789Z'), expected: '2026-01-01T12:34:56Z' },
  ])('$now -> $expected', ({ now, expected }) => {
    expect(rfc3339Seconds(now)).toBe(expected);
  });
});

describe('withReadyCondition (meta.SetStatusCondition semantics)', () => {
  const pendingNm = aMaintenance({ name: 'nm', nodeName: 'n', message: 'm' });
  it.each<{ rule: string; nm: NodeMaintenance; value: { status: 'True' | 'False'; reason: string; message: string }; expected: unknown }>([
    {
      rule: 'a new condition gets now (seconds) and observedGeneration',
      nm: aMaintenance({ name: 'nm', nodeName: 'n', phase: '', generation: 3 }),
      value: { status: 'False', reason: 'Pending', message: 'm' },
      expected: { conditions: [{ type: 'Ready', status: 'False', reason: 'Pending', message: 'm', lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 3 }] },
    },
    {
      rule: 'a reason change without a status flip keeps lastTransitionTime',
      nm: pendingNm,
      value: { status: 'False', reason: 'Scheduled', message: 'x' },
      expected: { conditions: [{ type: 'Ready', status: 'False', reason: 'Scheduled', message: 'x', lastTransitionTime: EARLIER, observedGeneration: 1 }] },
    },
    {
      rule: 'a status flip moves lastTransitionTime to now',
      nm: pendingNm,
      value: { status: 'True', reason: 'Ready', message: '' },
      expected: { conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 1 }] },
    },
    { rule: 'no change gives undefined (no write)', nm: pendingNm, value: { status: 'False', reason: 'Pending', message: 'm' }, expected: undefined },
  ])('$rule', ({ nm, value, expected }) => {
    const before = JSON.stringify(nm);
    expect(withReadyCondition(nm, value, NOW)).toEqual(expected);
    expect(JSON.stringify(nm)).toBe(before);
  });
});
