// Three projects: fast unit tests next to the code; the behaviour suite on real control planes (testbed/, four side by
// side by default, KMAINT_TESTBEDS=1..4), where every test/ file runs; and the same behaviour suite on the embedded simulated
// cluster (sim/), where the testbed is the judge. KMAINT_TEST_CLUSTER=testbed|sim keeps only one of the two clusters;
// unset, `vitest run` runs both. A fourth, `e2e`, exists only with KMAINT_E2E_KUBECONFIG set: the behaviour suite on
// that existing cluster, run by `npm run test:e2e` alone (`vitest run` leaves it out, see e2eProjectAsked). `npm test`
// (test/run-suite.ts) runs `unit`, `sim` and `testbed` as three vitest processes side by side; one `vitest run` runs
// the projects one after another, in sequence.groupOrder.
import { defineConfig } from 'vitest/config';
import LongFirstSequencer from './test/setup/long-first-sequencer.ts';
import { testbedCount } from './test/support/testbed-info.ts';

/** The files that must behave the same on both clusters. */
export const BEHAVIOUR_SUITE = ['test/lifecycle.test.ts', 'test/admission.test.ts', 'test/contract.test.ts', 'test/testbed-contract.test.ts'];

const CLUSTERS = ['testbed', 'sim'] as const;
const chosen = process.env['KMAINT_TEST_CLUSTER'];
if (chosen !== undefined && chosen !== '' && !(CLUSTERS as readonly string[]).includes(chosen)) {
  throw new Error(`KMAINT_TEST_CLUSTER must be one of ${CLUSTERS.join(', ')} (or unset for both), got "${chosen}"`);
}
const TESTBEDS = testbedCount();
const runs = (cluster: (typeof CLUSTERS)[number]): boolean => !chosen || chosen === cluster;

const E2E_KUBECONFIG = process.env['KMAINT_E2E_KUBECONFIG'] ?? '';
/** Whether the command line picks the e2e project (`--project e2e`, as `npm run test:e2e` does). */
const e2eProjectAsked = process.argv.some((a, i) => a === '--project=e2e' || (a === '--project' && process.argv[i + 1] === 'e2e'));
if (e2eProjectAsked && !E2E_KUBECONFIG) {
  // One line, not vitest's "no projects matched": the project exists only with the variable set.
  process.stderr.write('KMAINT_E2E_KUBECONFIG is not set: the e2e project runs the behaviour suite on the cluster of the admin kubeconfig it names\n');
  process.exit(2);
}

export default defineConfig({
  test: {
    // The testbed files known to take longest start first (test/setup/long-first-sequencer.ts).
    sequence: { sequencer: LongFirstSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          // Two workers on two cores: the unit files are CPU-bound and independent.
          maxWorkers: 2,
          // Each worker runs file after file in one process, with the modules earlier files loaded: vitest's default
          // starts a process per file, which loads the same TypeScript and packages again (335 s of import against 442 s
          // of tests in the landing run of 2026-12-02). The files share no module state: no vi.mock, fake timers,
          // environment or working-directory changes, and module-level caches keyed by what they hold (docs/development.md,
          // "The unit files share their workers"; both ways measured in docs/benchmarks.md, "The suite's time").
          isolate: false,
          include: ['shared/**/*.test.ts', 'sim/**/*.test.ts', 'soak/**/*.test.ts', 'testbed/**/*.test.ts', 'cli/**/*.test.ts', 'functions/**/*.test.ts', 'test/support/**/*.test.ts', 'charts/**/*.test.ts', 'tools/**/*.test.ts', 'slurm-testbed/**/*.test.ts', 'image/**/*.test.ts'],
          globalSetup: ['test/setup/unit-global.ts'],
          // Not vitest's 5 s: a test's time is no assertion, and a loaded machine (CI beside another job, a second
          // process on one of the two cores) stretched files that start processes past 5 s. Speed targets live in
          // the benchmarks (npm run bench:unit-speed and the others); these limits only end a test that hangs.
          testTimeout: 120_000,
          hookTimeout: 180_000,
          setupFiles: ['test/setup/file-timing.ts'],
        },
      },
      ...(runs('testbed')
        ? [
            {
              test: {
                name: 'testbed',
                // The files directly in test/ (test/support/ holds helpers and their unit tests).
                include: ['test/*.test.ts'],
                // The e2e project run as a child on a testbed: by its own script (npm run test:e2e-mode), not in npm test.
                exclude: process.env['KMAINT_TEST_E2E_MODE'] === '1' ? [] : ['test/e2e-mode.test.ts'],
                globalSetup: ['test/setup/testbed-global.ts'],
                setupFiles: ['test/setup/file-timing.ts', 'test/setup/testbed-claim.ts', 'test/setup/testbed-hygiene.ts'],
                testTimeout: 120_000,
                hookTimeout: 180_000,
                // As many files at once as testbeds (KMAINT_TESTBEDS, default 4): each worker claims a free one and keeps
                // it for its files (test/setup/testbed-claim.ts), so no two files share a control plane's nodes, config and
                // leases. Its own group, after the others.
                maxWorkers: TESTBEDS,
                // Each worker runs file after file with the modules earlier files loaded (as the unit project does): a
                // process per file loaded @kubernetes/client-node, the setup files and kmaint's modules again for every
                // file (vitest's setup figure, 2.3-5.2 s per file in the landing runs). What the files hold per file is
                // set per file: the claimed testbed (setup files run before each file), kubeconfigs keyed by path.
                isolate: false,
                sequence: { groupOrder: 2 },
              },
            },
          ]
        : []),
      ...(runs('sim')
        ? [
            {
              test: {
                name: 'sim',
                include: BEHAVIOUR_SUITE,
                globalSetup: ['test/setup/sim-global.ts'],
                // Each file starts its own embedded cluster in its worker (sim-file.ts), so the files are independent
                // and run at once: they mostly wait on simulated time (grace periods, kubectl drain's retries).
                setupFiles: ['test/setup/file-timing.ts', 'test/setup/sim-file.ts'],
                maxWorkers: BEHAVIOUR_SUITE.length,
                // A group of its own: projects sharing a group must agree on maxWorkers.
                sequence: { groupOrder: 1 },
                testTimeout: 120_000,
                hookTimeout: 180_000,
              },
            },
          ]
        : []),
      // Only when asked for by name: `vitest run` (npm test) with the variable set still runs what it ran before.
      ...(E2E_KUBECONFIG && e2eProjectAsked
        ? [
            {
              test: {
                name: 'e2e',
                include: BEHAVIOUR_SUITE,
                globalSetup: ['test/setup/e2e-global.ts'],
                // The hygiene check as on the testbed: each file must leave the shared cluster as it found it.
                setupFiles: ['test/setup/file-timing.ts', 'test/setup/testbed-claim.ts', 'test/setup/testbed-hygiene.ts'],
                // A real cluster is shared: one file at a time, in a group of its own.
                maxWorkers: 1,
                fileParallelism: false,
                sequence: { groupOrder: 3 },
                testTimeout: 120_000,
                hookTimeout: 180_000,
              },
            },
          ]
        : []),
    ],
  },
});
