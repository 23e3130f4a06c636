// The testbed project's files in an order that keeps its wall time near the sum over files divided by the testbeds:
// the files known to take longest start first (longest-processing-time first), the rest after them in vitest's own
// order (on a fresh clone without vitest's cache, that is larger files first, which put the short-sourced but
// minutes-long CronJob files last and left one testbed working alone at the end). Times from the landing runs in
// docs/benchmarks.md ("The suite's time"); a file missing here only starts later, nothing else changes.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Longest first (seconds per file in the landing run of 2026-12-02 at 2d04680: four testbeds, the unit project beside
 * them).
 */
export const LONG_FIRST = [
  'test/faults.test.ts', // 139
  'test/helm-pods.test.ts', // 130: a maintenance driven only by the chart's CronJobs (minute ticks)
  'test/lifecycle.test.ts', // 83
  'test/cli.test.ts', // 77
  'test/hostile.test.ts', // 76
  'test/sriov.test.ts', // 74
  'test/slurm.test.ts', // 72
  'test/helm.test.ts', // 62
  'test/slurm-reservation.test.ts', // 54
  'test/kustomize-pods.test.ts', // 54: the same by infra/base's CronJobs
  'test/repair-ladder.test.ts', // 54
  'test/reaper.test.ts', // 54
  'test/switch-to-upstream.test.ts', // 50: the real upstream operator and `kmaint takeover` both ways
  'test/reboot.test.ts', // 50
  'test/testbed-contract.test.ts', // 45
  'test/package.test.ts', // 45
  'test/validation-ladder.test.ts', // 44
  'test/attacks-input.test.ts', // 38
  'test/attacks-slurm.test.ts', // 35
];

/**
 * Started last (78 s): files that compare a testbed's timing with a model (what-if's makespan within 10%) run when the
 * CPU-bound unit project is done and fewer testbed files run beside them, so the machine's load is not what they
 * measure. Placed eighth instead (812a85e), its error grew with the load in three landing runs (-1.2%, -2.6%, -5.4% at
 * load 10) against about -1.5% last; the 55 s of wall it saves are not worth a landing run lost to it.
 */
export const LAST = ['test/whatif-testbed.test.ts'];

export function longFirst(files: readonly TestSpecification[], root: string): TestSpecification[] {
  const rank = (spec: TestSpecification): number => {
    const file = spec.moduleId.startsWith(`${root}/`) ? spec.moduleId.slice(root.length + 1) : spec.moduleId;
    if (spec.project.name !== 'testbed') return LONG_FIRST.length;
    const i = LONG_FIRST.indexOf(file);
    return i >= 0 ? i : LAST.includes(file) ? LONG_FIRST.length + 1 : LONG_FIRST.length;
  };
  // Each project's files stay together, in vitest's order of projects; within one, Array.prototype.sort is stable, so
  // files of equal rank keep vitest's order (every file of another project has the same rank).
  const groups = new Map<string, TestSpecification[]>();
  for (const spec of files) {
    const group = groups.get(spec.project.name) ?? [];
    group.push(spec);
    groups.set(spec.project.name, group);
  }
  return [...groups.values()].flatMap((group) => [...group].sort((a, b) => rank(a) - rank(b)));
}

export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return longFirst(await super.sort(files), this.ctx.config.root);
  }
}
