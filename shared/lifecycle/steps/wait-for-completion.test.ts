import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_WAIT_POD_COMPLETION_START } from '../../api/index.ts';
import type { NodeMaintenanceSpec } from '../../api/index.ts';
import { aPod } from '../../drain/test-builders.ts';
import { aLifecycleMaintenance, aStepContext } from '../test-builders.ts';
import type { StepResult } from './step.ts';
import { waitForCompletion } from './wait-for-completion.ts';

const NOW_S = '2026-01-01T00:00:00Z';
const job = aPod({ name: 'job-1', owner: 'Job', labels: { app: 'batch' } });
const web = aPod({ name: 'web-1', labels: { app: 'web' } });
const STARTED_AN_HOUR_AGO = { [ANNOTATION_WAIT_POD_COMPLETION_START]: '2025-12-31T23:00:00Z' };

describe('waitForCompletion (WaitForPodCompletion)', () => {
  it.each<{ rule: string; wait?: NodeMaintenanceSpec['waitForPodCompletion']; annotations?: Record<string, string>; pods: V1Pod[]; expected: StepResult }>([
    { rule: 'no waitForPodCompletion: straight on to Draining', pods: [job], expected: { kind: 'advance', to: 'Draining' } },
    {
      rule: 'a selected pod still there: the wait starts, hold with an absolute deadline, status lists the pod',
      wait: { podSelector: 'app=batch', timeoutSeconds: 60 },
      pods: [job, web],
      expected: {
        kind: 'hold',
        message: 'waiting for 1 pod to complete: default/job-1 (timeout at 2026-01-01T00:01:00Z)',
        inFlight: true,
        annotations: { [ANNOTATION_WAIT_POD_COMPLETION_START]: NOW_S },
        status: { waitForCompletion: ['default/job-1'] },
      },
    },
    {
      rule: 'timeout 0 waits without a deadline',
      wait: { podSelector: 'app=batch', timeoutSeconds: 0 },
      annotations: STARTED_AN_HOUR_AGO,
      pods: [job],
      expected: { kind: 'hold', message: 'waiting for 1 pod to complete: default/job-1', inFlight: true, annotations: {}, status: { waitForCompletion: ['default/job-1'] } },
    },
    {
      rule: 'the timeout passed: on to Draining, the pod left to the drain',
      wait: { podSelector: 'app=batch', timeoutSeconds: 60 },
      annotations: STARTED_AN_HOUR_AGO,
      pods: [job],
      expected: { kind: 'advance', to: 'Draining', annotations: {}, status: {} },
    },
    { rule: 'no selected pod left: on to Draining', wait: { podSelector: 'app=batch' }, annotations: STARTED_AN_HOUR_AGO, pods: [web], expected: { kind: 'advance', to: 'Draining', annotations: {}, status: {} } },
    {
      rule: 'an unreadable selector: hold and say why, never read as nothing to wait for',
      wait: { podSelector: 'app in (' },
      pods: [job],
      expected: { kind: 'hold', message: `waitForPodCompletion.podSelector: invalid label selector "app in (": found end of string at column 9, expected a label value, ',' or ')'`, inFlight: true, annotations: { [ANNOTATION_WAIT_POD_COMPLETION_START]: NOW_S } },
    },
  ])('$rule', ({ wait, annotations, pods, expected }) => {
    const nm = aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', phase: 'WaitForPodCompletion', ...(annotations ? { annotations } : {}), ...(wait ? { spec: { waitForPodCompletion: wait } } : {}) });
    expect(waitForCompletion(aStepContext(nm, { pods }))).toEqual(expected);
  });
});
