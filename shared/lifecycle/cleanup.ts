// The cleanup pass's pure plan: the table of releases (releases.ts) walked for every request, in namespace/name order —
// deleted requests released (uncordon if we cordoned, drop the finalizer), requests whose node is gone released, and
// stale Ready requests garbage-collected.
import type { V1Node } from '@kubernetes/client-node';
import { maintenanceKey } from '../api/index.ts';
import type { Action, NodeMaintenance } from '../api/index.ts';
import type { SlurmContext, SlurmWrite } from '../slurm/index.ts';
import type { Medik8sLeases } from './node-lease.ts';
import { RELEASES, walkReleases, type ReleaseStep } from './releases.ts';
import type { ValidationReads } from './validate-release.ts';

export interface CleanupSnapshot {
  nodes: ReadonlyMap<string, V1Node>;
  maintenances: readonly NodeMaintenance[];
  /** The medik8s node leases (read when a deleted request recorded one); undefined reads as none. */
  medik8s?: Medik8sLeases;
  /** spec.slurm when enabled (read when a deleted request recorded Slurm drains); undefined = Slurm off. */
  slurm?: SlurmContext;
  /** spec.validation and the validation Jobs (issue 44); undefined = validation off. */
  validation?: ValidationReads;
}

export interface CleanupConfig {
  maxNodeMaintenanceTimeSeconds: number;
  /** spec.releaseDelaySeconds (release-delay-hold.ts). @default 0 (off) */
  releaseDelaySeconds?: number;
  /** The field manager kmaint writes as (managedFields name it as a cordon's owner); default KMAINT_FIELD_MANAGER. */
  fieldManager?: string;
}

export interface CleanupPlan {
  actions: Action[];
  /** Undrains to send to slurmrestd. */
  slurm: SlurmWrite[];
  /** Deleted requests whose release a step holds, with what it waits on. */
  held: Array<{ key: string; why: string }>;
  released: number;
  collected: number;
  idle: boolean;
}

/** Pure: decides every release and collection for one snapshot by walking `table` (RELEASES) for each request. */
export function planCleanup(snapshot: CleanupSnapshot, config: CleanupConfig, now: Date, table: readonly ReleaseStep[] = RELEASES): CleanupPlan {
  const plan: CleanupPlan = { actions: [], slurm: [], held: [], released: 0, collected: 0, idle: true };
  const reads = { nodes: snapshot.nodes, maxNodeMaintenanceTimeSeconds: config.maxNodeMaintenanceTimeSeconds, ...(config.releaseDelaySeconds !== undefined ? { releaseDelaySeconds: config.releaseDelaySeconds } : {}), ...(snapshot.medik8s ? { medik8s: snapshot.medik8s } : {}), ...(snapshot.slurm ? { slurm: snapshot.slurm } : {}), ...(snapshot.validation ? { validation: snapshot.validation } : {}), ...(config.fieldManager !== undefined ? { fieldManager: config.fieldManager } : {}) };
  const sorted = [...snapshot.maintenances].sort((a, b) => (maintenanceKey(a) < maintenanceKey(b) ? -1 : 1));
  for (const nm of sorted) {
    for (const { result } of walkReleases(nm, reads, now, table)) {
      // A hold's Slurm writes go first: its status write (when nothing is sent) says why nothing moves.
      if (result.kind === 'hold') {
        plan.slurm.push(...(result.slurm ?? []));
        plan.held.push({ key: maintenanceKey(nm), why: result.why });
      }
      plan.actions.push(...(result.actions ?? []));
      if (result.kind === 'end' && result.counts === 'released') plan.released++;
      if (result.kind === 'end' && result.counts === 'collected') plan.collected++;
    }
  }
  return { ...plan, idle: plan.actions.length === 0 && plan.slurm.length === 0 };
}
