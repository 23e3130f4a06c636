// On a Slinky-managed node kmaint's cordon carries the node-cordon-reason Slinky drains with, and cleanup takes it
// back with the uncordon (on which Slinky undrains) only while it still names the request.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_CORDON_REASON, ANNOTATION_CORDONED_BY, ANNOTATION_INITIAL_UNSCHEDULABLE, Phase, SLINKY_NODE_CORDON_REASON } from '../api/index.ts';
import { planCleanup } from './cleanup.ts';
import { cordon } from './steps/cordon.ts';
import { aLifecycleMaintenance, aNodeWithUid, aStepContext } from './test-builders.ts';

const NODE = 'worker-01';
const ref = { namespace: 'default', name: 'nm-1', resourceVersion: '100', uid: 'uid-nm-1' };
const RECORD = { [ANNOTATION_CORDONED_BY]: 'kmaint/default/nm-1', [ANNOTATION_CORDON_REASON]: 'NodeMaintenance default/nm-1 (requestor requestor-a)' };
const nodesetPod: V1Pod = { metadata: { name: 'slurm-worker-n1', namespace: 'slurm', labels: { 'nodeset.slinky.slurm.net/pod-hostname': 'n1' } }, spec: { containers: [] }, status: { phase: 'Running' } };
const otherPod: V1Pod = { metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } }, spec: { containers: [] }, status: { phase: 'Running' } };
function node(annotations: Record<string, string> = {}, unschedulable = false): V1Node {
  const n = aNodeWithUid({ name: NODE, unschedulable });
  return { ...n, metadata: { ...n.metadata, annotations } };
}

describe('cordon on a Slinky-managed node', () => {
  it.each([
    { rule: 'a NodeSet pod on the node: the cordon patch carries node-cordon-reason "kmaint: ns/name"', pods: [nodesetPod, otherPod], node: node(), extra: { [SLINKY_NODE_CORDON_REASON]: 'kmaint: default/nm-1' } },
    { rule: 'no NodeSet pod: no Slinky annotation', pods: [otherPod], node: node(), extra: {} },
    { rule: 'a finished NodeSet pod runs no slurmd: no Slinky annotation', pods: [{ ...nodesetPod, status: { phase: 'Succeeded' } }], node: node(), extra: {} },
    { rule: "a reason someone else set first (a health checker) is theirs: left as it is", pods: [nodesetPod], node: node({ [SLINKY_NODE_CORDON_REASON]: 'nhc: bad dimm' }), extra: {} },
    { rule: "another request's kmaint reason, left by a request removed without its cleanup: stale, replaced by ours", pods: [nodesetPod], node: node({ [SLINKY_NODE_CORDON_REASON]: 'kmaint: default/crashed' }), extra: { [SLINKY_NODE_CORDON_REASON]: 'kmaint: default/nm-1' } },
    { rule: 'our own reason already there: not written again', pods: [nodesetPod], node: node({ [SLINKY_NODE_CORDON_REASON]: 'kmaint: default/nm-1' }), extra: {} },
  ])('$rule', ({ pods, node: n, extra }) => {
    const nm = aLifecycleMaintenance({ name: 'nm-1', nodeName: NODE, phase: 'Cordon' });
    expect(cordon(aStepContext(nm, { node: n, pods }))).toEqual({
      kind: 'advance',
      to: 'WaitForPodCompletion',
      annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false', 'kmaint.io/cordon-recorded': 'true' },
      nodeActions: [{ kind: 'cordonNode', node: { name: NODE, resourceVersion: '7' }, maintenance: ref, reason: 'cordon for default/nm-1', annotations: { ...RECORD, ...extra } }],
    });
  });
});

describe('cleanup of a Slinky-managed node', () => {
  const deleted = aLifecycleMaintenance({ name: 'nm-1', nodeName: NODE, phase: Phase.Ready, deleting: true, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } });
  const released = { kind: 'patchMaintenanceMeta', target: ref, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: null }, removeFinalizer: true, reason: 'default/nm-1 deleted in phase Ready' };
  it('our cordon and our reason: one uncordon patch drops both (Slinky then undrains); kmaint sends no undrain', () => {
    const plan = planCleanup({ nodes: new Map([[NODE, node({ ...RECORD, [SLINKY_NODE_CORDON_REASON]: 'kmaint: default/nm-1' }, true)]]), maintenances: [deleted] }, { maxNodeMaintenanceTimeSeconds: 3600 }, new Date('2026-01-01T00:00:00Z'));
    expect(plan.slurm).toEqual([]);
    expect(plan.actions).toEqual([
      {
        kind: 'uncordonNode',
        node: { name: NODE, resourceVersion: '7' },
        maintenance: ref,
        reason: 'default/nm-1 deleted; node was schedulable before maintenance',
        annotations: { [ANNOTATION_CORDONED_BY]: null, [ANNOTATION_CORDON_REASON]: null, [SLINKY_NODE_CORDON_REASON]: null },
      },
      released,
    ]);
  });
  it('a reason naming someone else stays, with the uncordon', () => {
    const plan = planCleanup({ nodes: new Map([[NODE, node({ ...RECORD, [SLINKY_NODE_CORDON_REASON]: 'nhc: bad dimm' }, true)]]), maintenances: [deleted] }, { maxNodeMaintenanceTimeSeconds: 3600 }, new Date('2026-01-01T00:00:00Z'));
    expect(plan.actions[0]).toEqual({ kind: 'uncordonNode', node: { name: NODE, resourceVersion: '7' }, maintenance: ref, reason: 'default/nm-1 deleted; node was schedulable before maintenance', annotations: { [ANNOTATION_CORDONED_BY]: null, [ANNOTATION_CORDON_REASON]: null } });
  });
});
