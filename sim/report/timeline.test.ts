// The timeline recorder: observed transitions become spans per node, repeats are no transitions, open spans end at the
// end, and counts are kept only when they change.
import { expect, it } from 'vitest';
import { TimelineRecorder } from './timeline.ts';

it('spans per node from transitions, two requests on one node in turn, an open span ending at the end', () => {
  const r = new TimelineRecorder();
  r.phase('ops/a', 'n1', 'new', 0);
  r.phase('ops/a', 'n1', 'Pending', 100);
  r.phase('ops/a', 'n1', 'Pending', 200);
  r.phase('ops/b', 'n2', 'Scheduled', 150);
  r.phase('ops/a', 'n1', 'Draining', 300);
  r.released('ops/a', 400);
  r.phase('ops/c', 'n1', 'Pending', 500);
  r.released('ops/unknown', 550);
  expect(r.timeline({ maxParallelOperations: 1, maxUnavailable: 'unlimited' }, 600).lanes).toEqual([
    {
      node: 'n1',
      spans: [
        { request: 'ops/a', phase: 'new', startMs: 0, endMs: 100 },
        { request: 'ops/a', phase: 'Pending', startMs: 100, endMs: 300 },
        { request: 'ops/a', phase: 'Draining', startMs: 300, endMs: 400 },
        { request: 'ops/c', phase: 'Pending', startMs: 500, endMs: 600 },
      ],
    },
    { node: 'n2', spans: [{ request: 'ops/b', phase: 'Scheduled', startMs: 150, endMs: 600 }] },
  ]);
});

it('counts: only changes are kept, and a second change at the same instant replaces the first', () => {
  const r = new TimelineRecorder();
  r.counts(0, 0, 0);
  r.counts(10, 0, 0);
  r.counts(20, 1, 1);
  r.counts(20, 2, 1);
  r.counts(30, 2, 1);
  r.counts(40, 0, 0);
  const t = r.timeline({ maxParallelOperations: 3, maxUnavailable: 4 });
  expect(t.counts).toEqual([
    { atMs: 0, unavailable: 0, inProgress: 0 },
    { atMs: 20, unavailable: 2, inProgress: 1 },
    { atMs: 40, unavailable: 0, inProgress: 0 },
  ]);
  expect([t.endMs, t.limits]).toEqual([40, { maxParallelOperations: 3, maxUnavailable: 4 }]);
});

it("a request's note goes on every span of it, those drawn before the note and the one still open", () => {
  const r = new TimelineRecorder();
  r.phase('ops/gpu', 'n1', 'Pending', 0);
  r.phase('ops/node', 'n2', 'Pending', 0);
  r.phase('ops/gpu', 'n1', 'Draining', 100);
  r.note('ops/gpu', 'devices: gpu-0; held by: ml/a');
  expect(r.timeline({ maxParallelOperations: 2, maxUnavailable: 'unlimited' }, 300).lanes).toEqual([
    {
      node: 'n1',
      spans: [
        { request: 'ops/gpu', phase: 'Pending', startMs: 0, endMs: 100, note: 'devices: gpu-0; held by: ml/a' },
        { request: 'ops/gpu', phase: 'Draining', startMs: 100, endMs: 300, note: 'devices: gpu-0; held by: ml/a' },
      ],
    },
    { node: 'n2', spans: [{ request: 'ops/node', phase: 'Pending', startMs: 0, endMs: 300 }] },
  ]);
});
