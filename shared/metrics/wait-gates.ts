// Which gate a waiting request waits on, for kmaint_waiting_requests{gate}: read from what kmaint recorded on the request
// in kmaint's own terms, never from its words. The drainer's waits on other systems are its kmaint.io/wait-kind; the
// scheduler's admission gates and the drainer's PodDisruptionBudget wait are the reason of its kmaint.io/Waiting
// condition, written with Ready in one status write. Reading the request, not a plan, counts every request the same way
// whichever pass looks at it.

import { WaitKind, WaitingOn } from '../api/index.ts';

/** Every gate in output order; `other` collects the waits no label below names. */
export const WAIT_GATES = ['parallel', 'unavailable', 'pool', 'zone', 'window', 'not-before', 'gang', 'slurm', 'budget', 'lease', 'node', 'config', 'other'] as const;
export type WaitGate = (typeof WAIT_GATES)[number];

/** The label of each kmaint.io/Waiting reason. */
const WAITING_ON_GATES: Readonly<Record<WaitingOn, WaitGate>> = {
  [WaitingOn.Parallel]: 'parallel',
  [WaitingOn.Unavailable]: 'unavailable',
  [WaitingOn.Pool]: 'pool',
  [WaitingOn.Zone]: 'zone',
  [WaitingOn.Window]: 'window',
  [WaitingOn.NotBefore]: 'not-before',
  [WaitingOn.Gang]: 'gang',
  [WaitingOn.Node]: 'node',
  [WaitingOn.Config]: 'config',
  [WaitingOn.Budget]: 'budget',
  [WaitingOn.ReleaseDelay]: 'other',
  [WaitingOn.Blocker]: 'other',
  [WaitingOn.Device]: 'other',
  [WaitingOn.ExternalPool]: 'other',
  [WaitingOn.Closed]: 'other',
  [WaitingOn.NotAdmitted]: 'other',
};

/** The gate of each drainer wait kind; a dead node is no gate of its own (a budget wait in its drain still counts). */
const KIND_GATES: Readonly<Record<WaitKind, WaitGate | undefined>> = {
  [WaitKind.NodeLease]: 'lease',
  [WaitKind.SlurmDrain]: 'slurm',
  [WaitKind.SlinkyDrain]: 'slurm',
  [WaitKind.SlinkyJobs]: 'slurm',
  [WaitKind.SlurmProblem]: 'slurm',
  [WaitKind.DeadNode]: undefined,
  [WaitKind.DeadNodeTainted]: undefined,
};

/**
 * The gate a request waits on, from its kmaint.io/wait-kind (`kind`, first: the drainer's wait on another system) and
 * its kmaint.io/Waiting reason (`on`); undefined when it waits on none (admitted, draining freely, waiting for its own
 * pods to complete, Ready, or not yet judged by a kmaint that writes them).
 */
export function waitGateOf(on: WaitingOn | undefined, kind?: WaitKind): WaitGate | undefined {
  const byKind = kind === undefined ? undefined : KIND_GATES[kind];
  if (byKind !== undefined) return byKind;
  return on === undefined ? undefined : WAITING_ON_GATES[on];
}
