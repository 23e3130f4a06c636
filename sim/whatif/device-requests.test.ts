// Issue 45: what-if shows a device request as such: its devices named in the admission order and among the requests
// left; its node never cordoned, yet counted unavailable while the request is in progress (as maxUnavailable counts it).
import type { V1Node } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { loadLimits } from '../../shared/config/index.ts';
import { aMaintenance } from '../../shared/scheduling/test-builders.ts';
import { renderReport } from '../../cli/whatif/render.ts';
import type { StoreEvent } from '../apiserver/index.ts';
import { WhatIfObserver } from './observer.ts';
import { PassTally, summarise } from './report.ts';

const GPUS = { 'kmaint.io/devices': 'gpu.nvidia.com/gpu-01/gpu-1,gpu.nvidia.com/gpu-01/gpu-3' };

function event(type: 'ADDED' | 'MODIFIED', name: string, nodeName: string, phase: string, annotations: Record<string, string> = GPUS, message?: string): StoreEvent {
  const nm = aMaintenance({ name, namespace: 'ops', nodeName, phase, annotations, ...(message !== undefined ? { message } : {}) });
  return { type, kind: { group: 'maintenance.nvidia.com', resource: 'nodemaintenances' }, object: { json: JSON.stringify(nm) }, previous: undefined } as unknown as StoreEvent;
}

const node = (name: string): V1Node => ({ metadata: { name }, spec: {}, status: { conditions: [{ type: 'Ready', status: 'True' }] } });

it('names the devices of a device request, counts its schedulable node unavailable while in progress, and lists it when left', () => {
  let now = 1000;
  const o = new WhatIfObserver(() => now, () => 'gpu', () => [], () => undefined);
  o.seedNodes([node('gpu-01'), node('gpu-02')]);
  expect(o.peakUnavailable).toBe(0);
  o.onStoreEvent(event('ADDED', 'fix-gpu', 'gpu-01', 'Pending'));
  o.onStoreEvent(event('ADDED', 'bad', 'gpu-02', 'Pending', { 'kmaint.io/devices': 'gpu-0' }, 'waiting: kmaint.io/devices cannot be read'));
  now = 3000;
  o.onStoreEvent(event('MODIFIED', 'fix-gpu', 'gpu-01', 'Scheduled'));
  expect(o.requests.get('ops/fix-gpu')).toEqual({ key: 'ops/fix-gpu', node: 'gpu-01', createdMs: 1000, admittedMs: 3000, devices: ['gpu.nvidia.com/gpu-01/gpu-1', 'gpu.nvidia.com/gpu-01/gpu-3'], evicted: [], nodeCordoned: false });
  expect(o.requests.get('ops/bad')).toEqual({ key: 'ops/bad', node: 'gpu-02', createdMs: 1000, devices: [], evicted: [], nodeCordoned: false });
  // The Node itself was never cordoned (no Node event made it unschedulable): the request alone counts it.
  expect([o.inMaintenance('gpu-01'), o.peakUnavailable, [...o.poolPeak]]).toEqual([true, 1, [['gpu', 1]]]);

  const report = summarise({
    snapshot: { source: 'test', nodes: 2, pods: 0, budgets: 0 },
    chosen: ['gpu-01', 'gpu-02'],
    loaded: loadLimits(undefined, 2),
    observer: o,
    cluster: { replacementsCreated: 0, podsBound: 0, podsStarted: 0, podsStopped: 0, unschedulable: 0 },
    ideal: 0,
    stopped: 'stuck',
    simMs: 4000,
    wallMs: 10,
    loadMs: 1,
    rounds: 3,
    skipped: 0,
    passes: new PassTally(),
    open: [{ request: 'ops/bad', node: 'gpu-02', phase: 'Pending', message: 'waiting: kmaint.io/devices cannot be read', devices: [] }],
    settings: { holdMs: 0, podStartMs: 10_000, passMs: 100, transport: 'local' },
    topBudgets: 5,
  });
  expect(report.admissionOrder).toEqual([{ node: 'gpu-01', request: 'ops/fix-gpu', admittedMs: 3000, devices: ['gpu.nvidia.com/gpu-01/gpu-1', 'gpu.nvidia.com/gpu-01/gpu-3'], evicted: [], nodeCordoned: false }]);
  const lines = renderReport(report).split('\n');
  expect(lines.filter((l) => l.startsWith('admission order') || l.startsWith('peak') || l.includes('not finished:'))).toEqual([
    'admission order: gpu-01 (devices: gpu-1, gpu-3) +3s',
    'peak unavailable nodes by pool: gpu 1 (cluster 1; 1 in maintenance at most)',
    '  not finished: ops/bad (gpu-02 (devices: unreadable)) Pending: waiting: kmaint.io/devices cannot be read',
  ]);
});
