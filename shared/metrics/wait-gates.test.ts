// Every kmaint.io/Waiting reason and every wait kind maps to its label: a new reason or kind without one fails to
// compile (the tables are exhaustive records), and a changed mapping fails here. Which reason the scheduler and the
// drainer record for each wait: shared/scheduling/waiting-on.test.ts.
import { describe, expect, it } from 'vitest';
import { WaitKind, WaitingOn } from '../api/index.ts';
import { WAIT_GATES, waitGateOf, type WaitGate } from './wait-gates.ts';

describe('waitGateOf', () => {
  it.each<[WaitingOn, WaitGate]>([
    [WaitingOn.Parallel, 'parallel'],
    [WaitingOn.Unavailable, 'unavailable'],
    [WaitingOn.Pool, 'pool'],
    [WaitingOn.Zone, 'zone'],
    [WaitingOn.Window, 'window'],
    [WaitingOn.NotBefore, 'not-before'],
    [WaitingOn.Gang, 'gang'],
    [WaitingOn.Node, 'node'],
    [WaitingOn.Config, 'config'],
    [WaitingOn.Budget, 'budget'],
    [WaitingOn.ReleaseDelay, 'other'],
    [WaitingOn.Blocker, 'other'],
    [WaitingOn.Device, 'other'],
    [WaitingOn.ExternalPool, 'other'],
    [WaitingOn.Closed, 'other'],
    [WaitingOn.NotAdmitted, 'other'],
  ])('kmaint.io/Waiting %s: %s', (on, gate) => {
    expect(waitGateOf(on)).toBe(gate);
  });

  it('covers every reason, and every label but slurm and lease (the wait kinds) comes from one', () => {
    const fromReasons = new Set(Object.values(WaitingOn).map((on) => waitGateOf(on)));
    expect(WAIT_GATES.filter((g) => !fromReasons.has(g))).toEqual(['slurm', 'lease']);
  });

  it.each<[WaitKind, WaitGate | undefined]>([
    [WaitKind.NodeLease, 'lease'],
    [WaitKind.SlurmDrain, 'slurm'],
    [WaitKind.SlinkyDrain, 'slurm'],
    [WaitKind.SlinkyJobs, 'slurm'],
    [WaitKind.SlurmProblem, 'slurm'],
    [WaitKind.DeadNode, undefined],
    [WaitKind.DeadNodeTainted, undefined],
  ])('wait kind %s: %s, before any kmaint.io/Waiting', (kind, gate) => {
    expect(waitGateOf(undefined, kind)).toBe(gate);
    // A dead node's drain held by a budget still counts as a budget wait.
    expect(waitGateOf(WaitingOn.Budget, kind)).toBe(gate ?? 'budget');
  });

  it('neither: no gate (admitted, draining freely, its own pods, Ready, or not judged yet)', () => {
    expect(waitGateOf(undefined)).toBeUndefined();
  });
});
