// Issue 40: with the SR-IOV protocol switched off, the problems the handshake recorded on Nodes have an owner too.
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { planSriovProblemsOff } from './sriov-off.ts';

const node = (name: string, annotations: Record<string, string> = {}): V1Node => ({ metadata: { name, resourceVersion: `rv-${name}`, annotations } });
const PROBLEM = 'kmaint.io/sriov-handshake-problem';

describe('planSriovProblemsOff', () => {
  it('drops kmaint.io/sriov-handshake-problem from each Node carrying it, in name order, and touches no other Node', () => {
    const nodes = [node('w2', { [PROBLEM]: 'NodeMaintenance x is not kmaint\'s SR-IOV request', other: 'kept' }), node('w3'), node('w1', { [PROBLEM]: '' })];
    expect(planSriovProblemsOff(nodes)).toEqual(
      ['w1', 'w2'].map((name) => ({
        kind: 'patchNodeAnnotations',
        node: { name, resourceVersion: `rv-${name}` },
        annotations: { [PROBLEM]: null },
        reason: `node ${name}: spec.nodeHandshake.protocol is no longer sriov-network-operator, so its SR-IOV handshake problem no longer applies`,
      })),
    );
  });

  it('no Node carries one: nothing (a second pass writes nothing)', () => {
    expect(planSriovProblemsOff([node('w1'), node('w2', { other: 'x' })])).toEqual([]);
  });
});
