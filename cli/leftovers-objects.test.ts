// kmaint leftovers and the objects kmaint creates outside its own kinds (issues 43-45): its reboot Job, a validation
// Job kept after a failure and a DeviceTaintRule, each built by kmaint's own manifest code, are listed one row each and
// deleted by --fix; look-alikes (kmaint's name without its labels, its labels without its name) are neither. A failed
// validation's KmaintValidationFailed condition is listed and removed, its kept cordon is not.
import type { V1Job, V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { describeAction } from '../shared/api/index.ts';
import { deviceTaintRuleManifest } from '../shared/devices/index.ts';
import type { DeviceTaintRuleObject } from '../shared/kube/index.ts';
import { rebootJobManifest } from '../shared/reboot/index.ts';
import { validationJobManifest } from '../shared/validation/index.ts';
import { renderLeftovers } from './leftovers-command.ts';
import { planLeftovers } from './leftovers.ts';

const UID_R = '0b7c1d2e-1111-4a4a-8b8b-000000000001';
const UID_V = '0b7c1d2e-2222-4a4a-8b8b-000000000002';
const UID_D = '0b7c1d2e-3333-4a4a-8b8b-000000000003';

/** A Job as the API server returns kmaint's manifest, with the status `condition` (Complete, Failed) or none (running). */
function asListed(manifest: Record<string, unknown>, condition?: 'Complete' | 'Failed'): V1Job {
  const job = manifest as V1Job;
  return { ...job, status: condition ? { conditions: [{ type: condition, status: 'True' }] } : {} };
}

const reboot = asListed(rebootJobManifest({ namespace: 'kmaint', name: `kmaint-reboot-${UID_R}`, nodeName: 'n1', image: 'debian', command: ['true'], privileged: true, hostPID: true, request: 'team/fw' }), 'Complete');
const validation = asListed(
  validationJobManifest({ namespace: 'kmaint', name: `kmaint-validate-${UID_V}`, nodeName: 'n2', spec: { image: 'dcgm', command: [], args: [], env: [], resources: {}, privileged: false }, request: 'team/drv' }),
  'Failed',
);
const rule = deviceTaintRuleManifest({ name: `kmaint-device-${UID_D}-0`, device: { driver: 'gpu.nvidia.com', pool: 'n3', device: 'gpu-1' }, request: 'team/gpu' }) as DeviceTaintRuleObject;

// Look-alikes: kmaint's name without its labels, its labels on another name, one label short, a Job already deleting.
const unlabelled: V1Job = { metadata: { name: `kmaint-reboot-${UID_V}`, namespace: 'kmaint', labels: { 'app.kubernetes.io/name': 'kmaint' } }, spec: { template: {} } };
const renamed: V1Job = { ...reboot, metadata: { ...reboot.metadata, name: 'nightly-reboot' } };
const oneLabelShort: V1Job = { ...validation, metadata: { ...validation.metadata, name: `kmaint-validate-${UID_R}`, labels: { 'app.kubernetes.io/name': 'kmaint', 'kmaint.io/validation-pod': 'true' } } };
const deleting: V1Job = { ...reboot, metadata: { ...reboot.metadata, name: `kmaint-reboot-${UID_D}`, deletionTimestamp: new Date('2026-12-02T16:00:00Z') } };
const hookJob: V1Job = { metadata: { name: 'kmaint-leftovers', namespace: 'kmaint', labels: { 'app.kubernetes.io/name': 'kmaint', 'app.kubernetes.io/component': 'leftovers' } }, spec: { template: {} } };
const otherRule: DeviceTaintRuleObject = { metadata: { name: 'gpu-burn-in', labels: { 'kmaint.io/device-maintenance': 'true' } }, spec: { deviceSelector: { driver: 'gpu.nvidia.com', pool: 'n3', device: 'gpu-2' } } };
const unlabelledRule: DeviceTaintRuleObject = { metadata: { name: `kmaint-device-${UID_R}-0` }, spec: { deviceSelector: { driver: 'gpu.nvidia.com', pool: 'n3', device: 'gpu-3' } } };

describe('kmaint leftovers: the Jobs and DeviceTaintRules kmaint creates', () => {
  const plan = planLeftovers({ nodes: [], maintenances: [], leases: [], kmaintNamespace: 'kmaint', jobs: [hookJob, validation, unlabelled, renamed, oneLabelShort, deleting, reboot], deviceTaintRules: [otherRule, unlabelledRule, rule] });

  it("lists kmaint's reboot Job, its kept validation Job and its DeviceTaintRule one row each, by name and labels together; no look-alike", () => {
    expect(plan.found.map((l) => [l.object, l.record, l.owner, l.value])).toEqual([
      [`DeviceTaintRule/kmaint-device-${UID_D}-0`, 'device taint', 'kmaint', 'team/gpu on gpu.nvidia.com/n3/gpu-1'],
      [`Job/kmaint/kmaint-reboot-${UID_R}`, 'reboot Job', 'kmaint', 'team/fw on node n1 (Complete)'],
      [`Job/kmaint/kmaint-validate-${UID_V}`, 'validation Job', 'kmaint', 'team/drv on node n2 (Failed)'],
    ]);
  });

  it('--fix deletes exactly those three (Jobs with their pods, the rule by name), each in its request\'s write unit', () => {
    expect(plan.actions).toEqual([
      { kind: 'deleteRebootJob', job: { namespace: 'kmaint', name: `kmaint-reboot-${UID_R}` }, maintenance: { namespace: 'team', name: 'fw', resourceVersion: '' }, reason: "kmaint's reboot Job for team/fw, with no kmaint to delete it" },
      { kind: 'deleteValidationJob', job: { namespace: 'kmaint', name: `kmaint-validate-${UID_V}` }, maintenance: { namespace: 'team', name: 'drv', resourceVersion: '' }, reason: "kmaint's validation Job for team/drv, with no kmaint to delete it" },
      { kind: 'deleteDeviceTaintRule', name: `kmaint-device-${UID_D}-0`, maintenance: { namespace: 'team', name: 'gpu', resourceVersion: '' }, reason: "kmaint's device taint for team/gpu, with no kmaint to lift it" },
    ]);
    expect(plan.actions.map(describeAction)).toEqual([
      `delete reboot Job kmaint/kmaint-reboot-${UID_R}: kmaint's reboot Job for team/fw, with no kmaint to delete it`,
      `delete validation Job kmaint/kmaint-validate-${UID_V}: kmaint's validation Job for team/drv, with no kmaint to delete it`,
      `delete DeviceTaintRule kmaint-device-${UID_D}-0: kmaint's device taint for team/gpu, with no kmaint to lift it`,
    ]);
  });

  it('a running Job says so; the table and a List carry the rows as the other records', () => {
    const running = planLeftovers({ nodes: [], maintenances: [], leases: [], kmaintNamespace: 'kmaint', jobs: [asListed(rebootJobManifest({ namespace: 'kmaint', name: `kmaint-reboot-${UID_R}`, nodeName: 'n1', image: 'debian', command: ['true'], privileged: true, hostPID: true, request: 'team/fw' }))] });
    expect(renderLeftovers(running.found, 'text', true)).toBe(
      [
        'OBJECT                                                         RECORD      OWNER   VALUE',
        `Job/kmaint/kmaint-reboot-${UID_R}  reboot Job  kmaint  team/fw on node n1 (running)`,
        '',
      ].join('\n'),
    );
    expect(JSON.parse(renderLeftovers(plan.found.slice(0, 1), 'json', true))).toEqual({ apiVersion: 'v1', kind: 'List', items: [{ object: `DeviceTaintRule/kmaint-device-${UID_D}-0`, record: 'device taint', value: 'team/gpu on gpu.nvidia.com/n3/gpu-1', owner: 'kmaint' }], metadata: { resourceVersion: '' } });
  });

  it('no DeviceTaintRules read (API not served, or --no-device-taint-rules) and no Jobs: nothing found, nothing to write', () => {
    expect(planLeftovers({ nodes: [], maintenances: [], leases: [], kmaintNamespace: 'kmaint', jobs: [hookJob, renamed] })).toEqual({ found: [], actions: [], slurm: [] });
  });
});

describe('kmaint leftovers: a failed validation\'s KmaintValidationFailed condition (issue 44)', () => {
  const failed: V1Node = {
    metadata: { name: 'n2', resourceVersion: 'rv-n2', annotations: { 'validation.kmaint.io/outcome': 'Failed' } },
    spec: { unschedulable: true },
    status: {
      conditions: [
        { type: 'Ready', status: 'True', message: 'kubelet is posting ready status' },
        { type: 'KmaintValidationFailed', status: 'True', reason: 'Failed', message: 'validation Job kmaint/kmaint-validate-u1 failed on node n2 (team/drv); it stays cordoned; logs: …' },
      ],
    },
  };
  // Another writer's condition of that type with a reason kmaint never writes is not kmaint's.
  const foreign: V1Node = { metadata: { name: 'n7', resourceVersion: 'rv-n7' }, spec: {}, status: { conditions: [{ type: 'KmaintValidationFailed', status: 'True', reason: 'BurnInFailed', message: 'burn-in tool' }] } };
  const plan = planLeftovers({ nodes: [failed, foreign], maintenances: [], leases: [], kmaintNamespace: 'kmaint' });

  it('listed with the validation record; removed in one status patch with the record in another; the cordon kept', () => {
    expect(plan.found.map((l) => [l.object, l.record, l.value])).toEqual([
      ['Node/n2', 'validation.kmaint.io/outcome', 'Failed'],
      ['Node/n2', 'condition KmaintValidationFailed', 'True'],
    ]);
    expect(plan.actions.map(describeAction)).toEqual([
      "annotate node n2 -validation.kmaint.io/outcome: kmaint's records left on the node: validation.kmaint.io/outcome",
      "conditions of node n2 -KmaintValidationFailed: kmaint's node conditions left: KmaintValidationFailed",
    ]);
  });
});
