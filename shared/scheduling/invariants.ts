// Checks a scheduling plan against the rules it must never break; run after every planner test and in soak runs.
import { CONDITION_READY, CONDITION_WAITING, maintenanceKey, namespacedName, Phase } from '#api';
import type { NodeMaintenance } from '#api';
import { SchedulingInvariantError } from './errors.ts';
import { findGangs } from './gangs.ts';
import type { SchedulingLimits } from './limits.ts';
import type { SchedulingPlan } from './plan.ts';
import { resolveScopes } from './scopes.ts';
import type { ScopeCount, ScopeLimit } from './scopes.ts';
import type { SchedulingState } from './state.ts';
import type { WindowStatus } from '#config';

/**
 * Throws SchedulingInvariantError listing every violation: admitted requests that were not candidates, two
 * admitted on one Node, maxParallelOperations or maxUnavailable exceeded by this plan's admissions (a cluster
 * already above a limit may stay there, but nothing may be added), admissions under an invalid config, and
 * writes that do not match the admitted and waiting lists. With `limits.admission`: the same for each pool and
 * zone, and no admission in a scope that is invalid or (at `now`) outside its windows.
 */
export function checkSchedulingInvariants(state: SchedulingState, limits: SchedulingLimits, plan: SchedulingPlan, now?: Date): void {
  const violations: string[] = [];
  const unscheduled = new Map(state.unscheduled.map((nm) => [maintenanceKey(nm), nm]));

  const admitted: NodeMaintenance[] = [];
  const admittedNodes = new Set<string>();
  for (const key of plan.admitted) {
    const nm = unscheduled.get(key);
    if (nm === undefined) {
      violations.push(`${key} admitted but it is not an unscheduled request`);
      continue;
    }
    const node = nm.spec.nodeName;
    if (!state.nodes.has(node)) violations.push(`${key} admitted but node ${node} does not exist`);
    if (state.nodesUnderMaintenance.has(node)) violations.push(`${key} admitted but node ${node} is already under maintenance`);
    if (admittedNodes.has(node)) violations.push(`two requests admitted for node ${node}`);
    admittedNodes.add(node);
    admitted.push(nm);
  }

  const { maxParallelOperations, maxUnavailable } = limits;
  if (admitted.length > 0) {
    if (maxParallelOperations === null || maxUnavailable === null) {
      violations.push(`${admitted.length} admitted under an invalid config`);
    } else {
      const inProgressAfter = state.nodesUnderMaintenance.size + admitted.length;
      if (inProgressAfter > maxParallelOperations) {
        violations.push(`${inProgressAfter} nodes in progress after the plan, maxParallelOperations is ${maxParallelOperations}`);
      }
      const unavailableBefore = new Set([...state.nodesUnavailable, ...state.nodesUnderMaintenance]).size;
      const newlyUnavailable = [...admittedNodes].filter((n) => !state.nodesUnavailable.has(n)).length;
      if (maxUnavailable !== 'unlimited' && newlyUnavailable > 0 && unavailableBefore + newlyUnavailable > maxUnavailable) {
        violations.push(`${unavailableBefore} unavailable + ${newlyUnavailable} newly unavailable exceeds maxUnavailable ${maxUnavailable}`);
      }
    }
  }

  if (limits.admission !== undefined && admitted.length > 0) violations.push(...scopeViolations(state, limits, admittedNodes, now));
  violations.push(...externalPoolViolations(state, admittedNodes), ...gangViolations(state, limits, plan.admitted));

  const admittedKeys = new Set(plan.admitted);
  const waitingKeys = new Set(plan.waiting.map((w) => w.key));
  for (const key of unscheduled.keys()) {
    if (admittedKeys.has(key) === waitingKeys.has(key)) violations.push(`${key} must be either admitted or waiting, exactly once`);
  }
  // A phase written into status (issue 40) waits too: written back to Pending, a candidate next pass.
  const notAdmitted = new Set(state.notAdmitted.map(maintenanceKey));
  for (const key of notAdmitted) {
    if (!waitingKeys.has(key)) violations.push(`${key} has a phase kmaint did not admit but is not written back to Pending`);
  }
  for (const key of waitingKeys) {
    if (!unscheduled.has(key) && !notAdmitted.has(key)) violations.push(`${key} listed as waiting but it is not an unscheduled request`);
    if (!plan.waitingOn.has(key)) violations.push(`${key} waits without a gate recorded`);
  }
  // An admission recorded on its Node whose status write failed: finished (Scheduled) without a slot of its own.
  const toFinish = new Set(state.toFinish.map(maintenanceKey));

  const written = new Set<string>();
  for (const action of plan.actions) {
    if (action.kind !== 'writeStatus') continue;
    const key = namespacedName(action.target);
    if (written.has(key)) violations.push(`${key} has two status writes`);
    written.add(key);
    if (!unscheduled.has(key) && !notAdmitted.has(key) && !toFinish.has(key)) violations.push(`${key} status written but it is not an unscheduled request`);
    const reason = action.status.conditions?.find((c) => c.type === CONDITION_READY)?.reason;
    const expected = admittedKeys.has(key) || toFinish.has(key) ? Phase.Scheduled : Phase.Pending;
    if (reason !== expected) {
      violations.push(`${key} written with Ready reason ${reason ?? '(none)'}, expected ${expected}`);
      continue;
    }
    // kmaint.io/Waiting names the gate of a wait, and goes with the write that admits.
    const on = action.status.conditions?.find((c) => c.type === CONDITION_WAITING)?.reason;
    const expectedOn = expected === Phase.Pending ? plan.waitingOn.get(key) : undefined;
    if (on !== expectedOn) violations.push(`${key} written with kmaint.io/Waiting ${on ?? '(none)'}, expected ${expectedOn ?? '(none)'}`);
  }
  for (const key of admittedKeys) {
    if (!written.has(key)) violations.push(`${key} admitted without a status write`);
  }

  if (plan.blocked && plan.waiting.length === 0) violations.push('plan is blocked but nothing waits');
  if (plan.idle && plan.actions.length > 0) violations.push('plan is idle but has actions');

  if (violations.length > 0) throw new SchedulingInvariantError(violations);
}

function windowViolation(scope: string, status: WindowStatus, admitted: number): string | undefined {
  if (status.kind === 'open' || status.kind === 'unrestricted') return undefined;
  return `${admitted} admitted in ${scope} while its windows are ${status.kind}`;
}

/** An invalid limit is reported by the caller (the scope admits nothing at all). */
function limitViolations(scope: string, field: string, limit: ScopeLimit, before: number, added: number): string[] {
  if (added === 0 || limit.kind !== 'limit') return [];
  return before + added > limit.max ? [`${scope}: ${before} + ${added} exceeds ${field} ${limit.max}`] : [];
}

/** Pool, zone and window rules, counted afresh from the admitted Nodes. */
function scopeViolations(state: SchedulingState, limits: SchedulingLimits, admittedNodes: ReadonlySet<string>, now: Date | undefined): string[] {
  const violations: string[] = [];
  const scopes = resolveScopes(state, limits.admission, now ?? new Date(0));
  const tally = (groupOf: (node: string) => string | undefined): Map<string, { inProgress: number; newlyUnavailable: number }> => {
    const out = new Map<string, { inProgress: number; newlyUnavailable: number }>();
    for (const node of admittedNodes) {
      const group = groupOf(node);
      if (group === undefined) continue;
      const entry = out.get(group) ?? { inProgress: 0, newlyUnavailable: 0 };
      entry.inProgress += 1;
      if (!state.nodesUnavailable.has(node)) entry.newlyUnavailable += 1;
      out.set(group, entry);
    }
    return out;
  };
  const unavailable = (count: ScopeCount): number => count.inProgress + count.cordonedOrNotReady;

  if (now === undefined) {
    const hasWindows = limits.admission?.windows !== undefined || limits.admission?.pools.some((p) => p.windows !== undefined);
    if (hasWindows) violations.push('windows are configured but no `now` was given to check them');
  } else {
    const clusterWindow = windowViolation('the cluster', scopes.clusterWindow, admittedNodes.size);
    if (clusterWindow !== undefined) violations.push(clusterWindow);
  }
  for (const [name, added] of tally((node) => scopes.poolOf.get(node))) {
    const pool = scopes.pools.get(name);
    if (pool === undefined) continue;
    const scope = `pool ${name}`;
    if (pool.problem !== undefined) violations.push(`${added.inProgress} admitted in ${scope}, which has an invalid value`);
    const window = now === undefined ? undefined : windowViolation(scope, pool.window, added.inProgress);
    if (window !== undefined) violations.push(window);
    violations.push(...limitViolations(scope, 'maxParallelOperations', pool.maxParallelOperations, pool.count.inProgress, added.inProgress));
    violations.push(...limitViolations(scope, 'maxUnavailable', pool.maxUnavailable, unavailable(pool.count), added.newlyUnavailable));
  }
  for (const [zone, added] of tally((node) => scopes.zoneOf.get(node))) {
    const scope = scopes.zones.get(zone);
    if (scope === undefined) continue;
    if (scope.maxUnavailable.kind === 'invalid') violations.push(`${added.inProgress} admitted in zone ${zone}, whose maxUnavailablePerZone is invalid`);
    else violations.push(...limitViolations(`zone ${zone}`, 'maxUnavailablePerZone', scope.maxUnavailable, unavailable(scope.count), added.newlyUnavailable));
  }
  return violations;
}

/** Limits another system defines (SR-IOV pools): counted afresh, as the other limits (issue 30: a gang's trial inflated them). */
function externalPoolViolations(state: SchedulingState, admittedNodes: ReadonlySet<string>): string[] {
  const pools = state.externalPools;
  if (pools === undefined) return [];
  const violations: string[] = [];
  const added = new Map<string, number>();
  for (const node of admittedNodes) {
    if (pools.problems.has(node)) violations.push(`node ${node} admitted but its ${pools.what} pool cannot be known`);
    const name = pools.poolOf.get(node);
    if (name !== undefined) added.set(name, (added.get(name) ?? 0) + 1);
  }
  for (const [name, count] of added) {
    const pool = pools.pools.get(name);
    if (pool?.max !== undefined && pool.inProgress + count > pool.max) violations.push(`${name}: ${pool.inProgress} + ${count} exceeds ${pool.max}`);
  }
  return violations;
}

/** A gang is admitted whole or not at all (issue 21), whatever keeps it out. */
function gangViolations(state: SchedulingState, limits: SchedulingLimits, admittedKeys: readonly string[]): string[] {
  const admitted = new Set(admittedKeys);
  const seen = new Set<string>();
  const violations: string[] = [];
  for (const gang of findGangs(state, limits.admission?.gangNodeLabel, new Map()).byKey.values()) {
    const keys = gang.members.map(maintenanceKey);
    if (seen.has(keys.join(' '))) continue;
    seen.add(keys.join(' '));
    const taken = keys.filter((k) => admitted.has(k));
    if (taken.length > 0 && taken.length < keys.length) violations.push(`gang ${gang.name}: ${taken.length} of its ${keys.length} waiting requests admitted (${taken.join(', ')})`);
  }
  return violations;
}
