// Which planned Slurm writes are still sent once the pass's Kubernetes writes are done: a write belongs to its
// request's write unit (a unit that stopped on a conflict or an error sends none), and every write that makes Slurm
// state (a drain, a reservation, an extension) or sweeps it away is checked against a fresh read of its request, taken
// after the plan: a request deleted (or replaced, or no longer wanting it) since the snapshot gets nothing created that
// cleanup, which may already have let it go, would never remove. Pure.
import { maintenanceKey, namespacedName, type NodeMaintenance } from '../api/index.ts';
import { recordedSlurmNodes } from './ownership.ts';
import { recordedReservation, wantsReservation } from './reservation-rules.ts';
import { describeSlurmWrite, isSweep, type SlurmWrite } from './view.ts';

/** The requests read again after the plan, by namespace/name; or why they could not be. */
export type FreshRequests = { kind: 'read'; byKey: ReadonlyMap<string, NodeMaintenance> } | { kind: 'unreadable'; message: string };

export interface SlurmWriteGuard {
  /** Units whose Kubernetes writes stopped this pass ("nm/<namespace>/<name>", shared/pass/apply.ts). */
  stopped: readonly string[];
  /** The requests as the plan saw them, by namespace/name (their uid). */
  planned: ReadonlyMap<string, NodeMaintenance>;
  /** Read only when some write needs it (`needsFreshRead`). */
  fresh: FreshRequests | undefined;
  now: Date;
}

export interface GuardedWrites {
  send: SlurmWrite[];
  /** Not sent, each with why: decided again next pass (or swept, should Slurm have it after all). */
  withheld: Array<{ action: string; why: string }>;
}

/** Writes that create Slurm state or remove state no request owns: each needs its request read again first. */
function needsFreshRequest(w: SlurmWrite): boolean {
  return w.kind === 'slurmDrain' || w.kind === 'slurmReserve' || w.kind === 'slurmMove' || w.kind === 'slurmExtend' || isSweep(w);
}

/** Whether applying `writes` needs one fresh LIST of the requests. */
export function needsFreshRead(writes: readonly SlurmWrite[]): boolean {
  return writes.some(needsFreshRequest);
}

/** Why the fresh request no longer wants `w` made, or undefined when it still does. */
function noLongerWanted(w: SlurmWrite, fresh: NodeMaintenance, now: Date): string | undefined {
  const key = maintenanceKey(fresh);
  if (fresh.metadata.deletionTimestamp) return `${key} is being deleted`;
  switch (w.kind) {
    case 'slurmDrain':
      return recordedSlurmNodes(fresh).includes(w.node) ? undefined : `${key} no longer records Slurm node ${w.node}`;
    case 'slurmReserve':
    case 'slurmMove':
      if (recordedReservation(fresh) !== w.reservation) return `${key} no longer records Slurm reservation ${w.reservation}`;
      return wantsReservation(fresh, now) ? undefined : `${key} no longer wants Slurm reservation ${w.reservation}`;
    case 'slurmExtend':
      return recordedReservation(fresh) === w.reservation ? undefined : `${key} no longer records Slurm reservation ${w.reservation}`;
    default:
      return undefined;
  }
}

/** Why `w` is not sent, or undefined to send it. */
function withholding(w: SlurmWrite, guard: SlurmWriteGuard): string | undefined {
  const key = namespacedName(w.maintenance);
  if (guard.stopped.includes(`nm/${key}`)) return `the Kubernetes writes of ${key} stopped this pass`;
  if (!needsFreshRequest(w)) return undefined;
  if (guard.fresh === undefined) return `${key} was not read again before the write`;
  if (guard.fresh.kind === 'unreadable') return `cannot read ${key} again before the write: ${guard.fresh.message}`;
  const fresh = guard.fresh.byKey.get(key);
  if (isSweep(w)) return fresh === undefined ? undefined : `${key} exists again: it owns this state`;
  if (fresh === undefined) return `${key} is gone`;
  const plannedUid = guard.planned.get(key)?.metadata.uid;
  if (plannedUid !== undefined && fresh.metadata.uid !== plannedUid) return `${key} was replaced (uid ${fresh.metadata.uid ?? ''})`;
  return noLongerWanted(w, fresh, guard.now);
}

/** Splits `writes` into those to send and those withheld, order kept. */
export function guardSlurmWrites(writes: readonly SlurmWrite[], guard: SlurmWriteGuard): GuardedWrites {
  const out: GuardedWrites = { send: [], withheld: [] };
  for (const w of writes) {
    const why = withholding(w, guard);
    if (why === undefined) out.send.push(w);
    else out.withheld.push({ action: describeSlurmWrite(w), why });
  }
  return out;
}
