// Applies the planners' Slurm writes, one request each, after the pass's Kubernetes writes; failures are counted values.
// Each write first passes its guard (guard.ts): its request's Kubernetes unit did not stop, and a fresh read of the
// request still wants it.
import type { SlurmRestClient, SlurmResult } from './client.ts';
import { guardSlurmWrites, type SlurmWriteGuard } from './guard.ts';
import { describeSlurmWrite, type SlurmWrite } from './view.ts';

export interface SlurmApplyResult {
  applied: Record<string, number>;
  errors: Array<{ action: string; error: string }>;
  /** Writes not sent, with why (guard.ts). */
  withheld: Array<{ action: string; why: string }>;
}

function applyOne(client: SlurmRestClient, w: SlurmWrite): Promise<SlurmResult<void>> {
  switch (w.kind) {
    case 'slurmDrain':
      return client.drain(w.node, w.reason);
    case 'slurmUndrain':
      return client.undrain(w.node);
    case 'slurmReserve':
      return client.createReservation({ name: w.reservation, nodes: w.nodes, startTime: w.startTime, endTime: w.endTime, users: w.users, comment: w.comment });
    case 'slurmMove':
      return client.moveReservation(w.reservation, w.startTime, w.endTime);
    case 'slurmExtend':
      return client.extendReservation(w.reservation, w.endTime);
    case 'slurmUnreserve':
      return client.deleteReservation(w.reservation);
  }
}

export async function applySlurmWrites(client: SlurmRestClient | undefined, writes: readonly SlurmWrite[], guard: SlurmWriteGuard): Promise<SlurmApplyResult> {
  const { send, withheld } = guardSlurmWrites(writes, guard);
  const result: SlurmApplyResult = { applied: {}, errors: [], withheld };
  for (const w of send) {
    if (!client) {
      result.errors.push({ action: describeSlurmWrite(w), error: 'no slurmrestd client this pass' });
      continue;
    }
    const r = await applyOne(client, w);
    if (r.ok) result.applied[w.kind] = (result.applied[w.kind] ?? 0) + 1;
    else result.errors.push({ action: describeSlurmWrite(w), error: r.problem.message });
  }
  return result;
}
