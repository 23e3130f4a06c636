// Writes a pass makes outside Kubernetes, as values its plan returns: the reaper's instance terminations and Slurm's
// drains, undrains and reservations. runPass carries every effect out the same way, around the actions as the effect
// says, and never asks which one it is. A new outside system is a constructor here and the plans that return it.
import { maintenanceKey, type Action, type NodeMaintenance } from '../api/index.ts';
import { errorMessage } from '../errors/index.ts';
import { describeTermination, type Termination } from '../reaper/index.ts';
import { applySlurmWrites, describeSlurmWrite, needsFreshRead, type FreshRequests, type SlurmRead, type SlurmWrite } from '../slurm/index.ts';
import type { PassOptions } from './options.ts';
import type { PassFunction } from './summary.ts';
import { reaperProviders, terminate } from './reaper-pass.ts';

/** What carrying an effect out is given: the pass's options, its clock, the requests its plan read. */
export interface EffectContext {
  fn: PassFunction;
  opts: PassOptions;
  now: Date;
  planned: ReadonlyMap<string, NodeMaintenance>;
}

/**
 * A plan's writes to another system. `before-actions`: carried out first, returning the actions that follow from what
 * happened (a reap request is deleted only once its instance is terminated). `after-actions`: carried out once the
 * Kubernetes writes are done, told which write units stopped (a request's outside writes are not sent when its unit
 * stopped).
 */
export type PassEffect = {
  /** How many writes it plans (the summary's `planned`). */
  count: number;
  /** One plan line per write (dry runs, the summary). */
  lines: string[];
} & (
  | { at: 'before-actions'; run: (ctx: EffectContext) => Promise<{ actions: Action[]; errors: string[] }> }
  | { at: 'after-actions'; run: (ctx: EffectContext, stopped: readonly string[]) => Promise<{ applied: Record<string, number>; errors: string[] }> }
);

/** The reaper's terminations, before the actions: the deletions and events that follow are what `terminate` returns. */
export function terminationsEffect(terminations: readonly Termination[]): PassEffect[] {
  if (terminations.length === 0) return [];
  return [
    {
      at: 'before-actions',
      count: terminations.length,
      lines: terminations.map(describeTermination),
      run: async ({ opts, now }) => {
        const done = await terminate(terminations, reaperProviders(opts.reaperProviders), now, opts.signal);
        return { actions: done.actions, errors: done.errors };
      },
    },
  ];
}

/**
 * A plan's Slurm writes, after the actions: drains were recorded on their requests in an earlier pass; undrains hold
 * the finalizer until confirmed. A request's Slurm writes follow its Kubernetes unit, and what creates Slurm state is
 * checked against a fresh read of the requests.
 */
export function slurmEffect(writes: readonly SlurmWrite[], read: SlurmRead): PassEffect[] {
  if (writes.length === 0) return [];
  return [
    {
      at: 'after-actions',
      count: writes.length,
      lines: writes.map(describeSlurmWrite),
      run: async ({ fn, opts, now, planned }, stopped) => {
        const fresh = needsFreshRead(writes) ? await readRequestsAgain(opts) : undefined;
        const result = await applySlurmWrites(read.client, writes, { stopped, planned, fresh, now });
        if (result.withheld.length > 0) opts.logger?.info({ withheld: result.withheld }, `${fn} pass: Slurm writes withheld`);
        return { applied: result.applied, errors: result.errors.map((e) => `${e.action}: ${e.error}`) };
      },
    },
  ];
}

/**
 * One LIST of the requests after the pass's Kubernetes writes, for the Slurm writes that create state (guard.ts): a
 * request deleted since the snapshot gets no drain or reservation that cleanup, which may have let it go, never removes.
 */
async function readRequestsAgain(opts: PassOptions): Promise<FreshRequests> {
  try {
    const listed = await opts.client.listMaintenances();
    return { kind: 'read', byKey: new Map(listed.map((nm) => [maintenanceKey(nm), nm])) };
  } catch (err) {
    return { kind: 'unreadable', message: errorMessage(err) };
  }
}
