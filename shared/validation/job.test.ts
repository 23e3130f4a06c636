import { describe, expect, it } from 'vitest';
import { validationJobManifest } from './job.ts';

describe('validationJobManifest', () => {
  it("pins the Job to its node and tolerates kmaint's own cordon and taints, nothing else", () => {
    const manifest = validationJobManifest({
      namespace: 'kmaint',
      name: 'kmaint-validate-u1',
      nodeName: 'node-001',
      nodeUid: 'n-uid',
      request: 'team/nm-1',
      spec: { image: 'dcgm:4', command: ['dcgmi', 'diag', '-r', '2'], args: [], env: [], resources: {}, privileged: false },
    }) as { spec: { template: { spec: { nodeName: string; tolerations: unknown[]; containers: Array<{ command: string[] }> } } } };
    const pod = manifest.spec.template.spec;
    expect([pod.nodeName, pod.containers[0]?.command]).toEqual(['node-001', ['dcgmi', 'diag', '-r', '2']]);
    expect(pod.tolerations).toEqual([
      { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/out-of-service', operator: 'Exists' },
      { key: 'kmaint.io/devices-draining', operator: 'Exists', effect: 'NoSchedule' },
    ]);
  });
});
