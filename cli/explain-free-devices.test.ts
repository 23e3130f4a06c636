// `kmaint explain` on a request with drainSpec.freeDevices (issue 45 point 3): the freed DaemonSet device user is
// evicted, the driver's DaemonSet pod stays, and a note names the freed pods with why and what the taint does.
import { describe, expect, it } from 'vitest';
import { ANNOTATION_INITIAL_UNSCHEDULABLE } from '../shared/api/index.ts';
import { aLifecycleMaintenance, aReadyPod } from '../shared/lifecycle/test-builders.ts';
import { explainDrain, printSection } from './explain-sections.ts';

describe('kmaint explain: drainSpec.freeDevices', () => {
  it('evicts the DaemonSet GPU user, keeps the driver pod, says which pods it frees and why', () => {
    const maintenance = aLifecycleMaintenance({
      name: 'driver-upgrade',
      nodeName: 'gpu-01',
      phase: 'Draining',
      annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' },
      spec: { drainSpec: { podSelector: 'none=selected', freeDevices: { resources: ['nvidia.com/gpu'] } } },
    });
    const pods = [
      aReadyPod({ name: 'dcgm-exporter-x', nodeName: 'gpu-01', owner: 'DaemonSet', limits: ['nvidia.com/gpu'] }),
      aReadyPod({ name: 'nvidia-driver-daemonset-x', nodeName: 'gpu-01', owner: 'DaemonSet', labels: { app: 'nvidia-driver-daemonset' }, limits: ['nvidia.com/gpu'] }),
    ];
    expect(printSection(explainDrain({ maintenance, pods, pdbs: [], budgetPods: new Map() }))).toEqual({
      stage: 'pods',
      title: 'pods on node gpu-01 (2)',
      lines: [
        'evict default/dcgm-exporter-x (no PodDisruptionBudget)',
        'stays default/nvidia-driver-daemonset-x (not drained: DaemonSet, mirror or kmaint pod, or not selected by the drainSpec)',
        'note  drainSpec.freeDevices frees 1 device user: default/dcgm-exporter-x (resource nvidia.com/gpu); kmaint.io/devices-draining:NoSchedule keeps the DaemonSet controller from recreating the device users the drain evicts, until the request is released',
      ],
      next: 'the drainer evicts 1 pod and waits for it to go; then the request is Ready',
    });
  });
});
