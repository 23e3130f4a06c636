// The admission gates: every rule a request must pass to start now, in the order that picks its wait reason,
// and the walk's running counts they read. With no pools, zones or windows only the two cluster gates can refuse.
import { requestNotBefore, rfc3339Seconds, WaitingOn, type NodeMaintenance } from '#api';
import { blockingAlertAdmits, blockingAlertRefusal, blockingPodAdmits, blockingPodRefusal } from './blockers.ts';
import { externalPoolAdmits, externalPoolRefusal } from './external-pools.ts';
import { deviceRequestOf, deviceRequestRefusal } from '../devices/index.ts';
import { releaseDelayAdmits, releaseDelayRefusal } from './release-delay.ts';
import { refusal, type Refusal } from './refusal.ts';
import { SchedulingInvariantError } from './errors.ts';
import type { ValidBudget } from './limits.ts';
import type { PoolScope, ScopeCount, ScopeLimit, Scopes } from './scopes.ts';
import type { SchedulingState } from './state.ts';
import { waitReason } from './wait-reasons.ts';
import type { WindowStatus } from '#config';

/** Counts after the admissions the walk has made so far; local to one walk, the snapshot is never touched. */
export interface Tally {
  readonly state: SchedulingState;
  readonly budget: ValidBudget;
  readonly scopes: Scopes;
  /** Requests admitted so far (each takes a cluster slot). */
  admitted: number;
  /** Of those, how many were on an available Node (each takes availability budget). */
  newlyUnavailable: number;
  readonly cluster: ScopeCount;
  readonly pools: Map<string, ScopeCount>;
  readonly zones: Map<string, ScopeCount>;
  /** The pass's clock, for the gates that read time (a request's not-before, the release delay); absent in walks that only count limits. */
  readonly now?: Date;
  /** Admissions so far per external pool (state.externalPools). */
  readonly external: Map<string, number>;
}

export function startTally(state: SchedulingState, budget: ValidBudget, scopes: Scopes, now?: Date): Tally {
  let cordonedOrNotReady = 0;
  for (const node of state.nodesUnavailable) if (!state.nodesUnderMaintenance.has(node)) cordonedOrNotReady += 1;
  return {
    state,
    budget,
    scopes,
    admitted: 0,
    newlyUnavailable: 0,
    cluster: { inProgress: budget.inProgress, cordonedOrNotReady },
    pools: new Map([...scopes.pools].map(([name, pool]) => [name, { ...pool.count }])),
    zones: new Map([...scopes.zones].map(([zone, scope]) => [zone, { ...scope.count }])),
    ...(now !== undefined ? { now } : {}),
    external: new Map(),
  };
}

/**
 * Why a request may not start at `now` for its own kmaint.io/not-before: until that time, or never while the value is
 * not an RFC 3339 time (never guessed). Undefined: none set, or the time has come.
 */
export function notBeforeRefusal(nm: NodeMaintenance, now: Date): string | undefined {
  return notBeforeGateRefusal(nm, now)?.text;
}

/** notBeforeRefusal typed: a value that cannot be read is `unusable` (its requestor fixes it), a time ahead is `time`. */
function notBeforeGateRefusal(nm: NodeMaintenance, now: Date): Refusal | undefined {
  const notBefore = requestNotBefore(nm);
  if (notBefore.kind === 'invalid') return refusal('not-before', 'unusable', waitReason.notBeforeInvalid(notBefore.reason));
  if (notBefore.kind === 'valid' && now.getTime() < notBefore.at.getTime()) return refusal('not-before', 'time', waitReason.notBefore(rfc3339Seconds(notBefore.at)));
  return undefined;
}

/** Counts one admission on `node` in every scope it belongs to. */
export function recordAdmission(tally: Tally, node: string): void {
  const wasUnavailable = tally.state.nodesUnavailable.has(node);
  tally.admitted += 1;
  if (!wasUnavailable) tally.newlyUnavailable += 1;
  const pool = tally.scopes.poolOf.get(node);
  const zone = tally.scopes.zoneOf.get(node);
  const counts = [tally.cluster, pool === undefined ? undefined : tally.pools.get(pool), zone === undefined ? undefined : tally.zones.get(zone)];
  for (const count of counts) {
    if (count === undefined) continue;
    count.inProgress += 1;
    if (wasUnavailable) count.cordonedOrNotReady -= 1;
  }
  const external = tally.state.externalPools?.poolOf.get(node);
  if (external !== undefined) tally.external.set(external, (tally.external.get(external) ?? 0) + 1);
}

export interface Gate {
  readonly name: string;
  /** What a request it refuses waits on (the reason of kmaint.io/Waiting). */
  readonly on: WaitingOn;
  /** Why a request on `node` may not start now, or undefined when this gate lets it through. `request`: the gates of the request itself. */
  refuse(tally: Tally, node: string, request?: NodeMaintenance): Refusal | undefined;
  /** What the gate read when it lets a request on `node` through (`kmaint explain`); undefined: it does not apply there. */
  admits(tally: Tally, node: string, request?: NodeMaintenance): string | undefined;
  /**
   * What frees the gate once it refuses for its counts: a request in progress in its scope finishing, and where it
   * counts them, a cordoned or not-ready Node there coming back. Absent: only time or a config fix frees it (windows,
   * values that cannot be used).
   */
  readonly freedBy?: { readonly scope: 'cluster' | 'pool' | 'zone'; readonly unavailable: boolean };
  /**
   * Its refusal does not depend on any count (the request's own time, a window, a value that cannot be used): a request
   * it refuses cannot start now on its own account and holds nothing (start-now.ts, issue 40).
   */
  readonly whateverTheCounts?: true;
}

const limitText = (limit: ScopeLimit): string => (limit.kind === 'limit' ? limit.text : limit.kind === 'unlimited' ? 'unlimited' : `invalid (${limit.problem})`);
const unavailableCounts = (inProgress: number, cordoned: number): string => `${inProgress} under maintenance + ${cordoned} cordoned or not ready`;

function windowRefusal(gate: string, scope: string, status: WindowStatus): Refusal | undefined {
  switch (status.kind) {
    case 'unrestricted':
    case 'open':
      return undefined;
    case 'closed':
      return refusal(gate, 'time', waitReason.windowClosed(scope, rfc3339Seconds(status.nextOpen)));
    case 'never':
      return refusal(gate, 'time', waitReason.windowNever(scope));
    case 'invalid':
      return refusal(gate, 'unusable', waitReason.windowInvalid(scope, status.problem));
  }
}

function poolOf(tally: Tally, node: string): { scope: PoolScope; count: ScopeCount } | undefined {
  const name = tally.scopes.poolOf.get(node);
  const scope = name === undefined ? undefined : tally.scopes.pools.get(name);
  const count = name === undefined ? undefined : tally.pools.get(name);
  return scope === undefined || count === undefined ? undefined : { scope, count };
}

/** The limit is reached for one more request taking it: in progress (parallel) or unavailable. */
function reached(limit: ScopeLimit, used: number): limit is Extract<ScopeLimit, { kind: 'limit' }> {
  return limit.kind === 'limit' && used >= limit.max;
}

/** In the order a waiting request's reason is chosen: the first gate that refuses names it. */
export const GATES: readonly Gate[] = [
  // The request's own not-before: only time (or its requestor) frees it, whatever the counts. The plan takes such
  // requests out before the one-per-Node pick (planScheduling), so one that may not start yet never holds its Node.
  {
    name: 'not-before',
    on: WaitingOn.NotBefore,
    whateverTheCounts: true,
    refuse: (t, _node, nm) => (nm === undefined || t.now === undefined ? undefined : notBeforeGateRefusal(nm, t.now)),
    admits: (t, _node, nm) => {
      const notBefore = nm === undefined ? undefined : requestNotBefore(nm);
      return notBefore?.kind === 'valid' && t.now !== undefined ? `not-before ${rfc3339Seconds(notBefore.at)}: passed` : undefined;
    },
  },
  // A device request (kmaint.io/devices, issue 45) whose devices cannot be taken out of service alone (a value that
  // cannot be read, a device its node does not publish, no DeviceTaintRule API): never admitted, never made a node
  // request; only its requestor or the cluster fixes it, whatever the counts.
  {
    name: 'device request',
    on: WaitingOn.Device,
    whateverTheCounts: true,
    refuse: (t, _node, nm) => (nm === undefined ? undefined : refusal('device request', 'unusable', deviceRequestRefusal(nm, t.state.devices))),
    admits: (_t, _node, nm) => {
      const request = nm === undefined ? undefined : deviceRequestOf(nm);
      return request?.kind === 'devices' ? `device request: ${request.devices.length} device(s) published by the node, DeviceTaintRules served` : undefined;
    },
  },
  // Outside the cluster's windows nothing new starts whatever the counts, and the message says when that changes.
  {
    name: 'window cluster',
    on: WaitingOn.Window,
    whateverTheCounts: true,
    refuse: (t) => windowRefusal('window cluster', 'cluster', t.scopes.clusterWindow),
    admits: (t) => (t.scopes.clusterWindow.kind === 'unrestricted' ? 'cluster window: none configured' : 'cluster window: open'),
  },
  // A pool with a value that cannot be used admits nothing (fail closed); fixing it comes before anything else there.
  {
    name: 'pool invalid',
    on: WaitingOn.Pool,
    whateverTheCounts: true,
    refuse: (t, node) => {
      const pool = poolOf(t, node)?.scope;
      return pool?.problem === undefined ? undefined : refusal('pool invalid', 'unusable', waitReason.poolInvalid(pool.name, pool.problem));
    },
    // A usable pool says nothing here; its limits speak below.
    admits: () => undefined,
  },
  // A pool's windows narrow the cluster's for its Nodes, for the same reason as the cluster's.
  {
    name: 'window pool',
    on: WaitingOn.Window,
    whateverTheCounts: true,
    refuse: (t, node) => {
      const pool = poolOf(t, node)?.scope;
      return pool === undefined ? undefined : windowRefusal('window pool', `pool ${pool.name}`, pool.window);
    },
    admits: (t, node) => {
      const pool = poolOf(t, node)?.scope;
      return pool === undefined ? undefined : `pool ${pool.name} window: ${pool.window.kind === 'unrestricted' ? 'none configured' : 'open'}`;
    },
  },
  // kured's --lock-release-delay (issue 43 point 3): after a node comes back nothing starts until the delay is over;
  // only time frees it (cleanup lets the held request go then), whatever the counts, and the message says when.
  {
    name: 'release delay',
    on: WaitingOn.ReleaseDelay,
    whateverTheCounts: true,
    refuse: (t) => (t.now === undefined ? undefined : refusal('release delay', 'time', releaseDelayRefusal(t.state.releaseDelay, t.now))),
    admits: (t) => releaseDelayAdmits(t.state.releaseDelay),
  },
  // kured's blockers (issue 43): a firing alert holds every admission, a blocking pod its Node's; only what they watch
  // frees them, whatever the counts, so a blocked request takes no slot and holds nothing (start-now.ts).
  {
    name: 'blocking alert',
    on: WaitingOn.Blocker,
    whateverTheCounts: true,
    refuse: (t) => refusal('blocking alert', 'blocked', blockingAlertRefusal(t.state.blockers)),
    admits: (t) => blockingAlertAdmits(t.state.blockers),
  },
  {
    name: 'blocking pod',
    on: WaitingOn.Blocker,
    whateverTheCounts: true,
    refuse: (t, node) => refusal('blocking pod', 'blocked', blockingPodRefusal(t.state.blockers, node)),
    admits: (t, node) => blockingPodAdmits(t.state.blockers, node),
  },
  // Upstream's two limits next: with nothing else configured they alone decide, with exactly today's texts.
  {
    name: 'parallel',
    on: WaitingOn.Parallel,
    refuse: (t) =>
      t.budget.availableSlots - t.admitted === 0 ? refusal('parallel', 'limit', waitReason.maxParallelOperations(t.budget.maxParallelOperations, t.cluster.inProgress)) : undefined,
    admits: (t) => `maxParallelOperations ${t.budget.maxParallelOperations}: ${t.cluster.inProgress} in progress`,
    freedBy: { scope: 'cluster', unavailable: false },
  },
  // A request on an already-unavailable Node takes a slot but no availability budget (upstream's slot flaw fixed).
  {
    name: 'unavailable',
    on: WaitingOn.Unavailable,
    refuse: (t, node) =>
      !t.state.nodesUnavailable.has(node) && t.budget.canBecomeUnavailable - t.newlyUnavailable === 0
        ? refusal('unavailable', 'limit', waitReason.maxUnavailable(t.budget.maxUnavailable, t.cluster.inProgress, t.cluster.cordonedOrNotReady))
        : undefined,
    admits: (t, node) =>
      t.state.nodesUnavailable.has(node)
        ? `maxUnavailable ${t.budget.maxUnavailable}: node ${node} is already unavailable, so it takes no availability budget`
        : `maxUnavailable ${t.budget.maxUnavailable}: ${unavailableCounts(t.cluster.inProgress, t.cluster.cordonedOrNotReady)}`,
    freedBy: { scope: 'cluster', unavailable: true },
  },
  // A pool's limits only narrow the cluster's, so they speak once the cluster's let the request through.
  {
    name: 'pool parallel',
    on: WaitingOn.Pool,
    refuse: (t, node) => {
      const pool = poolOf(t, node);
      if (pool === undefined) return undefined;
      const limit = pool.scope.maxParallelOperations;
      return reached(limit, pool.count.inProgress) ? refusal('pool parallel', 'limit', waitReason.poolParallel(pool.scope.name, limit.text, pool.count.inProgress)) : undefined;
    },
    admits: (t, node) => {
      const pool = poolOf(t, node);
      return pool && `pool ${pool.scope.name} (${pool.scope.nodes} nodes): maxParallelOperations ${limitText(pool.scope.maxParallelOperations)}: ${pool.count.inProgress} in progress`;
    },
    freedBy: { scope: 'pool', unavailable: false },
  },
  {
    name: 'pool unavailable',
    on: WaitingOn.Pool,
    refuse: (t, node) => {
      const pool = poolOf(t, node);
      if (pool === undefined || t.state.nodesUnavailable.has(node)) return undefined;
      const limit = pool.scope.maxUnavailable;
      const { inProgress, cordonedOrNotReady } = pool.count;
      return reached(limit, inProgress + cordonedOrNotReady) ? refusal('pool unavailable', 'limit', waitReason.poolUnavailable(pool.scope.name, limit.text, inProgress, cordonedOrNotReady)) : undefined;
    },
    admits: (t, node) => {
      const pool = poolOf(t, node);
      return pool && `pool ${pool.scope.name}: maxUnavailable ${limitText(pool.scope.maxUnavailable)}: ${unavailableCounts(pool.count.inProgress, pool.count.cordonedOrNotReady)}`;
    },
    freedBy: { scope: 'pool', unavailable: true },
  },
  // Zones last: a zone cuts across pools, and its limit guards the failure domain once every other rule agrees.
  {
    name: 'zone',
    on: WaitingOn.Zone,
    refuse: (t, node) => {
      const zone = t.scopes.zoneOf.get(node);
      const scope = zone === undefined ? undefined : t.scopes.zones.get(zone);
      const count = zone === undefined ? undefined : t.zones.get(zone);
      if (zone === undefined || scope === undefined || count === undefined) return undefined;
      if (scope.maxUnavailable.kind === 'invalid') return refusal('zone', 'unusable', waitReason.zoneInvalid(zone, scope.maxUnavailable.problem));
      if (t.state.nodesUnavailable.has(node)) return undefined;
      const limit = scope.maxUnavailable;
      return reached(limit, count.inProgress + count.cordonedOrNotReady) ? refusal('zone', 'limit', waitReason.zoneUnavailable(zone, limit.text, count.inProgress, count.cordonedOrNotReady)) : undefined;
    },
    admits: (t, node) => {
      const zone = t.scopes.zoneOf.get(node);
      const scope = t.scopes.zones.get(zone ?? '');
      const count = t.zones.get(zone ?? '');
      return scope && count ? `zone ${scope.zone} (${scope.nodes} nodes): maxUnavailablePerZone ${limitText(scope.maxUnavailable)}: ${unavailableCounts(count.inProgress, count.cordonedOrNotReady)}` : undefined;
    },
    freedBy: { scope: 'zone', unavailable: true },
  },
  // Limits another system defines (SR-IOV pools, issue 22) cover only its own requests; they narrow all of the above.
  {
    name: 'external pool',
    on: WaitingOn.ExternalPool,
    refuse: (t, node) => externalPoolRefusal(t.state.externalPools, t.external, node),
    admits: (t, node) => externalPoolAdmits(t.state.externalPools, t.external, node),
  },
];

/** The first gate's refusal for a request on `node`, or undefined when every gate lets it through. */
export function firstRefusal(tally: Tally, node: string, request?: NodeMaintenance): Refusal | undefined {
  for (const gate of GATES) {
    const why = gate.refuse(tally, node, request);
    if (why !== undefined) return why;
  }
  return undefined;
}

/** What a request this refusal refuses waits on: the `on` of the gate that made it. */
export function refusalWaitsOn(refusal: Refusal): WaitingOn {
  const gate = GATES.find((g) => g.name === refusal.gate);
  if (gate === undefined) throw new SchedulingInvariantError([`a refusal of gate "${refusal.gate}", which is not in GATES`]);
  return gate.on;
}
