// The parts `npm test` runs at once (test/run-suite.ts): each a `vitest run` of some of vitest.config.ts's projects.

export interface Part {
  label: string;
  args: string[];
}

/** The parts of a whole run: KMAINT_TEST_CLUSTER keeps one cluster project, as vitest.config.ts does. */
export function suiteParts(cluster: string | undefined): Part[] {
  if (cluster && cluster !== 'sim' && cluster !== 'testbed') throw new Error(`KMAINT_TEST_CLUSTER must be one of testbed, sim (or unset for both), got "${cluster}"`);
  const parts: Part[] = [];
  const sim = !cluster || cluster === 'sim';
  const testbed = !cluster || cluster === 'testbed';
  parts.push({ label: sim ? 'unit+sim' : 'unit', args: ['run', '--project', 'unit', ...(sim ? ['--project', 'sim'] : [])] });
  if (testbed) parts.push({ label: 'testbed', args: ['run', '--project', 'testbed'] });
  return parts;
}
