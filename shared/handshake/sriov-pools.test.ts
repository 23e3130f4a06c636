// SriovNetworkPoolConfig limits as the operator reads them, and enforced by kmaint's admission (the `external pool`
// gate) for the SR-IOV requests it drains: exact limits, rounding, the default pool, a node in two pools.
import { describe, expect, it } from 'vitest';
import type { NodeMaintenance, SriovNetworkPoolConfig } from '#api';
import { checkSchedulingInvariants, planScheduling } from '#scheduling';
import { NOW, aNode, aMaintenance, limits, recordedState } from '../scheduling/test-builders.ts';
import { isSriovRequest } from './sriov-plan.ts';
import { SRIOV_DEFAULT_POOL, resolveSriovPools, sriovMaxUnavailable } from './sriov-pools.ts';

const NS = 'sriov-network-operator';

describe('sriovMaxUnavailable', () => {
  it.each([
    ['unset: no limit', undefined, 4, { ok: true, max: undefined, text: 'unset (no limit)' }],
    ['an integer as it is', 2, 4, { ok: true, max: 2, text: '2' }],
    ['0 admits nothing', 0, 4, { ok: true, max: 0, text: '0' }],
    ['50% of 4 = 2', '50%', 4, { ok: true, max: 2, text: '"50%" of 4 nodes = 2' }],
    ['20% of 4 rounds down to 0, as the operator rounds', '20%', 4, { ok: true, max: 0, text: '"20%" of 4 nodes = 0' }],
    ['100% of 3 = 3', '100%', 3, { ok: true, max: 3, text: '"100%" of 3 nodes = 3' }],
    ['negative is refused', -1, 4, { ok: false, problem: 'maxUnavailable -1 is negative' }],
    ['0% is refused', '0%', 4, { ok: false, problem: 'maxUnavailable "0%": a percentage needs to be between 1 and 100' }],
    ['101% is refused', '101%', 4, { ok: false, problem: 'maxUnavailable "101%": a percentage needs to be between 1 and 100' }],
    ['a string without % is refused', '2', 4, { ok: false, problem: 'maxUnavailable "2" is neither an integer nor a percentage' }],
  ])('%s', (_rule, value, size, expected) => {
    expect(sriovMaxUnavailable(value, size)).toEqual(expected);
  });
});

function pool(name: string, spec: SriovNetworkPoolConfig['spec'], namespace = NS): SriovNetworkPoolConfig {
  return { metadata: { name, namespace }, spec };
}

/** kmaint's SR-IOV request on `node` (in kmaint's namespace, labelled), Pending unless `phase` says otherwise. */
function sriovRequest(node: string, phase = 'Pending'): NodeMaintenance {
  const nm = aMaintenance({ name: `sriov-${node}`, namespace: 'kmaint', nodeName: node, requestorID: 'sriov-network-operator.kmaint.io', phase });
  return { ...nm, metadata: { ...nm.metadata, labels: { 'kmaint.io/sriov-handshake': 'Drain_Required' } } };
}

const NODES = [
  aNode({ name: 'a-1', labels: { rack: 'a' } }),
  aNode({ name: 'a-2', labels: { rack: 'a' } }),
  aNode({ name: 'a-3', labels: { rack: 'a' } }),
  aNode({ name: 'a-4', labels: { rack: 'a' } }),
  aNode({ name: 'b-1', labels: { rack: 'b', gpu: 'yes' } }),
  aNode({ name: 'free-1' }),
  aNode({ name: 'free-2' }),
];

/** Admission of every request under the cluster's limits (wide open) and the SR-IOV pools; the invariants checked. */
function admit(configs: SriovNetworkPoolConfig[], maintenances: NodeMaintenance[]): { admitted: string[]; waiting: Record<string, string> } {
  const externalPools = resolveSriovPools({ configs, namespace: NS, nodes: NODES, maintenances, isSriov: isSriovRequest });
  const state = recordedState({ nodes: NODES, maintenances, externalPools });
  const lim = limits(100, 'unlimited');
  const plan = planScheduling(state, lim, NOW);
  checkSchedulingInvariants(state, lim, plan, NOW);
  return { admitted: [...plan.admitted].sort(), waiting: Object.fromEntries(plan.waiting.map((w) => [w.key, w.why])) };
}

describe('SR-IOV pools at admission', () => {
  it('a pool of 50% of 4 nodes admits 2, counting one already draining', () => {
    const configs = [pool('rack-a', { nodeSelector: { matchLabels: { rack: 'a' } }, maxUnavailable: '50%' })];
    const result = admit(configs, [sriovRequest('a-1', 'Draining'), sriovRequest('a-2'), sriovRequest('a-3'), sriovRequest('a-4')]);
    expect(result).toEqual({
      admitted: ['kmaint/sriov-a-2'],
      waiting: {
        'kmaint/sriov-a-3': `waiting for SriovNetworkPoolConfig ${NS}/rack-a: maxUnavailable "50%" of 4 nodes = 2, SR-IOV drains in progress: 2`,
        'kmaint/sriov-a-4': `waiting for SriovNetworkPoolConfig ${NS}/rack-a: maxUnavailable "50%" of 4 nodes = 2, SR-IOV drains in progress: 2`,
      },
    });
  });

  it('nodes in no pool share the default pool of 1', () => {
    const result = admit([pool('rack-a', { nodeSelector: { matchLabels: { rack: 'a' } } })], [sriovRequest('free-1'), sriovRequest('free-2'), sriovRequest('a-1'), sriovRequest('a-2')]);
    expect(result).toEqual({
      admitted: ['kmaint/sriov-a-1', 'kmaint/sriov-a-2', 'kmaint/sriov-free-1'],
      waiting: { 'kmaint/sriov-free-2': `waiting for ${SRIOV_DEFAULT_POOL}: maxUnavailable 1, SR-IOV drains in progress: 1` },
    });
  });

  it('a node two pools select is reported, not guessed; the others go on', () => {
    const configs = [pool('rack-b', { nodeSelector: { matchLabels: { rack: 'b' } } }), pool('gpu', { nodeSelector: { matchLabels: { gpu: 'yes' } }, maxUnavailable: 5 })];
    const result = admit(configs, [sriovRequest('b-1'), sriovRequest('free-1')]);
    expect(result).toEqual({
      admitted: ['kmaint/sriov-free-1'],
      waiting: {
        'kmaint/sriov-b-1': `waiting for SR-IOV drain admission: node b-1 matches 2 pools (SriovNetworkPoolConfig ${NS}/gpu, SriovNetworkPoolConfig ${NS}/rack-b); the SR-IOV network operator refuses such a node, so kmaint does not guess its limit`,
      },
    });
  });

  it('a pool with an unusable maxUnavailable admits nothing and says why; pools of other namespaces and hardware-offload pools do not count', () => {
    const configs = [
      pool('rack-a', { nodeSelector: { matchLabels: { rack: 'a' } }, maxUnavailable: '2' }),
      pool('elsewhere', { nodeSelector: {}, maxUnavailable: 0 }, 'other'),
      pool('offload', { nodeSelector: {}, maxUnavailable: 0, ovsHardwareOffloadConfig: { name: 'mcp-offload' } }),
    ];
    const result = admit(configs, [sriovRequest('a-1'), sriovRequest('free-1')]);
    expect(result).toEqual({
      admitted: ['kmaint/sriov-free-1'],
      waiting: { 'kmaint/sriov-a-1': `waiting for SR-IOV drain admission: SriovNetworkPoolConfig ${NS}/rack-a: maxUnavailable "2" is neither an integer nor a percentage` },
    });
  });

  it('other requests are not limited by SR-IOV pools', () => {
    const other = aMaintenance({ name: 'upgrade', namespace: 'default', nodeName: 'free-2' });
    const result = admit([], [sriovRequest('free-1', 'Draining'), other]);
    expect(result).toEqual({ admitted: ['default/upgrade'], waiting: {} });
  });
});
