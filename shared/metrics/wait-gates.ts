// Which gate a waiting request waits on, read from the Ready condition message kmaint wrote on it: the scheduler's
// admission gates (shared/scheduling/wait-reasons.ts), the drainer's budget, Slurm and medik8s lease waits.
// Reading the message, not the plan, counts every request the same way whichever pass looks at it.

import { WaitKind } from '../api/index.ts';

/** Every gate in output order; `other` collects waits whose text no rule below knows. */
export const WAIT_GATES = ['parallel', 'unavailable', 'pool', 'zone', 'window', 'not-before', 'gang', 'slurm', 'budget', 'lease', 'node', 'config', 'other'] as const;
export type WaitGate = (typeof WAIT_GATES)[number];

/** Prefixes of the scheduler's wait reasons (after "waiting: "), most specific first. */
const ADMISSION_RULES: ReadonlyArray<[RegExp, WaitGate]> = [
  // "maxParallelOperations 3 reached (3 in progress)" — the cluster's slot limit.
  [/^maxParallelOperations /, 'parallel'],
  // "maxUnavailable 4 reached (…)" — the cluster's availability budget.
  [/^maxUnavailable /, 'unavailable'],
  // "pool gpu: maxParallelOperations …", "pool gpu: maxUnavailable …", "pool gpu admits nothing: …"
  [/^pool \S+(:| admits nothing)/, 'pool'],
  // "zone a: maxUnavailablePerZone …", "zone a admits nothing: …"
  [/^zone \S+(:| admits nothing)/, 'zone'],
  // "window cluster next opens at …", "window pool gpu never opens", "window … admits nothing: …"
  [/^window /, 'window'],
  // "not before 2026-12-01T06:00:00Z (kmaint.io/not-before)", "request admits nothing: kmaint.io/not-before "x" is not …"
  [/^(not before |request admits nothing: kmaint\.io\/not-before )/, 'not-before'],
  // Gangs (issue 21): "gang clique-a (18 requests) starts all at once or not at all: …", "… cannot start: …", "… is larger
  // than a limit …", and a single behind a gang's reservation: "freed slots are held for gang clique-a, waiting since …".
  [/^(gang \S+ \(\d+ requests?\) |freed slots are held for gang )/, 'gang'],
  // "node n1 not found", "another request for node n1 is in progress (ns/name)"
  [/^(node \S+ not found|another request for node )/, 'node'],
  [/^config invalid: /, 'config'],
  // The drainer's Slurm gate (shared/slurm/gate.ts): "Slurm node n3 draining, state ALLOCATED+DRAIN", "… drained by
  // someone else …", and its problems, which name Slurm somewhere ("…; nothing is evicted until Slurm node n1 can be drained").
  [/slurm/i, 'slurm'],
];

/** The gate of each drainer wait kind; the message rules below stay for admission and requests an older kmaint held. */
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
 * The gate a request with this Ready message waits on, or undefined when it does not wait on one (admitted,
 * draining freely, waiting for its own pods to complete, Ready).
 */
export function waitGateOf(message: string, kind?: WaitKind): WaitGate | undefined {
  // The drainer's waits on other systems by their kind (kmaint.io/wait-kind), not their words; a dead node is no gate
  // of its own (its drain message still counts a budget wait below).
  const byKind = kind === undefined ? undefined : KIND_GATES[kind];
  if (byKind !== undefined) return byKind;
  if (message.startsWith('waiting: ')) {
    const why = message.slice('waiting: '.length);
    for (const [rule, gate] of ADMISSION_RULES) if (rule.test(why)) return gate;
    return 'other';
  }
  // The drainer before cordoning: the medik8s node lease is held by another tool or cannot be read.
  if (message.startsWith('waiting to cordon: ')) return 'lease';
  // The drainer while draining: at least one pod is held by a PodDisruptionBudget ("pod a/b waits for PodDisruptionBudget a/pdb …").
  if (message.startsWith('draining: ') && message.includes(' waits for PodDisruptionBudget ')) return 'budget';
  // A drain message naming a Slurm wait (issue 10), e.g. "draining: …; waiting: Slurm node n1 draining …".
  if (message.includes('waiting: Slurm ')) return 'slurm';
  return undefined;
}
