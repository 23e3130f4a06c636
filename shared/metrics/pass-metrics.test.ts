// Measuring one pass: the requests as its plan leaves them, by phase and gate with their ages; drains finished;
// evictions and API errors carried through.
import { describe, expect, it } from 'vitest';
import type { Action, NodeMaintenanceStatus } from '../api/index.ts';
import { ANNOTATION_DEADLINE, ANNOTATION_DRAIN_START, ANNOTATION_WAIT_KIND, maintenanceRef, WaitKind } from '../api/index.ts';
import { aMaintenance } from '../scheduling/test-builders.ts';
import { measurePass, type PassMetrics } from './pass-metrics.ts';

const NOW = new Date('2026-01-01T00:10:00Z');
const base = { evictions: 0, evictionsRefused: 0, apiErrors: {}, now: NOW };
const empty: Omit<PassMetrics, 'requests' | 'oldestSeconds'> = { at: NOW.getTime(), waiting: {}, waitingOldestSeconds: {}, pastDeadline: 0, evictions: 0, evictionsRefused: 0, drainSeconds: [], apiErrors: {} };

describe('measurePass', () => {
  it('counts requests by phase with the age of the oldest in each, whole seconds since creation', () => {
    const m = measurePass({
      ...base,
      maintenances: [
        aMaintenance({ name: 'a', nodeName: 'n1', phase: 'Ready', created: '2026-01-01T00:00:00Z' }),
        aMaintenance({ name: 'b', nodeName: 'n2', phase: 'Ready', created: '2026-01-01T00:05:00.900Z' }),
        aMaintenance({ name: 'c', nodeName: 'n3', phase: '', created: '2026-01-01T00:09:59Z' }),
      ],
      actions: [],
    });
    expect(m).toEqual({ ...empty, requests: { Ready: 2, New: 1 }, oldestSeconds: { Ready: 600, New: 1 } });
  });

  it('counts requests past their deadline and not Ready; Ready, deleting, future, absent and invalid deadlines do not count', () => {
    const at = (deadline: string) => ({ annotations: { [ANNOTATION_DEADLINE]: deadline } });
    const m = measurePass({
      ...base,
      maintenances: [
        aMaintenance({ name: 'late', nodeName: 'n1', phase: 'Draining', created: '2026-01-01T00:00:00Z', ...at('2026-01-01T00:09:59Z') }),
        aMaintenance({ name: 'new', nodeName: 'n2', phase: '', created: '2026-01-01T00:00:00Z', ...at('2026-01-01T00:00:00Z') }),
        aMaintenance({ name: 'ready', nodeName: 'n3', phase: 'Ready', created: '2026-01-01T00:00:00Z', ...at('2026-01-01T00:05:00Z') }),
        aMaintenance({ name: 'gone', nodeName: 'n4', phase: 'Draining', created: '2026-01-01T00:00:00Z', deleting: true, ...at('2026-01-01T00:05:00Z') }),
        aMaintenance({ name: 'now', nodeName: 'n5', phase: 'Draining', created: '2026-01-01T00:00:00Z', ...at('2026-01-01T00:10:00Z') }),
        aMaintenance({ name: 'bad', nodeName: 'n6', phase: 'Draining', created: '2026-01-01T00:00:00Z', ...at('yesterday') }),
        aMaintenance({ name: 'none', nodeName: 'n7', phase: 'Draining', created: '2026-01-01T00:00:00Z' }),
      ],
      actions: [],
    });
    expect(m.pastDeadline).toBe(2);
  });

  it('reads the statuses the plan writes: a new request admitted counts as Scheduled, one left waiting by its gate', () => {
    const a = aMaintenance({ name: 'a', nodeName: 'n1', phase: '', created: '2026-01-01T00:09:00Z' });
    const b = aMaintenance({ name: 'b', nodeName: 'n2', phase: '', created: '2026-01-01T00:08:00Z' });
    const at = '2026-01-01T00:10:00Z';
    const status = (reason: string, message: string, waitingOn?: string): NodeMaintenanceStatus => ({
      conditions: [
        { type: 'Ready', status: 'False', reason, message, lastTransitionTime: at },
        ...(waitingOn === undefined ? [] : [{ type: 'kmaint.io/Waiting', status: 'True' as const, reason: waitingOn, message: '', lastTransitionTime: at }]),
      ],
    });
    const actions: Action[] = [
      { kind: 'writeStatus', target: maintenanceRef(a), status: status('Scheduled', 'admitted: slot 1 of 1'), phaseFrom: '', phaseTo: 'Scheduled', reason: 'admitted' },
      { kind: 'writeStatus', target: maintenanceRef(b), status: status('Pending', 'waiting: maxParallelOperations 1 reached (1 in progress)', 'Parallel'), phaseFrom: '', phaseTo: 'Pending', reason: 'new' },
    ];
    const m = measurePass({ ...base, maintenances: [a, b], actions });
    expect(m).toEqual({ ...empty, requests: { Scheduled: 1, Pending: 1 }, oldestSeconds: { Scheduled: 60, Pending: 120 }, waiting: { parallel: 1 }, waitingOldestSeconds: { parallel: 120 } });
  });

  it('a budget wait counts from the drain start; a drain that ends in Ready is measured from it', () => {
    const blocked = aMaintenance({ name: 'a', nodeName: 'n1', phase: 'Draining', created: '2026-01-01T00:00:00Z', message: 'draining: 1 of 1 pods left; pod x/p waits for PodDisruptionBudget x/pdb (allows 0 disruptions): single replica', waitingOn: 'Budget' });
    blocked.metadata.annotations = { [ANNOTATION_DRAIN_START]: '2026-01-01T00:07:30Z' };
    const done = aMaintenance({ name: 'b', nodeName: 'n2', phase: 'Draining', created: '2026-01-01T00:00:00Z', message: 'draining: 1 of 1 pods left' });
    done.metadata.annotations = { [ANNOTATION_DRAIN_START]: '2026-01-01T00:09:15Z' };
    // Scheduled -> Ready in one pass: the drain starts (the meta patch) and ends in the same pass.
    const quick = aMaintenance({ name: 'c', nodeName: 'n3', phase: 'Scheduled', created: '2026-01-01T00:00:00Z' });
    // No drainSpec: Ready without a drain.
    const noDrain = aMaintenance({ name: 'd', nodeName: 'n4', phase: 'WaitForPodCompletion', created: '2026-01-01T00:00:00Z' });
    const ready: NodeMaintenanceStatus = { conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-01-01T00:10:00Z' }] };
    const actions: Action[] = [
      { kind: 'writeStatus', target: maintenanceRef(done), status: ready, phaseFrom: 'Draining', phaseTo: 'Ready', reason: 'Draining -> Ready' },
      { kind: 'patchMaintenanceMeta', target: maintenanceRef(quick), annotations: { [ANNOTATION_DRAIN_START]: '2026-01-01T00:10:00Z' }, reason: 'record progress' },
      { kind: 'writeStatus', target: maintenanceRef(quick), status: ready, phaseFrom: 'Scheduled', phaseTo: 'Ready', reason: 'Scheduled -> Ready' },
      { kind: 'writeStatus', target: maintenanceRef(noDrain), status: ready, phaseFrom: 'WaitForPodCompletion', phaseTo: 'Ready', reason: 'WaitForPodCompletion -> Ready' },
    ];
    const m = measurePass({ ...base, maintenances: [blocked, done, quick, noDrain], actions, evictions: 2, evictionsRefused: 1, apiErrors: { 'create pods/eviction': 1 } });
    expect(m).toEqual({
      ...empty,
      requests: { Draining: 1, Ready: 3 },
      oldestSeconds: { Draining: 600, Ready: 600 },
      waiting: { budget: 1 },
      waitingOldestSeconds: { budget: 150 },
      evictions: 2,
      evictionsRefused: 1,
      drainSeconds: [45, 0],
      apiErrors: { 'create pods/eviction': 1 },
    });
  });

  it('reads kmaint.io/wait-kind as the pass leaves it: a Slurm wait that ends in this pass no longer counts, one that starts does', () => {
    const ending = aMaintenance({ name: 'a', nodeName: 'n1', phase: 'Draining', created: '2026-01-01T00:00:00Z', message: 'waiting: Slurm node n1 draining, state MIXED+DRAIN', annotations: { [ANNOTATION_WAIT_KIND]: WaitKind.SlurmDrain } });
    const starting = aMaintenance({ name: 'b', nodeName: 'n2', phase: 'Draining', created: '2026-01-01T00:05:00Z', message: 'draining: 1 of 1 pods left' });
    const status = (message: string): NodeMaintenanceStatus => ({ conditions: [{ type: 'Ready', status: 'False', reason: 'Draining', message, lastTransitionTime: '2026-01-01T00:10:00Z' }] });
    const actions: Action[] = [
      { kind: 'patchMaintenanceMeta', target: maintenanceRef(ending), annotations: { [ANNOTATION_WAIT_KIND]: null }, reason: 'record progress' },
      { kind: 'writeStatus', target: maintenanceRef(ending), status: status('draining: 1 of 1 pods left'), reason: 'draining' },
      { kind: 'patchMaintenanceMeta', target: maintenanceRef(starting), annotations: { [ANNOTATION_WAIT_KIND]: WaitKind.SlurmDrain }, reason: 'record progress' },
      { kind: 'writeStatus', target: maintenanceRef(starting), status: status('waiting: Slurm node n2 draining, state MIXED+DRAIN'), reason: 'slurm' },
    ];
    const m = measurePass({ ...base, maintenances: [ending, starting], actions });
    expect([m.waiting, m.waitingOldestSeconds]).toEqual([{ slurm: 1 }, { slurm: 300 }]);
  });

  it('a finalizer removed from a deleted request and a deletion without finalizers take it away; a created one is New', () => {
    const released = aMaintenance({ name: 'a', nodeName: 'n1', phase: 'Ready', deleting: true });
    const collected = aMaintenance({ name: 'b', nodeName: 'n2', phase: 'Ready' });
    const kept = aMaintenance({ name: 'c', nodeName: 'n3', phase: 'Ready', created: '2026-01-01T00:00:00Z' });
    const actions: Action[] = [
      { kind: 'patchMaintenanceMeta', target: maintenanceRef(released), removeFinalizer: true, reason: 'release' },
      { kind: 'deleteMaintenance', target: maintenanceRef(collected), reason: 'gc' },
      { kind: 'createMaintenance', target: { namespace: 'kmaint', name: 'reap-n4' }, spec: { requestorID: 'kmaint.io/reaper', nodeName: 'n4' }, labels: {}, annotations: {}, reason: 'reap' },
    ];
    const m = measurePass({ ...base, maintenances: [released, collected, kept], actions });
    expect(m).toEqual({ ...empty, requests: { Ready: 1, New: 1 }, oldestSeconds: { Ready: 600, New: 0 } });
  });

  it('a unit whose writes stopped (a conflict) is measured as read: no phase change, no drain', () => {
    const a = aMaintenance({ name: 'a', nodeName: 'n1', phase: 'Draining', created: '2026-01-01T00:00:00Z', message: 'draining: 1 of 1 pods left' });
    a.metadata.annotations = { [ANNOTATION_DRAIN_START]: '2026-01-01T00:09:00Z' };
    const b = aMaintenance({ name: 'b', nodeName: 'n2', phase: 'Draining', created: '2026-01-01T00:00:00Z', message: 'draining: 1 of 1 pods left' });
    b.metadata.annotations = { [ANNOTATION_DRAIN_START]: '2026-01-01T00:09:30Z' };
    const ready: NodeMaintenanceStatus = { conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-01-01T00:10:00Z' }] };
    const actions: Action[] = [
      { kind: 'writeStatus', target: maintenanceRef(a), status: ready, phaseFrom: 'Draining', phaseTo: 'Ready', reason: 'Draining -> Ready' },
      { kind: 'writeStatus', target: maintenanceRef(b), status: ready, phaseFrom: 'Draining', phaseTo: 'Ready', reason: 'Draining -> Ready' },
    ];
    const m = measurePass({ ...base, maintenances: [a, b], actions, stoppedUnits: ['nm/default/a'] });
    expect(m).toEqual({ ...empty, requests: { Draining: 1, Ready: 1 }, oldestSeconds: { Draining: 600, Ready: 600 }, drainSeconds: [30] });
  });

  it('leaves its inputs alone', () => {
    const nm = aMaintenance({ name: 'a', nodeName: 'n1', phase: 'Pending' });
    const before = structuredClone(nm);
    measurePass({ ...base, maintenances: [nm], actions: [{ kind: 'patchMaintenanceMeta', target: maintenanceRef(nm), annotations: { x: 'y' }, reason: 'r' }] });
    expect(nm).toEqual(before);
  });
});
