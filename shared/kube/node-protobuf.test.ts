// The protobuf node LIST decoder against leanNode: the same list, encoded as the API server encodes it (fields kmaint
// skips included, Go's zero values written), decodes to exactly the Nodes leanNode makes of its JSON.
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { NodeListDecodeError } from './errors.ts';
import { leanNode } from './lean-nodes.ts';
import { encodingRoot, envelope, nodeListBody } from './protobuf-test-bodies.ts';
import { decodeNodeListProtobuf, decodeStatusProtobuf } from './node-protobuf.ts';
import { StringPool } from './string-pool.ts';

const CORDONED_BY_KUBECTL = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'ip-10-0-1-7.us-east-2.compute.internal',
    uid: '6f1c7e0a-0000-4000-8000-000000000007',
    resourceVersion: '4711',
    creationTimestamp: '2026-11-01T00:00:00Z',
    deletionTimestamp: '2026-11-28T05:00:00Z',
    deletionGracePeriodSeconds: 0,
    finalizers: ['example.com/keep'],
    ownerReferences: [{ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: 'gpu-7', uid: 'u-7', blockOwnerDeletion: true }],
    labels: { 'kubernetes.io/hostname': 'ip-10-0-1-7', 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' },
    annotations: { 'kmaint.io/cordoned-by': 'kmaint/ns/req-7', 'nfd.node.kubernetes.io/extended-resources': '' },
    managedFields: [
      { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', time: '2026-11-01T00:00:05Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:conditions': {} } } },
      { manager: 'kubectl-cordon', operation: 'Update', apiVersion: 'v1', time: '2026-11-28T04:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:unschedulable': {} } } },
      { manager: 'kmaint', operation: 'Update', apiVersion: 'v1', time: '2026-11-28T04:00:01Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:kmaint.io/cordoned-by': {} } } } },
    ],
  },
  spec: {
    podCIDR: '10.244.7.0/24',
    podCIDRs: ['10.244.7.0/24'],
    providerID: 'aws:///us-east-2a/i-07',
    unschedulable: true,
    taints: [
      { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule', timeAdded: '2026-11-28T04:00:00Z' },
      { key: 'kmaint.io/maintenance', value: 'draining', effect: 'NoExecute' },
    ],
  },
  status: {
    capacity: { cpu: '192', 'nvidia.com/gpu': '8' },
    conditions: [
      { type: 'Ready', status: 'True', lastHeartbeatTime: '2026-11-28T04:59:00Z', lastTransitionTime: '2026-11-01T00:00:05Z', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
      // Written without times (zero metav1.Time): Go's JSON says null.
      { type: 'GpuHealthy', status: 'False', lastHeartbeatTime: null, lastTransitionTime: null },
    ],
    images: [{ names: ['nvcr.io/nvidia/driver:570'], sizeBytes: 1_500_000_000 }],
    nodeInfo: { kubeletVersion: 'v1.35.4' },
  },
};
/** No labels, annotations or conditions; an empty spec, which Go's JSON writes as {}. */
const BARE = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'bare', uid: 'u-bare', resourceVersion: '12', creationTimestamp: '2026-11-02T00:00:00Z' }, spec: {}, status: {} };

/** What leanNode makes of the JSON, for the same list. */
function fromJson(items: unknown[]): V1Node[] {
  const pool = new StringPool();
  return (JSON.parse(JSON.stringify(items)) as Array<Parameters<typeof leanNode>[0]>).map((n) => leanNode(n, pool));
}

describe('decodeNodeListProtobuf', () => {
  it('decodes to exactly what leanNode makes of the JSON, with the list continue token and resourceVersion', () => {
    const items = [CORDONED_BY_KUBECTL, BARE];
    const body = nodeListBody(items, { resourceVersion: '4800', continue: 'eyJydiI6NDgwMH0', remainingItemCount: 3 });
    const decoded = decodeNodeListProtobuf(body, new StringPool());
    expect(decoded.items).toStrictEqual(fromJson(items));
    expect(decoded.metadata).toStrictEqual({ resourceVersion: '4800', continue: 'eyJydiI6NDgwMH0', remainingItemCount: 3 });
  });

  it('keeps exact values: owners of the cordon and the record, Dates, spec as JSON, zero times as new Date(null)', () => {
    const [node] = decodeNodeListProtobuf(nodeListBody([CORDONED_BY_KUBECTL], { resourceVersion: '1' })).items;
    expect(node?.metadata?.managedFields).toStrictEqual([
      { manager: 'kubectl-cordon', operation: 'Update', fieldsV1: { 'f:spec': { 'f:unschedulable': {} } } },
      { manager: 'kmaint', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:kmaint.io/cordoned-by': {} } } } },
    ]);
    expect(node?.metadata?.deletionTimestamp).toStrictEqual(new Date('2026-11-28T05:00:00Z'));
    expect(node?.metadata?.deletionGracePeriodSeconds).toBe(0);
    expect(node?.spec?.taints?.[0]).toStrictEqual({ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule', timeAdded: '2026-11-28T04:00:00Z' });
    expect(node?.status?.conditions?.[1]).toStrictEqual({ type: 'GpuHealthy', status: 'False', lastHeartbeatTime: new Date(0), lastTransitionTime: new Date(0) });
    expect(node?.status).not.toHaveProperty('images');
  });

  it("Go's zero values on the wire (empty strings, false, empty lists) are left out as its JSON's omitempty leaves them", () => {
    const body = nodeListBody([BARE], {}, (n) => {
      n['spec'] = { podCIDR: '', providerID: '', unschedulable: false, externalID: '' };
      (n['metadata'] as Record<string, unknown>)['generateName'] = '';
      (n['metadata'] as Record<string, unknown>)['generation'] = 0;
    });
    const decoded = decodeNodeListProtobuf(body);
    expect(decoded.items).toStrictEqual(fromJson([BARE]));
    expect(decoded.metadata).toStrictEqual({});
  });

  it('a page without continue ends the list; the words a page shares are pooled once', () => {
    const pool = new StringPool();
    const second = { ...CORDONED_BY_KUBECTL, metadata: { ...CORDONED_BY_KUBECTL.metadata, name: 'other' } };
    const decoded = decodeNodeListProtobuf(nodeListBody([CORDONED_BY_KUBECTL, second], { resourceVersion: '9' }), pool);
    expect(decoded.metadata).toStrictEqual({ resourceVersion: '9' });
    expect(decoded.items[0]?.status?.conditions?.[0]?.message).toBe('kubelet is posting ready status');
    // 2 label values, 2 annotation values, Ready/True/KubeletReady/its message, GpuHealthy/False.
    expect(pool.size).toBe(10);
    // Each instant is one Date of the page's, shared by the nodes (string-pool.ts), in the JSON's key order.
    const [a, b] = decoded.items;
    expect(b?.status?.conditions?.[0]?.lastHeartbeatTime).toBe(a?.status?.conditions?.[0]?.lastHeartbeatTime);
    expect(b?.metadata?.creationTimestamp).toBe(a?.metadata?.creationTimestamp);
    expect(Object.keys(b?.metadata?.labels ?? {})).toStrictEqual(Object.keys(CORDONED_BY_KUBECTL.metadata.labels));
    expect(b?.metadata?.labels).not.toBe(a?.metadata?.labels);
  });

  const good = nodeListBody([BARE], { resourceVersion: '1' });
  it.each([
    ['JSON instead of protobuf', Buffer.from('{"kind":"NodeList"}'), 'the body does not start with the protobuf magic "k8s\\0" (19 bytes)'],
    ['another kind', envelope('v1', 'PodList', new Uint8Array()), 'expected a v1 NodeList, the envelope holds "v1 PodList"'],
    ['compressed inside the envelope', envelope('v1', 'NodeList', new Uint8Array(), 'gzip'), 'the NodeList is encoded "gzip" inside the envelope'],
    ['cut short', good.subarray(0, good.length - 5), /^decoding a protobuf NodeList: index out of range/],
  ])('refuses a body that is not a protobuf NodeList: %s', (_name, body, message) => {
    expect(() => decodeNodeListProtobuf(body)).toThrow(NodeListDecodeError);
    expect(() => decodeNodeListProtobuf(body)).toThrow(message);
  });
});

describe('kmaint.io/admitted through the protobuf read (issue 40)', () => {
  it('keeps the admission record on the Node, as the JSON read does', () => {
    const node = { ...BARE, metadata: { ...BARE.metadata, annotations: { 'kmaint.io/admitted': 'team-a/fw-1/0f2e-uid' } } };
    const [decoded] = decodeNodeListProtobuf(nodeListBody([node], { resourceVersion: '1' })).items;
    expect([decoded?.metadata?.annotations, leanNode(JSON.parse(JSON.stringify(node)) as Parameters<typeof leanNode>[0]).metadata?.annotations]).toEqual([
      { 'kmaint.io/admitted': 'team-a/fw-1/0f2e-uid' },
      { 'kmaint.io/admitted': 'team-a/fw-1/0f2e-uid' },
    ]);
  });
});

describe('decodeStatusProtobuf', () => {
  it("reads an error answer's message, reason and code", () => {
    const t = encodingRoot.lookupType('Status');
    const raw = t.encode(t.fromObject({ status: 'Failure', message: 'The provided continue parameter is too old', reason: 'Expired', code: 410 })).finish();
    expect(decodeStatusProtobuf(envelope('v1', 'Status', raw))).toStrictEqual({ kind: 'Status', status: 'Failure', message: 'The provided continue parameter is too old', reason: 'Expired', code: 410 });
  });
});
