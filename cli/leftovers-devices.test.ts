// kmaint leftovers and drainSpec.freeDevices' taint (issue 45 point 3): found by its record, removed with it by --fix,
// another party's taint kept; a taint of that key without kmaint's record is not kmaint's.
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { planLeftovers } from './leftovers.ts';

function node(name: string, annotations: Record<string, string>, taints: Array<{ key: string; value?: string; effect: string }>): V1Node {
  return { metadata: { name, resourceVersion: `rv-${name}`, annotations }, spec: { taints }, status: { conditions: [] } };
}

describe('kmaint leftovers: the devices-draining taint', () => {
  const nodes = [
    node('gpu-1', { 'kmaint.io/devices-draining-by': 'kmaint/team/driver-upgrade' }, [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }, { key: 'kmaint.io/devices-draining', effect: 'NoSchedule' }]),
    node('gpu-2', {}, [{ key: 'kmaint.io/devices-draining', effect: 'NoSchedule' }]),
  ];
  const plan = planLeftovers({ nodes, maintenances: [], leases: [], kmaintNamespace: 'kmaint' });

  it('lists the record and the taint where kmaint recorded it, nothing where it did not', () => {
    expect(plan.found.map((l) => [l.object, l.record, l.owner, l.value])).toEqual([
      ['Node/gpu-1', 'kmaint.io/devices-draining-by', 'kmaint', 'kmaint/team/driver-upgrade'],
      ['Node/gpu-1', 'taint kmaint.io/devices-draining', 'kmaint', ':NoSchedule'],
    ]);
  });

  it('--fix removes both in one node write and keeps the other taint', () => {
    expect(plan.actions.map((a) => (a.kind === 'setNodeTaints' ? [a.node.name, a.taints, a.annotations, a.reason] : [a.kind]))).toEqual([
      ['gpu-1', [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }], { 'kmaint.io/devices-draining-by': null }, 'orphaned kmaint.io/devices-draining taint: kmaint added it for team/driver-upgrade, which no longer exists'],
    ]);
  });
});
