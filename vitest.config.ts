// Two projects: fast unit tests next to the code, and behaviour tests on a real control plane (testbed/).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['shared/**/*.test.ts', 'sim/**/*.test.ts', 'testbed/**/*.test.ts', 'cli/**/*.test.ts', 'functions/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'testbed',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/setup/testbed-global.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
