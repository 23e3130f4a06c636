// Every wait text kmaint writes maps to its gate: the scheduler's reasons come from its own builders, so a change of
// wording there fails here instead of silently moving requests to `other`.
import { describe, expect, it } from 'vitest';
import { waitReason, waitingMessage } from '../scheduling/index.ts';
import { waitGateOf, type WaitGate } from './wait-gates.ts';

describe('waitGateOf', () => {
  it.each<[string, string, WaitGate | undefined]>([
    ['the cluster slot limit', waitingMessage(waitReason.maxParallelOperations(2, 2)), 'parallel'],
    ['the cluster availability budget', waitingMessage(waitReason.maxUnavailable(1, 1, 0)), 'unavailable'],
    ['unlimited availability still names the gate', waitingMessage(waitReason.maxUnavailable('unlimited', 1, 0)), 'unavailable'],
    ["a pool's slot limit", waitingMessage(waitReason.poolParallel('gpu', '1', 1)), 'pool'],
    ["a pool's availability limit", waitingMessage(waitReason.poolUnavailable('gpu', '1 (25% of 4 nodes)', 1, 0)), 'pool'],
    ['an invalid pool', waitingMessage(waitReason.poolInvalid('gpu', 'maxUnavailable "x" is not a number')), 'pool'],
    ["a zone's limit", waitingMessage(waitReason.zoneUnavailable('eu-1a', '1', 1, 0)), 'zone'],
    ['an invalid zone limit', waitingMessage(waitReason.zoneInvalid('eu-1a', 'bad')), 'zone'],
    ['a closed cluster window', waitingMessage(waitReason.windowClosed('cluster', '2026-01-01T02:00:00Z')), 'window'],
    ["a pool's window that never opens", waitingMessage(waitReason.windowNever('pool gpu')), 'window'],
    ["the request's own not-before", waitingMessage(waitReason.notBefore('2026-01-01T06:00:00Z')), 'not-before'],
    ['an invalid not-before', waitingMessage(waitReason.notBeforeInvalid('kmaint.io/not-before "soon" is not an RFC 3339 time (e.g. 2026-12-01T06:00:00Z)')), 'not-before'],
    ['a gang that waits for room', waitingMessage(waitReason.gangWaits('clique-a', 18, 'maxParallelOperations 8 reached (0 in progress)')), 'gang'],
    ['a gang that cannot start', waitingMessage(waitReason.gangCannotStart('clique-a', 18, 'member ns/tray-3 is missing (kmaint.io/gang-size 18, 17 requests)')), 'gang'],
    ['a gang larger than a limit', waitingMessage(waitReason.gangNeverFits('clique-a', 18, 'maxParallelOperations 8 reached')), 'gang'],
    ["a single behind a gang's held slots", waitingMessage(waitReason.gangHoldsSlots('clique-a', '2026-01-01T00:00:00Z')), 'gang'],
    ['an invalid window', waitingMessage(waitReason.windowInvalid('cluster', 'bad cron')), 'window'],
    ['a missing node', waitingMessage(waitReason.nodeNotFound('n1')), 'node'],
    ['a node another request holds', waitingMessage(waitReason.nodeTaken('n1', 'default/a')), 'node'],
    ['an invalid config', waitingMessage(waitReason.configInvalid('maxParallelOperations: -1')), 'config'],
    ['a Slurm drain (issue 10 wording)', 'waiting: Slurm node n3 draining, state ALLOCATED+DRAIN', 'slurm'],
    ["someone else's Slurm drain", 'waiting: Slurm node n2 drained by someone else ("admin: bad dimm"), state MIXED+DRAIN', 'slurm'],
    ['slurmrestd out of reach', 'waiting: slurmrestd at http://127.0.0.1:6820 cannot be reached: connect ECONNREFUSED; nothing is evicted until Slurm node n1 can be drained', 'slurm'],
    ['a worker without a Slurm node name', 'waiting: node n1 has no label slurm.node naming its Slurm node', 'slurm'],
    ['a Slurm wait inside a drain message', 'draining: 1 of 1 pods left; waiting: Slurm node n1 draining, state MIXED+DRAIN', 'slurm'],
    ['an unknown wait', 'waiting: something new', 'other'],
    ['a held medik8s node lease', 'waiting to cordon: the medik8s node lease medik8s-leases/node-n1 is held by snr until 2026-01-01T00:00:00Z', 'lease'],
    ['a pod held by a budget', 'draining: 1 of 3 pods left; pod web/api-1 waits for PodDisruptionBudget web/api (allows 0 disruptions: needs 2 healthy, has 2 of 3 expected): single replica', 'budget'],
    ['a drain refused for other reasons is no gate', 'draining: 1 of 1 pods left; refused: cannot delete pod with no controller: ops/debug (use force)', undefined],
    ['an admitted request', 'admitted: slot 1 of 2, unavailable 1 of 2', undefined],
    ['pods still to complete (its own phase)', 'waiting for 1 pod to complete: ns/job-1', undefined],
    ['no message', '', undefined],
  ])('%s', (_rule, message, gate) => {
    expect(waitGateOf(message)).toBe(gate);
  });
});
