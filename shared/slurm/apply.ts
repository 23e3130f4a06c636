// Applies the planners' Slurm writes, one request each, after the pass's Kubernetes writes; failures are counted values.
import type { SlurmRestClient, SlurmResult } from './client.ts';
import { describeSlurmWrite, type SlurmWrite } from './view.ts';

export interface SlurmApplyResult {
  applied: Record<string, number>;
  errors: Array<{ action: string; error: string }>;
}

function applyOne(client: SlurmRestClient, w: SlurmWrite): Promise<SlurmResult<void>> {
  switch (w.kind) {
    case 'slurmDrain':
      return client.drain(w.node, w.reason);
    case 'slurmUndrain':
      return client.undrain(w.node);
    case 'slurmReserve':
      return client.createReservation({ name: w.reservation, nodes: w.nodes, startTime: w.startTime, users: w.users, comment: w.comment });
    case 'slurmUnreserve':
      return client.deleteReservation(w.reservation);
  }
}

export async function applySlurmWrites(client: SlurmRestClient | undefined, writes: readonly SlurmWrite[]): Promise<SlurmApplyResult> {
  const result: SlurmApplyResult = { applied: {}, errors: [] };
  for (const w of writes) {
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
