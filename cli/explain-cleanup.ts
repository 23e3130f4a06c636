// `kmaint explain`, cleanup: what the next cleanup pass waits on and will do for one request, read from cleanup's own
// table of releases (shared/lifecycle RELEASES, walked by walkReleases as planCleanup walks it), never re-derived here.
import type { V1Node } from '@kubernetes/client-node';
import { describeAction } from '../shared/api/index.ts';
import type { NodeMaintenance } from '../shared/api/index.ts';
import { RELEASES, walkReleases, type Medik8sLeases, type ReleaseStep, type ValidationReads } from '../shared/lifecycle/index.ts';
import { describeSlurmWrite, type SlurmContext } from '../shared/slurm/index.ts';
import { mark, type ExplainLine, type ExplainSection } from './explain-sections.ts';

export interface CleanupInput {
  maintenance: NodeMaintenance;
  nodes: readonly V1Node[];
  maxNodeMaintenanceTimeSeconds: number;
  /** spec.releaseDelaySeconds; absent: off. */
  releaseDelaySeconds?: number;
  /** The medik8s node leases as cleanup reads them; absent: not read (reads as none). */
  medik8s?: Medik8sLeases;
  /** Slurm as cleanup reads it; absent: Slurm off. */
  slurm?: SlurmContext;
  /** spec.validation and its Jobs' outcomes as cleanup reads them (issue 44); absent: validation off. */
  validation?: ValidationReads;
}

/**
 * The cleanup section: each step of `table` the walk meets that holds or writes, in table order; undefined when cleanup
 * has nothing to do for the request (a live request not due for collection). `next` only while a step holds.
 */
export function explainCleanup(input: CleanupInput, now: Date, table: readonly ReleaseStep[] = RELEASES): ExplainSection | undefined {
  const nodes = new Map(input.nodes.map((n) => [n.metadata?.name ?? '', n]));
  const reads = { nodes, maxNodeMaintenanceTimeSeconds: input.maxNodeMaintenanceTimeSeconds, ...(input.releaseDelaySeconds !== undefined ? { releaseDelaySeconds: input.releaseDelaySeconds } : {}), ...(input.medik8s ? { medik8s: input.medik8s } : {}), ...(input.slurm ? { slurm: input.slurm } : {}), ...(input.validation ? { validation: input.validation } : {}) };
  const lines: ExplainLine[] = [];
  let next: string | undefined;
  for (const { name, result } of walkReleases(input.maintenance, reads, now, table)) {
    if (result.kind === 'hold') {
      lines.push(mark('WAIT', `${name}: ${result.why}`));
      next ??= `cleanup keeps the finalizer until this is resolved (${name}): ${result.why}`;
      for (const w of result.slurm ?? []) lines.push(mark('will', describeSlurmWrite(w)));
    }
    for (const a of result.actions ?? []) lines.push(mark('will', describeAction(a)));
  }
  if (lines.length === 0) return undefined;
  return { stage: 'cleanup', title: 'cleanup (as the next cleanup pass decides)', lines, ...(next !== undefined ? { next } : {}) };
}
