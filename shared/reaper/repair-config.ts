// spec.reaper.repair resolved once per pass: each rung's CEL compiled and type-checked, defaults filled. A rung whose
// CEL does not compile, or an empty ladder, is a problem naming its field: the reaper stops (fail closed).
import type { z } from 'zod';
import type { repairSchema } from '#api';
import { compilePredicate, type Predicate } from './cel.ts';

export type Remedy = 'reboot' | 'replace' | 'quarantine';

export interface RepairRung {
  /** Which Nodes this rung applies to (CEL over the Node, as reapPredicate). */
  when: Predicate;
  remedy: Remedy;
  /** Reboot rungs: how long the Node may stay unhealthy after its reboot before the next rung. */
  timeoutSeconds: number;
}

export interface RepairConfig {
  /** In order; never empty. */
  ladder: readonly RepairRung[];
  /** The most reaper requests in progress at once per pool. @default 1 */
  maxConcurrentPerPool: number;
  /** The Node label naming its pool. @default kmaint.io/pool */
  poolLabel: string;
  /** @default 604800 (7 days) */
  historyWindowSeconds: number;
  /** More repairs than this within the window skip reboot rungs. @default 2 */
  repeatLimit: number;
}

/** Resolves `spec` (already schema-checked); problems name their field under spec.reaper.repair. */
export function loadRepairConfig(spec: z.infer<typeof repairSchema>, problems: string[]): RepairConfig | undefined {
  if (spec.ladder.length === 0) {
    problems.push('spec.reaper.repair.ladder: at least one rung is needed');
    return undefined;
  }
  const ladder: RepairRung[] = [];
  for (const [i, rung] of spec.ladder.entries()) {
    const compiled = compilePredicate(rung.when ?? 'true');
    if (!compiled.ok) {
      problems.push(`spec.reaper.repair.ladder[${i}].when: ${compiled.error}`);
      continue;
    }
    ladder.push({ when: compiled.predicate, remedy: rung.remedy, timeoutSeconds: rung.timeoutSeconds ?? 600 });
  }
  if (ladder.length !== spec.ladder.length) return undefined;
  return {
    ladder,
    maxConcurrentPerPool: spec.maxConcurrentPerPool ?? 1,
    poolLabel: spec.poolLabel ?? 'kmaint.io/pool',
    historyWindowSeconds: spec.historyWindowSeconds ?? 604800,
    repeatLimit: spec.repeatLimit ?? 2,
  };
}
