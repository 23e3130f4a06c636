// Slinky slurm-operator v1.x wire strings kmaint reads and writes (interop-2026.md section 2), and kmaint's own record
// of a Slurm drain Slinky performed for a request.

/** On the Node, set before cordoning: Slinky drains the Slurm node with `slurm-operator: ` + this text. */
export const SLINKY_NODE_CORDON_REASON = 'nodeset.slinky.slurm.net/node-cordon-reason';
/** Label on every NodeSet pod: the Slurm node name. kmaint takes a node running such a pod for Slinky-managed. */
export const SLINKY_POD_HOSTNAME_LABEL = 'nodeset.slinky.slurm.net/pod-hostname';
/** Label on a busy NodeSet pod while workload protection is on; the cluster PDB selects it. */
export const SLINKY_POD_PROTECT_LABEL = 'nodeset.slinky.slurm.net/pod-protect';
/** Label on Slinky's pods and its PDB: the Controller CR name. */
export const SLINKY_CLUSTER_LABEL = 'slinky.slurm.net/cluster';
/** Name prefix of the one workload-protection PDB per Slurm cluster (`slurm-workers-pdb-<controller>`). */
export const SLINKY_PDB_PREFIX = 'slurm-workers-pdb-';
/** Every Slurm reason Slinky sets starts so; a non-empty reason without it freezes Slinky for that node. */
export const SLINKY_REASON_PREFIX = 'slurm-operator: ';
/** Prefix of the pod conditions Slinky projects Slurm node state onto. */
export const SLINKY_CONDITION_PREFIX = 'SlurmNodeState';

/**
 * kmaint's own record on the NodeMaintenance: the Slurm nodes Slinky drained for this request (its reason named the
 * request when first seen). Slinky's slurmd preStop hook rewrites the reason, so the reason alone cannot keep this.
 */
export const ANNOTATION_SLINKY_DRAINED = 'kmaint.io/slinky-drained';
