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

/** A Kubernetes name: what the last word of kmaint's drain reason (`<namespace>/<name>`) must look like. */
const NAME = '[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?';
const OWNER = new RegExp(`^(${NAME})/(${NAME})$`);

/**
 * The request a drain reason names, when it has kmaint's shape (`<prefix> <requestor> <namespace>/<name>`, ownership.ts
 * drainReason); undefined for any other reason. An empty prefix names nothing: every reason would look like ours.
 */
export function drainOwner(reason: string, prefix: string): { namespace: string; name: string } | undefined {
  if (prefix === '' || !reason.startsWith(`${prefix} `)) return undefined;
  const words = reason.slice(prefix.length).trim().split(' ');
  if (words.length < 2) return undefined;
  const m = OWNER.exec(words[words.length - 1] ?? '');
  return m ? { namespace: m[1] ?? '', name: m[2] ?? '' } : undefined;
}

/**
 * A drain kmaint may lift for `nm`: recorded by it, and Slurm's own reason still names it (nobody re-drained the node,
 * and the record, which a requestor can write, never lifts a drain made for another request).
 */
export function mayUndrain(nm: NodeMaintenance, recorded: boolean, reason: string, prefix: string): boolean {
  const owner = drainOwner(reason, prefix);
  return recorded && owner !== undefined && owner.namespace === (nm.metadata.namespace ?? '') && owner.name === nm.metadata.name;
}

