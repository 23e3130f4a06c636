// What the setup hands to test files about the cluster they run on: the shared testbed, or a simulated cluster.

/** Which cluster a behaviour test runs on (`KMAINT_TEST_CLUSTER` picks the vitest projects, see vitest.config.ts). */
export type TestClusterKind = 'testbed' | 'sim';

export interface TestbedInfo {
  /** `testbed`: the real control plane (test/setup/testbed-global.ts); `sim`: the embedded sim (test/setup/sim-cluster.ts). */
  cluster: TestClusterKind;
  dir: string;
  server: string;
  /** The API server's CA; '' on the sim, which serves plain HTTP on 127.0.0.1. */
  caFile: string;
  /** Admin kubeconfig. */
  kubeconfigPath: string;
  /**
   * Kubeconfig of ServiceAccount kmaint/kmaint: the identity kmaint's passes use in tests. On the testbed a
   * TokenRequest token under infra/base RBAC; on the sim (no authorization) a token that names the same user.
   */
  kmaintKubeconfigPath: string;
  /** The request log's user name for that identity: `system:serviceaccount:kmaint:kmaint` on both clusters. */
  kmaintUser: string;
  /** The kube-apiserver audit log; '' on the sim, whose request log is read in-process (auditLog() hides which). */
  auditPath: string;
  /** The kubectl built with the testbed (client and server versions agree), else the system kubectl on the sim. */
  kubectl: string;
  nodes: string[];
  /** The simulated kubelet's control handle (sim/kubelet/control.ts), where the cluster offers one (the testbed). */
  kubeletControl?: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    testbed: TestbedInfo;
    /** A file the sim project's test files append "not applicable on sim" lines to; the global teardown prints them. */
    notApplicableLog: string;
    /** A file each cluster test file appends its start and end time to (test/setup/file-timing.ts). */
    fileTimingLog: string;
  }
}
