// `kmaint status` and a device request (issue 45): the row carries its devices, the NODE cell names them.
import { describe, expect, it } from 'vitest';
import { aMaintenance } from '../shared/scheduling/test-builders.ts';
import { statusRow } from './status.ts';
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
});
