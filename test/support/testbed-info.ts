// What the global setup hands to test files about the shared testbed.
export interface TestbedInfo {
  dir: string;
  server: string;
  caFile: string;
  /** Admin kubeconfig. */
  kubeconfigPath: string;
  /** Kubeconfig of the static-token user `kmaint`, the identity kmaint's passes use in tests. */
  kmaintKubeconfigPath: string;
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
