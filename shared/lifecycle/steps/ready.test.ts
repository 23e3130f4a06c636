import { describe, expect, it } from 'vitest';
import { ANNOTATION_READY_TIME } from '../../api/index.ts';
import { aLifecycleMaintenance, aStepContext } from '../test-builders.ts';
import { recordReady } from './ready.ts';
import type { StepResult } from './step.ts';

const NOW_S = '2026-01-01T00:00:00Z';
const RECORDED = { [ANNOTATION_READY_TIME]: '2025-12-31T12:00:00Z' };

describe('recordReady (Ready, RequestorFailed)', () => {
  it.each<{ rule: string; phase: string; planned?: string; annotations?: Record<string, string>; requestorFailed?: 'True' | 'False'; expected: StepResult }>([
    {
      rule: 'first time Ready: the ready time recorded, held with nothing in flight',
      phase: 'Ready',
      expected: { kind: 'hold', message: '', inFlight: false, annotations: { [ANNOTATION_READY_TIME]: NOW_S } },
    },
    { rule: 'Ready again: the recorded time is kept', phase: 'Ready', annotations: RECORDED, expected: { kind: 'hold', message: '', inFlight: false, annotations: {} } },
    { rule: 'Ready, the requestor says it failed: on to RequestorFailed', phase: 'Ready', annotations: RECORDED, requestorFailed: 'True', expected: { kind: 'advance', to: 'RequestorFailed', annotations: {} } },
    { rule: 'RequestorFailed, the requestor withdrew the failure: back to Ready', phase: 'RequestorFailed', annotations: RECORDED, requestorFailed: 'False', expected: { kind: 'advance', to: 'Ready', annotations: {} } },
    { rule: 'RequestorFailed and still failed: held', phase: 'RequestorFailed', annotations: RECORDED, requestorFailed: 'True', expected: { kind: 'hold', message: '', inFlight: false, annotations: {} } },
    {
      rule: 'reached in this pass (the request still reads Draining): planned as Ready, the time recorded',
      phase: 'Draining',
      planned: 'Ready',
      expected: { kind: 'hold', message: '', inFlight: false, annotations: { [ANNOTATION_READY_TIME]: NOW_S } },
    },
  ])('$rule', ({ phase, planned, annotations, requestorFailed, expected }) => {
    const nm = aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', phase, ...(annotations ? { annotations } : {}), ...(requestorFailed ? { requestorFailed } : {}) });
    expect(recordReady(aStepContext(nm, planned ? { phase: planned } : {}))).toEqual(expected);
  });
});
