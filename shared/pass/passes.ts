// The pass registry: one row per function (pass-<function>.ts), each what it reads beyond the base snapshot, its pure
// plan, and the two facts runPass needs about it. runPass, chaining and the summary read the plan's state; none of
// them branch on the name. A new function is a row here, a file beside it, and a name in PASS_FUNCTIONS.
import type { PassOptions } from './options.ts';
import { CLEANUP_PASS, type CleanupReads } from './pass-cleanup.ts';
import type { PassDefinition, PassPlan, PlanInput } from './pass-definition.ts';
import { DRAINER_PASS, type DrainerReads } from './pass-drainer.ts';
import { REAPER_PASS } from './pass-reaper.ts';
import { SCHEDULER_PASS, type SchedulerReads } from './pass-scheduler.ts';
import type { ReaperReads } from './reaper-pass.ts';
import type { BaseSnapshot } from './snapshot.ts';
import type { PassFunction } from './summary.ts';

export type { PassDefinition, PassPlan, PassStart, PlanInput, PlanState } from './pass-definition.ts';

/** Each function's own reads, the type its `read` returns and its `plan` takes. */
interface PassReads {
  scheduler: SchedulerReads;
  drainer: DrainerReads;
  cleanup: CleanupReads;
  reaper: ReaperReads;
}

/** The four functions, in the order a round runs them. */
export const PASSES: { readonly [F in PassFunction]: PassDefinition<PassReads[F]> } = {
  scheduler: SCHEDULER_PASS,
  drainer: DRAINER_PASS,
  cleanup: CLEANUP_PASS,
  reaper: REAPER_PASS,
};

/** Reads and plans one function on `base`: the registry entry of `fn`, typed by its own reads. */
export async function planPass<F extends PassFunction>(fn: F, opts: PassOptions, base: BaseSnapshot, input: Omit<PlanInput<PassReads[F]>, 'reads' | 'base'>): Promise<PassPlan> {
  const pass: PassDefinition<PassReads[F]> = PASSES[fn];
  const reads = await pass.read(opts, base, input.config);
  return pass.plan({ ...input, base, reads });
}
