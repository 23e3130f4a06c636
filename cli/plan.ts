// `kmaint plan`: a dry run of each function against the cluster as it is now. Nothing is written and no lease is
// taken; each function plans on its own, so the drainer does not see what the scheduler would admit.
import { runPass, type PassFunction, type PassLogger, type PassSummary } from '../shared/pass/index.ts';
import type { KubeClient } from '../shared/kube/index.ts';

export async function planFunctions(functions: readonly PassFunction[], opts: { client: KubeClient; namespace: string; now: () => Date; logger?: PassLogger }): Promise<PassSummary[]> {
  const summaries: PassSummary[] = [];
  for (const fn of functions) summaries.push(await runPass(fn, { ...opts, dryRun: true }));
  return summaries;
}
