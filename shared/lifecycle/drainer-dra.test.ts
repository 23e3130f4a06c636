// The drainer with DRA claims: the seed's GPU-only drain evicts a pod whose GPU comes from a claim, and a drain whose
// filters match no pod while pods hold DRA devices says so in the Ready message, which later passes keep.
import type { ResourceV1ResourceClaim, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_INITIAL_UNSCHEDULABLE, DEFAULT_DRA_RESOURCE_NAMES, readyCondition, type DrainSpec } from '../api/index.ts';
import { indexClaims } from '../drain/index.ts';
import { aClaim } from '../drain/test-builders.ts';
import { planDrainer, type DrainerSnapshot } from './drainer.ts';
import { aLifecycleMaintenance, afterApplying, aNodeWithUid, aReadyPod, LATER } from './test-builders.ts';
import { NOW } from '../scheduling/test-builders.ts';

const NODE = 'worker-01';
const SEED_GPU_DRAIN: DrainSpec = { force: true, deleteEmptyDir: true, podEvictionFilters: [{ byResourceNameRegex: 'nvidia.com/gpu-*' }, { byResourceNameRegex: 'nvidia.com/rdma*' }] };

function snapshotOf(spec: DrainSpec, pods: V1Pod[], claims: ResourceV1ResourceClaim[]): DrainerSnapshot {
  const nm = aLifecycleMaintenance({ name: 'nm-1', nodeName: NODE, phase: 'Draining', annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' }, spec: { drainSpec: spec } });
  const node = aNodeWithUid({ name: NODE, unschedulable: true });
  return {
    nodes: new Map([[NODE, node]]),
    maintenances: [nm],
    podsByNode: new Map([[NODE, pods]]),
    pdbs: [],
    dra: { claims: indexClaims(claims), resourceNames: new Map(DEFAULT_DRA_RESOURCE_NAMES.map((e) => [e.driver, e.resourceNames])) },
  };
}

const draPod = aReadyPod({ name: 'trainer-7d9f-abcde', nodeName: NODE, claims: [{ name: 'gpu', generated: 'trainer-7d9f-abcde-gpu-x2x9q' }] });
const plainPod = aReadyPod({ name: 'plain', nodeName: NODE });
const gpuClaim = aClaim({ name: 'trainer-7d9f-abcde-gpu-x2x9q', devices: [`gpu.nvidia.com/${NODE}/gpu-0`], reservedFor: ['trainer-7d9f-abcde'] });

describe('drainer with DRA claims', () => {
  it('the seed GPU-only drain evicts the pod holding a gpu.nvidia.com device and leaves the plain pod', () => {
    const plan = planDrainer(snapshotOf(SEED_GPU_DRAIN, [draPod, plainPod], [gpuClaim]), NOW);
    expect(plan.actions.filter((a) => a.kind === 'evictPod').map((a) => (a.kind === 'evictPod' ? a.pod.name : ''))).toEqual(['trainer-7d9f-abcde']);
    expect(plan.becameReady).toBe(0);
  });

  it('filters matching no pod while a pod holds a DRA device: Ready, with the note; the next pass keeps it and writes nothing', () => {
    const spec: DrainSpec = { ...SEED_GPU_DRAIN, podEvictionFilters: [{ byResourceNameRegex: 'example.com/fpga' }] };
    const snapshot = snapshotOf(spec, [draPod, plainPod], [gpuClaim]);
    const plan = planDrainer(snapshot, NOW);
    const write = plan.actions.find((a) => a.kind === 'writeStatus');
    const message = write?.kind === 'writeStatus' ? readyCondition({ ...snapshot.maintenances[0]!, status: write.status })?.message : undefined;
    expect({ becameReady: plan.becameReady, message }).toEqual({
      becameReady: 1,
      message: `podEvictionFilters match no pod on the node, yet 1 pod holds DRA devices the filters do not match, left running: default/trainer-7d9f-abcde (gpu.nvidia.com/${NODE}/gpu-0)`,
    });
    // Ready's pods are not read in a real pass: the message must survive without them.
    const applied = afterApplying(snapshot, plan.actions);
    expect(planDrainer({ ...applied, podsByNode: new Map() }, LATER).actions).toEqual([]);
  });

  it('without DRA pods a drain that matches nothing ends Ready with an empty message, as before', () => {
    const plan = planDrainer(snapshotOf(SEED_GPU_DRAIN, [plainPod], []), NOW);
    const write = plan.actions.find((a) => a.kind === 'writeStatus');
    expect(write?.kind === 'writeStatus' ? write.status.conditions?.map((c) => [c.reason, c.message]) : undefined).toEqual([['Ready', '']]);
  });
});
