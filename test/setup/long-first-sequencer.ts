// The testbed project's files in an order that keeps its wall time near the sum over files divided by the testbeds:
// the files known to take longest start first (longest-processing-time first), the rest after them in vitest's own
// order (on a fresh clone without vitest's cache, that is larger files first, which put the short-sourced but
// minutes-long CronJob files last and left one testbed working alone at the end). Times from the landing runs in
// docs/benchmarks.md ("The suite's time"); a file missing here only starts later, nothing else changes.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Longest first (seconds per file on a 2-core machine: the first figure from the landing run of 2026-12-02 07:48 with six
 * testbeds, the second, where known, from the one at b018f29 with four).
 */
export const LONG_FIRST = [
  'test/faults.test.ts', // ~182 (six testbeds) / ~127 (four)
  'test/slurm.test.ts', // ~164 / ~63
  'test/helm-pods.test.ts', // ~125 / ~109: a maintenance driven only by the chart's CronJobs (minute ticks)
  'test/cli.test.ts', // ~121 / ~75
  'test/kustomize-pods.test.ts', // ~119 / ~106: the same by infra/base's CronJobs
  'test/package.test.ts', // ~113 / ~61
  'test/sriov.test.ts', // ~107 / ~56
  'test/lifecycle.test.ts', // ~102 / ~73
  'test/hostile.test.ts', // ~95 / ~69
  'test/helm.test.ts', // ~83
  'test/switch-to-upstream.test.ts', // ~74: the real upstream operator and `kmaint takeover` both ways
  'test/attacks-slurm.test.ts', // ~74
  'test/slurm-reservation.test.ts', // ~72
  'test/reboot.test.ts', // ~70
  'test/reaper.test.ts', // ~69
  'test/repair-ladder.test.ts', // ~64
  'test/validation-ladder.test.ts', // ~42-49 (alone on one testbed, 2026-12-02): two reboot rungs, each validated
];

/**
 * Started last (~85 s): files that compare a testbed's timing with a model (what-if's makespan within 10%) run when the
 * CPU-bound unit project is done and fewer testbed files run beside them, so the machine's load is not what they measure.
 * Started right after LONG_FIRST instead (the project's wall ~50 s shorter), it failed a landing run on 2026-12-02 at
 * f97b242: it met the sim project's files, and the admission order it compares came out the other way.
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
