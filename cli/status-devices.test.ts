// `kmaint status` and a device request (issue 45): the row carries its devices, the NODE cell names them.
import { describe, expect, it } from 'vitest';
import { aMaintenance } from '../shared/scheduling/test-builders.ts';
import { aClaim, aPod } from '../shared/drain/test-builders.ts';
import { deviceHolders, statusRow, statusRows } from './status.ts';
import { renderStatusText } from './status-render.ts';

const NOW = new Date('2026-01-01T00:00:00Z');

describe('kmaint status with a device request', () => {
  it('a device request shows its devices beside the node; a node request shows the node alone', () => {
    const device = aMaintenance({ name: 'fix-gpu', nodeName: 'gpu-01', annotations: { 'kmaint.io/devices': 'gpu.nvidia.com/gpu-01/gpu-1,gpu.nvidia.com/gpu-01/gpu-3' } });
    const node = aMaintenance({ name: 'upgrade', nodeName: 'cpu-01' });
    expect([statusRow(device, NOW).devices, statusRow(node, NOW).devices]).toEqual([['gpu.nvidia.com/gpu-01/gpu-1', 'gpu.nvidia.com/gpu-01/gpu-3'], undefined]);
    const lines = renderStatusText({ config: 'c', rows: [statusRow(device, NOW), statusRow(node, NOW)] }, { colour: false, wide: true, tty: false }).split('\n');
    expect(lines.map((l) => l.split(/\s{2,}/).slice(0, 2))).toEqual([['REQUEST', 'NODE'], ['default/fix-gpu', 'gpu-01 (devices: gpu-1, gpu-3)'], ['default/upgrade', 'cpu-01'], ['']]);
  });

  it('names the pods holding the devices: only those whose reserved claims hold one of them; none when no pod does', () => {
    const device = aMaintenance({ name: 'fix-gpu', nodeName: 'gpu-01', annotations: { 'kmaint.io/devices': 'gpu.nvidia.com/gpu-01/gpu-1,gpu.nvidia.com/gpu-01/gpu-3' } });
    const idle = aMaintenance({ name: 'idle-gpu', nodeName: 'gpu-02', annotations: { 'kmaint.io/devices': 'gpu.nvidia.com/gpu-02/gpu-0' } });
    const node = aMaintenance({ name: 'upgrade', nodeName: 'gpu-01' });
    const pods = new Map([
      ['gpu-01', [
        aPod({ name: 'train-a', namespace: 'ml', nodeName: 'gpu-01', claims: [{ name: 'gpu', claim: 'a' }] }),
        aPod({ name: 'infer-b', namespace: 'ml', nodeName: 'gpu-01', claims: [{ name: 'gpu', claim: 'b' }] }),
        aPod({ name: 'train-c', namespace: 'ml', nodeName: 'gpu-01', claims: [{ name: 'gpu', claim: 'c' }] }),
        aPod({ name: 'web', namespace: 'ml', nodeName: 'gpu-01' }),
      ]],
      ['gpu-02', [aPod({ name: 'cpu-only', namespace: 'ml', nodeName: 'gpu-02' })]],
    ]);
    const claims = [
      aClaim({ name: 'a', namespace: 'ml', devices: ['gpu.nvidia.com/gpu-01/gpu-1', 'gpu.nvidia.com/gpu-01/gpu-2'], reservedFor: ['train-a'] }),
      aClaim({ name: 'b', namespace: 'ml', devices: ['gpu.nvidia.com/gpu-01/gpu-0'], reservedFor: ['infer-b'] }),
      aClaim({ name: 'c', namespace: 'ml', devices: ['gpu.nvidia.com/gpu-01/gpu-3'], reservedFor: ['train-c'] }),
    ];
    const holders = deviceHolders([device, idle, node], pods, claims);
    expect([...holders]).toEqual([
      ['default/fix-gpu', [{ pod: 'ml/train-a', devices: ['gpu.nvidia.com/gpu-01/gpu-1'] }, { pod: 'ml/train-c', devices: ['gpu.nvidia.com/gpu-01/gpu-3'] }]],
      ['default/idle-gpu', []],
    ]);
    const lines = renderStatusText({ config: 'c', rows: statusRows([device, idle, node], NOW, { holders }) }, { colour: false, wide: true, tty: false }).split('\n');
    expect(lines.map((l) => l.split(/\s{2,}/).slice(0, 2))).toEqual([
      ['REQUEST', 'NODE'],
      ['default/fix-gpu', 'gpu-01 (devices: gpu-1, gpu-3; held by: ml/train-a, ml/train-c)'],
      ['default/idle-gpu', 'gpu-02 (devices: gpu-0; held by: no pod)'],
      ['default/upgrade', 'gpu-01'],
      [''],
    ]);
  });
});
