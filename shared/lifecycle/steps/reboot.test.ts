import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_REBOOT, ANNOTATION_REBOOT_BOOT_ID, ANNOTATION_REBOOT_ISSUED, ANNOTATION_REBOOT_START } from '../../api/index.ts';
import { DEFAULT_REBOOT_COMMAND, DEFAULT_REBOOT_IMAGE, DEFAULT_REBOOT_SETTINGS, loadRebootSettings, type LoadedReboot } from '../../reboot/index.ts';
import { aLifecycleMaintenance, aNodeWithUid, aStepContext } from '../test-builders.ts';
import { reboot, rebootAfter } from './reboot.ts';
import type { StepResult } from './step.ts';

const VALID: LoadedReboot = { kind: 'valid', settings: DEFAULT_REBOOT_SETTINGS };
const ISSUED = 'job kmaint/kmaint-reboot-uid-nm-a';
const RECORDED = { [ANNOTATION_REBOOT]: 'true', [ANNOTATION_REBOOT_BOOT_ID]: 'boot-1', [ANNOTATION_REBOOT_START]: '2025-12-31T23:50:00Z', [ANNOTATION_REBOOT_ISSUED]: ISSUED };

/** Past a timeout of 300 s with the Job recorded and the boot ID kept: the hold, and one Warning event naming the step. */
const TIMED_OUT_300: StepResult = {
  kind: 'hold',
  message: `reboot timed out: node node-1 kept boot ID boot-1 300 s after ${ISSUED}; it stays cordoned`,
  inFlight: false,
  warnings: [
    {
      kind: 'emitEvent',
      target: { kind: 'NodeMaintenance', namespace: 'default', name: 'nm-a', uid: 'uid-nm-a' },
      type: 'Warning',
      eventReason: 'RebootTimeout',
      message: `step Rebooting: reboot timed out: node node-1 kept boot ID boot-1 300 s after ${ISSUED}; it stays cordoned`,
      reason: 'reboot timed out',
    },
  ],
};

function aNodeBooted(bootID: string | undefined, ready: 'True' | 'False' = 'True'): V1Node {
  const node = aNodeWithUid({ name: 'node-1', ready, unschedulable: true });
  return { ...node, status: { ...node.status, ...(bootID !== undefined ? { nodeInfo: { bootID } as NonNullable<V1Node['status']>['nodeInfo'] } : {}) } };
}

function run(annotations: Record<string, string>, node: V1Node, loaded: LoadedReboot | undefined = VALID, stored = 'Rebooting', kmaintNamespace = 'kmaint'): StepResult {
  const nm = aLifecycleMaintenance({ name: 'nm-a', nodeName: 'node-1', phase: stored, annotations });
  return reboot({ ...aStepContext(nm, { node }), kmaintNamespace, ...(loaded ? { reboot: loaded } : {}) });
}

describe('reboot (Rebooting)', () => {
  it('first pass: records boot ID, start and what it issues, then creates the one Job pinned to the node', () => {
    expect(run({ [ANNOTATION_REBOOT]: 'true' }, aNodeBooted('boot-1'))).toEqual({
      kind: 'hold',
      message: `rebooting node node-1: ${ISSUED} issued; waiting for a new boot ID (was boot-1) and Ready`,
      inFlight: true,
      annotations: { [ANNOTATION_REBOOT_BOOT_ID]: 'boot-1', [ANNOTATION_REBOOT_START]: '2026-01-01T00:00:00Z', [ANNOTATION_REBOOT_ISSUED]: ISSUED },
      nodeActions: [
        {
          kind: 'createRebootJob',
          job: { namespace: 'kmaint', name: 'kmaint-reboot-uid-nm-a', nodeName: 'node-1', nodeUid: 'uid-node-1', image: DEFAULT_REBOOT_IMAGE, command: [...DEFAULT_REBOOT_COMMAND], privileged: true, hostPID: true, request: 'default/nm-a' },
          maintenance: { namespace: 'default', name: 'nm-a', resourceVersion: '100', uid: 'uid-nm-a' },
          reason: 'reboot node node-1 (boot ID boot-1)',
        },
      ],
    });
  });

  it.each<{ rule: string; annotations: Record<string, string>; node: V1Node; loaded?: LoadedReboot; expected: StepResult }>([
    {
      rule: 'issued, same boot ID: waits, never issues again',
      annotations: RECORDED,
      node: aNodeBooted('boot-1'),
      expected: { kind: 'hold', message: `rebooting node node-1: ${ISSUED} issued; waiting for a new boot ID (was boot-1)`, inFlight: true },
    },
    {
      rule: 'new boot ID but NotReady: waits for Ready',
      annotations: RECORDED,
      node: aNodeBooted('boot-2', 'False'),
      expected: { kind: 'hold', message: `rebooting node node-1: ${ISSUED} issued; waiting for Ready (new boot ID boot-2)`, inFlight: true },
    },
    {
      rule: 'new boot ID and Ready: on to Ready, saying so',
      annotations: RECORDED,
      node: aNodeBooted('boot-2'),
      expected: { kind: 'advance', to: 'Ready', note: 'node node-1 rebooted (boot ID boot-1 -> boot-2)' },
    },
    {
      rule: 'past the timeout: holds with the failed step named, one Warning event, nothing more in flight',
      annotations: RECORDED,
      node: aNodeBooted('boot-1'),
      loaded: { kind: 'valid', settings: { ...DEFAULT_REBOOT_SETTINGS, timeoutSeconds: 300 } },
      expected: TIMED_OUT_300,
    },
    {
      rule: 'a node without a boot ID: nothing issued, and said why',
      annotations: { [ANNOTATION_REBOOT]: 'true' },
      node: aNodeBooted(undefined),
      expected: { kind: 'hold', message: 'reboot of node node-1 not issued: it reports no status.nodeInfo.bootID, so its reboot could not be seen', inFlight: false },
    },
    {
      rule: 'spec.reboot unusable: nothing issued, and the field named',
      annotations: { [ANNOTATION_REBOOT]: 'true' },
      node: aNodeBooted('boot-1'),
      loaded: loadRebootSettings({ spec: { reboot: { timeoutSeconds: 0 } } }),
      expected: { kind: 'hold', message: 'reboot of node node-1 not issued: spec.reboot.timeoutSeconds: Too small: expected number to be >=1', inFlight: false },
    },
  ])('$rule', ({ annotations, node, loaded, expected }) => {
    expect(run(annotations, node, loaded)).toEqual(expected);
  });

  it('recorded, but the request not yet Rebooting (the recording pass\'s create or status write did not land): the same Job created again, nothing recorded anew', () => {
    expect(run(RECORDED, aNodeBooted('boot-1'), VALID, 'Draining')).toEqual({
      kind: 'hold',
      message: `rebooting node node-1: ${ISSUED} created again (recorded by a pass whose writes did not all land); waiting for a new boot ID (was boot-1) and Ready`,
      inFlight: true,
      nodeActions: [
        {
          kind: 'createRebootJob',
          job: { namespace: 'kmaint', name: 'kmaint-reboot-uid-nm-a', nodeName: 'node-1', nodeUid: 'uid-node-1', image: DEFAULT_REBOOT_IMAGE, command: [...DEFAULT_REBOOT_COMMAND], privileged: true, hostPID: true, request: 'default/nm-a' },
          maintenance: { namespace: 'default', name: 'nm-a', resourceVersion: '100', uid: 'uid-nm-a' },
          reason: `reboot node node-1 (boot ID boot-1): ${ISSUED} recorded, request not yet Rebooting`,
        },
      ],
    });
  });

  it.each<{ rule: string; annotations: Record<string, string>; node: V1Node; loaded?: LoadedReboot; kmaintNamespace?: string; expected: StepResult }>([
    {
      rule: 'a new boot ID and Ready: on to Ready, no Job',
      annotations: RECORDED,
      node: aNodeBooted('boot-2'),
      expected: { kind: 'advance', to: 'Ready', note: 'node node-1 rebooted (boot ID boot-1 -> boot-2)' },
    },
    {
      rule: 'a new boot ID, not Ready yet: waits, no Job',
      annotations: RECORDED,
      node: aNodeBooted('boot-2', 'False'),
      expected: { kind: 'hold', message: `rebooting node node-1: ${ISSUED} issued; waiting for Ready (new boot ID boot-2)`, inFlight: true },
    },
    {
      rule: 'past the timeout: the timeout holds, no Job',
      annotations: RECORDED,
      node: aNodeBooted('boot-1'),
      loaded: { kind: 'valid', settings: { ...DEFAULT_REBOOT_SETTINGS, timeoutSeconds: 300 } },
      expected: TIMED_OUT_300,
    },
    {
      rule: 'an EC2 reboot recorded: waits (a second RebootInstances would reboot the instance again)',
      annotations: { ...RECORDED, [ANNOTATION_REBOOT_ISSUED]: 'ec2 RebootInstances i-0123456789abcdef0' },
      node: aNodeBooted('boot-1'),
      loaded: { kind: 'valid', settings: { ...DEFAULT_REBOOT_SETTINGS, method: 'ec2' } },
      expected: { kind: 'hold', message: 'rebooting node node-1: ec2 RebootInstances i-0123456789abcdef0 issued; waiting for a new boot ID (was boot-1)', inFlight: true },
    },
    {
      rule: 'a Job recorded in another namespace than kmaint\'s now: waits, no second Job elsewhere',
      annotations: RECORDED,
      node: aNodeBooted('boot-1'),
      kmaintNamespace: 'kmaint-new',
      expected: { kind: 'hold', message: `rebooting node node-1: ${ISSUED} issued; waiting for a new boot ID (was boot-1)`, inFlight: true },
    },
    {
      rule: 'spec.reboot unreadable now: waits, no Job',
      annotations: RECORDED,
      node: aNodeBooted('boot-1'),
      loaded: { kind: 'invalid', problem: 'spec.reboot.timeoutSeconds: Too small: expected number to be >=1' },
      expected: { kind: 'hold', message: `rebooting node node-1: ${ISSUED} issued; waiting for a new boot ID (was boot-1)`, inFlight: true },
    },
  ])('recorded, not yet Rebooting, $rule', ({ annotations, node, loaded, kmaintNamespace, expected }) => {
    expect(run(annotations, node, loaded ?? VALID, 'Draining', kmaintNamespace)).toEqual(expected);
  });

  it('method ec2, first pass: records boot ID, start and the instance, then reboots the instance of the Node\'s own providerID', () => {
    const node = aNodeBooted('boot-1');
    const ec2: LoadedReboot = { kind: 'valid', settings: { ...DEFAULT_REBOOT_SETTINGS, method: 'ec2' } };
    const providerID = 'aws:///eu-west-1a/i-0123456789abcdef0';
    expect(run({ [ANNOTATION_REBOOT]: 'true' }, { ...node, spec: { ...node.spec, providerID } }, ec2)).toEqual({
      kind: 'hold',
      message: 'rebooting node node-1: ec2 RebootInstances i-0123456789abcdef0 issued; waiting for a new boot ID (was boot-1) and Ready',
      inFlight: true,
      annotations: { [ANNOTATION_REBOOT_BOOT_ID]: 'boot-1', [ANNOTATION_REBOOT_START]: '2026-01-01T00:00:00Z', [ANNOTATION_REBOOT_ISSUED]: 'ec2 RebootInstances i-0123456789abcdef0' },
      nodeActions: [
        {
          kind: 'rebootInstance',
          instance: { providerID, instanceId: 'i-0123456789abcdef0', nodeName: 'node-1' },
          maintenance: { namespace: 'default', name: 'nm-a', resourceVersion: '100', uid: 'uid-nm-a' },
          reason: 'reboot node node-1 (boot ID boot-1)',
        },
      ],
    });
  });

  it.each<{ rule: string; providerID: string | undefined; message: string }>([
    { rule: 'no providerID', providerID: undefined, message: 'reboot of node node-1 not issued: spec.reboot.method is ec2 but the Node has no spec.providerID' },
    { rule: 'not an AWS providerID', providerID: 'gce://proj/europe-west1-b/vm-1', message: 'reboot of node node-1 not issued: spec.reboot.method is ec2 but the Node\'s spec.providerID "gce://proj/europe-west1-b/vm-1" is not aws:///<zone>/<instance-id>' },
  ])('method ec2, $rule: nothing issued, nothing recorded, and said why', ({ providerID, message }) => {
    const node = aNodeBooted('boot-1');
    const ec2: LoadedReboot = { kind: 'valid', settings: { ...DEFAULT_REBOOT_SETTINGS, method: 'ec2' } };
    expect(run({ [ANNOTATION_REBOOT]: 'true' }, { ...node, spec: { ...node.spec, ...(providerID ? { providerID } : {}) } }, ec2)).toEqual({ kind: 'hold', message, inFlight: false });
  });

  it('method ec2, issued: waits on the record, never reboots again; times out as the Job path does', () => {
    const issued = { ...RECORDED, [ANNOTATION_REBOOT_ISSUED]: 'ec2 RebootInstances i-0123456789abcdef0' };
    const ec2: LoadedReboot = { kind: 'valid', settings: { ...DEFAULT_REBOOT_SETTINGS, method: 'ec2', timeoutSeconds: 300 } };
    expect(run(issued, aNodeBooted('boot-1'), { kind: 'valid', settings: { ...DEFAULT_REBOOT_SETTINGS, method: 'ec2' } })).toEqual({
      kind: 'hold',
      message: 'rebooting node node-1: ec2 RebootInstances i-0123456789abcdef0 issued; waiting for a new boot ID (was boot-1)',
      inFlight: true,
    });
    expect(run(issued, aNodeBooted('boot-1'), ec2)).toMatchObject({
      kind: 'hold',
      message: 'reboot timed out: node node-1 kept boot ID boot-1 300 s after ec2 RebootInstances i-0123456789abcdef0; it stays cordoned',
      inFlight: false,
    });
    expect(run(issued, aNodeBooted('boot-2'), ec2)).toEqual({ kind: 'advance', to: 'Ready', note: 'node node-1 rebooted (boot ID boot-1 -> boot-2)' });
  });

  it.each<{ rule: string; annotations: Record<string, string>; to: string }>([
    { rule: 'asked: the drain goes to Rebooting', annotations: { [ANNOTATION_REBOOT]: 'true' }, to: 'Rebooting' },
    { rule: 'not asked: the drain goes to Ready as upstream', annotations: {}, to: 'Ready' },
    { rule: 'any other value is not a request', annotations: { [ANNOTATION_REBOOT]: 'yes' }, to: 'Ready' },
  ])('rebootAfter: $rule', ({ annotations, to }) => {
    const nm = aLifecycleMaintenance({ name: 'nm-a', nodeName: 'node-1', phase: 'Draining', annotations });
    expect(rebootAfter(() => ({ kind: 'advance', to: 'Ready' }))(aStepContext(nm))).toEqual({ kind: 'advance', to });
  });

  it('loadRebootSettings: absent is the systemd default; given values replace it field by field', () => {
    expect(loadRebootSettings({ spec: {} })).toEqual({ kind: 'valid', settings: DEFAULT_REBOOT_SETTINGS });
    expect(loadRebootSettings({ spec: { reboot: { timeoutSeconds: 60, job: { image: 'reg/x:1', command: ['/bin/reboot'] } } } })).toEqual({
      kind: 'valid',
      settings: { method: 'job', timeoutSeconds: 60, job: { image: 'reg/x:1', command: ['/bin/reboot'], privileged: true, hostPID: true } },
    });
    expect(loadRebootSettings({ spec: { reboot: { method: 'ec2' } } })).toEqual({ kind: 'valid', settings: { ...DEFAULT_REBOOT_SETTINGS, method: 'ec2' } });
    expect(loadRebootSettings({ spec: { reboot: { method: 'ssm' } } })).toEqual({ kind: 'invalid', problem: 'spec.reboot.method: Invalid option: expected one of "job"|"ec2"' });
  });
});
