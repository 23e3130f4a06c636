// The limits section of the config (cluster limits, admission rules, GC, node conditions, out-of-service taint): resolved
// against the node count; invalid limits fail closed. Called only by shared/pass/config.ts loadConfig, once per pass.
import { DEFAULTS, maintenanceOperatorConfigSchema } from '#api';
import type { IntOrString, LogLevel } from '#api';
import type { z } from 'zod';
import { loadAdmissionRules } from './admission.ts';
import type { AdmissionRules } from './admission.ts';
import { resolveIntOrPercent } from './int-or-percent.ts';

export interface ResolvedConfig {
  /** Nodes that may be in maintenance at once; percentages round up. 0 admits nothing; null = invalid, admit nothing. */
  maxParallelOperations: number | null;
  /** Nodes that may be unavailable at once; percentages round down. null = invalid, admit nothing. */
  maxUnavailable: number | 'unlimited' | null;
  /** Age after the ready-time annotation at which a NodeMaintenance is garbage-collected. */
  maxNodeMaintenanceTimeSeconds: number;
  logLevel: LogLevel;
  /** Whether kmaint sets the KEP-5683 node lifecycle conditions (spec.nodeConditions). @default true */
  nodeConditions: boolean;
  /** spec.outOfServiceTaint: whether kmaint taints a dead node under maintenance, and after how long NotReady. */
  outOfServiceTaint: { enabled: boolean; afterNotReadySeconds: number };
  /** Seconds before a request's kmaint.io/not-before from which its node shows MaintenancePlanned (spec.maintenancePlannedLeadSeconds). @default 3600 */
  maintenancePlannedLeadSeconds: number;
  /** kmaint's pools, zone limit and windows; absent when the spec uses none of them, so scheduling is exactly upstream's. */
  admission?: AdmissionRules;
}

export interface LoadedConfig {
  config: ResolvedConfig;
  /** One human line per value that could not be used, naming its field. */
  problems: string[];
}

/** What applies when there is no MaintenanceOperatorConfig at all. */
export const DEFAULT_CONFIG: Readonly<ResolvedConfig> = Object.freeze({
  maxParallelOperations: DEFAULTS.maxParallelOperations,
  maxUnavailable: 'unlimited',
  maxNodeMaintenanceTimeSeconds: DEFAULTS.maxNodeMaintenanceTimeSeconds,
  logLevel: DEFAULTS.logLevel,
  nodeConditions: true,
  outOfServiceTaint: Object.freeze({ enabled: false, afterNotReadySeconds: 300 }),
  maintenancePlannedLeadSeconds: 3600,
});

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('').replace(/^\./, '');
  return `${path === '' ? 'MaintenanceOperatorConfig' : path}: ${issue.message}`;
}

/**
 * Parses the config object (absent = defaults) and resolves its limits against `nodeCount` nodes.
 * A spec that fails the schema makes both limits null; so does each value that cannot be resolved, and any
 * extension value that leaves pool membership or the zone limit unknown (see loadAdmissionRules).
 */
export function loadLimits(obj: unknown, nodeCount: number): LoadedConfig {
  if (obj === undefined || obj === null) return { config: { ...DEFAULT_CONFIG }, problems: [] };
  const parsed = maintenanceOperatorConfigSchema.safeParse(obj);
  if (!parsed.success) {
    return {
      config: { ...DEFAULT_CONFIG, maxParallelOperations: null, maxUnavailable: null },
      problems: parsed.error.issues.map(describeIssue),
    };
  }
  const spec = parsed.data.spec ?? {};
  const problems: string[] = [];
  const resolve = (field: string, value: IntOrString, rounding: 'up' | 'down'): number | null => {
    const result = resolveIntOrPercent(value, nodeCount, rounding);
    if (result.ok) return result.value;
    problems.push(`spec.${field}: ${result.error}`);
    return null;
  };
  const config: ResolvedConfig = {
    maxParallelOperations: resolve('maxParallelOperations', spec.maxParallelOperations ?? DEFAULTS.maxParallelOperations, 'up'),
    maxUnavailable: spec.maxUnavailable === undefined ? 'unlimited' : resolve('maxUnavailable', spec.maxUnavailable, 'down'),
    maxNodeMaintenanceTimeSeconds: spec.maxNodeMaintenanceTimeSeconds ?? DEFAULTS.maxNodeMaintenanceTimeSeconds,
    logLevel: spec.logLevel ?? DEFAULTS.logLevel,
    nodeConditions: spec.nodeConditions ?? true,
    outOfServiceTaint: { enabled: spec.outOfServiceTaint?.enabled ?? false, afterNotReadySeconds: spec.outOfServiceTaint?.afterNotReadySeconds ?? 300 },
    maintenancePlannedLeadSeconds: spec.maintenancePlannedLeadSeconds ?? DEFAULT_CONFIG.maintenancePlannedLeadSeconds,
  };
  const admission = loadAdmissionRules(spec, nodeCount);
  if (admission.rules !== undefined) config.admission = admission.rules;
  if (admission.problems.length > 0) {
    problems.push(...admission.problems);
    config.maxParallelOperations = null;
    config.maxUnavailable = null;
  }
  return { config, problems };
}
