import type { V1Lease, V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_INITIAL_UNSCHEDULABLE } from '../../api/index.ts';
import type { Action } from '../../api/index.ts';
import type { Medik8sLeases } from '../node-lease.ts';
import { aLifecycleMaintenance, aNodeWithUid, aStepContext } from '../test-builders.ts';
import { cordon } from './cordon.ts';
import type { StepResult } from './step.ts';

const NODE = 'worker-01';
const ref = { namespace: 'default', name: 'nm-1', resourceVersion: '100', uid: 'uid-nm-1' };
const target = { kind: 'NodeMaintenance' as const, namespace: 'default', name: 'nm-1', uid: 'uid-nm-1' };
const schedulable = aNodeWithUid({ name: NODE });
const cordoned = aNodeWithUid({ name: NODE, unschedulable: true });

const cordonNode: Action = {
  kind: 'cordonNode',
  node: { name: NODE, resourceVersion: '7' },
  maintenance: ref,
  reason: 'cordon for default/nm-1',
  annotations: { 'kmaint.io/cordoned-by': 'kmaint/default/nm-1', 'kmaint.io/cordon-reason': 'NodeMaintenance default/nm-1 (requestor requestor-a)' },
};
const takeLease: Action = {
  kind: 'takeNodeLease',
  lease: {
    namespace: 'medik8s-leases',
    name: `node-${NODE}`,
    holder: 'kmaint/default/nm-1',
    durationSeconds: 3600,
    acquireTime: '2026-01-01T00:00:00.000000Z',
    renewTime: '2026-01-01T00:00:00.000000Z',
    transitions: 0,
    owner: { name: NODE, uid: `uid-${NODE}` },
  },
  maintenance: ref,
  reason: `before cordoning node ${NODE}`,
};

function heldBy(holder: string): Medik8sLeases {
  const lease: V1Lease = { metadata: { name: `node-${NODE}`, namespace: 'medik8s-leases', resourceVersion: '55' }, spec: { holderIdentity: holder, renewTime: new Date('2025-12-31T23:50:00Z'), leaseDurationSeconds: 3600 } };
  return { kind: 'present', leases: new Map([[`node-${NODE}`, lease]]) };
}
const HELD = 'waiting to cordon: the medik8s node lease medik8s-leases/node-worker-01 is held by node-maintenance until 2026-01-01T00:50:00Z';

describe('cordon (Cordon)', () => {
  it.each<{ rule: string; node: V1Node; cordon?: boolean; annotations?: Record<string, string>; message?: string; medik8s?: Medik8sLeases; expected: StepResult }>([
    { rule: 'cordon: false: straight on, nothing recorded', node: schedulable, cordon: false, expected: { kind: 'advance', to: 'WaitForPodCompletion' } },
    {
      rule: 'a schedulable node: its prior state and the cordon recorded, then the cordon with who and why',
      node: schedulable,
      expected: { kind: 'advance', to: 'WaitForPodCompletion', annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false', 'kmaint.io/cordon-recorded': 'true' }, nodeActions: [cordonNode] },
    },
    {
      rule: 'a node cordoned by someone else before: "true" recorded, no cordon of ours',
      node: cordoned,
      expected: { kind: 'advance', to: 'WaitForPodCompletion', annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'true' }, nodeActions: [] },
    },
    {
      rule: 'the medik8s namespace exists, no lease: recorded on the request, taken, then the cordon',
      node: schedulable,
      medik8s: { kind: 'present', leases: new Map() },
      expected: {
        kind: 'advance',
        to: 'WaitForPodCompletion',
        annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false', 'kmaint.io/medik8s-lease': `medik8s-leases/node-${NODE}`, 'kmaint.io/cordon-recorded': 'true' },
        nodeActions: [takeLease, cordonNode],
      },
    },
    {
      // Was "the prior state still recorded" ("false"): the holder may cordon the node before kmaint gets to it, and the
      // stale "false" was what cleanup's legacy rule (and the upstream operator) uncordoned by.
      rule: 'another live holder: hold, nothing recorded yet, one warning for the new message',
      node: schedulable,
      medik8s: heldBy('node-maintenance'),
      expected: {
        kind: 'hold',
        message: HELD,
        inFlight: true,
        wait: 'node-lease',
        annotations: {},
        warnings: [{ kind: 'emitEvent', target, type: 'Warning', eventReason: 'NodeLeaseHeld', message: HELD, reason: 'medik8s node lease not available' }],
      },
    },
    {
      rule: 'the same holder on a later pass: hold, no second warning',
      node: schedulable,
      annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' },
      message: HELD,
      medik8s: heldBy('node-maintenance'),
      expected: { kind: 'hold', message: HELD, inFlight: true, wait: 'node-lease', annotations: {}, warnings: [] },
    },
    {
      rule: 'the holder cordoned the node while kmaint waited, then let the lease go: "true" recorded as it is now, no cordon of ours',
      node: cordoned,
      message: HELD,
      medik8s: { kind: 'present', leases: new Map() },
      expected: {
        kind: 'advance',
        to: 'WaitForPodCompletion',
        annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'true', 'kmaint.io/medik8s-lease': `medik8s-leases/node-${NODE}` },
        nodeActions: [takeLease],
      },
    },
  ])('$rule', ({ node, cordon: cordonSpec, annotations, message, medik8s, expected }) => {
    const nm = aLifecycleMaintenance({
      name: 'nm-1',
      nodeName: NODE,
      phase: 'Cordon',
      ...(annotations ? { annotations } : {}),
      ...(message ? { message } : {}),
      ...(cordonSpec !== undefined ? { spec: { cordon: cordonSpec } } : {}),
    });
    expect(cordon(aStepContext(nm, { node, ...(medik8s ? { medik8s } : {}) }))).toEqual(expected);
  });
});
