// Wire strings shared by the cluster generator and the simulated kubelet.

/** On a Job's pod template: how long the simulated kubelet runs the pod before it Succeeds. */
export const ANNOTATION_SIM_RUN_SECONDS = 'kmaint.io/sim-run-seconds';
/**
 * Env of a simulated Job pod's first container (what a Job template from a config can set, where annotations cannot
 * be): its exit code (non-zero: the pod Fails) and its run time. The command itself is never run.
 */
export const ENV_SIM_EXIT_CODE = 'KMAINT_SIM_EXIT_CODE';
export const ENV_SIM_RUN_SECONDS = 'KMAINT_SIM_RUN_SECONDS';
/** On a pod: how long the simulated kubelet takes to stop it once deleted (capped by the grace period). */
export const ANNOTATION_SIM_TERMINATION_SECONDS = 'kmaint.io/sim-termination-seconds';
/** Set by the real kubelet on mirror pods of static pods. */
export const ANNOTATION_CONFIG_MIRROR = 'kubernetes.io/config.mirror';
export const ANNOTATION_CONFIG_HASH = 'kubernetes.io/config.hash';
export const ANNOTATION_CONFIG_SOURCE = 'kubernetes.io/config.source';

export const LABEL_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_REGION = 'topology.kubernetes.io/region';
export const LABEL_POOL = 'kmaint.io/pool';
export const LABEL_INSTANCE_TYPE = 'node.kubernetes.io/instance-type';
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_OS = 'kubernetes.io/os';
export const LABEL_ARCH = 'kubernetes.io/arch';
export const LABEL_CONTROL_PLANE = 'node-role.kubernetes.io/control-plane';
/** Every generated pod carries its workload's name here; scenario files select workloads by it. */
export const LABEL_APP_NAME = 'app.kubernetes.io/name';

export const RESOURCE_GPU = 'nvidia.com/gpu';
export const RESOURCE_RDMA = 'nvidia.com/rdma_shared_device_a';

export const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';
export const KUBELET_VERSION = 'v1.35.0';
