// The validation release step (issue 44) through cleanup's plan: exact writes for every outcome of an attempt.
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  ANNOTATION_CORDON_REASON,
  ANNOTATION_CORDONED_BY,
  ANNOTATION_VALIDATION_CORDONED_BY,
  ANNOTATION_VALIDATION_FOR,
  ANNOTATION_VALIDATION_JOB,
  ANNOTATION_VALIDATION_OUTCOME,
  ANNOTATION_VALIDATION_START,
  Phase,
} from '../api/index.ts';
import type { Action, MaintenanceRef, NodeMaintenance } from '../api/index.ts';
import { NOW } from '../scheduling/test-builders.ts';
import { loadValidationSettings, type ValidationJobState } from '../validation/index.ts';
import { planCleanup, type CleanupPlan } from './cleanup.ts';
import { aLifecycleMaintenance, aNodeWithUid } from './test-builders.ts';
import type { ValidationReads } from './validate-release.ts';

const CONFIG = { maxNodeMaintenanceTimeSeconds: 3600 };
const ref = (name = 'nm-1'): MaintenanceRef => ({ namespace: 'default', name, resourceVersion: '100', uid: `uid-${name}` });
const NODE = { name: 'worker-01', resourceVersion: '7' };
const JOB_1 = { namespace: 'kmaint', name: 'kmaint-validate-uid-nm-1' };
const SPEC = { validation: { nodeSelector: { matchLabels: { 'kmaint.io/pool': 'gpu' } }, job: { image: 'registry.example/dcgm:4', command: ['dcgmi', 'diag', '-r', '3'] }, timeoutSeconds: 600 } };
const ON = loadValidationSettings({ spec: SPEC });
const JOB_SPEC = { image: 'registry.example/dcgm:4', command: ['dcgmi', 'diag', '-r', '3'], args: [], env: [], resources: {}, privileged: false };

function reads(jobs: Record<string, ValidationJobState> | undefined = {}, loaded = ON): ValidationReads {
  return { loaded, namespace: 'kmaint', jobs: jobs && new Map(Object.entries(jobs)) };
}

/** A gpu node cordoned by kmaint for default/<by>, with `annotations` beside the cordon record. */
function gpuNode(annotations: Record<string, string>, opts: { by?: string; pool?: string; conditions?: boolean } = {}): V1Node {
  const node = aNodeWithUid({ name: 'worker-01', unschedulable: true, labels: { 'kmaint.io/pool': opts.pool ?? 'gpu' } });
  const record: Record<string, string> = opts.by === undefined ? {} : { [ANNOTATION_CORDONED_BY]: `kmaint/default/${opts.by}`, [ANNOTATION_CORDON_REASON]: `NodeMaintenance default/${opts.by} (requestor requestor-a)` };
  const conditions = opts.conditions ? [{ type: 'KmaintValidationFailed', status: 'True', reason: 'Failed', message: 'earlier' }] : [];
  return { ...node, metadata: { ...node.metadata, annotations: { ...record, ...annotations } }, status: { ...node.status, conditions: [...(node.status?.conditions ?? []), ...conditions] } };
}

const deleted = (name = 'nm-1', annotations?: Record<string, string>): NodeMaintenance =>
  aLifecycleMaintenance({ name, nodeName: 'worker-01', phase: Phase.Ready, deleting: true, ...(annotations ? { annotations } : {}) });
/** The attempt of default/nm-1 recorded on the node, issued at NOW. */
const ATTEMPT = { [ANNOTATION_VALIDATION_JOB]: 'kmaint/kmaint-validate-uid-nm-1', [ANNOTATION_VALIDATION_FOR]: 'default/nm-1/uid-nm-1', [ANNOTATION_VALIDATION_START]: '2026-01-01T00:00:00Z' };
const at = (seconds: number): Date => new Date(NOW.getTime() + seconds * 1000);

const finalizer = (name = 'nm-1'): Action => ({ kind: 'patchMaintenanceMeta', target: ref(name), removeFinalizer: true, reason: `default/${name} deleted in phase Ready` });
const uncordonOurs: Action = { kind: 'uncordonNode', node: NODE, maintenance: ref(), reason: 'default/nm-1 deleted; node was schedulable before maintenance', annotations: { [ANNOTATION_CORDONED_BY]: null, [ANNOTATION_CORDON_REASON]: null } };
/** default/nm-1's Node event: it says what a write of that request's unit did, and follows it there. */
const nodeEvent = (type: 'Normal' | 'Warning', eventReason: string, message: string): Action => ({ kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: 'worker-01', uid: 'uid-worker-01' }, type, eventReason, message, maintenance: ref(), reason: message });
const LOGS = 'logs: kubectl logs job/kmaint-validate-uid-nm-1 -n kmaint (the Job is kept until the node\'s next validation)';

function plan(actions: Action[], more: Partial<CleanupPlan> = {}): CleanupPlan {
  return { actions, slurm: [], held: [], released: 0, collected: 0, idle: actions.length === 0, ...more };
}

function failure(reason: 'Failed' | 'TimedOut', what: string, now: Date): Action[] {
  const message = `validation Job kmaint/kmaint-validate-uid-nm-1 ${what} on node worker-01 (default/nm-1); it stays cordoned; ${LOGS}`;
  const time = now.toISOString().replace('.000Z', 'Z');
  return [
    {
      kind: 'patchNodeAnnotations',
      node: NODE,
      annotations: { [ANNOTATION_VALIDATION_OUTCOME]: reason, [ANNOTATION_VALIDATION_START]: null, [ANNOTATION_VALIDATION_CORDONED_BY]: 'kmaint/default/nm-1', [ANNOTATION_CORDONED_BY]: null, [ANNOTATION_CORDON_REASON]: null },
      maintenance: ref(),
      reason: message,
    },
    { kind: 'patchNodeConditions', node: NODE, set: [{ type: 'KmaintValidationFailed', status: 'True', reason, message, lastTransitionTime: time, lastHeartbeatTime: time }], remove: [], maintenance: ref(), reason: message },
    nodeEvent('Warning', 'ValidationFailed', message),
  ];
}

const UNCORDON = loadValidationSettings({ spec: { validation: { ...SPEC.validation, onFailure: 'uncordon' } } });
const UNCORDON_MESSAGE = `validation Job kmaint/kmaint-validate-uid-nm-1 failed on node worker-01 (default/nm-1); it is uncordoned (spec.validation.onFailure: uncordon); ${LOGS}`;
const FAILED_RECORDS = { [ANNOTATION_VALIDATION_JOB]: 'kmaint/kmaint-validate-uid-nm-1', [ANNOTATION_VALIDATION_FOR]: 'default/nm-1/uid-nm-1', [ANNOTATION_VALIDATION_OUTCOME]: 'Failed', [ANNOTATION_VALIDATION_CORDONED_BY]: 'kmaint/default/nm-1' };
const PASSED = 'validation Job kmaint/kmaint-validate-uid-nm-1 succeeded on node worker-01 (default/nm-1)';

const rows: Array<{ rule: string; node: V1Node; nm: NodeMaintenance; validation: ValidationReads | undefined; now?: Date; expected: CleanupPlan }> = [
  {
    rule: 'first pass of a release on a selected node: the attempt recorded on the Node, then the Job; the finalizer stays',
    node: gpuNode({}, { by: 'nm-1' }),
    nm: deleted(),
    validation: reads(),
    expected: plan(
      [
        { kind: 'patchNodeAnnotations', node: NODE, annotations: { ...ATTEMPT, [ANNOTATION_VALIDATION_OUTCOME]: null }, maintenance: ref(), reason: 'default/nm-1 deleted; validate node worker-01 before its uncordon' },
        { kind: 'createValidationJob', job: { ...JOB_1, nodeName: 'worker-01', nodeUid: 'uid-worker-01', spec: JOB_SPEC, request: 'default/nm-1' }, maintenance: ref(), reason: 'validate node worker-01 before its uncordon' },
      ],
      { held: [{ key: 'default/nm-1', why: 'validating node worker-01 before its uncordon: job kmaint/kmaint-validate-uid-nm-1 issued' }] },
    ),
  },
  {
    rule: 'the Job runs within the timeout: nothing written, the release waits (a second pass writes nothing)',
    node: gpuNode(ATTEMPT, { by: 'nm-1' }),
    nm: deleted(),
    validation: reads({ [JOB_1.name]: 'running' }),
    now: at(600),
    expected: plan([], { held: [{ key: 'default/nm-1', why: 'validating node worker-01 before its uncordon: job kmaint/kmaint-validate-uid-nm-1 running since 2026-01-01T00:00:00Z; times out at 2026-01-01T00:10:00Z' }] }),
  },
  {
    rule: 'the Job succeeded: it is deleted, the outcome recorded, a Normal event; then the uncordon and the finalizer',
    node: gpuNode(ATTEMPT, { by: 'nm-1' }),
    nm: deleted(),
    validation: reads({ [JOB_1.name]: 'succeeded' }),
    expected: plan(
      [
        { kind: 'patchNodeAnnotations', node: NODE, annotations: { [ANNOTATION_VALIDATION_JOB]: null, [ANNOTATION_VALIDATION_START]: null, [ANNOTATION_VALIDATION_OUTCOME]: 'Passed' }, maintenance: ref(), reason: PASSED },
        { kind: 'deleteValidationJob', job: JOB_1, maintenance: ref(), reason: 'default/nm-1: validation passed' },
        nodeEvent('Normal', 'ValidationPassed', PASSED),
        uncordonOurs,
        finalizer(),
      ],
      { released: 1 },
    ),
  },
  {
    rule: 'the Job failed: the node stays cordoned, the cordon record moves under validation.kmaint.io/, condition and Warning; the Job is kept; the finalizer goes',
    node: gpuNode(ATTEMPT, { by: 'nm-1' }),
    nm: deleted(),
    validation: reads({ [JOB_1.name]: 'failed' }),
    now: at(60),
    expected: plan([...failure('Failed', 'failed', at(60)), finalizer()], { released: 1 }),
  },
  {
    rule: 'the Job still runs past timeoutSeconds: TimedOut, as a failure',
    node: gpuNode(ATTEMPT, { by: 'nm-1' }),
    nm: deleted(),
    validation: reads({ [JOB_1.name]: 'running' }),
    now: at(601),
    expected: plan([...failure('TimedOut', 'did not succeed within 600 s', at(601)), finalizer()], { released: 1 }),
  },
  {
    rule: "a pass after the failure's writes landed (the finalizer's patch did not): only the finalizer, still no uncordon",
    node: gpuNode(FAILED_RECORDS, { conditions: true }),
    nm: deleted(),
    validation: reads({ [JOB_1.name]: 'failed' }),
    expected: plan([finalizer()], { released: 1 }),
  },
  {
    rule: "a pass after the failure's records landed but not its condition (a conflict on the Node): the condition and the Warning, then the finalizer",
    node: gpuNode(FAILED_RECORDS),
    nm: deleted(),
    validation: reads({ [JOB_1.name]: 'failed' }),
    now: at(60),
    expected: plan([...failure('Failed', 'failed', at(60)).slice(1), finalizer()], { released: 1 }),
  },
  {
    rule: "a pass after a pass's record and uncordon landed but not the condition's removal nor the Job's delete: both, then the finalizer",
    node: { ...gpuNode({ [ANNOTATION_VALIDATION_FOR]: 'default/nm-1/uid-nm-1', [ANNOTATION_VALIDATION_OUTCOME]: 'Passed' }, { conditions: true }), spec: {} },
    nm: deleted(),
    validation: reads({}),
    expected: plan(
      [
        { kind: 'patchNodeConditions', node: NODE, set: [], remove: ['KmaintValidationFailed'], maintenance: ref(), reason: 'default/nm-1: validation passed' },
        { kind: 'deleteValidationJob', job: JOB_1, maintenance: ref(), reason: 'default/nm-1: validation passed' },
        finalizer(),
      ],
      { released: 1 },
    ),
  },
  {
    rule: 'a later request on a node a failed validation kept cordoned: the kept Job goes, a new attempt for this request starts',
    node: gpuNode({ [ANNOTATION_VALIDATION_JOB]: 'kmaint/kmaint-validate-uid-nm-0', [ANNOTATION_VALIDATION_FOR]: 'default/nm-0/uid-nm-0', [ANNOTATION_VALIDATION_OUTCOME]: 'Failed', [ANNOTATION_VALIDATION_CORDONED_BY]: 'kmaint/default/nm-0' }),
    nm: deleted(),
    validation: reads({ 'kmaint-validate-uid-nm-0': 'failed' }),
    expected: plan(
      [
        { kind: 'deleteValidationJob', job: { namespace: 'kmaint', name: 'kmaint-validate-uid-nm-0' }, maintenance: ref(), reason: 'node worker-01 validated again: the last attempt\'s Job goes' },
        { kind: 'patchNodeAnnotations', node: NODE, annotations: { ...ATTEMPT, [ANNOTATION_VALIDATION_OUTCOME]: null }, maintenance: ref(), reason: 'default/nm-1 deleted; validate node worker-01 before its uncordon' },
        { kind: 'createValidationJob', job: { ...JOB_1, nodeName: 'worker-01', nodeUid: 'uid-worker-01', spec: JOB_SPEC, request: 'default/nm-1' }, maintenance: ref(), reason: 'validate node worker-01 before its uncordon' },
      ],
      { held: [{ key: 'default/nm-1', why: 'validating node worker-01 before its uncordon: job kmaint/kmaint-validate-uid-nm-1 issued' }] },
    ),
  },
  {
    rule: 'that later attempt passes: the kept cordon is lifted in the patch that drops its record, the condition removed',
    node: gpuNode({ ...ATTEMPT, [ANNOTATION_VALIDATION_CORDONED_BY]: 'kmaint/default/nm-0' }, { conditions: true }),
    nm: deleted(),
    validation: reads({ [JOB_1.name]: 'succeeded' }),
    expected: plan(
      [
        {
          kind: 'uncordonNode',
          node: NODE,
          maintenance: ref(),
          reason: `${PASSED}; the cordon kept by an earlier failed validation is lifted`,
          annotations: { [ANNOTATION_VALIDATION_JOB]: null, [ANNOTATION_VALIDATION_START]: null, [ANNOTATION_VALIDATION_OUTCOME]: 'Passed', [ANNOTATION_VALIDATION_CORDONED_BY]: null },
        },
        { kind: 'patchNodeConditions', node: NODE, set: [], remove: ['KmaintValidationFailed'], maintenance: ref(), reason: PASSED },
        { kind: 'deleteValidationJob', job: JOB_1, maintenance: ref(), reason: 'default/nm-1: validation passed' },
        nodeEvent('Normal', 'ValidationPassed', PASSED),
        finalizer(),
      ],
      { released: 1 },
    ),
  },
  {
    rule: 'onFailure uncordon: the failure is marked (condition, Warning), the cordon record stays kmaint.io/cordoned-by and the uncordon follows',
    node: gpuNode(ATTEMPT, { by: 'nm-1' }),
    nm: deleted(),
    validation: reads({ [JOB_1.name]: 'failed' }, UNCORDON),
    expected: plan(
      [
        { kind: 'patchNodeAnnotations', node: NODE, annotations: { [ANNOTATION_VALIDATION_OUTCOME]: 'Failed', [ANNOTATION_VALIDATION_START]: null }, maintenance: ref(), reason: UNCORDON_MESSAGE },
        { kind: 'patchNodeConditions', node: NODE, set: [{ type: 'KmaintValidationFailed', status: 'True', reason: 'Failed', message: UNCORDON_MESSAGE, lastTransitionTime: '2026-01-01T00:00:00Z', lastHeartbeatTime: '2026-01-01T00:00:00Z' }], remove: [], maintenance: ref(), reason: UNCORDON_MESSAGE },
        nodeEvent('Warning', 'ValidationFailed', UNCORDON_MESSAGE),
        uncordonOurs,
        finalizer(),
      ],
      { released: 1 },
    ),
  },
  {
    rule: 'onFailure uncordon on a cordon an earlier failure kept: lifted in the patch that records this failure',
    node: gpuNode({ ...ATTEMPT, [ANNOTATION_VALIDATION_CORDONED_BY]: 'kmaint/default/nm-0' }),
    nm: deleted(),
    validation: reads({ [JOB_1.name]: 'failed' }, UNCORDON),
    expected: plan(
      [
        { kind: 'uncordonNode', node: NODE, maintenance: ref(), reason: UNCORDON_MESSAGE, annotations: { [ANNOTATION_VALIDATION_OUTCOME]: 'Failed', [ANNOTATION_VALIDATION_START]: null, [ANNOTATION_VALIDATION_CORDONED_BY]: null } },
        { kind: 'patchNodeConditions', node: NODE, set: [{ type: 'KmaintValidationFailed', status: 'True', reason: 'Failed', message: UNCORDON_MESSAGE, lastTransitionTime: '2026-01-01T00:00:00Z', lastHeartbeatTime: '2026-01-01T00:00:00Z' }], remove: [], maintenance: ref(), reason: UNCORDON_MESSAGE },
        nodeEvent('Warning', 'ValidationFailed', UNCORDON_MESSAGE),
        finalizer(),
      ],
      { released: 1 },
    ),
  },
  {
    rule: 'the request opted out (kmaint.io/validation: skip): released as without validation',
    node: gpuNode({}, { by: 'nm-1' }),
    nm: deleted('nm-1', { 'kmaint.io/validation': 'skip' }),
    validation: reads(),
    expected: plan([uncordonOurs, finalizer()], { released: 1 }),
  },
  {
    rule: 'a node the selector does not select: released as without validation',
    node: gpuNode({}, { by: 'nm-1', pool: 'general' }),
    nm: deleted(),
    validation: reads(),
    expected: plan([uncordonOurs, finalizer()], { released: 1 }),
  },
  {
    rule: 'validation off: released as before',
    node: gpuNode({}, { by: 'nm-1' }),
    nm: deleted(),
    validation: undefined,
    expected: plan([uncordonOurs, finalizer()], { released: 1 }),
  },
  {
    rule: 'spec.validation unreadable: the node is not returned to service, and the hold says why',
    node: gpuNode({}, { by: 'nm-1' }),
    nm: deleted(),
    validation: reads({}, loadValidationSettings({ spec: { validation: { job: { image: '' } } } })),
    expected: plan([], { held: [{ key: 'default/nm-1', why: 'node worker-01 not validated, so kept cordoned: spec.validation.job.image: Too small: expected string to have >=1 characters' }] }),
  },
];

describe('validation before return to service (release step)', () => {
  it.each(rows)('$rule', ({ node, nm, validation, now, expected }) => {
    const out = planCleanup({ nodes: new Map([[node.metadata?.name ?? '', node]]), maintenances: [nm], ...(validation ? { validation } : {}) }, CONFIG, now ?? NOW);
    expect(out).toEqual(expected);
  });

  it('spec.validation defaults: every node, 1800 s, keepCordoned, the image entrypoint', () => {
    expect(loadValidationSettings({ spec: { validation: { job: { image: 'busybox' } } } })).toEqual({
      kind: 'on',
      settings: { nodeSelector: { requirements: [] }, job: { image: 'busybox', command: [], args: [], env: [], resources: {}, privileged: false }, timeoutSeconds: 1800, onFailure: 'keepCordoned' },
    });
    expect(loadValidationSettings({ spec: {} })).toEqual({ kind: 'off' });
    expect(loadValidationSettings({ spec: { validation: { job: { image: 'busybox' }, onFailure: 'reboot' } } })).toEqual({ kind: 'invalid', problem: 'spec.validation.onFailure: Invalid option: expected one of "keepCordoned"|"uncordon"' });
  });
});
