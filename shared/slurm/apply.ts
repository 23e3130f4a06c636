// Applies the planners' Slurm writes, one request each, after the pass's Kubernetes writes; failures are counted values.
import type { SlurmRestClient } from './client.ts';
import { describeSlurmWrite, type SlurmWrite } from './view.ts';

export interface SlurmApplyResult {
  applied: Record<string, number>;
  errors: Array<{ action: string; error: string }>;
}

export async function applySlurmWrites(client: SlurmRestClient | undefined, writes: readonly SlurmWrite[]): Promise<SlurmApplyResult> {
  const result: SlurmApplyResult = { applied: {}, errors: [] };
  for (const w of writes) {
    if (!client) {
      result.errors.push({ action: describeSlurmWrite(w), error: 'no slurmrestd client this pass' });
      continue;
    }
    const r = w.kind === 'slurmDrain' ? await client.drain(w.node, w.reason) : await client.undrain(w.node);
    if (r.ok) result.applied[w.kind] = (result.applied[w.kind] ?? 0) + 1;
    else result.errors.push({ action: describeSlurmWrite(w), error: r.problem.message });
  }
  return result;
}
