// What a pass knows about Slurm: the settings and one read of every Slurm node, or why it could not read them.
import { namespacedName, rfc3339Seconds } from '../api/index.ts';
import type { SlurmNodeInfo, SlurmProblem, SlurmReservationInfo } from './client.ts';
import type { SlurmSettings } from './settings.ts';

export type SlurmView =
  | { kind: 'ok'; nodes: ReadonlyMap<string, SlurmNodeInfo>; reservations?: SlurmReservations }
  | { kind: 'problem'; problem: SlurmProblem }
  /** Token-free mode: each worker's Slurm node is read from its pod's SlurmNodeState* conditions (Slinky's). */
  | { kind: 'pod-conditions' };

/** The reservations, read only when some request's maintenance reservation needs looking at. */
export type SlurmReservations = { kind: 'ok'; byName: ReadonlyMap<string, SlurmReservationInfo> } | { kind: 'problem'; problem: SlurmProblem };

/** Given to the drainer and cleanup planners when spec.slurm is enabled (valid or not). */
export type SlurmContext = { kind: 'on'; settings: SlurmSettings; view: SlurmView } | { kind: 'invalid'; problem: string };

/** A write to Slurm a planner asks for; applied by the pass after the Kubernetes writes. */
export type SlurmWrite =
  | { kind: 'slurmDrain'; node: string; reason: string; maintenance: { namespace: string; name: string }; why: string }
  /** `sweep`: a drain no live request owns (`maintenance` is the request its reason names, gone). */
  | { kind: 'slurmUndrain'; node: string; maintenance: { namespace: string; name: string }; why: string; sweep?: true }
  /** A maintenance reservation of `nodes` from `startTime` to `endTime` (Unix seconds), recorded on the request a pass before. */
  | { kind: 'slurmReserve'; reservation: string; nodes: string[]; startTime: number; endTime: number; users: string[]; comment: string; maintenance: { namespace: string; name: string }; why: string }
  /**
   * A reservation not started yet, moved to a new start (and end) in place after its request's not-before moved: no
   * moment without it, in which Slurm could start a job there that the old and the new start both forbid.
   */
  | { kind: 'slurmMove'; reservation: string; startTime: number; endTime: number; maintenance: { namespace: string; name: string }; why: string }
  /** A later end for a reservation the maintenance still needs (reservation.ts, RESERVATION_WINDOW_SECONDS). */
  | { kind: 'slurmExtend'; reservation: string; endTime: number; maintenance: { namespace: string; name: string }; why: string }
  /** `sweep`: a reservation no live request owns (`maintenance` is the request its name derives from, gone). */
  | { kind: 'slurmUnreserve'; reservation: string; maintenance: { namespace: string; name: string }; why: string; sweep?: true };

/** A write of the sweep: it removes state whose owner is gone, so it is withheld should the owner exist again. */
export function isSweep(w: SlurmWrite): boolean {
  return (w.kind === 'slurmUndrain' || w.kind === 'slurmUnreserve') && w.sweep === true;
}


/** One line for dry runs and logs. */
export function describeSlurmWrite(w: SlurmWrite): string {
  const of = namespacedName(w.maintenance);
  switch (w.kind) {
    case 'slurmDrain':
      return `slurm drain ${w.node} reason "${w.reason}" for ${of}: ${w.why}`;
    case 'slurmUndrain':
      return `slurm undrain ${w.node} ${w.sweep ? `(sweep: ${of} is gone)` : `for ${of}`}: ${w.why}`;
    case 'slurmReserve':
      return `slurm reservation ${w.reservation} (MAINT) on ${w.nodes.join(',')} from ${rfc3339Seconds(w.startTime * 1000)} to ${rfc3339Seconds(w.endTime * 1000)} for ${of}: ${w.why}`;
    case 'slurmMove':
      return `slurm move reservation ${w.reservation} to ${rfc3339Seconds(w.startTime * 1000)}-${rfc3339Seconds(w.endTime * 1000)} for ${of}: ${w.why}`;
    case 'slurmExtend':
      return `slurm extend reservation ${w.reservation} to ${rfc3339Seconds(w.endTime * 1000)} for ${of}: ${w.why}`;
    case 'slurmUnreserve':
      return `slurm delete reservation ${w.reservation} ${w.sweep ? `(sweep: ${of} is gone)` : `for ${of}`}: ${w.why}`;
  }
}
