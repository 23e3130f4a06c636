// The ideal makespan, computed without a cluster: each node takes as long as its slowest pod's grace period (pods
// stop together) plus the requestor's hold, and nodes are admitted in order as soon as every limit allows. No
// budget waits, no replacement pods, no pass cadence: the floor the simulation is measured against.
import type { V1Node } from '@kubernetes/client-node';
import { resolveIntOrPercent, type ResolvedConfig } from '../../shared/config/index.ts';
import { matchesLabels } from '../../shared/selectors/index.ts';

/** A set of nodes with limits of its own: the cluster, a pool, a zone. */
export interface LimitScope {
  name: string;
  members: ReadonlySet<string>;
  /** Nodes in progress at once; undefined for no limit of its own. */
  parallel?: number;
  /** Nodes unavailable at once (under maintenance, cordoned or not Ready); undefined for no limit. */
  unavailable?: number;
}

export interface IdealInput {
  /** Nodes in the order they are admitted. */
  order: readonly string[];
  /** Simulated ms each node's maintenance takes. */
  durationMs: ReadonlyMap<string, number>;
  scopes: readonly LimitScope[];
  /** Nodes unavailable before any request (count against maxUnavailable throughout). */
  unavailableAtStart: ReadonlySet<string>;
}

/** The makespan in ms, or undefined when the limits admit nothing (a limit of 0). */
export function idealMakespan(input: IdealInput): number | undefined {
  const pending = [...input.order];
  const running = new Map<string, number>();
  const scopesOf = new Map<string, LimitScope[]>();
  for (const node of pending) scopesOf.set(node, input.scopes.filter((s) => s.members.has(node)));
  const busy = new Map<LimitScope, number>(input.scopes.map((s) => [s, 0]));
  const down = new Map<LimitScope, number>(input.scopes.map((s) => [s, [...s.members].filter((n) => input.unavailableAtStart.has(n)).length]));
  const extraOf = (node: string): number => (input.unavailableAtStart.has(node) ? 0 : 1);
  let t = 0;
  let end = 0;
  while (pending.length > 0 || running.size > 0) {
    for (let i = 0; i < pending.length; ) {
      const node = pending[i] as string;
      const extra = extraOf(node);
      const scopes = scopesOf.get(node) ?? [];
      const fits = scopes.every((s) => (s.parallel === undefined || (busy.get(s) ?? 0) < s.parallel) && (s.unavailable === undefined || (down.get(s) ?? 0) + extra <= s.unavailable));
      if (!fits) {
        i++;
        continue;
      }
      pending.splice(i, 1);
      running.set(node, t + (input.durationMs.get(node) ?? 0));
      for (const s of scopes) {
        busy.set(s, (busy.get(s) ?? 0) + 1);
        down.set(s, (down.get(s) ?? 0) + extra);
      }
    }
    if (running.size === 0) return pending.length === 0 ? end : undefined;
    t = [...running.values()].reduce((min, v) => Math.min(min, v), Infinity);
    for (const [node, at] of running) {
      if (at > t) continue;
      running.delete(node);
      for (const s of scopesOf.get(node) ?? []) {
        busy.set(s, (busy.get(s) ?? 0) - 1);
        down.set(s, (down.get(s) ?? 0) - extraOf(node));
      }
    }
    end = Math.max(end, t);
  }
  return end;
}

/** The cluster, each configured pool and (with maxUnavailablePerZone) each zone as limit scopes. */
export function limitScopes(config: ResolvedConfig, nodes: readonly V1Node[]): LimitScope[] {
  const names = (list: readonly V1Node[]): Set<string> => new Set(list.map((n) => n.metadata?.name ?? ''));
  const scopes: LimitScope[] = [
    {
      name: 'cluster',
      members: names(nodes),
      parallel: config.maxParallelOperations ?? 0,
      ...(config.maxUnavailable === 'unlimited' ? {} : { unavailable: config.maxUnavailable ?? 0 }),
    },
  ];
  const rules = config.admission;
  if (!rules) return scopes;
  const unpooled = [...nodes];
  for (const pool of rules.pools) {
    const members = unpooled.filter((n) => matchesLabels(pool.selector, n.metadata?.labels));
    for (const m of members) unpooled.splice(unpooled.indexOf(m), 1);
    const resolve = (v: typeof pool.maxParallelOperations, rounding: 'up' | 'down'): number | undefined => {
      if (v === undefined) return undefined;
      const r = resolveIntOrPercent(v, members.length, rounding);
      return r.ok ? r.value : 0;
    };
    const parallel = resolve(pool.maxParallelOperations, 'up');
    const unavailable = resolve(pool.maxUnavailable, 'down');
    scopes.push({ name: `pool ${pool.name}`, members: names(members), ...(parallel !== undefined ? { parallel } : {}), ...(unavailable !== undefined ? { unavailable } : {}) });
  }
  if (rules.maxUnavailablePerZone !== undefined) {
    const zones = new Map<string, V1Node[]>();
    for (const n of nodes) {
      const zone = n.metadata?.labels?.[rules.zoneLabel];
      if (zone !== undefined) zones.set(zone, [...(zones.get(zone) ?? []), n]);
    }
    for (const [zone, members] of zones) {
      const r = resolveIntOrPercent(rules.maxUnavailablePerZone, members.length, 'down');
      scopes.push({ name: `zone ${zone}`, members: names(members), unavailable: r.ok ? r.value : 0 });
    }
  }
  return scopes;
}
