// Public surface of sim/kubelet: the simulated kubelet and its pure building blocks.
export { serveKubeletControl, setKubeletNodeReady, type KubeletControlServer, type KubeletControls } from './control.ts';
export { SimKubelet, type SimKubeletOptions, type NodeConditionInput, type ScenarioResult } from './sim-kubelet.ts';
export type { SimNode } from './node-fleet.ts';
export { realClock, type Clock, type TimerHandle } from './clock.ts';
export { silentLogger, type SimLogger } from './logger.ts';
export { KubeletApiError, BOUND_PODS_FIELD_SELECTOR } from './kubelet-api.ts';
export type { PodSyncMode } from './pod-feed.ts';
export type { PodRunnerStats } from './pod-runner.ts';
export { matchesPod, parsePodSelector, type PodSelectorInput } from './pod-selector.ts';
export { decidePod, terminationSeconds, type HostFacts, type PodDecision, type PodFacts, type PodTiming } from './pod-decision.ts';
export { toPodView, type PodView } from './pod-view.ts';
export { runningStatusPatch, succeededStatusPatch, exitedStatusPatch } from './pod-status.ts';
export {
  LEASE_DURATION_SECONDS,
  LEASE_NAMESPACE,
  formatMicroTime,
  leaseForCreate,
  leaseRenewPatch,
  nextConditions,
  nodeStatusPatch,
  wantedConditions,
} from './node-status.ts';
export { HostProcesses, hostProcessUnsupported, SERVICE_ACCOUNT_DIR, type HostProcessOptions, type HostProcessState, type TokenSource } from './host-process.ts';
export { LABEL_SIM_HOST_PROCESS, isHostPod, apiServerAddress, containerEnv, containerArgv, type ApiServerAddress, type HostPodMatch } from './host-pod-spec.ts';
