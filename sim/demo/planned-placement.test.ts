// Issue 42: `kmaint demo --seed N` makes the same choices on every run — which nodes get requests, by which
// requestor, in which order, for how long — because the plan is read from the generated cluster placed by the
// scheduler's pure planner, not from the live pods whose placement depends on timing.
import { describe, expect, it } from 'vitest';
import { generateCluster } from '../generator/index.ts';
import { demoPlan, plannedPlacement } from './planned-placement.ts';

const picks = (seed: number): string[] =>
  demoPlan(generateCluster({ profile: 'demo', seed })).requests.map((r) => `${r.namespace}/${r.name} ${r.spec.requestorID} ${r.spec.nodeName} ${r.holdMs}`);

describe('demoPlan', () => {
  it('makes the same picks, in the same order, on two runs with one seed, and other picks with another seed', () => {
    const first = picks(1);
    expect(picks(1)).toEqual(first);
    expect(first).toEqual([
      'default/my-maintenance-operation some.one.acme.com node-020 300000',
      'default/os-upgrade-node-003 os-upgrade.acme.com node-003 122000',
      'default/os-upgrade-node-005 os-upgrade.acme.com node-005 201000',
      'default/os-upgrade-node-006 os-upgrade.acme.com node-006 211000',
      'default/os-upgrade-node-007 os-upgrade.acme.com node-007 164000',
      'default/os-upgrade-node-008 os-upgrade.acme.com node-008 184000',
      'default/os-upgrade-node-009 os-upgrade.acme.com node-009 186000',
      'default/os-upgrade-node-011 os-upgrade.acme.com node-011 163000',
      'default/os-upgrade-node-019 os-upgrade.acme.com node-019 232000',
    ]);
    expect(demoPlan(generateCluster({ profile: 'demo', seed: 1 })).preCordoned).toBe('node-006');
    const other = picks(2);
    expect(picks(2)).toEqual(other);
    expect(other.map((p) => p.split(' ')[2])).toEqual(['node-020', 'node-003', 'node-005', 'node-007', 'node-008', 'node-010', 'node-012', 'node-014', 'node-018']);
    expect(other).not.toEqual(first);
  });

  it('places every Deployment and StatefulSet replica, whatever order the workloads come in', () => {
    const cluster = generateCluster({ profile: 'demo', seed: 1 });
    const replicas = [...cluster.workloads.deployments, ...cluster.workloads.statefulSets].reduce((n, w) => n + (w.spec?.replicas ?? 1), 0);
    const placed = plannedPlacement(cluster);
    const owned = placed.filter((p) => ['ReplicaSet', 'StatefulSet'].includes(p.metadata?.ownerReferences?.[0]?.kind ?? ''));
    expect(owned.length).toBe(replicas);
    expect(owned.every((p) => (p.spec?.nodeName ?? '') !== '')).toBe(true);
    const reversed = { ...cluster, workloads: { ...cluster.workloads, deployments: [...cluster.workloads.deployments].reverse(), statefulSets: [...cluster.workloads.statefulSets].reverse() } };
    const where = (pods: typeof placed): string[] => pods.map((p) => `${p.metadata?.namespace}/${p.metadata?.name} ${p.spec?.nodeName}`).sort();
    expect(where(plannedPlacement(reversed))).toEqual(where(placed));
  });
});
