// The drainer with DRA claims: the seed's GPU-only drain evicts a pod whose GPU comes from a claim, and a drain whose
// filters match no pod while pods hold DRA devices says so in the Ready message, which later passes keep.
import type { ResourceV1ResourceClaim, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_INITIAL_UNSCHEDULABLE, DEFAULT_DRA_RESOURCE_NAMES, readyCondition, type DrainSpec } from '../api/index.ts';
import { indexClaims } from '../drain/index.ts';
import { aClaim } from '../drain/test-builders.ts';
import { planDrainer, type DrainerSnapshot } from './plan-drainer.ts';
import { aLifecycleMaintenance, afterApplying, aNodeWithUid, aReadyPod, LATER, recorded } from './test-builders.ts';
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
    const plan = planDrainer(recorded(snapshotOf(SEED_GPU_DRAIN, [draPod, plainPod], [gpuClaim])), NOW);
    expect(plan.actions.filter((a) => a.kind === 'evictPod').map((a) => (a.kind === 'evictPod' ? a.pod.name : ''))).toEqual(['trainer-7d9f-abcde']);
    expect(plan.becameReady).toBe(0);
  });

  it('filters matching no pod while a pod holds a DRA device: Ready, with the note; the next pass keeps it and writes nothing', () => {
    const spec: DrainSpec = { ...SEED_GPU_DRAIN, podEvictionFilters: [{ byResourceNameRegex: 'example.com/fpga' }] };
    const snapshot = snapshotOf(spec, [draPod, plainPod], [gpuClaim]);
    const plan = planDrainer(recorded(snapshot), NOW);
    const write = plan.actions.find((a) => a.kind === 'writeStatus');
    const message = write?.kind === 'writeStatus' ? readyCondition({ ...snapshot.maintenances[0]!, status: write.status })?.message : undefined;
    expect({ becameReady: plan.becameReady, message }).toEqual({
      becameReady: 1,
      message: `podEvictionFilters match no pod on the node, yet 1 pod holds DRA devices the filters do not match, left running: default/trainer-7d9f-abcde (gpu.nvidia.com/${NODE}/gpu-0)`,
    });
    // Ready's pods are not read in a real pass: the message must survive without them.
    const applied = afterApplying(snapshot, plan.actions);
    expect(planDrainer(recorded({ ...applied, podsByNode: new Map() }), LATER).actions).toEqual([]);
  });

  it('without DRA pods a drain that matches nothing ends Ready with an empty message, as before', () => {
    const plan = planDrainer(recorded(snapshotOf(SEED_GPU_DRAIN, [plainPod], [])), NOW);
    const write = plan.actions.find((a) => a.kind === 'writeStatus');
    expect(write?.kind === 'writeStatus' ? write.status.conditions?.map((c) => [c.reason, c.message]) : undefined).toEqual([['Ready', '']]);
  });
});

describe('drainer when the pass could not read the ResourceClaims', () => {
  const PROBLEM = 'listing resourceclaims (resource.k8s.io/v1beta1): HTTP 403: forbidden';
  const OTHER = 'worker-02';
  const THIRD = 'worker-03';
  const draining = (name: string, nodeName: string, drainSpec: DrainSpec) =>
    aLifecycleMaintenance({ name, nodeName, phase: 'Draining', annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' }, spec: { drainSpec } });
  const draPodOn = (name: string, nodeName: string): V1Pod => aReadyPod({ name, nodeName, claims: [{ name: 'gpu', generated: `${name}-gpu` }] });
  const gpuPodOn = (name: string, nodeName: string): V1Pod => aReadyPod({ name, nodeName, requests: ['nvidia.com/gpu-a100'] });

  function unreadable(): DrainerSnapshot {
    return {
      nodes: new Map([NODE, OTHER, THIRD].map((n) => [n, aNodeWithUid({ name: n, unschedulable: true })])),
      maintenances: [
        // Filters and a pod with claims: the filters cannot see its devices.
        draining('nm-1', NODE, SEED_GPU_DRAIN),
        // Filters, no pod with claims: the claims change nothing here.
        draining('nm-2', OTHER, SEED_GPU_DRAIN),
        // A pod with claims, no filters: every pod goes whatever its devices.
        draining('nm-3', THIRD, { force: true }),
      ],
      podsByNode: new Map([
        [NODE, [draPodOn('trainer', NODE), gpuPodOn('gpu-user', NODE)]],
        [OTHER, [gpuPodOn('gpu-user-2', OTHER), aReadyPod({ name: 'plain-2', nodeName: OTHER })]],
        [THIRD, [draPodOn('trainer-3', THIRD)]],
      ]),
      pdbs: [],
      dra: { claims: indexClaims([]), resourceNames: new Map(DEFAULT_DRA_RESOURCE_NAMES.map((e) => [e.driver, e.resourceNames])), unreadable: PROBLEM },
    };
  }

  it('only the filtered drain of a node whose pods reference claims holds, and says why; every other drain goes on', () => {
    const snapshot = unreadable();
    const plan = planDrainer(recorded(snapshot), NOW);
    expect(plan.actions.filter((a) => a.kind === 'evictPod').map((a) => (a.kind === 'evictPod' ? `${a.maintenance.name} ${a.pod.name}` : ''))).toEqual(['nm-2 gpu-user-2', 'nm-3 trainer-3']);
    const messages = plan.actions.flatMap((a) => (a.kind === 'writeStatus' ? [[a.target.name, readyCondition({ ...snapshot.maintenances[0]!, status: a.status })?.message]] : []));
    expect(messages).toEqual([
      ['nm-1', `waiting to drain: cannot read DRA ResourceClaims (${PROBLEM}), and podEvictionFilters must see the DRA devices of default/trainer; nothing is evicted until they can be read`],
      ['nm-2', 'draining: 1 of 1 pods left'],
      ['nm-3', 'draining: 1 of 1 pods left'],
    ]);
    expect({ inFlight: plan.inFlight, becameReady: plan.becameReady }).toEqual({ inFlight: 3, becameReady: 0 });
  });

  it('the held drain writes nothing more on the next pass while the claims stay unreadable', () => {
    const snapshot = unreadable();
    const applied = afterApplying(snapshot, planDrainer(recorded(snapshot), NOW).actions);
    const held = { ...applied, maintenances: applied.maintenances.filter((nm) => nm.metadata.name === 'nm-1') };
    expect(planDrainer(recorded(held), LATER).actions).toEqual([]);
  });
});
