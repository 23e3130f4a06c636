// Three projects: fast unit tests next to the code; the behaviour suite on a real control plane (testbed/), where
// every test/ file runs; and the same behaviour suite on the embedded simulated cluster (sim/), where the testbed is
// the judge. KMAINT_TEST_CLUSTER=testbed|sim keeps only one of the two clusters; unset, `vitest run` runs both.
import { defineConfig } from 'vitest/config';

/** The files that must behave the same on both clusters. */
export const BEHAVIOUR_SUITE = ['test/lifecycle.test.ts', 'test/admission.test.ts', 'test/contract.test.ts', 'test/testbed-contract.test.ts'];

const CLUSTERS = ['testbed', 'sim'] as const;
const chosen = process.env['KMAINT_TEST_CLUSTER'];
if (chosen !== undefined && chosen !== '' && !(CLUSTERS as readonly string[]).includes(chosen)) {
  throw new Error(`KMAINT_TEST_CLUSTER must be one of ${CLUSTERS.join(', ')} (or unset for both), got "${chosen}"`);
}
const runs = (cluster: (typeof CLUSTERS)[number]): boolean => !chosen || chosen === cluster;

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          // Two workers on two cores: the unit files are CPU-bound and independent.
          maxWorkers: 2,
          include: ['shared/**/*.test.ts', 'sim/**/*.test.ts', 'testbed/**/*.test.ts', 'cli/**/*.test.ts', 'functions/**/*.test.ts'],
        },
      },
      ...(runs('testbed')
        ? [
            {
              test: {
                name: 'testbed',
                include: ['test/**/*.test.ts'],
                globalSetup: ['test/setup/testbed-global.ts'],
                setupFiles: ['test/setup/file-timing.ts', 'test/setup/testbed-hygiene.ts'],
                testTimeout: 120_000,
                hookTimeout: 180_000,
                // The same group as unit, so the same maxWorkers; fileParallelism keeps its files one at a time.
                maxWorkers: 2,
                // One shared control plane: files would race for its nodes, config and leases. Vitest runs such a
                // project on its own, after the others.
                fileParallelism: false,
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
    ],
  },
});
