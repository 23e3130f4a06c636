import { describe, expect, it } from 'vitest';
import type { Condition, NodeMaintenance } from '#api';
import { waitingOn, withReadyCondition } from './maintenance.ts';
import { WaitingOn } from './constants.ts';
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

describe('withReadyCondition and kmaint.io/Waiting (what a waiting request waits on)', () => {
  const ready = (message: string): Condition => ({ type: 'Ready', status: 'False', reason: 'Pending', message, lastTransitionTime: EARLIER, observedGeneration: 1 });
  const waiting = (reason: string, lastTransitionTime: string): Condition => ({ type: 'kmaint.io/Waiting', status: 'True', reason, message: '', lastTransitionTime, observedGeneration: 1 });
  const parallel = aMaintenance({ name: 'nm', nodeName: 'n', message: 'm', waitingOn: 'Parallel' });
  const NOW_S = '2026-01-01T00:00:00Z';
  it.each<{ rule: string; nm: NodeMaintenance; message: string; reason?: string; on?: WaitingOn; expected: unknown }>([
    { rule: 'set beside Ready with the gate as its reason, no words, since now', nm: aMaintenance({ name: 'nm', nodeName: 'n', message: 'm' }), message: 'm', on: WaitingOn.Parallel, expected: { conditions: [ready('m'), waiting('Parallel', NOW_S)] } },
    { rule: 'the same gate and words: no write', nm: parallel, message: 'm', on: WaitingOn.Parallel, expected: undefined },
    { rule: 'new words, the same gate: written, the gate keeps its time', nm: parallel, message: 'm2', on: WaitingOn.Parallel, expected: { conditions: [ready('m2'), waiting('Parallel', EARLIER)] } },
    { rule: 'the same words, another gate: written, the gate since now', nm: parallel, message: 'm', on: WaitingOn.Window, expected: { conditions: [ready('m'), waiting('Window', NOW_S)] } },
    { rule: 'a Ready write that is no wait ends it', nm: parallel, message: 'admitted', reason: 'Scheduled', expected: { conditions: [{ ...ready('admitted'), reason: 'Scheduled' }] } },
    { rule: 'the same Ready without a gate ends it too (a write, not a no-op)', nm: parallel, message: 'm', expected: { conditions: [ready('m')] } },
  ])('$rule', ({ nm, message, reason, on, expected }) => {
    const before = JSON.stringify(nm);
    expect(withReadyCondition(nm, { status: 'False', reason: reason ?? 'Pending', message }, NOW, on)).toEqual(expected);
    expect(JSON.stringify(nm)).toBe(before);
  });

  it('waitingOn reads the gate of a True condition it knows, else nothing', () => {
    const withCondition = (status: 'True' | 'False', reason: string): NodeMaintenance => ({ ...parallel, status: { conditions: [ready('m'), { ...waiting(reason, EARLIER), status }] } });
    expect([waitingOn(parallel), waitingOn(withCondition('False', 'Parallel')), waitingOn(withCondition('True', 'Someday')), waitingOn(aMaintenance({ name: 'nm', nodeName: 'n' }))]).toEqual(['Parallel', undefined, undefined, undefined]);
  });
});
