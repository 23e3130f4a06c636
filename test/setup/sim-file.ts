// Vitest setup file of the sim project: each behaviour test file gets its own embedded simulated cluster in its own
// worker, so the files run in parallel without sharing nodes, the kmaint config or pass leases.
import { afterAll } from 'vitest';
import { useFileCluster } from '../support/cluster.ts';
import { startSimForTests } from './sim-cluster.ts';

const sim = await startSimForTests();
useFileCluster(sim);
afterAll(async () => {
  await sim.stop();
});
