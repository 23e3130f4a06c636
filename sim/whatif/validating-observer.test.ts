// Issue 44 point 1 in what-if: a released request whose node validates before its uncordon is drawn `Validating` on the
// node's lane from the validation's start until the uncordon; a validation that failed and left the node cordoned is
// drawn as a span that says so, until the node is uncordoned; the attempts are kept for the report.
import { expect, it } from 'vitest';
import type { V1Node } from '@kubernetes/client-node';
import {
  ANNOTATION_CORDONED_BY,
  ANNOTATION_VALIDATION_CORDONED_BY,
  ANNOTATION_VALIDATION_FOR,
  ANNOTATION_VALIDATION_JOB,
  ANNOTATION_VALIDATION_OUTCOME,
  ANNOTATION_VALIDATION_START,
} from '../../shared/api/index.ts';
import { aMaintenance } from '../../shared/scheduling/test-builders.ts';
import type { StoreEvent } from '../apiserver/index.ts';
import { WhatIfObserver } from './observer.ts';

const LIMITS = { maxParallelOperations: 1, maxUnavailable: 'unlimited' } as const;
const JOB = 'kmaint/kmaint-validate-uid-a';

function maintenance(type: 'ADDED' | 'MODIFIED' | 'DELETED', deleting = false): StoreEvent {
  const nm = aMaintenance({ name: 'a', namespace: 'ops', nodeName: 'n1', phase: 'Ready', deleting });
  return { type, kind: { group: 'maintenance.nvidia.com', resource: 'nodemaintenances' }, object: { json: JSON.stringify(nm) }, previous: undefined } as unknown as StoreEvent;
}

function node(unschedulable: boolean, annotations: Record<string, string>): StoreEvent {
  const n: V1Node = { metadata: { name: 'n1', annotations }, spec: { unschedulable }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
  return { type: 'MODIFIED', kind: { group: '', resource: 'nodes' }, object: { json: JSON.stringify(n) }, previous: undefined } as unknown as StoreEvent;
}

/** The request Ready at 1000 ms, deleted by its requestor at 2000 ms, its node's validation issued at 3000 ms. */
function validating(): { o: WhatIfObserver; at: (ms: number) => void } {
  let now = 1000;
  const o = new WhatIfObserver(() => now, () => 'pool', () => [], () => undefined);
  o.onStoreEvent(maintenance('ADDED'));
  now = 2000;
  o.onStoreEvent(maintenance('MODIFIED', true));
  now = 3000;
  o.onStoreEvent(node(true, { [ANNOTATION_CORDONED_BY]: 'ops/a', [ANNOTATION_VALIDATION_JOB]: JOB, [ANNOTATION_VALIDATION_FOR]: 'ops/a/uid-a', [ANNOTATION_VALIDATION_START]: '2026-12-02T00:00:03Z' }));
  o.onStoreEvent(maintenance('MODIFIED', true));
  return { o, at: (ms) => (now = ms) };
}

it('draws Validating from the validation start until the uncordon after it passed', () => {
  const { o, at } = validating();
  at(33_000);
  o.onStoreEvent(node(true, { [ANNOTATION_CORDONED_BY]: 'ops/a', [ANNOTATION_VALIDATION_FOR]: 'ops/a/uid-a', [ANNOTATION_VALIDATION_OUTCOME]: 'Passed' }));
  expect(o.validations).toEqual([{ node: 'n1', request: 'ops/a', startMs: 3000, outcome: 'Passed', stayedCordoned: false }]);
  o.onStoreEvent(node(false, { [ANNOTATION_VALIDATION_FOR]: 'ops/a/uid-a', [ANNOTATION_VALIDATION_OUTCOME]: 'Passed' }));
  o.onStoreEvent(maintenance('DELETED', true));
  expect(o.validations).toEqual([{ node: 'n1', request: 'ops/a', startMs: 3000, endMs: 33_000, outcome: 'Passed', stayedCordoned: false }]);
  expect([o.done, o.requests.get('ops/a')?.releasedMs]).toEqual([true, 33_000]);
  expect(o.timeline(LIMITS, 40_000).lanes).toEqual([
    {
      node: 'n1',
      spans: [
        { request: 'ops/a', phase: 'Ready', startMs: 1000, endMs: 2000 },
        { request: 'ops/a', phase: 'deleting', startMs: 2000, endMs: 3000 },
        { request: 'ops/a', phase: 'Validating', startMs: 3000, endMs: 33_000 },
        { request: 'ops/a', phase: 'deleting', startMs: 33_000, endMs: 33_000 },
      ],
    },
  ]);
});

it('draws a failed validation that kept the node cordoned until the node is uncordoned, past the release', () => {
  const { o, at } = validating();
  at(63_000);
  // onFailure keepCordoned: the cordon record moves to the validation's; the request is released, the node stays cordoned.
  o.onStoreEvent(node(true, { [ANNOTATION_VALIDATION_CORDONED_BY]: 'ops/a', [ANNOTATION_VALIDATION_JOB]: JOB, [ANNOTATION_VALIDATION_FOR]: 'ops/a/uid-a', [ANNOTATION_VALIDATION_OUTCOME]: 'TimedOut' }));
  o.onStoreEvent(maintenance('DELETED', true));
  expect(o.validations).toEqual([{ node: 'n1', request: 'ops/a', startMs: 3000, endMs: 63_000, outcome: 'TimedOut', stayedCordoned: true }]);
  expect([o.done, o.requests.get('ops/a')?.releasedMs]).toEqual([true, 63_000]);
  const spans = [
    { request: 'ops/a', phase: 'Ready', startMs: 1000, endMs: 2000 },
    { request: 'ops/a', phase: 'deleting', startMs: 2000, endMs: 3000 },
    { request: 'ops/a', phase: 'Validating', startMs: 3000, endMs: 63_000 },
  ];
  expect(o.timeline(LIMITS, 80_000).lanes).toEqual([{ node: 'n1', spans: [...spans, { request: 'ops/a', phase: 'ValidationFailed: stayed cordoned', startMs: 63_000, endMs: 80_000 }] }]);
  at(90_000);
  o.onStoreEvent(node(false, { [ANNOTATION_VALIDATION_JOB]: JOB, [ANNOTATION_VALIDATION_FOR]: 'ops/a/uid-a', [ANNOTATION_VALIDATION_OUTCOME]: 'TimedOut' }));
  expect(o.timeline(LIMITS, 100_000).lanes).toEqual([{ node: 'n1', spans: [...spans, { request: 'ops/a', phase: 'ValidationFailed: stayed cordoned', startMs: 63_000, endMs: 90_000 }] }]);
});

it('ends Validating at the uncordon when a failed validation lets the node go (onFailure uncordon)', () => {
  const { o, at } = validating();
  at(13_000);
  o.onStoreEvent(node(true, { [ANNOTATION_CORDONED_BY]: 'ops/a', [ANNOTATION_VALIDATION_JOB]: JOB, [ANNOTATION_VALIDATION_FOR]: 'ops/a/uid-a', [ANNOTATION_VALIDATION_OUTCOME]: 'Failed' }));
  o.onStoreEvent(node(false, { [ANNOTATION_VALIDATION_JOB]: JOB, [ANNOTATION_VALIDATION_FOR]: 'ops/a/uid-a', [ANNOTATION_VALIDATION_OUTCOME]: 'Failed' }));
  o.onStoreEvent(maintenance('DELETED', true));
  expect(o.validations).toEqual([{ node: 'n1', request: 'ops/a', startMs: 3000, endMs: 13_000, outcome: 'Failed', stayedCordoned: false }]);
  expect(o.timeline(LIMITS, 20_000).lanes[0]?.spans.slice(2)).toEqual([
    { request: 'ops/a', phase: 'Validating', startMs: 3000, endMs: 13_000 },
    { request: 'ops/a', phase: 'deleting', startMs: 13_000, endMs: 13_000 },
  ]);
});
