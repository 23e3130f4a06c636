// Which requests kmaint reserves Slurm nodes for (issue 40): at most one kmaint reservation per Kubernetes node, for the
// request that node will serve next, and at most spec.slurm.reservationsPerNamespace per namespace. Without this, every
// waiting request with a not-before made its own reservation: 42 requests on one node shut it to Slurm jobs for a week.
// Ranking is the scheduler's (rankCandidates), never a second copy. Pure.
import type { V1Node } from '@kubernetes/client-node';
import { maintenanceKey, maintenancePhase, Phase, PHASE_UNINITIALIZED, requestNotBefore, type NodeMaintenance } from '../api/index.ts';
import { buildSchedulingState, rankCandidates } from '../scheduling/index.ts';
import { recordedReservation, wantsReservation } from './reservation-rules.ts';
import type { SlurmContext } from './view.ts';

/** spec.slurm.reservationsPerNamespace when unset (the CRD's default too). */
export const DEFAULT_RESERVATIONS_PER_NAMESPACE = 10;

export interface ReservationChoice {
  /** namespace/name of every request that keeps or is to get its node's reservation. */
  holders: ReadonlySet<string>;
  /** Requests that want a reservation (not-before ahead within the horizon) and get none, by namespace/name, with why. */
  refused: ReadonlyMap<string, string>;
}

/** How a request claims its node's reservation; the order is the order claims are granted in. */
type ClaimKind =
  /** Admitted with a reservation Slurm has: kept through its maintenance (it started at not-before). */
  | 'admitted'
  /** Waiting past its not-before with the reservation Slurm has from then: it could start now, kept until its window ends. */
  | 'started'
  /** Waiting for a not-before ahead within the horizon: gets one if next on its node and its namespace is under the cap. */
  | 'ahead';

interface Claim {
  nm: NodeMaintenance;
  key: string;
  kind: ClaimKind;
  /** When it can start (ms): not-before; 0 for an admitted one. */
  start: number;
}

const KIND_ORDER: Readonly<Record<ClaimKind, number>> = { admitted: 0, started: 1, ahead: 2 };

const waiting = (nm: NodeMaintenance): boolean => {
  const phase = maintenancePhase(nm);
  return phase === Phase.Pending || phase === PHASE_UNINITIALIZED;
};

/**
 * Whether Slurm has the reservation `nm` recorded (starting at `startSeconds` when given); true when this pass did not
 * read the reservations (nothing is then created anywhere, so a claim kept on trust costs nothing). Only kmaint creates
 * `kmaint_<namespace>_<name>` reservations, so a requestor's annotations alone never make a claim that blocks others.
 */
function slurmHas(nm: NodeMaintenance, ctx: SlurmContext | undefined, startSeconds?: number): boolean {
  const name = recordedReservation(nm);
  if (name === undefined) return false;
  if (ctx?.kind !== 'on' || ctx.view.kind !== 'ok' || ctx.view.reservations?.kind !== 'ok') return true;
  const existing = ctx.view.reservations.byName.get(name);
  return existing !== undefined && (startSeconds === undefined || existing.startTime === startSeconds);
}

/** The claim `nm` makes on its node's reservation, or undefined. */
function claimOf(nm: NodeMaintenance, ctx: SlurmContext | undefined, now: Date): Claim | undefined {
  if (nm.metadata.deletionTimestamp) return undefined;
  const key = maintenanceKey(nm);
  if (!waiting(nm)) return slurmHas(nm, ctx) ? { nm, key, kind: 'admitted', start: 0 } : undefined;
  const notBefore = requestNotBefore(nm);
  if (notBefore.kind !== 'valid') return undefined;
  const start = notBefore.at.getTime();
  if (wantsReservation(nm, now)) return { nm, key, kind: 'ahead', start };
  if (start <= now.getTime() && slurmHas(nm, ctx, Math.floor(start / 1000))) return { nm, key, kind: 'started', start };
  return undefined;
}

/**
 * The node's reservation goes to the request that can start first there: admitted ones keep theirs, then those whose
 * not-before has come and whose reservation is in place, then the earliest not-before ahead; ties in the scheduler's rank
 * order, then namespace/name. A request refused by its namespace's cap leaves the node to the next one in that order, so
 * a namespace at its cap never keeps another's request unreserved. Requests whose Node is gone claim nothing.
 */
export function chooseReservations(maintenances: readonly NodeMaintenance[], nodes: ReadonlyMap<string, V1Node>, ctx: SlurmContext | undefined, now: Date): ReservationChoice {
  const claims = maintenances.filter((nm) => nodes.has(nm.spec.nodeName)).flatMap((nm) => claimOf(nm, ctx, now) ?? []);
  const state = buildSchedulingState({ nodes: [...nodes.values()], maintenances });
  const rank = new Map(rankCandidates(state, claims.filter((c) => c.kind !== 'admitted').map((c) => c.nm), now).map((nm, i) => [maintenanceKey(nm), i]));
  const order = (a: Claim, b: Claim): number =>
    KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.start - b.start || (rank.get(a.key) ?? 0) - (rank.get(b.key) ?? 0) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  const cap = ctx?.kind === 'on' ? (ctx.settings.reservationsPerNamespace ?? DEFAULT_RESERVATIONS_PER_NAMESPACE) : DEFAULT_RESERVATIONS_PER_NAMESPACE;
  const holders = new Set<string>();
  const refused = new Map<string, string>();
  const nodeTakenBy = new Map<string, string>();
  const perNamespace = new Map<string, number>();
  for (const c of [...claims].sort(order)) {
    const node = c.nm.spec.nodeName;
    const namespace = c.nm.metadata.namespace ?? '';
    const used = perNamespace.get(namespace) ?? 0;
    const taken = nodeTakenBy.get(node);
    if (c.kind === 'ahead' && taken !== undefined) {
      refused.set(c.key, `node ${node} serves ${taken} first, which holds its kmaint reservation`);
      continue;
    }
    if (c.kind === 'ahead' && used >= cap) {
      refused.set(c.key, `namespace ${namespace} already holds ${used} kmaint reservation${used === 1 ? '' : 's'}, its cap (spec.slurm.reservationsPerNamespace: ${cap})`);
      continue;
    }
    // Claims already in place are kept (they end with their request or their window) and count against the cap.
    holders.add(c.key);
    if (taken === undefined) nodeTakenBy.set(node, c.key);
    perNamespace.set(namespace, used + 1);
  }
  return { holders, refused };
}

/** The Kubernetes nodes whose Slurm nodes are to be reserved this pass (pod mode reads their worker pods), sorted. */
export function nodesToReserve(maintenances: readonly NodeMaintenance[], nodes: ReadonlyMap<string, V1Node>, ctx: SlurmContext | undefined, now: Date): string[] {
  const { holders } = chooseReservations(maintenances, nodes, ctx, now);
  const wanted = maintenances.filter((nm) => nodes.has(nm.spec.nodeName) && wantsReservation(nm, now) && holders.has(maintenanceKey(nm)));
  return [...new Set(wanted.map((nm) => nm.spec.nodeName))].sort();
}
