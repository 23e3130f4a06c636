// kmaint as the SR-IOV network operator's external drainer, table-driven: each row's exact writes, rendered as
// dry runs render them (describeAction), for one Node and its SriovNetworkNodeState.
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { describeAction, maintenanceOperatorConfigSchema } from '#api';
import type { NodeMaintenance, SriovNetworkNodeState } from '#api';
import { aMaintenance } from '../scheduling/test-builders.ts';
import { loadSriovHandshakeConfig, planSriovHandshake, sriovDrainSpec, sriovRequestName } from './sriov-plan.ts';

const NS = 'kmaint';
const SRIOV_NS = 'sriov-network-operator';
const STATE = 'sriovnetwork.openshift.io/state';
const DESIRED = 'sriovnetwork.openshift.io/desired-state';
const CURRENT = 'sriovnetwork.openshift.io/current-state';
const EXTERNAL = 'sriovnetwork.openshift.io/use-external-drainer';
const CONFIG = { namespace: NS, sriovNamespace: SRIOV_NS, resourcePrefix: 'openshift.io' };

function aNode(annotations: Record<string, string> = {}): V1Node {
  return { metadata: { name: 'worker-1', uid: 'uid-worker-1', resourceVersion: '7', annotations }, spec: {} };
}

/** The daemon's SriovNetworkNodeState with external draining on, and both keys it waits for already there unless given. */
function aState(annotations: Record<string, string> = {}, external = true): SriovNetworkNodeState {
  const keys = { [DESIRED]: 'Idle', [CURRENT]: 'Idle', ...(external ? { [EXTERNAL]: 'true' } : {}), ...annotations };
  return { metadata: { name: 'worker-1', namespace: SRIOV_NS, resourceVersion: '3', annotations: keys } };
}

function aRequest(intent: string, phase: string, opts: { deleting?: boolean; unlabelled?: boolean } = {}): NodeMaintenance {
  const nm = aMaintenance({ name: 'sriov-worker-1', namespace: NS, nodeName: 'worker-1', requestorID: 'sriov-network-operator.kmaint.io', phase, deleting: opts.deleting ?? false });
  return opts.unlabelled === true ? nm : { ...nm, metadata: { ...nm.metadata, labels: { 'kmaint.io/sriov-handshake': intent } } };
}

const DRAIN_SPEC = { force: true, deleteEmptyDir: true, timeoutSeconds: 90, podEvictionFilters: [{ byResourceNameRegex: '^openshift\\.io/' }] };

interface Row {
  rule: string;
  node: V1Node;
  state: SriovNetworkNodeState | undefined;
  requests?: NodeMaintenance[];
  admitted?: boolean;
  writes: string[];
}

const UNKNOWN = 'sriovnetwork.openshift.io/state "MCP_Paused" is not Idle, Drain_Required or Reboot_Required; nothing is done until it is';

const ROWS: Row[] = [
  {
    rule: 'missing keys are created as Idle: the state key on the Node, desired-state and current-state on the SriovNetworkNodeState',
    node: aNode(),
    state: { metadata: { name: 'worker-1', namespace: SRIOV_NS, resourceVersion: '3', annotations: { [EXTERNAL]: 'true' } } },
    writes: [
      'annotate node worker-1 sriovnetwork.openshift.io/state=Idle: SR-IOV handshake: Node keys',
      'annotate SriovNetworkNodeState sriov-network-operator/worker-1 sriovnetwork.openshift.io/desired-state=Idle sriovnetwork.openshift.io/current-state=Idle: SR-IOV handshake: sriovnetwork.openshift.io/desired-state=Idle, sriovnetwork.openshift.io/current-state=Idle',
    ],
  },
  { rule: 'a node the operator drains itself (no use-external-drainer) is left to it', node: aNode({ [STATE]: 'Drain_Required' }), state: aState({ [DESIRED]: 'Drain_Required' }, false), writes: [] },
  { rule: 'Idle on both sides costs no write', node: aNode({ [STATE]: 'Idle' }), state: aState(), writes: [] },
  {
    rule: 'Drain_Required creates the request that drains only the pods using <prefix>/ devices',
    node: aNode({ [STATE]: 'Drain_Required' }),
    state: aState({ [DESIRED]: 'Drain_Required' }),
    writes: ['create kmaint/sriov-worker-1 for node worker-1: node worker-1: sriovnetwork.openshift.io/state is Drain_Required'],
  },
  {
    rule: 'the request waiting for admission leaves current-state Idle',
    node: aNode({ [STATE]: 'Drain_Required' }),
    state: aState({ [DESIRED]: 'Drain_Required' }),
    requests: [aRequest('Drain_Required', 'Pending')],
    writes: [],
  },
  {
    rule: 'admitted in this pass: Draining',
    node: aNode({ [STATE]: 'Drain_Required' }),
    state: aState({ [DESIRED]: 'Drain_Required' }),
    requests: [aRequest('Drain_Required', 'Pending')],
    admitted: true,
    writes: ['annotate SriovNetworkNodeState sriov-network-operator/worker-1 sriovnetwork.openshift.io/current-state=Draining: SR-IOV handshake: sriovnetwork.openshift.io/current-state=Draining'],
  },
  {
    rule: 'Ready: DrainComplete',
    node: aNode({ [STATE]: 'Reboot_Required' }),
    state: aState({ [DESIRED]: 'Reboot_Required', [CURRENT]: 'Draining' }),
    requests: [aRequest('Reboot_Required', 'Ready')],
    writes: ['annotate SriovNetworkNodeState sriov-network-operator/worker-1 sriovnetwork.openshift.io/current-state=DrainComplete: SR-IOV handshake: sriovnetwork.openshift.io/current-state=DrainComplete'],
  },
  {
    rule: 'the daemon back to Idle: the request is deleted and current-state stays until cleanup has released it',
    node: aNode({ [STATE]: 'Idle' }),
    state: aState({ [CURRENT]: 'DrainComplete' }),
    requests: [aRequest('Drain_Required', 'Ready')],
    writes: ['delete kmaint/sriov-worker-1: node worker-1: sriovnetwork.openshift.io/state is Idle'],
  },
  { rule: 'while cleanup releases the request, nothing', node: aNode({ [STATE]: 'Idle' }), state: aState({ [CURRENT]: 'DrainComplete' }), requests: [aRequest('Drain_Required', 'Ready', { deleting: true })], writes: [] },
  {
    rule: 'released: Idle',
    node: aNode({ [STATE]: 'Idle' }),
    state: aState({ [CURRENT]: 'DrainComplete' }),
    writes: ['annotate SriovNetworkNodeState sriov-network-operator/worker-1 sriovnetwork.openshift.io/current-state=Idle: SR-IOV handshake: sriovnetwork.openshift.io/current-state=Idle'],
  },
  {
    rule: 'Drain_Required escalated to Reboot_Required replaces the request and withdraws DrainComplete',
    node: aNode({ [STATE]: 'Reboot_Required' }),
    state: aState({ [DESIRED]: 'Reboot_Required', [CURRENT]: 'DrainComplete' }),
    requests: [aRequest('Drain_Required', 'Ready')],
    writes: [
      'delete kmaint/sriov-worker-1: node worker-1: sriovnetwork.openshift.io/state changed to Reboot_Required; replacing the request',
      'annotate SriovNetworkNodeState sriov-network-operator/worker-1 sriovnetwork.openshift.io/current-state=Draining: SR-IOV handshake: sriovnetwork.openshift.io/current-state=Draining',
    ],
  },
  {
    rule: 'an unknown value is refused on the Node with an event',
    node: aNode({ [STATE]: 'MCP_Paused' }),
    state: aState(),
    writes: [`annotate node worker-1 kmaint.io/sriov-handshake-problem=${UNKNOWN}: SR-IOV handshake: Node keys`, `event Warning HandshakeRefused on node worker-1: ${UNKNOWN}`],
  },
  {
    rule: 'a foreign object holding the name is refused, never taken over',
    node: aNode({ [STATE]: 'Drain_Required' }),
    state: aState({ [DESIRED]: 'Drain_Required' }),
    requests: [aRequest('', 'Pending', { unlabelled: true })],
    writes: [
      "annotate node worker-1 kmaint.io/sriov-handshake-problem=NodeMaintenance kmaint/sriov-worker-1 is not kmaint's SR-IOV request for node worker-1, and its name is the one kmaint uses; no request is created: SR-IOV handshake: Node keys",
      "event Warning HandshakeRefused on node worker-1: NodeMaintenance kmaint/sriov-worker-1 is not kmaint's SR-IOV request for node worker-1, and its name is the one kmaint uses; no request is created",
    ],
  },
  {
    rule: 'the SriovNetworkNodeState gone: the request ends',
    node: aNode({ [STATE]: 'Drain_Required' }),
    state: undefined,
    requests: [aRequest('Drain_Required', 'Draining')],
    writes: ['delete kmaint/sriov-worker-1: node worker-1: no SriovNetworkNodeState sriov-network-operator/worker-1 with sriovnetwork.openshift.io/use-external-drainer=true'],
  },
];

describe('planSriovHandshake', () => {
  it.each(ROWS)('$rule', (row) => {
    const maintenances = row.requests ?? [];
    const plan = planSriovHandshake(
      { nodes: [row.node], maintenances, states: row.state === undefined ? [] : [row.state], admittedThisPass: new Set(row.admitted === true ? ['kmaint/sriov-worker-1'] : []) },
      CONFIG,
    );
    expect(plan.actions.map(describeAction)).toEqual(row.writes);
  });

  it('the created request is the operator drainer\'s drain: cordon, force, emptyDir, 90 s, and the device filter', () => {
    const plan = planSriovHandshake({ nodes: [aNode({ [STATE]: 'Drain_Required' })], maintenances: [], states: [aState({ [DESIRED]: 'Drain_Required' })] }, CONFIG);
    const create = plan.actions.find((a) => a.kind === 'createMaintenance');
    expect(create).toEqual({
      kind: 'createMaintenance',
      target: { namespace: NS, name: 'sriov-worker-1' },
      labels: { 'kmaint.io/sriov-handshake': 'Drain_Required' },
      annotations: { 'maintenance.nvidia.com/garbage-collector.ignore': 'true' },
      spec: { requestorID: 'sriov-network-operator.kmaint.io', nodeName: 'worker-1', cordon: true, drainSpec: DRAIN_SPEC },
      reason: 'node worker-1: sriovnetwork.openshift.io/state is Drain_Required',
    });
  });

  it.each([
    ['Drain_Required', 'openshift.io', DRAIN_SPEC],
    ['Drain_Required', 'nvidia.com', { ...DRAIN_SPEC, podEvictionFilters: [{ byResourceNameRegex: '^nvidia\\.com/' }] }],
    ['Reboot_Required', 'openshift.io', { force: true, deleteEmptyDir: true, timeoutSeconds: 90 }],
  ])('%s with resource prefix %s drains with %j', (state, prefix, spec) => {
    expect(sriovDrainSpec(state, prefix)).toEqual(spec);
  });

  it('request names are sriov-<node>, hashed past 253 characters', () => {
    expect(sriovRequestName('worker-1')).toBe('sriov-worker-1');
    expect(sriovRequestName('n'.repeat(300)).length).toBeLessThanOrEqual(253);
  });
});

describe('loadSriovHandshakeConfig', () => {
  const config = (nodeHandshake: Record<string, unknown> | undefined): unknown => ({ metadata: { name: 'default', namespace: NS }, spec: nodeHandshake === undefined ? {} : { nodeHandshake } });
  it.each([
    ['no nodeHandshake: kmaint keys only', undefined, undefined],
    ['protocol kmaint', { protocol: 'kmaint' }, undefined],
    ['protocol sriov-network-operator: the defaults', { protocol: 'sriov-network-operator' }, CONFIG],
    ['namespace and prefix set', { protocol: 'sriov-network-operator', sriovNetworkOperator: { namespace: 'nvidia-network-operator', resourcePrefix: 'nvidia.com' } }, { namespace: NS, sriovNamespace: 'nvidia-network-operator', resourcePrefix: 'nvidia.com' }],
  ])('%s', (_name, nodeHandshake, expected) => {
    expect(loadSriovHandshakeConfig(config(nodeHandshake), NS)).toEqual(expected);
  });

  it('an unknown protocol is refused by the schema with its path', () => {
    const parsed = maintenanceOperatorConfigSchema.safeParse(config({ protocol: 'sriov' }));
    expect(parsed.success ? [] : parsed.error.issues.map((i) => i.path.join('.'))).toEqual(['spec.nodeHandshake.protocol']);
  });
});
