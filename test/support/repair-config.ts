// The reaper config the repair-ladder files on the testbed share: the reaper on and writing, no new-node grace, room
// for three unhealthy nodes in the cluster and in a zone, and both predicates the one CEL expression of the failure.

/** spec.reaper with the ladder `repair`, reaping and counting a node unhealthy while `failed` holds for `unhealthyForSeconds`. */
export function repairingReaper(failed: string, unhealthyForSeconds: number, repair: Record<string, unknown>): Record<string, unknown> {
  return {
    enabled: true,
    dryRun: false,
    unhealthyForSeconds,
    newNodeGracePeriodSeconds: 0,
    maxNodesUnhealthy: 3,
    maxNodesUnhealthyInSameZone: 3,
    drainTimeoutSeconds: 60,
    reapPredicate: failed,
    unhealthyPredicate: failed,
    repair,
  };
}
