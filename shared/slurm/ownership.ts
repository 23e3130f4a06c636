// Which Slurm drains are kmaint's: the record on the NodeMaintenance names the owner, the reason prefix guards it
// (Slurm 24.11 keeps the reason after an undrain, so the reason alone never proves a drain is ours).
import { ANNOTATION_SLINKY_DRAINED, type NodeMaintenance } from '../api/index.ts';

/** Slurm nodes a NodeMaintenance drained, comma-separated and sorted; written before the drain request is sent. */
export const ANNOTATION_SLURM_DRAINED = 'kmaint.io/slurm-drained';
/** When the Slurm drain wait began (RFC 3339), for spec.slurm.drainTimeoutSeconds. */
export const ANNOTATION_SLURM_DRAIN_START = 'kmaint.io/slurm-drain-start-time';

/** `<prefix> <requestor> <namespace>/<name>`: the reason kmaint drains with. */
export function drainReason(prefix: string, nm: NodeMaintenance): string {
  return `${prefix} ${nm.spec.requestorID} ${nm.metadata.namespace ?? ''}/${nm.metadata.name}`;
}

/** The Slurm nodes recorded on `nm` (empty when none). */
export function recordedSlurmNodes(nm: NodeMaintenance): string[] {
  return namesIn(nm.metadata.annotations?.[ANNOTATION_SLURM_DRAINED]);
}

/** The Slurm nodes Slinky drained for `nm` (kmaint.io/slinky-drained; empty when none). */
export function recordedSlinkyNodes(nm: NodeMaintenance): string[] {
  return namesIn(nm.metadata.annotations?.[ANNOTATION_SLINKY_DRAINED]);
}

function namesIn(raw = ''): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The annotation value for a set of Slurm node names. */
export function formatRecord(names: Iterable<string>): string {
  return [...new Set(names)].sort().join(',');
}

/** A drain kmaint may lift: recorded by this request, and the reason still carries our prefix (nobody re-drained it). */
export function mayUndrain(recorded: boolean, reason: string, prefix: string): boolean {
  return recorded && reason.startsWith(prefix);
}
