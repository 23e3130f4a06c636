// drainSpec.freeDevices (issue 45 point 3): which pods the drain frees, by DRA claim, by device-plugin resource and by
// selector; which the maintenance keeps (the driver's DaemonSet, kmaint's own Jobs); pods with no device untouched.
import type { ResourceV1ResourceClaim, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DRA_RESOURCE_NAMES, type RequestDrainSpec } from '#api';
import { indexClaims, type DraView } from './claims.ts';
import { compileFreeDevices, deviceUseOf } from './device-users.ts';
import { podKey } from './pod-facts.ts';
import { selectPodsForDrain, type OwnPods } from './select-pods.ts';
import { aClaim, aPod } from './test-builders.ts';

const TABLE = new Map(DEFAULT_DRA_RESOURCE_NAMES.map((e) => [e.driver, e.resourceNames]));
const view = (claims: readonly ResourceV1ResourceClaim[]): DraView => ({ claims: indexClaims(claims), resourceNames: TABLE });
const OWN: OwnPods = { namespace: 'kmaint', serviceAccounts: ['kmaint'] };

/** A node of a driver upgrade: device users of every kind, the driver itself, kmaint's reboot Job, a plain workload. */
const PODS: V1Pod[] = [
  // A DaemonSet pod holding GPU 0 through a DRA claim (a monitoring agent).
  aPod({ name: 'dcgm-dra', namespace: 'gpu-operator', owner: 'DaemonSet', claims: [{ name: 'gpu', claim: 'dcgm-gpu' }] }),
  // A DaemonSet pod with a device-plugin GPU in its limits only.
  aPod({ name: 'exporter-limit', namespace: 'gpu-operator', owner: 'DaemonSet', limits: ['nvidia.com/gpu'] }),
  // A DaemonSet pod that opens the devices without asking (hostPath /dev): found by the user's selector.
  aPod({ name: 'hostdev-agent', namespace: 'monitoring', owner: 'DaemonSet', labels: { 'gpu.example.com/uses-devices': 'true' } }),
  // The driver DaemonSet's pod, which the upgrade itself needs: kept by the default keep.
  aPod({ name: 'nvidia-driver-daemonset-x', namespace: 'gpu-operator', owner: 'DaemonSet', labels: { app: 'nvidia-driver-daemonset' }, limits: ['nvidia.com/gpu'] }),
  // kmaint's reboot Job pod (its label, in kmaint's namespace) — even when the user's selector matches it.
  aPod({ name: 'kmaint-reboot-1', namespace: 'kmaint', owner: 'Job', labels: { 'app.kubernetes.io/name': 'kmaint', 'gpu.example.com/uses-devices': 'true' } }),
  // The same label in a tenant's namespace keeps nothing.
  aPod({ name: 'fake-kmaint', namespace: 'team-a', owner: 'DaemonSet', labels: { 'app.kubernetes.io/name': 'kmaint' }, requests: ['nvidia.com/gpu'] }),
  // A workload outside drainSpec.podSelector holding a GPU: freed whatever the selector says.
  aPod({ name: 'trainer', namespace: 'team-a', labels: { tier: 'batch' }, requests: ['nvidia.com/gpu'] }),
  // Pods with no device: the option leaves them to the normal rules (the DaemonSet one skipped, the other selected).
  aPod({ name: 'log-agent', namespace: 'monitoring', owner: 'DaemonSet' }),
  aPod({ name: 'web', namespace: 'team-a', labels: { tier: 'web' } }),
];
const CLAIMS = [aClaim({ name: 'dcgm-gpu', namespace: 'gpu-operator', devices: ['gpu.nvidia.com/worker-01/gpu-0'], reservedFor: ['dcgm-dra'] })];

const FREE_ALL: RequestDrainSpec = {
  podSelector: 'tier=web',
  freeDevices: { dra: true, resources: ['nvidia.com/gpu'], podSelector: 'gpu.example.com/uses-devices=true' },
};

const keys = (pods: readonly V1Pod[]): string[] => pods.map(podKey);

describe('selectPodsForDrain with drainSpec.freeDevices', () => {
  it('evicts the device users (DaemonSet pods by DRA claim, by limit, by selector; a workload outside podSelector), keeps the driver DaemonSet and kmaint\'s Job, and leaves pods with no device to the normal rules', () => {
    const selection = selectPodsForDrain(PODS, FREE_ALL, { dra: view(CLAIMS), ownPods: OWN });
    expect(keys(selection.evict)).toEqual([
      'gpu-operator/dcgm-dra',
      'gpu-operator/exporter-limit',
      'monitoring/hostdev-agent',
      'team-a/fake-kmaint',
      'team-a/trainer',
      'team-a/web',
    ]);
    expect(selection.freed?.map((f) => [podKey(f.pod), f.why])).toEqual([
      ['gpu-operator/dcgm-dra', 'DRA gpu.nvidia.com/worker-01/gpu-0'],
      ['gpu-operator/exporter-limit', 'resource nvidia.com/gpu'],
      ['monitoring/hostdev-agent', 'freeDevices.podSelector'],
      ['team-a/fake-kmaint', 'resource nvidia.com/gpu'],
      ['team-a/trainer', 'resource nvidia.com/gpu'],
    ]);
    // Skipped: the driver DaemonSet pod, kmaint's reboot Job pod, log-agent (a DaemonSet pod with no device).
    expect([selection.skipped, selection.refused, selection.problems, selection.totalPods]).toEqual([3, [], [], 9]);
  });

  it('without freeDevices the same node drains as before: no DaemonSet pod, only the podSelector\'s pods', () => {
    const { freeDevices: _off, ...plain } = FREE_ALL;
    const selection = selectPodsForDrain(PODS, plain, { dra: view(CLAIMS), ownPods: OWN });
    expect([keys(selection.evict), selection.freed, selection.skipped]).toEqual([['team-a/web'], undefined, 8]);
  });

  it.each([
    { rule: 'by DRA claim only', free: { dra: true }, evict: ['gpu-operator/dcgm-dra'] },
    { rule: 'dra: false frees no claim holder', free: { dra: false, resources: ['nvidia.com/gpu'] }, evict: ['gpu-operator/exporter-limit', 'team-a/fake-kmaint', 'team-a/trainer'] },
    { rule: 'by the user\'s selector only (dra: false)', free: { dra: false, podSelector: 'gpu.example.com/uses-devices=true' }, evict: ['monitoring/hostdev-agent'] },
    { rule: 'an empty podSelector selects nothing (never every pod)', free: { dra: false, podSelector: '' }, evict: [] },
    {
      rule: 'keep: [] frees the driver DaemonSet too; kmaint\'s Job stays',
      free: { resources: ['nvidia.com/gpu'], podSelector: 'gpu.example.com/uses-devices=true', keep: [] },
      evict: ['gpu-operator/dcgm-dra', 'gpu-operator/exporter-limit', 'gpu-operator/nvidia-driver-daemonset-x', 'monitoring/hostdev-agent', 'team-a/fake-kmaint', 'team-a/trainer'],
    },
    { rule: 'a keep of the user\'s replaces the default', free: { resources: ['nvidia.com/gpu'], keep: ['tier=batch'] }, evict: ['gpu-operator/dcgm-dra', 'gpu-operator/exporter-limit', 'gpu-operator/nvidia-driver-daemonset-x', 'team-a/fake-kmaint'] },
  ])('$rule', ({ free, evict }) => {
    const selection = selectPodsForDrain(PODS, { podSelector: 'none=selected', freeDevices: free }, { dra: view(CLAIMS), ownPods: OWN });
    expect(keys(selection.evict)).toEqual(evict);
  });

  it('a DaemonSet device user still meets kubectl\'s rules: emptyDir refused without deleteEmptyDir, finished deleted, terminating waited for', () => {
    const pods = [
      aPod({ name: 'scratch', owner: 'DaemonSet', requests: ['nvidia.com/gpu'], emptyDir: true }),
      aPod({ name: 'done', owner: 'DaemonSet', requests: ['nvidia.com/gpu'], phase: 'Succeeded' }),
      aPod({ name: 'going', owner: 'DaemonSet', requests: ['nvidia.com/gpu'], terminating: true }),
      aPod({ name: 'static', owner: 'Node', requests: ['nvidia.com/gpu'], mirror: true }),
    ];
    const selection = selectPodsForDrain(pods, { freeDevices: { resources: ['nvidia.com/gpu'] } });
    expect([keys(selection.evict), keys(selection.deleteFinished), keys(selection.terminating), selection.refused.map((r) => r.message), selection.skipped]).toEqual([
      [],
      ['default/done'],
      ['default/going'],
      ['cannot delete pod with local storage (emptyDir): default/scratch (use deleteEmptyDir)'],
      1,
    ]);
  });

  it('an unreadable keep selector frees nothing and says so: the drain holds rather than guess what the maintenance needs', () => {
    const selection = selectPodsForDrain(PODS, { podSelector: 'none=selected', freeDevices: { resources: ['nvidia.com/gpu'], keep: ['app in (x'] } }, { ownPods: OWN });
    expect([keys(selection.evict), selection.freed, selection.problems.length, selection.problems[0]?.startsWith('drainSpec.freeDevices.keep[0]: invalid label selector "app in (x"')]).toEqual([[], [], 1, true]);
  });
});

describe('deviceUseOf', () => {
  it('names every way a pod uses devices: DRA devices, requested or limited resources (init containers too), the selector', () => {
    const pod = aPod({ name: 'all', requests: ['nvidia.com/gpu'], initRequests: ['rdma/hca'], labels: { dev: 'yes' }, claims: [{ name: 'g', generated: 'all-g' }] });
    const claims = [aClaim({ name: 'all-g', devices: ['gpu.nvidia.com/worker-01/gpu-3'], reservedFor: ['all'] })];
    const free = compileFreeDevices({ resources: ['rdma/hca', 'nvidia.com/gpu'], podSelector: 'dev=yes' });
    expect(deviceUseOf(pod, free, view(claims))).toEqual(['DRA gpu.nvidia.com/worker-01/gpu-3', 'resource nvidia.com/gpu, rdma/hca', 'freeDevices.podSelector']);
    // A claim not reserved for the pod: the pod has not started with the device.
    expect(deviceUseOf(pod, compileFreeDevices({}), view([aClaim({ name: 'all-g', devices: ['gpu.nvidia.com/worker-01/gpu-3'] })]))).toEqual([]);
  });
});
