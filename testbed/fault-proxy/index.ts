// Public surface of the fault proxy: start one, describe its faults, point a kubeconfig at it.
export { startFaultProxy } from './fault-proxy.ts';
export type { FaultCounts, FaultProxy, FaultProxyOptions } from './fault-proxy.ts';
export { decideFault, FAULT_KINDS, requestTarget, uniformFaults, validateRules } from './fault-rules.ts';
export type { FaultDecision, FaultKind, FaultRule, RequestTarget } from './fault-rules.ts';
export { kubeConfigThroughProxy, proxyCertificate } from './proxy-kubeconfig.ts';
export type { ProxyCertificate } from './proxy-kubeconfig.ts';
