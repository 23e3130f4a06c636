// Reads kmaint's admission extensions of the config (pools, zone limit, windows) once per pass. Percentages stay
// as written: they are of each pool's or zone's nodes, which only the scheduler's snapshot knows.
import { DEFAULT_ZONE_LABEL } from '#api';
import type { IntOrString, MaintenanceOperatorConfigSpec, MaintenancePoolSpec } from '#api';
import { labelKeyError, labelSelectorFromObject } from '#selectors';
import type { LabelSelector } from '#selectors';
import { resolveIntOrPercent } from './int-or-percent.ts';
import { compileWindows } from './windows.ts';
import type { WindowSet } from './windows.ts';

/** How long a gang waits before it holds freed slots (issue 21), when gangReserveAfterSeconds is unset. */
export const DEFAULT_GANG_RESERVE_AFTER_SECONDS = 600;

/** How long a node-label gang stays incomplete before it starts as the requests that exist (issue 40), when unset. */
export const DEFAULT_GANG_INCOMPLETE_ADMIT_AFTER_SECONDS = 3600;

export interface PoolRules {
  readonly name: string;
  readonly selector: LabelSelector;
  /** As written; a percentage is of the pool's nodes, rounded up. Unset: only the cluster-wide limit. */
  readonly maxParallelOperations?: IntOrString;
  /** As written; a percentage is of the pool's nodes, rounded down. Unset: only the cluster-wide limit. */
  readonly maxUnavailable?: IntOrString;
  /** The pool's own windows, which narrow the cluster's. Unset: none of its own. */
  readonly windows?: WindowSet;
  /** Why the pool's limits cannot be used; the pool then admits nothing (its windows carry their own problem). */
  readonly problem?: string;
}

export interface AdmissionRules {
  /** In spec order: a node belongs to the first pool that selects it. */
  readonly pools: readonly PoolRules[];
  /** @default 'topology.kubernetes.io/zone' */
  readonly zoneLabel: string;
  /** As written; a percentage is of the zone's nodes, rounded down. Unset: no zone limit. */
  readonly maxUnavailablePerZone?: IntOrString;
  /** Cluster-wide windows. Unset or empty: always open. */
  readonly windows?: WindowSet;
  /** Node label whose value makes a gang of the requests on nodes sharing it (issue 21). Unset: gangs by request label only. */
  readonly gangNodeLabel?: string;
  /** Seconds a gang waits before it holds freed slots (issue 21). @default 600 */
  readonly gangReserveAfterSeconds: number;
  /**
   * Seconds a node-label gang waits for requests on the rest of its clique, from its oldest waiting request's
   * creationTimestamp, before it starts as the requests that exist (issue 40). @default 3600
   */
  readonly gangIncompleteAdmitAfterSeconds: number;
  /** One line per value that makes one scope (a pool, or the cluster's windows) admit nothing, naming both. */
  readonly scopedProblems: readonly string[];
}

export interface LoadedAdmission {
  /** Undefined when the spec uses none of the extensions: scheduling is exactly upstream's. */
  rules?: AdmissionRules;
  /** Values that leave pool membership or the zone limit unknown; the whole config then admits nothing. */
  problems: string[];
}

/** Whether the spec uses any admission extension. */
function usesExtensions(spec: MaintenanceOperatorConfigSpec): boolean {
  return spec.pools !== undefined || spec.maxUnavailablePerZone !== undefined || spec.zoneLabel !== undefined || spec.windows !== undefined || spec.gangNodeLabel !== undefined || spec.gangReserveAfterSeconds !== undefined || spec.gangIncompleteAdmitAfterSeconds !== undefined;
}

/**
 * Checks an int-or-percent limit now so the config report names it; against all `nodeCount` nodes, so a value
 * that resolves here resolves for any pool or zone (a subset).
 */
function limitError(value: IntOrString | undefined, nodeCount: number): string | undefined {
  if (value === undefined) return undefined;
  const result = resolveIntOrPercent(value, nodeCount, 'up');
  return result.ok ? undefined : result.error;
}

function scoped(problem: string, scope: string): string {
  return `${problem} (${scope} admits nothing until this is fixed)`;
}

function loadPool(pool: MaintenancePoolSpec, path: string, nodeCount: number, problems: string[], scopedProblems: string[]): PoolRules | undefined {
  const selector = labelSelectorFromObject(pool.nodeSelector);
  if (!selector.ok) {
    // Which nodes a broken pool holds is unknown, and so is which later pool they fall through to: fail closed everywhere.
    problems.push(`${path}.nodeSelector: ${selector.error}`);
    return undefined;
  }
  const limitProblems: string[] = [];
  for (const field of ['maxParallelOperations', 'maxUnavailable'] as const) {
    const error = limitError(pool[field], nodeCount);
    if (error !== undefined) limitProblems.push(`${path}.${field}: ${error}`);
  }
  const windows = pool.windows === undefined || pool.windows.length === 0 ? undefined : compileWindows(pool.windows, `${path}.windows`);
  for (const problem of limitProblems) scopedProblems.push(scoped(problem, `pool ${pool.name}`));
  if (windows?.kind === 'invalid') scopedProblems.push(scoped(windows.problem, `pool ${pool.name}`));
  return {
    name: pool.name,
    selector: selector.selector,
    ...(pool.maxParallelOperations !== undefined ? { maxParallelOperations: pool.maxParallelOperations } : {}),
    ...(pool.maxUnavailable !== undefined ? { maxUnavailable: pool.maxUnavailable } : {}),
    ...(windows !== undefined ? { windows } : {}),
    ...(limitProblems.length > 0 ? { problem: limitProblems.join('; ') } : {}),
  };
}

/** Validates and compiles the extensions of a spec that passed the schema. */
export function loadAdmissionRules(spec: MaintenanceOperatorConfigSpec, nodeCount: number): LoadedAdmission {
  if (!usesExtensions(spec)) return { problems: [] };
  const problems: string[] = [];
  const scopedProblems: string[] = [];

  const pools: PoolRules[] = [];
  for (const [i, pool] of (spec.pools ?? []).entries()) {
    const loaded = loadPool(pool, `spec.pools[${i}]`, nodeCount, problems, scopedProblems);
    if (loaded !== undefined) pools.push(loaded);
  }

  const zoneLabel = spec.zoneLabel ?? DEFAULT_ZONE_LABEL;
  const zoneLabelError = labelKeyError(zoneLabel);
  if (zoneLabelError !== undefined) problems.push(`spec.zoneLabel: invalid label key "${zoneLabel}": ${zoneLabelError}`);
  const zoneError = limitError(spec.maxUnavailablePerZone, nodeCount);
  if (zoneError !== undefined) problems.push(`spec.maxUnavailablePerZone: ${zoneError}`);
  const gangLabelError = spec.gangNodeLabel === undefined ? undefined : labelKeyError(spec.gangNodeLabel);
  if (gangLabelError !== undefined) problems.push(`spec.gangNodeLabel: invalid label key "${spec.gangNodeLabel ?? ''}": ${gangLabelError}`);

  const windows = spec.windows === undefined || spec.windows.length === 0 ? undefined : compileWindows(spec.windows, 'spec.windows');
  if (windows?.kind === 'invalid') scopedProblems.push(scoped(windows.problem, 'the cluster'));

  return {
    rules: {
      pools,
      zoneLabel,
      ...(spec.maxUnavailablePerZone !== undefined ? { maxUnavailablePerZone: spec.maxUnavailablePerZone } : {}),
      ...(windows !== undefined ? { windows } : {}),
      ...(spec.gangNodeLabel !== undefined ? { gangNodeLabel: spec.gangNodeLabel } : {}),
      gangReserveAfterSeconds: spec.gangReserveAfterSeconds ?? DEFAULT_GANG_RESERVE_AFTER_SECONDS,
      gangIncompleteAdmitAfterSeconds: spec.gangIncompleteAdmitAfterSeconds ?? DEFAULT_GANG_INCOMPLETE_ADMIT_AFTER_SECONDS,
      scopedProblems,
    },
    problems,
  };
}
