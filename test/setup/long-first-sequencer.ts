// The testbed project's files in an order that keeps its wall time near the sum over files divided by the testbeds:
// longest first (longest-processing-time first) by the seconds each took in a landing run, so no long file starts
// when the others are nearly done; the timing-sensitive what-if file placed so that it ends with the rest instead of
// running alone at the end. A file missing from the table (a new one) counts as NEW_FILE_SECONDS: among the long ones,
// so an unknown length is not left to the end. Times from the landing runs in docs/benchmarks.md ("The suite's time").
// The unit project's longest files start first too (UNIT_FILE_SECONDS): a clean clone has no vitest results cache to
// order them by.
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { testbedCount } from '../support/testbed-info.ts';

/**
 * Seconds per testbed file in a landing run (landing-ci at 7204dae, 2026-12-03 21:37 UTC, 2 cores, four testbeds, the
 * unit and sim projects beside them; npm test 344 s), but for the two files that need the upstream operator's clone
 * (switch-to-upstream, foreign-crds: skipped in CI), from a run with it.
 */
export const FILE_SECONDS: ReadonlyMap<string, number> = new Map([
  ['test/faults.test.ts', 113],
  ['test/whatif-testbed.test.ts', 77],
  ['test/cli.test.ts', 73],
  ['test/lifecycle.test.ts', 62],
  ['test/repair-ladder.test.ts', 59],
  ['test/sriov.test.ts', 49],
  ['test/switch-to-upstream.test.ts', 48],
  ['test/testbed-contract.test.ts', 45],
  ['test/slurm.test.ts', 44],
  ['test/helm.test.ts', 44],
  ['test/hostile.test.ts', 42],
  ['test/reboot.test.ts', 40],
  ['test/package.test.ts', 36],
  ['test/slurm-reservation.test.ts', 34],
  ['test/validation-ladder.test.ts', 33],
  ['test/attacks-input.test.ts', 33],
  ['test/reaper.test.ts', 30],
  ['test/rbac.test.ts', 29],
  ['test/explain.test.ts', 26],
  ['test/requestor-attacks.test.ts', 25],
  ['test/helm-pods.test.ts', 24],
  ['test/contract.test.ts', 23],
  ['test/slinky.test.ts', 23],
  ['test/device-maintenance.test.ts', 22],
  ['test/budgets-leases.test.ts', 21],
  ['test/foreign-crds.test.ts', 20],
  ['test/attacks-holds.test.ts', 18],
  ['test/attacks-slurm.test.ts', 17],
  ['test/validation.test.ts', 16],
  ['test/cloud-events.test.ts', 12],
  ['test/kustomize-pods.test.ts', 12],
  ['test/leftovers.test.ts', 12],
  ['test/wake.test.ts', 11],
  ['test/admission-policy.test.ts', 10],
  ['test/npm-pack.test.ts', 9],
  ['test/handshake.test.ts', 9],
  ['test/lambda.test.ts', 7],
  ['test/reboot-blockers.test.ts', 7],
  ['test/leftovers-jobs.test.ts', 7],
  ['test/attacks-admission.test.ts', 7],
  ['test/kube-state-metrics.test.ts', 6],
  ['test/kmaint-sim.test.ts', 6],
  ['test/reboot-sentinel.test.ts', 6],
  ['test/metrics.test.ts', 6],
  ['test/drain-devices.test.ts', 5],
  ['test/request-times.test.ts', 5],
  ['test/helm-crd.test.ts', 5],
  ['test/admission.test.ts', 4],
  ['test/named-reads.test.ts', 3],
  ['test/gangs.test.ts', 3],
  ['test/slurm-config.test.ts', 2],
]);

/**
 * The unit project's longest files: seconds of wall in npm test at 4dece9f (2026-12-03, this machine, two workers beside
 * the testbeds; the 292 files summed 781 s). With a results cache (a checkout that ran the suite before) vitest starts
 * the unit files longest first by their last run; a clean clone (CI) has none, and vitest then starts the larger files
 * first: soak/short-seed (80 s) was 268th of 294 by size and cli/bin (62 s) 171st, so they ran at the end while the other
 * worker was idle. These start first, longest first; every other unit file follows in vitest's order.
 */
export const UNIT_FILE_SECONDS: ReadonlyMap<string, number> = new Map([
  ['cli/demo.test.ts', 180],
  ['testbed/bad-input.test.ts', 106],
  ['soak/short-seed.test.ts', 80],
  ['cli/bin.test.ts', 62],
  ['sim/report/html-browser.test.ts', 27],
  ['sim/whatif/simulate.test.ts', 20],
  ['sim/kubelet/sim-kubelet.test.ts', 20],
  ['cli/kubectl-style.test.ts', 20],
  ['charts/chart.test.ts', 18],
  ['cli/whatif/whatif.test.ts', 18],
  ['cli/epipe.test.ts', 15],
  ['sim/apiserver/kmaint-pass.test.ts', 12],
  ['shared/scheduling/plan.property.test.ts', 10],
  ['sim/controllers/garbage-collector.test.ts', 10],
  ['shared/pass/planners.property.test.ts', 9],
  ['charts/monitoring.test.ts', 8],
  ['shared/scheduling/gangs-large.test.ts', 7],
]);

/** The unit project's files (paths relative to the root): those in UNIT_FILE_SECONDS first, longest first, then the rest in the order given. */
export function unitOrder(files: readonly string[]): string[] {
  const known = files.filter((f) => UNIT_FILE_SECONDS.has(f)).sort((a, b) => (UNIT_FILE_SECONDS.get(b) ?? 0) - (UNIT_FILE_SECONDS.get(a) ?? 0));
  return [...known, ...files.filter((f) => !UNIT_FILE_SECONDS.has(f))];
}

/** Where a file not in FILE_SECONDS ranks: as long as this, among the longer files. */
export const NEW_FILE_SECONDS = 60;

/**
 * Files that compare a testbed's timing with a model (what-if's makespan within 10%). Beside the CPU-bound unit project
 * its error grew with the load in three landing runs (-1.2%, -2.6%, -5.4% at load 10, placed eighth, 812a85e) against
 * -0.3% to -1.6% when it started after the unit project; placed last it ran about 77 s alone while the other testbeds
 * stood idle. It now starts when the files still queued behind it would keep every other testbed busy for as long as
 * it runs (their seconds summed at least (testbeds - 1) times its own): it runs beside three testbeds' last files, as
 * last did, after the unit project in a landing run, and ends with them.
 */
export const TIMING_SENSITIVE = ['test/whatif-testbed.test.ts'];

/** One project's files (paths relative to the root) in the order they should start on `testbeds` testbeds, by `table`'s seconds per file. */
export function testbedOrder(files: readonly string[], testbeds: number, table: ReadonlyMap<string, number> = FILE_SECONDS): string[] {
  const seconds = (file: string): number => table.get(file) ?? NEW_FILE_SECONDS;
  const rest = files.filter((f) => !TIMING_SENSITIVE.includes(f));
  // Stable: files of equal seconds keep vitest's order.
  const order = [...rest].sort((a, b) => seconds(b) - seconds(a));
  for (const file of TIMING_SENSITIVE.filter((f) => files.includes(f))) {
    const behind = (testbeds - 1) * seconds(file);
    let at = order.length;
    let queued = 0;
    while (at > 0 && queued < behind) {
      at -= 1;
      queued += seconds(order[at] ?? '');
    }
    order.splice(at, 0, file);
  }
  return order;
}

/** The testbed project's files in testbedOrder, the unit project's in unitOrder; the sim project's as vitest gives them; each project's together. */
export function longFirst(files: readonly TestSpecification[], root: string, testbeds: number): TestSpecification[] {
  const relative = (spec: TestSpecification): string => (spec.moduleId.startsWith(`${root}/`) ? spec.moduleId.slice(root.length + 1) : spec.moduleId);
  const groups = new Map<string, TestSpecification[]>();
  for (const spec of files) {
    const group = groups.get(spec.project.name) ?? [];
    group.push(spec);
    groups.set(spec.project.name, group);
  }
  return [...groups.entries()].flatMap(([project, group]) => {
    if (project !== 'testbed' && project !== 'unit') return group;
    const byFile = new Map(group.map((s) => [relative(s), s]));
    const order = project === 'testbed' ? testbedOrder([...byFile.keys()], testbeds) : unitOrder([...byFile.keys()]);
    return order.map((f) => byFile.get(f) as TestSpecification);
  });
}

export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return longFirst(await super.sort(files), this.ctx.config.root, testbedCount());
  }
}
