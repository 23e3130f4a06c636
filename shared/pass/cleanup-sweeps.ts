// Cleanup's sweeps, in one place: what no request's release (shared/lifecycle/releases.ts) covers because the request
// cannot be read or is gone. Malformed requests being deleted (released by the node's cordon record, malformed.ts),
// node-side records whose request is gone (orphan-sweep.ts), and Slurm state no live request owns (slurm/sweep.ts).
import type { V1Node } from '@kubernetes/client-node';
import type { Action, NodeMaintenance } from '../api/index.ts';
import { planOrphanSweep, type NodeOrphan } from '../lifecycle/index.ts';
import { planSlurmSweep, type SlurmContext, type SlurmWrite } from '../slurm/index.ts';
import { planMalformedReleases, type MalformedMaintenance } from './malformed.ts';

export interface SweepInputs {
  nodes: ReadonlyMap<string, V1Node>;
  nodeList: readonly V1Node[];
  maintenances: readonly NodeMaintenance[];
  malformed: readonly MalformedMaintenance[];
  /** Node-side records whose request is gone, confirmed by a second LIST (cleanup's read). */
  orphans: readonly NodeOrphan[];
  slurm: SlurmContext | undefined;
}

export interface CleanupSweeps {
  /** The malformed requests' releases, then the orphans' undo, in that order. */
  actions: Action[];
  /** Of `actions`, the orphans' node writes (their node conditions join their unit, api/write-order.ts sweepConditionsFirst). */
  orphanWrites: Action[];
  /** Malformed requests whose finalizer is removed. */
  released: number;
  /** Slurm undrains and reservation deletions or extensions. */
  slurm: SlurmWrite[];
}

/** Pure: every sweep of one cleanup pass. */
export function planCleanupSweeps(input: SweepInputs, now: Date): CleanupSweeps {
  // Requests that bypassed validation and are being deleted: released by the cordon record, never left hanging.
  const malformed = planMalformedReleases(input.malformed, input.nodeList);
  // Cordons and out-of-service taints whose request is gone (a finalizer removed by hand, a crash): undone by kmaint's record.
  const orphanWrites = planOrphanSweep(input.nodes, input.orphans);
  // Slurm state no live request owns (malformed ones own theirs too); reservations still needed are extended.
  const slurm = planSlurmSweep([...input.maintenances, ...input.malformed.map((m) => m.nm)], input.slurm, now);
  return { actions: [...malformed.actions, ...orphanWrites], orphanWrites, released: malformed.released, slurm };
}
