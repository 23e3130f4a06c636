// What the global setup hands to test files about the shared testbed.
export interface TestbedInfo {
  dir: string;
  server: string;
  caFile: string;
  /** Admin kubeconfig. */
  kubeconfigPath: string;
  /** Kubeconfig of ServiceAccount kmaint/kmaint (infra/base RBAC, TokenRequest token): the identity kmaint's passes use in tests. */
  kmaintKubeconfigPath: string;
  /** The audit log's user name for that identity: `system:serviceaccount:kmaint:kmaint`. */
  kmaintUser: string;
  auditPath: string;
  /** The kubectl built with the control plane (client and server versions agree). */
  kubectl: string;
  nodes: string[];
}

declare module 'vitest' {
  export interface ProvidedContext {
    testbed: TestbedInfo;
  }
}
