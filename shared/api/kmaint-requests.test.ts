// The one rule that tells kmaint's own requests (issue 40): where, under which name, with which label and requestorID.
import { describe, expect, it } from 'vitest';
import {
  CLOUD_EVENTS_REQUESTOR,
  DEFAULT_HANDSHAKE_REQUESTOR,
  LABEL_CLOUD_EVENT,
  LABEL_HANDSHAKE,
  LABEL_REAPER,
  LABEL_REBOOT_SENTINEL,
  LABEL_SRIOV_HANDSHAKE,
  REAPER_REQUESTOR,
  REBOOT_SENTINEL_REQUESTOR,
  SRIOV_HANDSHAKE_REQUESTOR,
} from './constants.ts';
import { handshakeRequestName, isKmaintNodeRequest, nodeRequestName, sriovRequestName } from './kmaint-requests.ts';
import type { NodeMaintenance } from './types.ts';

const NS = 'kmaint';
const request = (namespace: string, name: string, requestorID: string, labels: Record<string, string>, nodeName = 'node-1'): NodeMaintenance => ({
  metadata: { name, namespace, labels },
  spec: { requestorID, nodeName },
});

describe('isKmaintNodeRequest', () => {
  it.each([
    { rule: "the reaper's request as the reaper files it", nm: request(NS, 'reap-node-1', REAPER_REQUESTOR, { [LABEL_REAPER]: 'true' }), expected: true },
    { rule: "cloud events' request as it is filed", nm: request(NS, 'cloud-event-node-1', CLOUD_EVENTS_REQUESTOR, { [LABEL_CLOUD_EVENT]: 'true' }), expected: true },
    { rule: "the reboot sentinel's request as it is filed", nm: request(NS, 'reboot-node-1', REBOOT_SENTINEL_REQUESTOR, { [LABEL_REBOOT_SENTINEL]: 'true' }), expected: true },
    { rule: "a copy of the reboot sentinel's request in a requestor's namespace", nm: request('team', 'reboot-node-1', REBOOT_SENTINEL_REQUESTOR, { [LABEL_REBOOT_SENTINEL]: 'true' }), expected: false },
    { rule: "the reboot sentinel's name and label under another requestorID", nm: request(NS, 'reboot-node-1', 'fw.example.com', { [LABEL_REBOOT_SENTINEL]: 'true' }), expected: false },
    { rule: "the SR-IOV handshake's request (label: the state asked)", nm: request(NS, 'sriov-node-1', SRIOV_HANDSHAKE_REQUESTOR, { [LABEL_SRIOV_HANDSHAKE]: 'Drain_Required' }), expected: true },
    { rule: "the node-agent handshake's request under its default requestor", nm: request(NS, 'handshake-node-1', DEFAULT_HANDSHAKE_REQUESTOR, { [LABEL_HANDSHAKE]: 'Reboot_Required' }), expected: true },
    { rule: "a node-agent handshake under a requestor the Node names is that requestor's", nm: request(NS, 'handshake-node-1', 'fw.example.com', { [LABEL_HANDSHAKE]: 'Drain_Required' }), expected: false },
    { rule: "a copy in a requestor's namespace", nm: request('team', 'reap-node-1', REAPER_REQUESTOR, { [LABEL_REAPER]: 'true' }), expected: false },
    { rule: 'the name of another node', nm: request(NS, 'reap-node-2', REAPER_REQUESTOR, { [LABEL_REAPER]: 'true' }), expected: false },
    { rule: 'no label', nm: request(NS, 'reap-node-1', REAPER_REQUESTOR, {}), expected: false },
    { rule: 'the label with another value', nm: request(NS, 'reap-node-1', REAPER_REQUESTOR, { [LABEL_REAPER]: 'yes' }), expected: false },
    { rule: "another kind's requestorID under the reaper's name and label", nm: request(NS, 'reap-node-1', CLOUD_EVENTS_REQUESTOR, { [LABEL_REAPER]: 'true' }), expected: false },
    { rule: 'the requestorID alone', nm: request('team', 'anything', REAPER_REQUESTOR, {}), expected: false },
  ])('$rule: $expected', ({ nm, expected }) => {
    expect(isKmaintNodeRequest(nm, NS)).toBe(expected);
  });

  it("no kmaint namespace known: no request is kmaint's", () => {
    expect(isKmaintNodeRequest(request(NS, 'reap-node-1', REAPER_REQUESTOR, { [LABEL_REAPER]: 'true' }), undefined)).toBe(false);
  });
});

describe('the names kmaint computes', () => {
  it('a long node name keeps a prefix and a hash, within 253 characters', () => {
    const node = `n${'x'.repeat(250)}`;
    expect(nodeRequestName('reap-', node)).toHaveLength(253);
    expect(nodeRequestName('reap-', node)).toMatch(/^reap-nx+-[0-9a-f]{8}$/);
    expect(sriovRequestName(node)).toBe(`sriov-${handshakeRequestName(node).slice('handshake-'.length)}`);
    expect(sriovRequestName('node-1')).toBe('sriov-node-1');
  });
});
