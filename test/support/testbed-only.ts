// Tests that need what not every cluster under test offers: a real control plane's RBAC, kube-controller-manager's
// CronJob controller and the TokenRequest API (the testbed and a real cluster, not the sim); the API server's audit log
// and the simulated kubelet (the testbed and the sim, whose in-process request log stands in for the audit log, not a
// real cluster reached only through a kubeconfig); and node inventory (test/support/node-inventory.ts: pools, zones,
// counts), which the testbed's and the sim's generated nodes have and an e2e cluster offers only where its nodes do.
// Each test names what it needs; where the cluster lacks it the test is recorded instead, and one test per file prints
// and counts them, so nothing in the behaviour suite is skipped silently.
// (The name is historical: at first only the testbed offered more than the others.)
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { clusterKind } from './cluster.ts';
import { INVENTORY_FACILITIES, type InventoryFacility, type InventoryNode, inventoryOf, isInventoryFacility } from './node-inventory.ts';
import type { TestClusterKind } from './testbed-info.ts';

/** Which clusters offer what a test may need; every other cluster counts the test as not applicable. */
const OFFERED_BY = {
  'RBAC enforcement': ['testbed', 'e2e'],
  'the CronJob controller of kube-controller-manager': ['testbed', 'e2e'],
  'the TokenRequest API': ['testbed', 'e2e'],
  // Pod GC force-deleting terminating pods of a NotReady node with the out-of-service taint, on a node the simulated
  // kubelet plays dead through its control handle.
  'kube-controller-manager pod GC and the simulated kubelet control handle': ['testbed'],
  // The kube-apiserver's audit file, or the sim's request log behind the same interface (auditLog()).
  'the API server audit log': ['testbed', 'sim'],
  // A kubelet that honours kmaint.io/sim-* annotations (termination and run time, readiness) and runs any pod it is given.
  'the simulated kubelet': ['testbed', 'sim'],
  // A real kube-scheduler and resourceclaim controller (1.34+) turning ResourceClaimTemplates into allocated claims.
  // The sim stores resource.k8s.io/v1 objects but allocates nothing.
  'DRA claim allocation by kube-scheduler': ['testbed', 'e2e'],
  // The testbed's binaries, to start a second, small control plane with other feature gates (testbed/start.ts).
  'a control plane of its own': ['testbed'],
} as const satisfies Record<string, readonly TestClusterKind[]>;

/** What a test needs that not every cluster offers. */
export type ClusterFacility = keyof typeof OFFERED_BY | InventoryFacility;

/**
 * Whether `cluster` offers `facility`. Node inventory: always on the testbed and the sim (both generate the small
 * profile, seed 1: node-inventory.test.ts), on e2e only what `e2eInventory` lists (the setup's `nodeInventory`).
 */
export function offeredBy(cluster: TestClusterKind, facility: ClusterFacility, e2eInventory: readonly InventoryFacility[]): boolean {
  if (isInventoryFacility(facility)) return cluster !== 'e2e' || e2eInventory.includes(facility);
  return (OFFERED_BY[facility] as readonly TestClusterKind[]).includes(cluster);
}

/** Whether `cluster` offers `facility`; on e2e, node inventory as test/setup/e2e-global.ts found it. */
export function offers(cluster: TestClusterKind, facility: ClusterFacility): boolean {
  return offeredBy(cluster, facility, cluster === 'e2e' && isInventoryFacility(facility) ? inject('nodeInventory') : []);
}

/**
 * The node inventory this file's cluster is taken to offer that `nodes` lack: [] unless the nodes changed since (e2e:
 * since the setup listed them) or the testbed or sim no longer generate what the tests need.
 */
export function inventoryNotFound(nodes: readonly InventoryNode[]): InventoryFacility[] {
  const found = inventoryOf(nodes);
  return INVENTORY_FACILITIES.filter((f) => offers(clusterKind(), f) && !found.includes(f));
}

/** The facilities of `needs` that `cluster` lacks. */
function lackedOf(cluster: TestClusterKind, needs: ClusterFacility | readonly ClusterFacility[]): ClusterFacility[] {
  return (typeof needs === 'string' ? [needs] : needs).filter((f) => !offers(cluster, f));
}

export interface TestbedOnlyTests {
  /** `it(name, fn)` where the cluster offers all of `needs`; elsewhere, recorded as not applicable for what it lacks. */
  it(name: string, needs: ClusterFacility | readonly ClusterFacility[], fn: () => Promise<void>, timeoutMs?: number): void;
  /**
   * `describe(name, fn)` where the cluster offers `needs`; elsewhere every test `fn` declares (all with this object's
   * `it`) is recorded as not applicable because of `needs`, and no empty suite is left behind.
   */
  describe(name: string, needs: ClusterFacility, fn: () => void): void;
  /**
   * Where a test was recorded, registers the test that prints and counts them. Call once, after the others: vitest
   * collects a nested describe only after its parent's body has run, so in a file whose nested describes declare such
   * tests, call it at the end of the last nested describe (a test declared later fails the file).
   */
  report(): void;
}

/** One per test file; forgetting `report()` while a test was recorded fails the file. */
export function testbedOnlyTests(): TestbedOnlyTests {
  const recorded: Array<{ name: string; needs: string }> = [];
  const cluster = clusterKind();
  /** How many of `recorded` the report test names; what is recorded after it was registered is an error. */
  let reported = 0;
  /** Set while collecting a `describe` whose need the cluster lacks: its tests are recorded with that need. */
  let lacking: ClusterFacility | undefined;
  afterAll(() => {
    const missed = recorded.length - reported;
    if (missed > 0) throw new Error(`${missed} tests not applicable on ${cluster} were neither run nor reported: call report() once every test is declared (see report() in test/support/testbed-only.ts)`);
  });
  return {
    it(name, needs, fn, timeoutMs) {
      const lacked = lacking ? [lacking] : lackedOf(cluster, needs);
      if (lacked.length === 0) it(name, fn, timeoutMs);
      else recorded.push({ name, needs: lacked.join(' and ') });
    },
    describe(name, needs, fn) {
      if (lacking || offers(cluster, needs)) {
        describe(name, fn);
        return;
      }
      lacking = needs;
      try {
        fn();
      } finally {
        lacking = undefined;
      }
    },
    report() {
      if (recorded.length === 0) return;
      reported = recorded.length;
      const line = `${recorded.length} test${recorded.length === 1 ? '' : 's'} not applicable on ${cluster}: ${recorded.map((r) => `"${r.name}" (needs ${r.needs})`).join('; ')}`;
      it(line, () => {
        const entry = `${line} [${relative(process.cwd(), expect.getState().testPath ?? '')}]`;
        process.stderr.write(`[${cluster}] ${entry}\n`);
        const log = inject('notApplicableLog');
        appendFileSync(log, `${entry}\n`);
        // Counted: the project's global teardown (sim-global.ts, e2e-global.ts) sums these lines into its closing report.
        expect(readFileSync(log, 'utf8').split('\n')).toContain(entry);
      });
    },
  };
}
