// The reaper's part of a pass: whether it runs at all, its plan from the base snapshot, and the terminations the
// applier cannot do (cloud API calls) carried out before the request deletions they lead to. The same pass reads the
// instances' cloud scheduled events (spec.cloudEvents) through the same providers and files requests for them.
import type { Action } from '../api/index.ts';
import type { KubeClient } from '../kube/index.ts';
import {
  defaultInstanceProviders,
  describeTermination,
  executeTerminations,
  planCloudEventRequestsOff,
  planCloudEvents,
  planReaper,
  providerPrefix,
  type InstanceProviders,
  type ScheduledEvent,
  type ScheduledEventsRead,
  type Termination,
  type TerminationResult,
} from '../reaper/index.ts';
import type { WindowSet } from '../config/index.ts';
import { matchesLabels } from '../selectors/index.ts';
import { reaperModeFrom, type KmaintConfig, type ReaperMode } from './config.ts';
import type { BaseSnapshot } from './snapshot.ts';

/** What the reaper pass reads: its providers, and the scheduled events when spec.cloudEvents is enabled. */
export interface ReaperReads {
  providers: InstanceProviders;
  events?: ScheduledEventsRead;
}

/**
 * The scheduled events of every Node's instance, each providerID asked of the provider of its prefix; a Node whose
 * prefix no provider reads events for is left out (neither filed nor deleted), and so is a Node without a providerID.
 */
export async function readScheduledEvents(base: BaseSnapshot, config: KmaintConfig, providers: InstanceProviders, signal?: AbortSignal): Promise<ReaperReads> {
  const cloud = config.cloudEvents;
  if (cloud.kind !== 'enabled') return { providers };
  const byPrefix = new Map<string, string[]>();
  for (const node of base.nodeList) {
    const id = node.spec?.providerID ?? '';
    if (id !== '') byPrefix.set(providerPrefix(id), [...(byPrefix.get(providerPrefix(id)) ?? []), id]);
  }
  const events = new Map<string, readonly ScheduledEvent[]>();
  const unread = new Map<string, string>();
  for (const [prefix, ids] of byPrefix) {
    const read = await providers.get(prefix)?.scheduledEvents?.(ids, [...cloud.config.codes], signal);
    for (const [id, list] of read?.events ?? []) events.set(id, list);
    for (const [id, why] of read?.unread ?? []) unread.set(id, why);
  }
  return { providers, events: { events, unread } };
}

/**
 * How a reaper pass runs, from one GET of the config: `disabled` takes no lease, lists nothing and writes nothing, so
 * `kmaint run all` and the CronJob cost one request while it is off; `dry-run` (spec.reaper.dryRun) writes only
 * events, not even the pass lease; `active` (or an invalid config, reported on the object) is a normal pass.
 */
export async function reaperMode(client: KubeClient, namespace: string): Promise<ReaperMode> {
  return reaperModeFrom({ rawConfig: await client.getConfig(namespace) });
}

export interface ReaperPassPlan {
  actions: Action[];
  terminations: Termination[];
  /** Plan lines of the terminations (they are not Actions). */
  lines: string[];
  /** Reap requests and cloud event requests created (new work for the scheduler and drainer). */
  requested: number;
  /** With the repair ladder: Nodes over its repeatLimit (the metric kmaint_repair_repeat_offender_nodes). */
  repeatOffenders?: number;
}

/**
 * Each Node's window sets, as the scheduler admits it: the cluster's spec.windows, then the windows of the first pool
 * whose selector matches it. A Node under no window is absent.
 */
function windowsByNode(base: BaseSnapshot, config: KmaintConfig): Map<string, WindowSet[]> {
  const rules = config.limits.admission;
  const out = new Map<string, WindowSet[]>();
  if (rules === undefined) return out;
  for (const node of base.nodeList) {
    const pool = rules.pools.find((p) => matchesLabels(p.selector, node.metadata?.labels));
    const sets = [...(rules.windows ? [rules.windows] : []), ...(pool?.windows ? [pool.windows] : [])];
    if (sets.length > 0) out.set(node.metadata?.name ?? '', sets);
  }
  return out;
}

/** The cloud event requests' writes over `base` (none when spec.cloudEvents is off or invalid, or nothing was read). */
function planCloudEventsPass(base: BaseSnapshot, config: KmaintConfig, namespace: string, read: ScheduledEventsRead | undefined, now: Date): Action[] {
  const loaded = config.cloudEvents;
  if (loaded.kind !== 'enabled' || !read) return [];
  const meta = config.object?.metadata;
  const owner = { namespace: meta?.namespace ?? namespace, name: meta?.name ?? '', ...(meta?.uid ? { uid: meta.uid } : {}) };
  const moves = loaded.config.move ? { moves: { now, windowsOf: windowsByNode(base, config) } } : {};
  return planCloudEvents({ nodes: base.nodeList, maintenances: base.maintenances, namespace, config: owner, read, ...moves }, loaded.config).actions;
}

/**
 * The deletes of kmaint's own cloud event requests when spec.cloudEvents is off (none while it is on, or the config
 * does not pass its schema). Planned by the scheduler, which runs and reads every request whatever the switches: the
 * reaper pass itself is skipped, reading nothing, while both the reaper and cloud events are off.
 */
export function planCloudEventsOff(base: BaseSnapshot, config: KmaintConfig, namespace: string): Action[] {
  return config.cloudEventsSwitch === 'off' ? planCloudEventRequestsOff(base.nodeList, base.maintenances, namespace) : [];
}

/**
 * The reaper's plan over `base` (no reaper actions when disabled or invalid: problems are reported on the config), then the
 * cloud events'. `holding`: the waiting requests that could start now (shared/scheduling's rule); the others hold no node.
 */
export function planReaperPass(base: BaseSnapshot, config: KmaintConfig, namespace: string, reads: ReaperReads, now: Date, holding?: ReadonlySet<string>): ReaperPassPlan {
  const loaded = config.reaper;
  const cloud = planCloudEventsPass(base, config, namespace, reads.events, now);
  const plan = loaded.kind === 'enabled' ? planReaper({ nodes: base.nodeList, maintenances: base.maintenances, namespace, providers: reads.providers, ...(holding !== undefined ? { holding } : {}) }, loaded.config, now) : undefined;
  const actions = [...(plan?.actions ?? []), ...cloud];
  const terminations = plan?.terminations ?? [];
  const offenders = plan?.repeatOffenders;
  return { actions, terminations, lines: terminations.map(describeTermination), requested: actions.filter((a) => a.kind === 'createMaintenance').length, ...(offenders !== undefined ? { repeatOffenders: offenders } : {}) };
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
