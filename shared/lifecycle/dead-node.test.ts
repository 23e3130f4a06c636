// Dead nodes under maintenance: what the drain says of a node NotReady with pods stuck Terminating, the out-of-service
// taint only when enabled (recorded in its own patch), and its removal on release only when this request added it.
import type { V1Node, V1Pod, V1Taint } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { aMaintenance } from '../scheduling/test-builders.ts';
import { releaseOutOfServiceTaint, reportDeadNode } from './dead-node.ts';

const NOW = new Date('2026-01-01T12:00:00Z');
const nm = aMaintenance({ name: 'nm', nodeName: 'n1', phase: 'Draining' });
const ref = { namespace: 'default', name: 'nm', resourceVersion: '3' };
const nodeRef = { name: 'n1', resourceVersion: '9' };
const OWNER = 'kmaint/default/nm';

function aNode(opts: { ready: string; since: string; taints?: V1Taint[]; by?: string }): V1Node {
  return {
    metadata: { name: 'n1', resourceVersion: '9', ...(opts.by ? { annotations: { 'kmaint.io/out-of-service-by': opts.by } } : {}) },
    spec: opts.taints ? { taints: opts.taints } : {},
    status: { conditions: [{ type: 'Ready', status: opts.ready, reason: 'NodeStatusUnknown', lastTransitionTime: new Date(opts.since) }] },
  };
}

const pod = (name: string, terminating: boolean): V1Pod => ({ metadata: { namespace: 'app', name, ...(terminating ? { deletionTimestamp: new Date('2026-01-01T11:50:00Z') } : {}) } });
const STUCK = [pod('b', true), pod('a', true), pod('c', false)];
const HEAD = 'node n1 Ready=Unknown since 2026-01-01T11:50:00Z (NodeStatusUnknown) with 2 pods stuck Terminating (app/a, app/b)';
const EFFECT = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute makes the control plane force-delete the node\'s terminating pods and detach their volumes (right only for a node that is really off)';

describe('reportDeadNode', () => {
  it.each([
    { rule: 'a Ready node: nothing', node: aNode({ ready: 'True', since: '2026-01-01T11:00:00Z' }), pods: STUCK, enabled: true, note: undefined, kinds: [] },
    { rule: 'NotReady for less than the threshold: nothing yet', node: aNode({ ready: 'Unknown', since: '2026-01-01T11:58:00Z' }), pods: STUCK, enabled: true, note: undefined, kinds: [] },
    { rule: 'NotReady but no pod terminating: nothing', node: aNode({ ready: 'Unknown', since: '2026-01-01T11:50:00Z' }), pods: [pod('c', false)], enabled: true, note: undefined, kinds: [] },
    { rule: 'off (the default): names the pods and the node state and says what the taint would do', node: aNode({ ready: 'Unknown', since: '2026-01-01T11:50:00Z' }), pods: STUCK, enabled: false, note: `${HEAD}; spec.outOfServiceTaint is off: enabled, ${EFFECT}`, kinds: [] },
    { rule: 'on: adds the taint with its record in one patch, and a Warning event', node: aNode({ ready: 'Unknown', since: '2026-01-01T11:50:00Z' }), pods: STUCK, enabled: true, note: `${HEAD}; adding node.kubernetes.io/out-of-service (spec.outOfServiceTaint)`, kinds: ['setNodeTaints', 'emitEvent'] },
    {
      rule: 'the taint already there (ours): no second write',
      node: aNode({ ready: 'Unknown', since: '2026-01-01T11:50:00Z', taints: [{ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }], by: OWNER }),
      pods: STUCK,
      enabled: true,
      note: `${HEAD}; node.kubernetes.io/out-of-service is on the node (added by kmaint for this request): the control plane force-deletes them`,
      kinds: [],
    },
  ])('$rule', ({ node, pods, enabled, note, kinds }) => {
    const r = reportDeadNode(nm, node, nodeRef, ref, pods, { enabled, afterNotReadySeconds: 300 }, NOW);
    expect([r?.note, r?.actions.map((a) => a.kind) ?? []]).toEqual([note, kinds]);
  });

  it("keeps another party's taints, in order, and records the request on the node", () => {
    const node = aNode({ ready: 'False', since: '2026-01-01T11:00:00Z', taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: new Date('2026-01-01T11:01:00Z') }] });
    const [taint, event] = reportDeadNode(nm, node, nodeRef, ref, STUCK, { enabled: true, afterNotReadySeconds: 0 }, NOW)?.actions ?? [];
    expect(taint).toEqual({
      kind: 'setNodeTaints',
      node: nodeRef,
      taints: [
        { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-01-01T11:01:00Z' },
        { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute', timeAdded: '2026-01-01T12:00:00Z' },
      ],
      annotations: { 'kmaint.io/out-of-service-by': OWNER },
      maintenance: ref,
      reason: 'dead node: Ready=False since 2026-01-01T11:00:00Z (NodeStatusUnknown)',
    });
    expect(event).toMatchObject({ kind: 'emitEvent', type: 'Warning', eventReason: 'OutOfServiceTaint', message: 'added node.kubernetes.io/out-of-service=nodeshutdown:NoExecute to node n1 (Ready=False since 2026-01-01T11:00:00Z (NodeStatusUnknown); pods stuck Terminating: app/a, app/b)' });
  });
});

describe('releaseOutOfServiceTaint', () => {
  const tainted = [{ key: 'other', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }];
  it.each([
    { rule: 'ours: the taint and its record go, other taints stay', by: OWNER, expected: [{ taints: [{ key: 'other', effect: 'NoSchedule' }], annotations: { 'kmaint.io/out-of-service-by': null } }] },
    { rule: "another request's (or nobody's record): left alone", by: 'kmaint/default/other', expected: [] },
    { rule: 'no record: left alone', by: undefined, expected: [] },
  ])('$rule', ({ by, expected }) => {
    const node = aNode({ ready: 'False', since: '2026-01-01T11:00:00Z', taints: tainted, ...(by ? { by } : {}) });
    expect(releaseOutOfServiceTaint(nm, node, nodeRef, ref).map((a) => (a.kind === 'setNodeTaints' ? { taints: a.taints, annotations: a.annotations } : a))).toEqual(expected);
  });
});
