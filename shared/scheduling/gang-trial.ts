// Trying a gang against the gates without spending anything: on the walk's counts (does it fit now), on counts with
// nothing in progress (could it ever fit) and on counts once the requests in progress finish (may it hold freed slots).
import type { NodeMaintenance } from '#api';
import { maintenanceKey } from '#api';
import { GATES, recordAdmission, type Gate, type Tally } from './gates.ts';
import type { ScopeCount } from './scopes.ts';

export interface GangRefusal {
  /** The member the gates refused, after the members before it were counted. */
  member: NodeMaintenance;
  /** How many members were counted before it. */
  index: number;
  gate: Gate;
  why: string;
}

type Counts = 'as-is' | 'nothing-in-progress' | 'nothing-unavailable';

function recount(count: ScopeCount, counts: Counts): ScopeCount {
  if (counts === 'as-is') return { ...count };
  return { inProgress: 0, cordonedOrNotReady: counts === 'nothing-unavailable' ? 0 : count.cordonedOrNotReady };
}

/** A copy of the walk's counts, or the counts with nothing in progress (and, for 'nothing-unavailable', nothing cordoned or not ready). */
export function trialTally(tally: Tally, counts: Counts): Tally {
  const { budget } = tally;
  const remap = (m: ReadonlyMap<string, ScopeCount>): Map<string, ScopeCount> => new Map([...m].map(([k, c]) => [k, recount(c, counts)]));
  const cluster = recount(tally.cluster, counts);
  // Every Map is copied: a trial counts into its copy, never into the walk's (issue 30: the external pools' Map was shared).
  if (counts === 'as-is') return { ...tally, cluster, pools: remap(tally.pools), zones: remap(tally.zones), external: new Map(tally.external) };
  const availableSlots = Math.min(budget.maxParallelOperations, tally.state.nodes.size);
  const canBecomeUnavailable = budget.maxUnavailable === 'unlimited' ? availableSlots : Math.max(0, budget.maxUnavailable - cluster.cordonedOrNotReady);
  return {
    ...tally,
    budget: { ...budget, inProgress: 0, unavailable: cluster.cordonedOrNotReady, availableSlots, canBecomeUnavailable },
    admitted: 0,
    newlyUnavailable: 0,
    cluster,
    pools: remap(tally.pools),
    zones: remap(tally.zones),
    // Nothing in progress in the external pools either, as in every other scope: the walk's admissions are not
    // counted, and the pools' own counts are offset to zero (a pass that sees this walk's admissions in progress there
    // must judge the gang the same way, or it would hold slots one pass and not the next).
    external: new Map([...(tally.state.externalPools?.pools.values() ?? [])].map((pool) => [pool.name, -pool.inProgress])),
  };
}

/** The first refusal met admitting `members` one after another on `tally` (which this counts into), or undefined when all pass. */
export function tryGang(tally: Tally, members: readonly NodeMaintenance[]): GangRefusal | undefined {
  for (const [index, member] of members.entries()) {
    const node = member.spec.nodeName;
    for (const gate of GATES) {
      const refused = gate.refuse(tally, node);
      if (refused !== undefined) return { member, index, gate, why: refused.text };
    }
    recordAdmission(tally, node);
  }
  return undefined;
}

export type GangVerdict =
  | { kind: 'fits' }
  /** A count limit refuses it even with nothing else in maintenance: never admitted, never holds slots. */
  | { kind: 'never-fits'; why: string }
  /** Refused now; `reservable` when it fits once the requests in progress finish. */
  | { kind: 'waits'; why: string; reservable: boolean };

/** Judges a gang (members in rank order) on the walk's counts without changing them. */
export function judgeGang(tally: Tally, members: readonly NodeMaintenance[]): GangVerdict {
  const now = tryGang(trialTally(tally, 'as-is'), members);
  if (now === undefined) return { kind: 'fits' };
  const alone = tryGang(trialTally(tally, 'nothing-unavailable'), members);
  // Only a count gate (one something frees) makes a gang too large; windows and unusable values are waits of their own.
  if (alone !== undefined && alone.gate.freedBy !== undefined) return { kind: 'never-fits', why: alone.why };
  const why = now.index === 0 ? now.why : `${now.why} counting ${now.index} of its members, at ${maintenanceKey(now.member)}`;
  return { kind: 'waits', why, reservable: tryGang(trialTally(tally, 'nothing-in-progress'), members) === undefined };
}
