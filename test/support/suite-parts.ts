// The parts `npm test` runs at once (test/run-suite.ts): each a `vitest run` of some of vitest.config.ts's projects.

export interface Part {
  label: string;
  args: string[];
  /**
   * The process's niceness (0 none, up to 19): beside the testbed project, the unit and sim projects yield the CPU
   * to it. The testbed project is the longer one and its control planes want both cores; the unit files fill what it
   * leaves (docs/benchmarks.md, "Seventh session").
   */
  nice: number;
}

/** The unit and sim parts' niceness beside the testbed part. */
export const NICE_BESIDE_TESTBED = 5;

/**
 * The parts of a whole run, each its own vitest process, all at once: `unit`, `sim` (the behaviour suite on the
 * embedded cluster, which mostly waits on its simulated clock, beside the CPU-bound unit files rather than after them)
 * and `testbed`. KMAINT_TEST_CLUSTER keeps one cluster project, as vitest.config.ts does; KMAINT_UNIT_NICE (0-19)
 * replaces NICE_BESIDE_TESTBED.
 */
export function suiteParts(cluster: string | undefined, unitNice?: string): Part[] {
  if (cluster && cluster !== 'sim' && cluster !== 'testbed') throw new Error(`KMAINT_TEST_CLUSTER must be one of testbed, sim (or unset for both), got "${cluster}"`);
  const niceBeside = unitNice === undefined || unitNice === '' ? NICE_BESIDE_TESTBED : Number(unitNice);
  if (!Number.isInteger(niceBeside) || niceBeside < 0 || niceBeside > 19) throw new Error(`KMAINT_UNIT_NICE must be a whole number from 0 to 19, got "${unitNice ?? ''}"`);
  const sim = !cluster || cluster === 'sim';
  const testbed = !cluster || cluster === 'testbed';
  const nice = testbed ? niceBeside : 0;
  const parts: Part[] = [{ label: 'unit', args: ['run', '--project', 'unit'], nice }];
  if (sim) parts.push({ label: 'sim', args: ['run', '--project', 'sim'], nice });
  if (testbed) parts.push({ label: 'testbed', args: ['run', '--project', 'testbed'], nice: 0 });
  return parts;
}
