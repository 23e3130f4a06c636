// spec.reaper of the MaintenanceOperatorConfig, resolved once per pass: predicates compiled and type-checked,
// limits checked, the reap drainSpec built. Any problem stops the reaper (fail closed) and names its field.
import { DEFAULT_REAP_PREDICATE, DEFAULT_UNHEALTHY_PREDICATE, DEFAULT_ZONE_LABEL, maintenanceOperatorConfigSchema } from '#api';
import type { DrainSpec, IntOrString } from '#api';
import { resolveIntOrPercent } from '../config/index.ts';
import { compilePredicate, compileStringList, type ListExpression, type Predicate } from './cel.ts';
import { loadRepairConfig, type RepairConfig } from './repair-config.ts';

export interface ReaperConfig {
  /** Decide and report with Node events only. */
  dryRun: boolean;
  reapPredicate: Predicate;
  unhealthyPredicate: Predicate;
  unhealthyForSeconds: number;
  /** Resolved per pass against the cluster's Node count (percentages round down). */
  maxNodesUnhealthy: IntOrString;
  /** Resolved per zone against the zone's Node count (percentages round down). */
  maxNodesUnhealthyInSameZone: IntOrString;
  newNodeGracePeriodSeconds: number;
  /** The drainSpec of every reap request (timeoutSeconds = drainTimeoutSeconds). */
  drainSpec: DrainSpec;
  forceRetryOnError: boolean;
  skipReaping: boolean;
  /** Join another requestor's request for a Node to reap (its additionalRequestors) instead of leaving the Node alone. */
  joinExistingRequests: boolean;
  provider: 'providerID' | 'none';
  /** Node label naming the zone (the config's zoneLabel). */
  zoneLabel: string;
  /** The repair ladder (spec.reaper.repair); absent: every reaped Node is terminated (or quarantined), as before. */
  repair?: RepairConfig;
  /**
   * spec.reaper.devicesFrom (issue 45): the failing devices of a Node to reap, `driver/pool/device`. A non-empty list
   * makes its request a device request (kmaint.io/devices): never cordoned, never terminated, no repair ladder.
   */
  devicesFrom?: ListExpression;
}

export type LoadedReaper =
  | { kind: 'disabled' }
  | { kind: 'invalid'; problems: string[] }
  | { kind: 'enabled'; config: ReaperConfig };

/** The reap drainSpec without one configured: everything a drain may remove, as kubectl drain --force --delete-emptydir-data. */
export const DEFAULT_REAP_DRAIN_SPEC: Readonly<DrainSpec> = Object.freeze({ force: true, deleteEmptyDir: true });

/** Appended to every problem: what the problem stops. */
export const REAPER_STOPPED = 'the reaper is stopped until this is fixed';

/**
 * Reads spec.reaper of the config object (absent, or `enabled: false` = disabled). A config that fails the schema
 * is invalid here too (loadLimits reports its issues); predicates that do not compile or type-check, and limits
 * that are not an integer or percentage, are problems naming their field.
 */
export function loadReaperConfig(obj: unknown): LoadedReaper {
  if (obj === undefined || obj === null) return { kind: 'disabled' };
  const parsed = maintenanceOperatorConfigSchema.safeParse(obj);
  if (!parsed.success) {
    const touchesReaper = parsed.error.issues.some((i) => i.path[0] === 'spec' && i.path[1] === 'reaper');
    const raw = (obj as { spec?: { reaper?: { enabled?: unknown } } }).spec?.reaper;
    if (raw?.enabled !== true && !touchesReaper) return { kind: 'disabled' };
    return { kind: 'invalid', problems: [`spec.reaper: the config does not pass its schema; ${REAPER_STOPPED}`] };
  }
  const spec = parsed.data.spec ?? {};
  const reaper = spec.reaper;
  if (reaper?.enabled !== true) return { kind: 'disabled' };
  const problems: string[] = [];
  const predicate = (field: string, source: string): Predicate | undefined => {
    const compiled = compilePredicate(source);
    if (compiled.ok) return compiled.predicate;
    problems.push(`spec.reaper.${field}: ${compiled.error}`);
    return undefined;
  };
  const reapPredicate = predicate('reapPredicate', reaper.reapPredicate ?? DEFAULT_REAP_PREDICATE);
  const unhealthyPredicate = predicate('unhealthyPredicate', reaper.unhealthyPredicate ?? DEFAULT_UNHEALTHY_PREDICATE);
  const maxNodesUnhealthy = reaper.maxNodesUnhealthy ?? 1;
  const maxNodesUnhealthyInSameZone = reaper.maxNodesUnhealthyInSameZone ?? 1;
  for (const [field, value] of [['maxNodesUnhealthy', maxNodesUnhealthy], ['maxNodesUnhealthyInSameZone', maxNodesUnhealthyInSameZone]] as const) {
    const checked = resolveIntOrPercent(value, 100, 'down');
    if (!checked.ok) problems.push(`spec.reaper.${field}: ${checked.error}`);
  }
  const repair = reaper.repair !== undefined ? loadRepairConfig(reaper.repair, problems) : undefined;
  const devicesFrom = reaper.devicesFrom !== undefined ? compileStringList(reaper.devicesFrom) : undefined;
  if (devicesFrom?.ok === false) problems.push(`spec.reaper.devicesFrom: ${devicesFrom.error}`);
  if (problems.length > 0 || reapPredicate === undefined || unhealthyPredicate === undefined) {
    return { kind: 'invalid', problems: problems.map((p) => `${p}; ${REAPER_STOPPED}`) };
  }
  const drainTimeoutSeconds = reaper.drainTimeoutSeconds ?? 310;
  return {
    kind: 'enabled',
    config: {
      dryRun: reaper.dryRun ?? true,
      reapPredicate,
      unhealthyPredicate,
      unhealthyForSeconds: reaper.unhealthyForSeconds ?? 300,
      maxNodesUnhealthy,
      maxNodesUnhealthyInSameZone,
      newNodeGracePeriodSeconds: reaper.newNodeGracePeriodSeconds ?? 300,
      drainSpec: { ...(reaper.drainSpec ?? DEFAULT_REAP_DRAIN_SPEC), timeoutSeconds: drainTimeoutSeconds },
      forceRetryOnError: reaper.forceRetryOnError ?? true,
      skipReaping: reaper.skipReaping ?? false,
      joinExistingRequests: reaper.joinExistingRequests ?? false,
      provider: reaper.provider ?? 'providerID',
      zoneLabel: spec.zoneLabel ?? DEFAULT_ZONE_LABEL,
      ...(repair !== undefined ? { repair } : {}),
      ...(devicesFrom?.ok === true ? { devicesFrom: devicesFrom.expression } : {}),
    },
  };
}
