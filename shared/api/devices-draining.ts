// Issue 45 point 3, drainSpec.freeDevices: the wire strings of a drain that frees every user of the node's devices.
// Kept beside constants.ts (not in it) so that the whole feature's keys read in one place.

/**
 * NoSchedule taint kmaint puts on the node of a request with drainSpec.freeDevices before it evicts the device users,
 * and removes on release. The DaemonSet controller creates no daemon pod on a node with a NoSchedule taint the pod
 * does not tolerate, so an evicted DaemonSet pod is not put straight back; one already running is left running.
 */
export const TAINT_DEVICES_DRAINING = 'kmaint.io/devices-draining';
/** On the Node, in the taint's own patch: the request (`kmaint/<namespace>/<name>`) that added it; only that one removes it. */
export const ANNOTATION_DEVICES_DRAINING_BY = 'kmaint.io/devices-draining-by';
/**
 * drainSpec.freeDevices.keep when absent: the pods of the NVIDIA GPU operator's driver DaemonSet (its pod template's
 * label `app: nvidia-driver-daemonset`, NVIDIA/gpu-operator assets/state-driver/0500_daemonset.yaml), which a driver
 * upgrade needs running. `keep: []` keeps none.
 */
export const DEFAULT_FREE_DEVICES_KEEP: readonly string[] = Object.freeze(['app=nvidia-driver-daemonset']);
/**
 * kmaint's own Jobs' pods (the reboot Job, a validation Job) carry this label; in kmaint's namespace only (where a tenant
 * cannot create pods) it keeps a pod out of drainSpec.freeDevices.
 */
export const OWN_JOB_POD_SELECTOR = 'app.kubernetes.io/name=kmaint';
/** drainSpec.freeDevices.resources: at most this many names. */
export const FREE_DEVICES_MAX_RESOURCES = 32;
/** drainSpec.freeDevices.keep: at most this many selectors. */
export const FREE_DEVICES_MAX_KEEP = 16;
