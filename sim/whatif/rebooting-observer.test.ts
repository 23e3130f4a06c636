// Issue 43 follow-up: the what-if observer takes a request in Rebooting (as a snapshot of a live cluster may hold one)
// as in progress with its drain begun, not Ready, and draws it in its own phase.
import { expect, it } from 'vitest';
import { PHASE_REBOOTING } from '../../shared/api/index.ts';
import { aMaintenance } from '../../shared/scheduling/test-builders.ts';
import type { StoreEvent } from '../apiserver/index.ts';
import { WhatIfObserver } from './observer.ts';

function event(type: 'ADDED' | 'MODIFIED', phase: string): StoreEvent {
  const nm = aMaintenance({ name: 'a', namespace: 'ops', nodeName: 'n1', phase });
  return { type, kind: { group: 'maintenance.nvidia.com', resource: 'nodemaintenances' }, object: { json: JSON.stringify(nm) }, previous: undefined } as unknown as StoreEvent;
}

it('counts a Rebooting request in progress, its drain begun when first seen, Ready only once it is', () => {
  let now = 1000;
  const ready: string[] = [];
  const o = new WhatIfObserver(() => now, () => 'pool', () => [], (nm) => ready.push(nm.metadata.name));
  o.onStoreEvent(event('ADDED', PHASE_REBOOTING));
  expect(o.requests.get('ops/a')).toEqual({ key: 'ops/a', node: 'n1', createdMs: 1000, admittedMs: 1000, drainStartMs: 1000 });
  expect([o.inMaintenance('n1'), o.peakInProgress, ready]).toEqual([true, 1, []]);
  now = 5000;
  o.onStoreEvent(event('MODIFIED', 'Ready'));
  expect(o.requests.get('ops/a')).toEqual({ key: 'ops/a', node: 'n1', createdMs: 1000, admittedMs: 1000, drainStartMs: 1000, readyMs: 5000 });
  expect(ready).toEqual(['a']);
  expect(o.timeline({ maxParallelOperations: 1, maxUnavailable: 'unlimited' }, 6000).lanes).toEqual([
    { node: 'n1', spans: [{ request: 'ops/a', phase: 'Rebooting', startMs: 1000, endMs: 5000 }, { request: 'ops/a', phase: 'Ready', startMs: 5000, endMs: 6000 }] },
  ]);
});
