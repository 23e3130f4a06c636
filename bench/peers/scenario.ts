// What one peer-benchmark case is: the cluster, the workload on it, the requests, the limits, and what the
// workload alone forces on the makespan (so the coordinators' own overhead can be told apart).
import type { NodeMaintenanceSpec } from '../../shared/api/index.ts';

/** A bare pod bound to a node (or a Job's pod, when `job` is set). */
export interface BenchPod {
  name: string;
  labels: Record<string, string>;
  /** Seconds the simulated kubelet takes to stop it once deleted or evicted. */
  terminationSeconds: number;
  /** Extended resources requested, e.g. { 'nvidia.com/gpu': '1' }. */
  requests?: Record<string, string>;
  /** Run as a Job (ttlSecondsAfterFinished 0) that finishes after this many seconds, counted from creation. */
  job?: { runSeconds: number };
}

export interface Scenario {
  name: string;
  title: string;
  /** Nodes in the cluster (the generator's small profile: 1 control-plane node, 1/6 gpu, the rest general). */
  clusterNodes: number;
  /** Which pool the maintained nodes come from. */
  pool: 'general' | 'gpu';
  /** How many nodes get a request. */
  maintained: number;
  /** Requests are spread evenly over this many requestor IDs. */
  requestors: number;
  /** maxParallelOperations of the MaintenanceOperatorConfig (and the limit checked on both systems). */
  maxParallelOperations: number;
  spec: Omit<NodeMaintenanceSpec, 'nodeName' | 'requestorID'>;
  /** The workload put on each maintained node before the requests. */
  pods: (node: string) => BenchPod[];
  /** A PodDisruptionBudget (minAvailable) over pods with these labels that lets evictions through only after `blockSeconds`. */
  pdb?: { selector: Record<string, string>; minAvailable: number; blockSeconds: number };
  /** What the sequential kubectl script does per node, besides cordon, drain and uncordon. */
  kubectl: { podSelector: string; waitForDeleteSelector?: string };
  /** The workload's own share of the makespan with the limit fully used: the floor no coordinator can beat. */
  nominalMakespanSeconds: number;
  /** The same floor for one node after another (the kubectl script). */
  nominalSequentialSeconds: number;
  /** Wall-time budget of one system's run before it is declared stuck. */
  timeoutSeconds: number;
}

export const DRAIN_LABEL = 'kmaint-bench/drain';
