// The reaper's part of a pass: whether it runs at all, its plan from the base snapshot, and the terminations the
// applier cannot do (cloud API calls) carried out before the request deletions they lead to.
import type { Action, MaintenanceOperatorConfig } from '../api/index.ts';
import type { KubeClient } from '../kube/index.ts';
import { defaultInstanceProviders, describeTermination, executeTerminations, loadReaperConfig, planReaper, type InstanceProviders, type Termination, type TerminationResult } from '../reaper/index.ts';
import type { BaseSnapshot } from './snapshot.ts';

/** The reaper's config problems (each naming its field), to report on the config object with the others. */
export function reaperProblems(config: MaintenanceOperatorConfig | undefined): string[] {
  const loaded = loadReaperConfig(config);
  return loaded.kind === 'invalid' ? loaded.problems : [];
}

/**
 * How a reaper pass runs, from one GET of the config: `disabled` takes no lease, lists nothing and writes nothing, so
 * `kmaint run all` and the CronJob cost one request while it is off; `dry-run` (spec.reaper.dryRun) writes only
 * events, not even the pass lease; `active` (or an invalid config, reported on the object) is a normal pass.
 */
export async function reaperMode(client: KubeClient, namespace: string): Promise<'disabled' | 'dry-run' | 'active'> {
  return reaperModeOf(await client.getConfig(namespace));
}

/** The same, from a config already read (the round's snapshot). */
export function reaperModeOf(config: MaintenanceOperatorConfig | undefined): 'disabled' | 'dry-run' | 'active' {
  const loaded = loadReaperConfig(config);
  if (loaded.kind === 'disabled') return 'disabled';
  return loaded.kind === 'enabled' && loaded.config.dryRun ? 'dry-run' : 'active';
}

export interface ReaperPassPlan {
  actions: Action[];
  terminations: Termination[];
  /** Plan lines of the terminations (they are not Actions). */
  lines: string[];
  /** Reap requests created (new work for the scheduler and drainer). */
  requested: number;
}

/** The reaper's plan over `base` (no actions when disabled or invalid: problems are reported on the config). */
export function planReaperPass(base: BaseSnapshot, namespace: string, providers: InstanceProviders, now: Date): ReaperPassPlan {
  const loaded = loadReaperConfig(base.config);
  if (loaded.kind !== 'enabled') return { actions: [], terminations: [], lines: [], requested: 0 };
  const plan = planReaper({ nodes: base.nodeList, maintenances: base.maintenances, namespace, providers }, loaded.config, now);
  return {
    actions: plan.actions,
    terminations: plan.terminations,
    lines: plan.terminations.map(describeTermination),
    requested: plan.actions.filter((a) => a.kind === 'createMaintenance').length,
  };
}

/** Terminates, then returns the deletions and events that follow, for the applier. */
export function terminate(terminations: readonly Termination[], providers: InstanceProviders, now: Date, signal?: AbortSignal): Promise<TerminationResult> {
  return executeTerminations(terminations, providers, now, signal);
}

let shipped: InstanceProviders | undefined;

/** The given providers, else kmaint's own (made once per process, so SDK clients and their connections are reused). */
export function reaperProviders(given: InstanceProviders | undefined): InstanceProviders {
  return given ?? (shipped ??= defaultInstanceProviders());
}
