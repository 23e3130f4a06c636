// Advance notice to Slurm: a request with kmaint.io/not-before ahead gets a MAINT reservation of its node's Slurm
// nodes from that time, so Slurm starts no job there whose time limit would cross it. Recorded like the drains: the
// name goes on the request (with kmaint's finalizer) one pass before the reservation is created, and cleanup deletes
// the reservation before it lets the request go. Pure: the scheduler and cleanup planners call these.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { FINALIZER, maintenancePhase, maintenanceRef, Phase, PHASE_UNINITIALIZED, requestNotBefore, type Action, type NodeMaintenance } from '../api/index.ts';
import type { SlurmContext, SlurmWrite } from './view.ts';
import { slurmWorkersOf } from './workers.ts';

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

/**
 * For a request `reservationToCheck` says: a delete when its reservation no longer starts at a readable not-before
 * (moved into the past, removed, made unreadable), else nothing. Problems reading Slurm are left to cleanup.
 */
function staleReservation(nm: NodeMaintenance, ctx: SlurmContext, now: Date): SlurmWrite | undefined {
  const recorded = recordedReservation(nm);
  if (recorded === undefined || ctx.kind !== 'on' || ctx.view.kind !== 'ok' || ctx.view.reservations?.kind !== 'ok') return undefined;
  const existing = ctx.view.reservations.byName.get(recorded);
  if (existing === undefined) return undefined;
  const notBefore = requestNotBefore(nm);
  const beyond = notBefore.kind === 'valid' && notBefore.at.getTime() - now.getTime() > RESERVATION_HORIZON_SECONDS * 1000;
  if (notBefore.kind === 'valid' && seconds(notBefore.at) === existing.startTime && !beyond) return undefined;
  const why =
    notBefore.kind === 'absent'
      ? 'kmaint.io/not-before removed'
      : notBefore.kind === 'invalid'
        ? `kmaint.io/not-before can no longer be read (${notBefore.reason})`
        : beyond
          ? `kmaint.io/not-before moved from ${iso(existing.startTime)} to ${iso(seconds(notBefore.at))}, beyond the reservation horizon of ${RESERVATION_HORIZON_SECONDS / 3600} h`
          : `kmaint.io/not-before moved from ${iso(existing.startTime)} to ${iso(seconds(notBefore.at))}, already past`;
  return { kind: 'slurmUnreserve', reservation: recorded, maintenance: { namespace: nm.metadata.namespace ?? '', name: nm.metadata.name }, why };
}

export interface ReservationInput {
  maintenances: readonly NodeMaintenance[];
  nodes: ReadonlyMap<string, V1Node>;
  /** Pods of the nodes of requests that want a reservation (pod mode names Slurm nodes by their worker pods). */
  podsByNode: ReadonlyMap<string, readonly V1Pod[]>;
  slurm: SlurmContext | undefined;
}

export interface ReservationPlan {
  actions: Action[];
  writes: SlurmWrite[];
}

const seconds = (d: Date): number => Math.floor(d.getTime() / 1000);
const iso = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z');

/** Why no reservation can be made or checked for any request, or undefined when Slurm was read with its reservations. */
function contextProblem(ctx: SlurmContext): string | undefined {
  if (ctx.kind === 'invalid') return ctx.problem;
  const view = ctx.view;
  if (view.kind === 'pod-conditions') return 'spec.slurm has no slurmrestd url and token (token-free mode), and only slurmrestd can create reservations';
  if (view.kind === 'problem') return view.problem.message;
  if (view.reservations === undefined) return 'the reservations were not read this pass';
  if (view.reservations.kind === 'problem') return view.reservations.problem.message;
  return undefined;
}

/**
 * The scheduler's part: record, create, re-create after not-before moved ahead, delete after it was moved into the past
 * or removed; each problem reported once.
 */
export function planSlurmReservations(input: ReservationInput, now: Date): ReservationPlan {
  const actions: Action[] = [];
  const writes: SlurmWrite[] = [];
  const ctx = input.slurm;
  if (ctx === undefined) return { actions, writes };
  const shared = contextProblem(ctx);
  for (const nm of input.maintenances) {
    if (reservationToCheck(nm, now)) {
      const stale = staleReservation(nm, ctx, now);
      if (stale !== undefined) writes.push(stale);
      continue;
    }
    if (!wantsReservation(nm, now)) continue;
    const node = input.nodes.get(nm.spec.nodeName);
    if (!node) continue;
    const target = maintenanceRef(nm);
    const key = `${target.namespace}/${target.name}`;
    const annotations = nm.metadata.annotations ?? {};
    const reported = annotations[ANNOTATION_SLURM_RESERVATION_PROBLEM];
    const problem = (message: string): void => {
      const full = `cannot reserve the Slurm nodes of ${nm.spec.nodeName} before ${key}'s not-before: ${message}`;
      if (reported === full) return;
      actions.push({ kind: 'patchMaintenanceMeta', target, annotations: { [ANNOTATION_SLURM_RESERVATION_PROBLEM]: full }, reason: `record the Slurm reservation problem of ${key}` });
      actions.push({ kind: 'emitEvent', target: { kind: 'NodeMaintenance', namespace: target.namespace, name: target.name, ...(target.uid ? { uid: target.uid } : {}) }, type: 'Warning', eventReason: EVENT_REASON_SLURM_RESERVATION, message: full, reason: `${key}: Slurm reservation problem` });
    };
    if (ctx.kind !== 'on') {
      problem(shared ?? 'spec.slurm is invalid');
      continue;
    }
    const workers = slurmWorkersOf(node, input.podsByNode.get(nm.spec.nodeName) ?? [], ctx.settings);
    // A node without Slurm workers (and nothing recorded) has nothing to reserve: Slurm's problems are not its own.
    const nothingToReserve = workers.ok && workers.workers.length === 0 && recordedReservation(nm) === undefined;
    if (shared !== undefined && !nothingToReserve) {
      problem(shared);
      continue;
    }
    if (!workers.ok) {
      problem(workers.error);
      continue;
    }
    const clearProblem: Record<string, null> = reported !== undefined ? { [ANNOTATION_SLURM_RESERVATION_PROBLEM]: null } : {};
    const names = workers.workers.map((w) => w.slurmNode);
    const name = reservationName(nm);
    const recorded = recordedReservation(nm);
    const notBefore = requestNotBefore(nm);
    if (notBefore.kind !== 'valid') continue;
    const start = seconds(notBefore.at);
    if (names.length === 0 && recorded === undefined) {
      // No Slurm node on this Kubernetes node (yet): nothing to reserve.
      if (reported !== undefined) actions.push({ kind: 'patchMaintenanceMeta', target, annotations: clearProblem, reason: `${key}: no Slurm node to reserve` });
      continue;
    }
    if (recorded === undefined) {
      // Record first (with the finalizer, so deletion reaches cleanup, which deletes the reservation); create next pass.
      const addFinalizer = !(nm.metadata.finalizers ?? []).includes(FINALIZER);
      actions.push({ kind: 'patchMaintenanceMeta', target, annotations: { [ANNOTATION_SLURM_RESERVATION]: name, ...clearProblem }, ...(addFinalizer ? { addFinalizer: true } : {}), reason: `record Slurm reservation ${name} of ${key} before creating it` });
      actions.push({
        kind: 'emitEvent',
        target: { kind: 'NodeMaintenance', namespace: target.namespace, name: target.name, ...(target.uid ? { uid: target.uid } : {}) },
        type: 'Normal',
        eventReason: EVENT_REASON_SLURM_RESERVATION,
        message: `reserving Slurm node ${names.join(', ')} from ${iso(start)} (MAINT reservation ${name}): jobs that would still run then are not started there`,
        reason: `${key}: Slurm reservation recorded`,
      });
      continue;
    }
    if (reported !== undefined) actions.push({ kind: 'patchMaintenanceMeta', target, annotations: clearProblem, reason: `${key}: the Slurm reservation problem is gone` });
    const existing = ctx.view.kind === 'ok' && ctx.view.reservations?.kind === 'ok' ? ctx.view.reservations.byName.get(recorded) : undefined;
    const ref = { namespace: target.namespace, name: target.name };
    if (existing === undefined) {
      if (names.length === 0) continue;
      const endTime = start + RESERVATION_WINDOW_SECONDS;
      writes.push({ kind: 'slurmReserve', reservation: recorded, nodes: names, startTime: start, endTime, users: [...RESERVATION_USERS], comment: `kmaint: ${nm.spec.requestorID} ${key}`, maintenance: ref, why: `kmaint.io/not-before ${iso(start)}` });
    } else if (existing.startTime !== start && existing.startTime > seconds(now)) {
      // not-before moved before the reservation started: moved in place, so no pass runs without it.
      writes.push({ kind: 'slurmMove', reservation: recorded, startTime: start, endTime: start + RESERVATION_WINDOW_SECONDS, maintenance: ref, why: `kmaint.io/not-before moved from ${iso(existing.startTime)} to ${iso(start)}` });
    } else if (existing.startTime !== start) {
      // An active reservation cannot start again later: delete now, created again from the new time next pass.
      writes.push({ kind: 'slurmUnreserve', reservation: recorded, maintenance: ref, why: `kmaint.io/not-before moved from ${iso(existing.startTime)} to ${iso(start)}; created again next pass` });
    }
  }
  return { actions, writes };
}

export type ReservationRelease = { kind: 'done' } | { kind: 'hold'; why: string; writes: SlurmWrite[] };

/** Cleanup's part for a deleted request: delete the reservation it recorded; done once Slurm no longer has it. */
export function planReservationRelease(nm: NodeMaintenance, ctx: SlurmContext | undefined): ReservationRelease {
  const recorded = recordedReservation(nm);
  if (recorded === undefined) return { kind: 'done' };
  const escape = `drop annotation ${ANNOTATION_SLURM_RESERVATION} to release without deleting it`;
  if (ctx === undefined) return { kind: 'hold', why: `spec.slurm is not enabled: cannot delete Slurm reservation ${recorded} (${escape})`, writes: [] };
  const problem = contextProblem(ctx);
  if (problem !== undefined || ctx.kind !== 'on' || ctx.view.kind !== 'ok' || ctx.view.reservations?.kind !== 'ok') {
    return { kind: 'hold', why: `cannot delete Slurm reservation ${recorded}: ${problem ?? 'spec.slurm is invalid'} (or ${escape})`, writes: [] };
  }
  if (!ctx.view.reservations.byName.has(recorded)) return { kind: 'done' };
  const key = `${nm.metadata.namespace ?? ''}/${nm.metadata.name}`;
  return {
    kind: 'hold',
    why: `deleting Slurm reservation ${recorded}`,
    writes: [{ kind: 'slurmUnreserve', reservation: recorded, maintenance: { namespace: nm.metadata.namespace ?? '', name: nm.metadata.name }, why: `${key} deleted; kmaint created it` }],
  };
}
