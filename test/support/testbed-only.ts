// Tests that need what only the testbed has (a real control plane's RBAC, kube-controller-manager's CronJob controller,
// the TokenRequest API). They run on the testbed; on the sim each one is recorded instead, and one test per file prints
// and counts them, so nothing in the behaviour suite is skipped silently.
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, expect, inject, it } from 'vitest';
import { clusterKind } from './cluster.ts';

/** What a test needs that only the testbed has. */
export type TestbedOnlyFacility = 'RBAC enforcement' | 'the CronJob controller of kube-controller-manager' | 'the TokenRequest API';

export interface TestbedOnlyTests {
  /** `it(name, fn)` on the testbed; on the sim, recorded as not applicable because of `needs`. */
  it(name: string, needs: TestbedOnlyFacility, fn: () => Promise<void>, timeoutMs?: number): void;
  /** On the sim, registers the test that prints and counts what was not applicable. Call once, after the others. */
  report(): void;
}

/** One per test file; on the sim, forgetting `report()` while a test was recorded fails the file. */
export function testbedOnlyTests(): TestbedOnlyTests {
  const recorded: Array<{ name: string; needs: TestbedOnlyFacility }> = [];
  const onSim = clusterKind() === 'sim';
  let reported = false;
  if (onSim) {
    afterAll(() => {
      if (recorded.length > 0 && !reported) throw new Error(`${recorded.length} testbed-only tests were neither run nor reported: call report() at the end of the file`);
    });
  }
  return {
    it(name, needs, fn, timeoutMs) {
      if (onSim) recorded.push({ name, needs });
      else it(name, fn, timeoutMs);
    },
    report() {
      if (!onSim || recorded.length === 0) return;
      reported = true;
      const line = `${recorded.length} test${recorded.length === 1 ? '' : 's'} not applicable on sim: ${recorded.map((r) => `"${r.name}" (needs ${r.needs})`).join('; ')}`;
      it(line, () => {
        const entry = `${line} [${relative(process.cwd(), expect.getState().testPath ?? '')}]`;
        process.stderr.write(`[sim] ${entry}\n`);
        const log = inject('notApplicableLog');
        appendFileSync(log, `${entry}\n`);
        // Counted: the sim project's global teardown sums these lines into its closing report.
        expect(readFileSync(log, 'utf8').split('\n')).toContain(entry);
      });
    },
  };
}
