// simulate() with device requests (issue 45) on sim/whatif/fixtures/gpu-cluster.json: two GPU nodes publishing four
// GPUs each (ResourceSlices), holder-a and holder-b on gpu-01 holding gpu-0 and gpu-1 through allocated claims,
// holder-c on gpu-02 holding its gpu-0, web-1 on gpu-01 holding none. kmaint's real passes admit the request under the
// gates, write one DeviceTaintRule per device, evict only the holders, go Ready, and delete the rules on release —
// what test/device-maintenance.test.ts shows on the testbed: exactly the holder leaves, the pod on the other GPU stays,
// the node is never cordoned.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderReport } from '../../cli/whatif/render.ts';
import { readSnapshotFile, simulate, WhatIfError } from './index.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/gpu-cluster.json', import.meta.url));
/** Passes take no simulated time: the timelines below count grace periods and the round loop's waits only. */
const INSTANT = { passMs: 0 };

describe('kmaint simulate: device requests', () => {
  it('one GPU: only its holder is evicted, the pod on the other GPU and the pod without one stay, the node is never cordoned, the rule comes and goes', async () => {
    const r = await simulate({ snapshot: readSnapshotFile(FIXTURE), devices: ['gpu.nvidia.com/gpu-01/gpu-0'], ...INSTANT });
    expect(r.outcome).toBe('done');
    // holder-a's grace period is 20 s; Ready is seen at the drainer pass after it (the round loop's 500 ms wait).
    expect(r.admissionOrder).toEqual([
      {
        node: 'gpu-01',
        request: 'default/whatif-gpu-01-devices',
        admittedMs: 0,
        readyMs: 20_500,
        releasedMs: 20_500,
        devices: ['gpu.nvidia.com/gpu-01/gpu-0'],
        holders: [{ pod: 'ml/holder-a', devices: ['gpu.nvidia.com/gpu-01/gpu-0'] }],
        evicted: ['ml/holder-a'],
        nodeCordoned: false,
      },
    ]);
    expect([r.nodes, r.deviceRequests, r.makespanMs, r.idealMakespanMs, r.evictions]).toEqual([0, { requests: 1, devices: 1 }, 20_500, 20_000, 1]);
    // One rule created (v1beta2 answers 404, v1alpha3 takes it) and deleted on release; no cordon, no uncordon.
    expect(r.passes.actions).toEqual({
      patchNodeAnnotations: 2,
      writeStatus: 3,
      emitEvent: 6,
      patchNodeConditions: 4,
      patchMaintenanceMeta: 3,
      createDeviceTaintRule: 1,
      evictPod: 1,
      deleteDeviceTaintRule: 1,
    });
    expect([r.passes.apiRequests['create devicetaintrules'], r.passes.apiRequests['delete devicetaintrules'], r.passes.errors]).toEqual([2, 2, []]);
    // The timeline (the HTML report's Gantt chart) notes the devices and their holders on each span of the request.
    expect(r.timeline.lanes.map((l) => [l.node, [...new Set(l.spans.map((sp) => `${sp.request} ${sp.note ?? ''}`))]])).toEqual([['gpu-01', ['default/whatif-gpu-01-devices devices: gpu-0; held by: ml/holder-a']]]);
    // holder-a's ReplicaSet replaces it; nothing else left gpu-01.
    expect(r.activity).toEqual({ replacementsCreated: 1, podsBound: 1, podsStarted: 1, podsStopped: 1, unschedulable: 0 });
    expect(renderReport(r).split('\n').slice(0, 6)).toEqual([
      'kmaint simulate: a rolling maintenance of 1 device request (1 device) of 2 nodes (4 pods, 0 PodDisruptionBudgets; fixture: 2 GPU nodes, 4 GPUs each (DRA), 3 pods holding GPUs)',
      '  limits: maxParallelOperations 1, maxUnavailable unlimited; hold 0s, replacement pods Ready 10s after binding',
      'predicted makespan: 20.5s simulated',
      "ideal makespan:     20s (each node's longest grace period, under the limits, no budget waits)",
      'admission order: gpu-01 (devices: gpu-0; held by: ml/holder-a) +0s',
      '  device request default/whatif-gpu-01-devices (gpu-01: gpu-0): held by ml/holder-a; evicted ml/holder-a; gpu-01 stayed schedulable',
    ]);
  });
});

describe('kmaint simulate: device requests under the gates', () => {
  it('devices of two nodes: one request per node, the second admitted when the first is released (maxParallelOperations 1); a GPU no pod holds adds no eviction', async () => {
    const devices = ['gpu.nvidia.com/gpu-02/gpu-0', 'gpu.nvidia.com/gpu-01/gpu-1', 'gpu.nvidia.com/gpu-01/gpu-0', 'gpu.nvidia.com/gpu-01/gpu-3'];
    const r = await simulate({ snapshot: readSnapshotFile(FIXTURE), devices, ...INSTANT });
    expect(r.outcome).toBe('done');
    // gpu-01: holder-b's 30 s grace; gpu-02 waits for the slot, then holder-c's 30 s.
    expect(r.admissionOrder.map((a) => [a.request, a.admittedMs, a.readyMs, a.holders, a.evicted, a.nodeCordoned])).toEqual([
      [
        'default/whatif-gpu-01-devices',
        0,
        30_000,
        [
          { pod: 'ml/holder-a', devices: ['gpu.nvidia.com/gpu-01/gpu-0'] },
          { pod: 'ml/holder-b', devices: ['gpu.nvidia.com/gpu-01/gpu-1'] },
        ],
        ['ml/holder-a', 'ml/holder-b'],
        false,
      ],
      ['default/whatif-gpu-02-devices', 30_000, 60_500, [{ pod: 'ml/holder-c', devices: ['gpu.nvidia.com/gpu-02/gpu-0'] }], ['ml/holder-c'], false],
    ]);
    expect([r.deviceRequests, r.limitWaits, r.peakInProgress, r.evictions, r.makespanMs, r.idealMakespanMs]).toEqual([{ requests: 2, devices: 4 }, { requests: 1, longestMs: 30_000, meanMs: 30_000 }, 1, 3, 60_500, 60_000]);
    expect([r.passes.actions['createDeviceTaintRule'], r.passes.actions['deleteDeviceTaintRule'], r.passes.actions['evictPod'], r.passes.actions['cordonNode']]).toEqual([4, 4, 3, undefined]);
  });

  it("a budget that never lets the holder go: stuck Draining with the testbed's wait message, the holder named, nothing evicted", async () => {
    const snapshot = readSnapshotFile(FIXTURE);
    const pdb = { namespace: 'ml', name: 'train-a', selector: { matchLabels: { app: 'train-a' } }, minAvailable: 1 };
    const r = await simulate({ snapshot: { ...snapshot, podDisruptionBudgets: [pdb] }, devices: ['gpu.nvidia.com/gpu-01/gpu-0'], ...INSTANT });
    expect([r.outcome, r.evictions, r.admissionOrder[0]?.evicted, r.admissionOrder[0]?.nodeCordoned]).toEqual(['stuck', 0, [], false]);
    expect(r.unfinished).toEqual([
      {
        request: 'default/whatif-gpu-01-devices',
        node: 'gpu-01',
        phase: 'Draining',
        message: 'draining: 1 of 1 pods left; pod ml/holder-a waits for PodDisruptionBudget ml/train-a (allows 0 disruptions: needs 1 healthy, has 1 of 1 expected): a single replica: its only pod cannot leave without breaking the budget',
        devices: ['gpu.nvidia.com/gpu-01/gpu-0'],
        holders: [{ pod: 'ml/holder-a', devices: ['gpu.nvidia.com/gpu-01/gpu-0'] }],
      },
    ]);
  });

  it.each([
    ['a device no ResourceSlice publishes', ['gpu.nvidia.com/gpu-01/gpu-9'], '--devices: no ResourceSlice of the snapshot publishes gpu.nvidia.com/gpu-01/gpu-9'],
    ['an entry that is not driver/pool/device', ['gpu-0'], '--devices: "gpu-0" is not driver/pool/device'],
    ['neither nodes nor devices', [], 'nothing to maintain: give the nodes (--all-nodes, --nodes) or the devices (--devices)'],
  ])('refuses %s before any pass runs', async (_what, devices, message) => {
    await expect(simulate({ snapshot: readSnapshotFile(FIXTURE), devices, ...INSTANT })).rejects.toThrow(new WhatIfError(message));
  });
});
