// Reports configuration problems where operators look: a `Valid` condition and a Warning event on the config,
// and (with pools) a `PoolsOverlap` condition naming the Nodes that several pools select.
import { shortList } from '../text/index.ts';
import { CONFIG_CONDITION_POOLS_OVERLAP, CONFIG_CONDITION_VALID, EVENT_REASON_INVALID_CONFIG, EVENT_REASON_POOLS_OVERLAP, rfc3339Seconds } from '../api/index.ts';
import type { Action, Condition, MaintenanceOperatorConfig } from '../api/index.ts';
import type { PoolOverlap } from '../scheduling/index.ts';

/** At most this many Nodes are named in the PoolsOverlap message; the rest are counted. */
export const OVERLAP_NODES_NAMED = 20;

export interface ConfigReportExtras {
  /** Values that make one scope admit nothing, each already naming its field and scope. */
  scopedProblems?: readonly string[];
  /**
   * What the config trusts that an operator should know, leaving it valid (an unset spec.slurm.workerNamespaces): said
   * on the Valid condition, never a reason to exit 2 or to admit less.
   */
  notes?: readonly string[];
  /** Nodes selected by more than one pool; undefined leaves the PoolsOverlap condition alone. */
  poolOverlaps?: readonly PoolOverlap[];
}

interface Desired {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  /** A Warning event to emit when the condition is (re)written this way. */
  warning?: { eventReason: string; reason: string };
}

/** The Valid condition, or undefined when nothing needs saying (no problems and no condition yet). */
function validCondition(existing: Condition | undefined, problems: readonly string[], scoped: readonly string[], notes: readonly string[]): Desired | undefined {
  const parts = [...(problems.length > 0 ? [`${problems.join('; ')}; no new maintenance is admitted until this is fixed`] : []), ...scoped];
  if (!existing && parts.length === 0 && notes.length === 0) return undefined;
  const invalid = parts.length > 0;
  return {
    type: CONFIG_CONDITION_VALID,
    status: invalid ? 'False' : 'True',
    reason: invalid ? 'InvalidValue' : 'Valid',
    message: [...(invalid ? parts : ['configuration is valid']), ...notes.map((n) => `note: ${n}`)].join('; '),
    ...(invalid ? { warning: { eventReason: EVENT_REASON_INVALID_CONFIG, reason: 'invalid configuration' } } : {}),
  };
}

/** `node-a (gpu, general), node-b (gpu, general)`, the first OVERLAP_NODES_NAMED, then `and N more`. */
export function describeOverlaps(overlaps: readonly PoolOverlap[]): string {
  return shortList(overlaps.map((o) => `${o.node} (${o.pools.join(', ')})`), OVERLAP_NODES_NAMED);
}

function overlapCondition(existing: Condition | undefined, overlaps: readonly PoolOverlap[] | undefined): Desired | undefined {
  if (overlaps === undefined || (!existing && overlaps.length === 0)) return undefined;
  if (overlaps.length === 0) {
    return { type: CONFIG_CONDITION_POOLS_OVERLAP, status: 'False', reason: 'Disjoint', message: 'every node is selected by at most one pool' };
  }
  return {
    type: CONFIG_CONDITION_POOLS_OVERLAP,
    status: 'True',
    reason: 'NodesInSeveralPools',
    message: `${overlaps.length} node${overlaps.length === 1 ? ' is' : 's are'} selected by more than one pool and belong${overlaps.length === 1 ? 's' : ''} to the first listed: ${describeOverlaps(overlaps)}`,
    warning: { eventReason: EVENT_REASON_POOLS_OVERLAP, reason: 'nodes in several pools' },
  };
}

/** Actions that bring the config's conditions in line with the problems and overlaps (none when they already are). */
export function planConfigReport(config: MaintenanceOperatorConfig | undefined, problems: readonly string[], now: Date, extras: ConfigReportExtras = {}): Action[] {
  if (!config) return [];
  const existingOf = (type: string): Condition | undefined => config.status?.conditions?.find((c) => c.type === type);
  const desired = [
    validCondition(existingOf(CONFIG_CONDITION_VALID), problems, extras.scopedProblems ?? [], extras.notes ?? []),
    overlapCondition(existingOf(CONFIG_CONDITION_POOLS_OVERLAP), extras.poolOverlaps),
  ].filter((d): d is Desired => d !== undefined);
  const changed = desired.filter((d) => {
    const existing = existingOf(d.type);
    return !existing || existing.status !== d.status || existing.message !== d.message;
  });
  if (changed.length === 0) return [];

  let conditions = [...(config.status?.conditions ?? [])];
  for (const d of changed) {
    const existing = existingOf(d.type);
    const condition: Condition = {
      type: d.type,
      status: d.status,
      reason: d.reason,
      message: d.message,
      lastTransitionTime: existing && existing.status === d.status ? existing.lastTransitionTime : rfc3339Seconds(now),
      ...(config.metadata.generation !== undefined ? { observedGeneration: config.metadata.generation } : {}),
    };
    conditions = [...conditions.filter((c) => c.type !== d.type), condition];
  }
  const target = { namespace: config.metadata.namespace ?? '', name: config.metadata.name, resourceVersion: config.metadata.resourceVersion ?? '' };
  const actions: Action[] = [{ kind: 'writeConfigStatus', target, conditions, reason: changed.map((d) => d.message).join('; ') }];
  for (const d of changed) {
    if (d.warning === undefined) continue;
    actions.push({
      kind: 'emitEvent',
      target: { kind: 'MaintenanceOperatorConfig', namespace: target.namespace, name: target.name, ...(config.metadata.uid ? { uid: config.metadata.uid } : {}) },
      type: 'Warning',
      eventReason: d.warning.eventReason,
      message: d.message,
      reason: d.warning.reason,
    });
  }
  return actions;
}
