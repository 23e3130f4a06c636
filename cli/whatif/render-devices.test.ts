// The what-if text report of device requests (issue 45), from simulate() on sim/whatif/fixtures/gpu-cluster.json:
// each admitted device request names the pods that held its devices, the pods that left, and whether its node stayed
// schedulable; one left unfinished names its holders beside its Ready message.
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { readSnapshotFile, simulate } from '../../sim/whatif/index.ts';
import { renderReport } from './render.ts';

const FIXTURE = fileURLToPath(new URL('../../sim/whatif/fixtures/gpu-cluster.json', import.meta.url));

it('two GPUs of gpu-01 and a node request for gpu-02: the device request line names both holders, both evicted, gpu-01 schedulable', async () => {
  const r = await simulate({ snapshot: readSnapshotFile(FIXTURE), nodes: { selector: 'kubernetes.io/hostname=gpu-02' }, devices: ['gpu.nvidia.com/gpu-01/gpu-0', 'gpu.nvidia.com/gpu-01/gpu-1'], passMs: 0 });
  const lines = renderReport(r).split('\n');
  expect(lines.filter((l) => l.startsWith('kmaint simulate:') || l.startsWith('admission order') || l.startsWith('  device request '))).toEqual([
    'kmaint simulate: a rolling maintenance of 1 node and 1 device request (2 devices) of 2 nodes (4 pods, 0 PodDisruptionBudgets; fixture: 2 GPU nodes, 4 GPUs each (DRA), 3 pods holding GPUs)',
    'admission order: gpu-01 (devices: gpu-0, gpu-1; held by: ml/holder-a, ml/holder-b) +0s, gpu-02 +30s',
    '  device request default/whatif-gpu-01-devices (gpu-01: gpu-0, gpu-1): held by ml/holder-a, ml/holder-b; evicted ml/holder-a, ml/holder-b; gpu-01 stayed schedulable',
  ]);
});

it('a device request a budget holds: its line says nothing was evicted, and the unfinished line names the holder', async () => {
  const snapshot = readSnapshotFile(FIXTURE);
  const pdb = { namespace: 'ml', name: 'train-a', selector: { matchLabels: { app: 'train-a' } }, minAvailable: 1 };
  const r = await simulate({ snapshot: { ...snapshot, podDisruptionBudgets: [pdb] }, devices: ['gpu.nvidia.com/gpu-01/gpu-0'], passMs: 0 });
  const lines = renderReport(r).split('\n');
  expect(lines.filter((l) => l.startsWith('  device request ') || l.includes('not finished:'))).toEqual([
    '  device request default/whatif-gpu-01-devices (gpu-01: gpu-0): held by ml/holder-a; evicted no pod; gpu-01 stayed schedulable',
    '  not finished: default/whatif-gpu-01-devices (gpu-01 (devices: gpu-0; held by: ml/holder-a)) Draining: draining: 1 of 1 pods left; pod ml/holder-a waits for PodDisruptionBudget ml/train-a (allows 0 disruptions: needs 1 healthy, has 1 of 1 expected): a single replica: its only pod cannot leave without breaking the budget',
  ]);
});
