// What the setup hands to test files about the cluster they run on: the shared testbed, a simulated cluster, or an
// existing cluster named by KMAINT_E2E_KUBECONFIG.
import type { InventoryFacility } from './node-inventory.ts';

/**
 * Which cluster a behaviour test runs on (`KMAINT_TEST_CLUSTER` picks the testbed and sim projects, see
 * vitest.config.ts; `e2e` is the project `KMAINT_E2E_KUBECONFIG` adds).
 */
export type TestClusterKind = 'testbed' | 'sim' | 'e2e';

export interface TestbedInfo {
  /**
   * `testbed`: the real control plane (test/setup/testbed-global.ts); `sim`: the embedded sim (test/setup/sim-cluster.ts);
   * `e2e`: an existing cluster reached only through its admin kubeconfig (test/setup/e2e-global.ts).
   */
  cluster: TestClusterKind;
  dir: string;
  server: string;
  /** The API server's CA; '' on the sim, which serves plain HTTP on 127.0.0.1. On e2e, the kubeconfig's CA written to `dir`. */
  caFile: string;
  /** Admin kubeconfig. */
  kubeconfigPath: string;
  /**
   * Kubeconfig of ServiceAccount kmaint/kmaint: the identity kmaint's passes use in tests. On the testbed a
   * TokenRequest token under infra/base RBAC (on e2e too); on the sim (no authorization) a token that names the same user.
   */
  kmaintKubeconfigPath: string;
  /** The request log's user name for that identity: `system:serviceaccount:kmaint:kmaint` on both clusters. */
  kmaintUser: string;
  /**
   * The kube-apiserver audit log; '' on the sim, whose request log is read in-process (auditLog() hides which), and on
   * e2e, which has none to read (tests that need it say so: test/support/testbed-only.ts).
   */
  auditPath: string;
  /** The kubectl built with the testbed (client and server versions agree), else the system kubectl on the sim and e2e. */
  kubectl: string;
  nodes: string[];
  /** The simulated kubelet's control handle (sim/kubelet/control.ts), where the cluster offers one (the testbed). */
  kubeletControl?: string;
}

/**
 * How many testbeds the testbed project starts (`KMAINT_TESTBEDS`, 1-4, default 4); its files run that many at once.
 * Two halved the project's wall time on two cores (about 580 s to 330 s); three since the in-cluster CronJob files
 * (test/helm-pods, test/kustomize-pods: minutes of CronJob ticks, mostly waiting) took the sum over files to ~1,400 s. Session 6 went back to one after two CI runs
 * saw files share a control plane; the lock-file claims then had a takeover race, now gone with socket claims
 * (test/support/testbed-claim.ts), and test/e2e-mode.test.ts, which ran a nested vitest, is out of npm test. Four
 * since the sum over files reached 1,622 s (landing run of 2026-12-02: 556 s of wall with three, the files mostly
 * waiting on their control planes; an idle testbed costs little CPU and about 0.5 GiB, docs/benchmarks.md).
 */
export function testbedCount(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env['KMAINT_TESTBEDS'];
  if (raw === undefined || raw === '') return 4;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 4) throw new Error(`KMAINT_TESTBEDS must be a whole number from 1 to 4, got "${raw}"`);
  return n;
}

/**
 * Go's GOMAXPROCS for each testbed's etcd, kube-apiserver, kube-controller-manager and kube-scheduler: the machine's
 * cores shared out among the `testbeds` control planes, at least 1. With Go's default every one of those sixteen
 * processes runs on every core: on two cores with four testbeds, the testbed project alone spent 604 s of CPU with 1
 * against 639 s with the default (docs/benchmarks.md, "Eighth session").
 */
export function controlPlaneProcs(testbeds: number, cores: number): number {
  return Math.max(1, Math.floor(cores / testbeds));
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The testbed project's control planes, one per worker (test/setup/testbed-global.ts); e2e's one cluster. */
    testbeds: TestbedInfo[];
    /** A file the sim and e2e projects' test files append "not applicable on <cluster>" lines to; the global teardown prints them. */
    notApplicableLog: string;
    /** A file each cluster test file appends its start and end time to (test/setup/file-timing.ts). */
    fileTimingLog: string;
    /** The e2e cluster's node inventory, read once from its node list (test/setup/e2e-global.ts, test/support/node-inventory.ts). */
    nodeInventory: InventoryFacility[];
  }
}
