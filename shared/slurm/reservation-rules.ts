// What a request's Slurm reservation is called, how it is recorded, and when a request wants one, keeps one or has one
// checked: the predicates the scheduler, cleanup, the sweep, the write guard and the choice (reservation-choice.ts) share.
import { maintenancePhase, Phase, PHASE_UNINITIALIZED, requestNotBefore, type NodeMaintenance } from '../api/index.ts';
/** The Slurm reservation this request made (its name), written before the reservation is created. */
export const ANNOTATION_SLURM_RESERVATION = 'kmaint.io/slurm-reservation';
/** Why the reservation cannot be made (the last problem reported), so each problem is one event, not one per pass. */
export const ANNOTATION_SLURM_RESERVATION_PROBLEM = 'kmaint.io/slurm-reservation-problem';
export const EVENT_REASON_SLURM_RESERVATION = 'SlurmReservation';
/** Who may run jobs inside the reservation: only root, as for an administrator's maintenance reservation. */
export const RESERVATION_USERS: readonly string[] = ['root'];
/** What every reservation kmaint makes is named with: the sweep (sweep.ts) finds them by it. */
export const RESERVATION_PREFIX = 'kmaint_';
/**
 * How long a reservation lasts from its start, and from each extension: 4 h. kmaint extends it (cleanup's sweep) while
 * the maintenance needs it, so a reservation whose kmaint stopped (uninstalled, Slurm switched off, a leak) ends by itself.
 */
export const RESERVATION_WINDOW_SECONDS = 4 * 3600;
/** The sweep extends a reservation once fewer than this many seconds of it are left: half the window. */
export const RESERVATION_EXTEND_BELOW_SECONDS = RESERVATION_WINDOW_SECONDS / 2;
/**
 * How far ahead a not-before is reserved: 7 days. A request whose not-before is further out gets its reservation once it
 * comes within the horizon; a job longer than that may still cross not-before (the Slurm drain at admission waits for it).
 */
export const RESERVATION_HORIZON_SECONDS = 7 * 24 * 3600;

/**
 * `kmaint_<namespace>_<name>`: a namespace has no '_' nor '.', a name no '_', so no two requests share one, and the
 * prefix says whose it is in `scontrol show reservation`. Always derived: never read back from the request.
 */
export function reservationName(nm: NodeMaintenance): string {
  return `${RESERVATION_PREFIX}${nm.metadata.namespace ?? ''}_${nm.metadata.name}`;
}

/** The request that a kmaint reservation name derives from, or undefined when the name is not kmaint's. */
export function reservationOwner(name: string): { namespace: string; name: string } | undefined {
  if (!name.startsWith(RESERVATION_PREFIX)) return undefined;
  const rest = name.slice(RESERVATION_PREFIX.length);
  const cut = rest.indexOf('_');
  return cut <= 0 || cut === rest.length - 1 ? { namespace: '', name: rest } : { namespace: rest.slice(0, cut), name: rest.slice(cut + 1) };
}

/**
 * The reservation this request recorded: its derived name when the annotation says it, else none. A requestor can
 * write the annotation, so any other value is ignored (never deleted or checked: it may name someone else's reservation).
 */
export function recordedReservation(nm: NodeMaintenance): string | undefined {
  const v = nm.metadata.annotations?.[ANNOTATION_SLURM_RESERVATION];
  return v !== undefined && v.trim() === reservationName(nm) ? reservationName(nm) : undefined;
}

/** Not-before read and its distance from `now`, for the three rules below. */
function notBeforeOf(nm: NodeMaintenance, now: Date): { kind: 'none' } | { kind: 'past' } | { kind: 'ahead'; withinHorizon: boolean } {
  const notBefore = requestNotBefore(nm);
  if (notBefore.kind !== 'valid') return { kind: 'none' };
  const ahead = notBefore.at.getTime() - now.getTime();
  return ahead <= 0 ? { kind: 'past' } : { kind: 'ahead', withinHorizon: ahead <= RESERVATION_HORIZON_SECONDS * 1000 };
}

const waiting = (nm: NodeMaintenance): boolean => {
  const phase = maintenancePhase(nm);
  return phase === Phase.Pending || phase === PHASE_UNINITIALIZED;
};

/** Not being deleted, not admitted yet, and a readable not-before ahead within the horizon: its node is to be reserved. */
export function wantsReservation(nm: NodeMaintenance, now: Date): boolean {
  if (nm.metadata.deletionTimestamp || !waiting(nm)) return false;
  const at = notBeforeOf(nm, now);
  return at.kind === 'ahead' && at.withinHorizon;
}

/**
 * Not admitted yet, a reservation recorded, and not-before no longer ahead within the horizon: removed, unreadable, past
 * or moved beyond the horizon. Its reservation is checked: kept when it starts at a not-before that has come, else deleted.
 */
export function reservationToCheck(nm: NodeMaintenance, now: Date): boolean {
  if (nm.metadata.deletionTimestamp || recordedReservation(nm) === undefined || !waiting(nm)) return false;
  const at = notBeforeOf(nm, now);
  return at.kind !== 'ahead' || !at.withinHorizon;
}

/**
 * The maintenance still needs its reservation (the sweep extends it): not being deleted, and either not-before ahead
 * within the horizon or admitted. A request left waiting past not-before is not extended: its reservation ends with its
 * window, so an unadmitted request never holds Slurm nodes outside the limits for longer than that.
 */
export function needsReservation(nm: NodeMaintenance, now: Date): boolean {
  if (nm.metadata.deletionTimestamp) return false;
  return wantsReservation(nm, now) || !waiting(nm);
}

/** The scheduler reads Slurm's reservations for `nm` this pass. */
export function needsReservationRead(nm: NodeMaintenance, now: Date): boolean {
  return wantsReservation(nm, now) || reservationToCheck(nm, now);
}
