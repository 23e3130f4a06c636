// Cleanup's sweep of Slurm state, as Kubernetes' garbage collector works from owner references: a reservation named
// with kmaint's prefix, or a drain whose reason starts with kmaint's, names the request it was made for; when no such
// request exists any more (a race with cleanup, a crash, a node gone before the fix), it is removed. A reservation whose
// request still needs it is extended before it ends (reservation.ts: every kmaint reservation has an end). Pure.
import { maintenanceKey, namespacedName, type NodeMaintenance, rfc3339Seconds } from '../api/index.ts';
import type { SlurmNodeInfo, SlurmReservationInfo } from './client.ts';
import { RESERVATION_EXTEND_BELOW_SECONDS, RESERVATION_WINDOW_SECONDS, needsReservation, recordedReservation, reservationOwner } from './reservation-rules.ts';
import { drainOwner } from './ownership.ts';
import { hasDrainFlag } from './state.ts';
import type { SlurmContext, SlurmWrite } from './view.ts';


/** Orphaned kmaint reservations deleted; those still needed extended when fewer than RESERVATION_EXTEND_BELOW_SECONDS are left. */
function sweepReservations(reservations: Iterable<SlurmReservationInfo>, owners: ReadonlyMap<string, NodeMaintenance>, now: Date): SlurmWrite[] {
  const writes: SlurmWrite[] = [];
  const nowSeconds = Math.floor(now.getTime() / 1000);
  for (const r of reservations) {
    const owner = reservationOwner(r.name);
    if (owner === undefined) continue;
    const key = namespacedName(owner);
    const nm = owners.get(key);
    if (nm === undefined) {
      writes.push({ kind: 'slurmUnreserve', reservation: r.name, maintenance: owner, why: `kmaint made it for ${key}, which no longer exists`, sweep: true });
      continue;
    }
    // The request's own passes (scheduler, cleanup) handle a reservation it records; one it does not record stays until it goes.
    if (recordedReservation(nm) !== r.name || !needsReservation(nm, now)) continue;
    // 0: an infinite one an earlier kmaint made; it gets an end too.
    const left = r.endTime === 0 ? -1 : r.endTime - nowSeconds;
    if (left >= RESERVATION_EXTEND_BELOW_SECONDS) continue;
    const endTime = Math.max(r.startTime, nowSeconds) + RESERVATION_WINDOW_SECONDS;
    const was = r.endTime === 0 ? 'no end' : `its end ${rfc3339Seconds(r.endTime * 1000)}`;
    writes.push({ kind: 'slurmExtend', reservation: r.name, endTime, maintenance: owner, why: `${key} still needs it (${was})` });
  }
  return writes;
}

/** Drains whose reason names a request that no longer exists: undrained. */
function sweepDrains(nodes: Iterable<SlurmNodeInfo>, owners: ReadonlyMap<string, NodeMaintenance>, prefix: string): SlurmWrite[] {
  const writes: SlurmWrite[] = [];
  for (const n of nodes) {
    if (!hasDrainFlag(n.state)) continue;
    const owner = drainOwner(n.reason, prefix);
    if (owner === undefined || owners.has(namespacedName(owner))) continue;
    writes.push({ kind: 'slurmUndrain', node: n.name, maintenance: owner, why: `kmaint drained it for ${owner.namespace}/${owner.name}, which no longer exists`, sweep: true });
  }
  return writes;
}

/**
 * Every request in the snapshot (deleted ones too, malformed ones too) owns what it names; the rest is swept. Only with
 * slurmrestd read (the token-free mode writes nothing to Slurm); the reservations only when they were read.
 */
export function planSlurmSweep(maintenances: readonly NodeMaintenance[], ctx: SlurmContext | undefined, now: Date): SlurmWrite[] {
  if (ctx?.kind !== 'on' || ctx.view.kind !== 'ok') return [];
  const owners = new Map(maintenances.map((nm) => [maintenanceKey(nm), nm]));
  const byName = (m: ReadonlyMap<string, SlurmReservationInfo>): SlurmReservationInfo[] => [...m.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const reservations = ctx.view.reservations?.kind === 'ok' ? sweepReservations(byName(ctx.view.reservations.byName), owners, now) : [];
  const nodes = [...ctx.view.nodes.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return [...sweepDrains(nodes, owners, ctx.settings.reasonPrefix), ...reservations];
}
