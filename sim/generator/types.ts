// The shape of a generated cluster: plain manifests, ready to be created through the API.
import type {
  V1DaemonSet,
  V1Deployment,
  V1Job,
  V1Namespace,
  V1Node,
  V1Pod,
  V1PodDisruptionBudget,
  V1Service,
  V1StatefulSet,
} from '@kubernetes/client-node';
import type { ProfileName } from './profiles.ts';

export interface Workloads {
  services: V1Service[];
  deployments: V1Deployment[];
  statefulSets: V1StatefulSet[];
  daemonSets: V1DaemonSet[];
  jobs: V1Job[];
  podDisruptionBudgets: V1PodDisruptionBudget[];
  /** Bare pods and mirror pods, already bound to a node (`spec.nodeName`). */
  pods: V1Pod[];
}

export interface PreboundApp {
  namespace: string;
  name: string;
  /** How many bound pods `preboundPods` yields for this app. */
  pods: number;
}

/** Prebound mode: pods are yielded by `preboundPods(cluster)` one at a time instead of stored. */
export interface PreboundPlan {
  podsPerNode: number;
  apps: PreboundApp[];
  /** terminationGracePeriodSeconds of the bound pods; @default the generator's 5. */
  graceSeconds?: number;
}

export interface GeneratedCluster {
  profile: ProfileName;
  seed: number;
  /** Registered by the simulated kubelet, not by `createCluster`. */
  nodes: V1Node[];
  namespaces: V1Namespace[];
  workloads: Workloads;
  prebound?: PreboundPlan;
  /** Pods that exist once everything is created and the controllers have caught up. */
  expectedPods: number;
}
