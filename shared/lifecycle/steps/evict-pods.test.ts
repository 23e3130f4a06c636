import type { V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_DRAIN_START } from '../../api/index.ts';
import type { Action, NodeMaintenanceSpec, NodeMaintenanceStatus } from '../../api/index.ts';
import { aPod } from '../../drain/test-builders.ts';
import type { SlurmContext } from '../../slurm/index.ts';
import { aLifecycleMaintenance, aPdb, aReadyPod, aStepContext } from '../test-builders.ts';
import { drain } from './evict-pods.ts';
import type { StepResult } from './step.ts';

const NOW_S = '2026-01-01T00:00:00Z';
const ref = { namespace: 'default', name: 'nm-1', resourceVersion: '100', uid: 'uid-nm-1' };
const target = { kind: 'NodeMaintenance' as const, namespace: 'default', name: 'nm-1', uid: 'uid-nm-1' };
const db = aReadyPod({ name: 'db-1', labels: { app: 'db' }, owner: 'StatefulSet' });
const evictDb: Action = { kind: 'evictPod', pod: { namespace: 'default', name: 'db-1', uid: 'uid-db-1' }, maintenance: ref, reason: 'drain (budget default/db-pdb allows it)' };
const DRAIN_OF_ONE = { totalPods: 1, evictionPods: 1, drainProgress: 0, waitForEviction: ['default/db-1'] };
const UNREADABLE = `drainSpec.podSelector: invalid label selector "app in (a": found end of string at column 10, expected ',' or ')'; nothing is evicted until it is fixed`;
const warning = (eventReason: string, message: string, reason: string): Action => ({ kind: 'emitEvent', target, type: 'Warning', eventReason, message, reason });

interface Row {
  rule: string;
  drainSpec?: NodeMaintenanceSpec['drainSpec'];
  annotations?: Record<string, string>;
  pods?: V1Pod[];
  pdbs?: V1PodDisruptionBudget[];
  status?: NodeMaintenanceStatus;
  slurm?: SlurmContext;
  expected: StepResult;
}

describe('drain (Draining)', () => {
  it.each<Row>([
    {
      rule: 'no drainSpec: on to Ready, a stale status.drain dropped',
      pods: [db],
      status: { drain: DRAIN_OF_ONE },
      expected: { kind: 'advance', to: 'Ready', annotations: {}, warnings: [], slurm: [], status: {} },
    },
    {
      rule: 'a pod its budget lets go: the window starts, the pod is evicted, hold until it is gone',
      drainSpec: {},
      pods: [db],
      pdbs: [aPdb({ name: 'db-pdb' })],
      expected: {
        kind: 'hold',
        message: 'draining: 1 of 1 pods left',
        inFlight: true,
        annotations: { [ANNOTATION_DRAIN_START]: NOW_S },
        warnings: [],
        slurm: [],
        podActions: [evictDb],
        status: { drain: DRAIN_OF_ONE },
      },
    },
    {
      rule: 'no pod left in a started window: on to Ready with the drain status',
      drainSpec: {},
      annotations: { [ANNOTATION_DRAIN_START]: '2025-12-31T23:59:00Z' },
      expected: { kind: 'advance', to: 'Ready', annotations: {}, warnings: [], slurm: [], podActions: [], status: { drain: { totalPods: 0, evictionPods: 0, drainProgress: 100 } } },
    },
    {
      rule: 'an unreadable podSelector: hold, nothing judged or evicted, no window, one warning',
      drainSpec: { podSelector: 'app in (a' },
      pods: [db],
      expected: { kind: 'hold', message: UNREADABLE, inFlight: true, warnings: [warning('InvalidNodeMaintenance', UNREADABLE, 'unreadable drainSpec.podSelector')] },
    },
    {
      rule: 'spec.slurm invalid: hold before any pod leaves, and say why',
      drainSpec: {},
      pods: [db],
      slurm: { kind: 'invalid', problem: 'spec.slurm.url: not a URL' },
      expected: {
        kind: 'hold',
        message: 'waiting: spec.slurm.url: not a URL',
        inFlight: true,
        wait: 'slurm-problem',
        annotations: {},
        warnings: [warning('SlurmProblem', 'spec.slurm.url: not a URL', 'Slurm drain')],
        slurm: [],
      },
    },
    {
      rule: 'a finished pod: deleted without a budget check, and waited for like any other until it is gone',
      drainSpec: {},
      annotations: { [ANNOTATION_DRAIN_START]: '2025-12-31T23:59:00Z' },
      pods: [aPod({ name: 'job-1', owner: 'Job', phase: 'Succeeded' })],
      expected: {
        kind: 'hold',
        message: 'draining: 1 of 1 pods left',
        inFlight: true,
        annotations: {},
        warnings: [],
        slurm: [],
        podActions: [{ kind: 'deletePod', pod: { namespace: 'default', name: 'job-1', uid: 'uid-job-1' }, maintenance: ref, reason: 'finished pod removed without a budget check' }],
        status: { drain: { totalPods: 1, evictionPods: 1, drainProgress: 0, waitForEviction: ['default/job-1'] } },
      },
    },
  ])('$rule', ({ drainSpec, annotations, pods, pdbs, status, slurm, expected }) => {
    const nm = aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', phase: 'Draining', ...(annotations ? { annotations } : {}), ...(drainSpec ? { spec: { drainSpec } } : {}) });
    expect(drain(aStepContext(nm, { ...(pods ? { pods } : {}), ...(pdbs ? { pdbs } : {}), ...(status ? { status } : {}), ...(slurm ? { slurm } : {}) }))).toEqual(expected);
  });
});
