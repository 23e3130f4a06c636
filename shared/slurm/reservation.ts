// Advance notice to Slurm: a request with kmaint.io/not-before ahead gets a MAINT reservation of its node's Slurm
// nodes from that time, so Slurm starts no job there whose time limit would cross it. Recorded like the drains: the
// name goes on the request (with kmaint's finalizer) one pass before the reservation is created, and cleanup deletes
// the reservation before it lets the request go. Pure: the scheduler and cleanup planners call these.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { type Action, FINALIZER, maintenanceKey, maintenanceRef, namespacedName, type NodeMaintenance, requestNotBefore, rfc3339Seconds } from '../api/index.ts';
import { chooseReservations, type ReservationChoice } from './reservation-choice.ts';
import type { SlurmContext, SlurmWrite } from './view.ts';
import { slurmWorkersOf } from './workers.ts';
// The names and predicates live in reservation-rules.ts (the choice reads them too).
import {
  ANNOTATION_SLURM_RESERVATION,
  ANNOTATION_SLURM_RESERVATION_PROBLEM,
  EVENT_REASON_SLURM_RESERVATION,
  RESERVATION_USERS,
  RESERVATION_WINDOW_SECONDS,
  RESERVATION_HORIZON_SECONDS,
  reservationName,
  recordedReservation,
  wantsReservation,
  reservationToCheck,
} from './reservation-rules.ts';

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
          ? `kmaint.io/not-before moved from ${rfc3339Seconds(existing.startTime * 1000)} to ${rfc3339Seconds(seconds(notBefore.at) * 1000)}, beyond the reservation horizon of ${RESERVATION_HORIZON_SECONDS / 3600} h`
          : `kmaint.io/not-before moved from ${rfc3339Seconds(existing.startTime * 1000)} to ${rfc3339Seconds(seconds(notBefore.at) * 1000)}, already past`;
  return { kind: 'slurmUnreserve', reservation: recorded, maintenance: { namespace: nm.metadata.namespace ?? '', name: nm.metadata.name }, why };
}

/** The reservation a request made that is no longer its node's next (or over its namespace's cap): deleted. */
function notNextReservation(nm: NodeMaintenance, ctx: SlurmContext, why: string): SlurmWrite | undefined {
  const recorded = recordedReservation(nm);
  if (recorded === undefined || ctx.kind !== 'on' || ctx.view.kind !== 'ok' || ctx.view.reservations?.kind !== 'ok' || !ctx.view.reservations.byName.has(recorded)) return undefined;
  return { kind: 'slurmUnreserve', reservation: recorded, maintenance: { namespace: nm.metadata.namespace ?? '', name: nm.metadata.name }, why: `no longer reserved for: ${why}` };
}

/**
 * A request this pass makes no reservation for, with the delete it needs: its not-before no longer ahead (checked: kept
 * or deleted), none wanted, or another request is next on its node or its namespace is at its cap. Undefined: reserve.
 */
function notToReserve(nm: NodeMaintenance, ctx: SlurmContext, choice: ReservationChoice, now: Date): { write?: SlurmWrite } | undefined {
  if (reservationToCheck(nm, now)) {
    const stale = staleReservation(nm, ctx, now);
    return stale !== undefined ? { write: stale } : {};
  }
  if (!wantsReservation(nm, now)) return {};
  const refused = choice.refused.get(maintenanceKey(nm));
  if (refused === undefined) return undefined;
  const gone = notNextReservation(nm, ctx, refused);
  return gone !== undefined ? { write: gone } : {};
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
  // Issue 40: one reservation per node, for the request it serves next, and a cap per namespace (reservation-choice.ts).
  const choice = chooseReservations(input.maintenances, input.nodes, ctx, now);
  for (const nm of input.maintenances) {
    const skipped = notToReserve(nm, ctx, choice, now);
    if (skipped !== undefined) {
      if (skipped.write !== undefined) writes.push(skipped.write);
      continue;
    }
    const node = input.nodes.get(nm.spec.nodeName);
    if (!node) continue;
    const target = maintenanceRef(nm);
    const key = namespacedName(target);
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
        message: `reserving Slurm node ${names.join(', ')} from ${rfc3339Seconds(start * 1000)} (MAINT reservation ${name}): jobs that would still run then are not started there`,
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
      writes.push({ kind: 'slurmReserve', reservation: recorded, nodes: names, startTime: start, endTime, users: [...RESERVATION_USERS], comment: `kmaint: ${nm.spec.requestorID} ${key}`, maintenance: ref, why: `kmaint.io/not-before ${rfc3339Seconds(start * 1000)}` });
    } else if (existing.startTime !== start && existing.startTime > seconds(now)) {
      // not-before moved before the reservation started: moved in place, so no pass runs without it.
      writes.push({ kind: 'slurmMove', reservation: recorded, startTime: start, endTime: start + RESERVATION_WINDOW_SECONDS, maintenance: ref, why: `kmaint.io/not-before moved from ${rfc3339Seconds(existing.startTime * 1000)} to ${rfc3339Seconds(start * 1000)}` });
    } else if (existing.startTime !== start) {
      // An active reservation cannot start again later: delete now, created again from the new time next pass.
      writes.push({ kind: 'slurmUnreserve', reservation: recorded, maintenance: ref, why: `kmaint.io/not-before moved from ${rfc3339Seconds(existing.startTime * 1000)} to ${rfc3339Seconds(start * 1000)}; created again next pass` });
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
  const key = maintenanceKey(nm);
  return {
    kind: 'hold',
    why: `deleting Slurm reservation ${recorded}`,
    writes: [{ kind: 'slurmUnreserve', reservation: recorded, maintenance: { namespace: nm.metadata.namespace ?? '', name: nm.metadata.name }, why: `${key} deleted; kmaint created it` }],
  };
}
